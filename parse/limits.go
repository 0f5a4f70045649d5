package parse

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cugen/cugen/parse/fatbin"
)

// The limits on what an input may make cugen do: CUDA's on parameter
// blocks, and cugen's on how far compressed entries may inflate.

// CUDA's limits on a kernel's parameter block: cuLaunchKernel refuses a
// larger one. CUDA 12.1 raised the limit from 4,096 bytes to 32,764 bytes on
// sm_70 and later; rt.MaxParamBlock is the same number.
const (
	MaxParamBlock         = 32764
	MaxParamBlockPreVolta = 4096
)

// ParamLimit is the parameter-block limit of a target ("sm_90", "sm_90a",
// "compute_60"); a target it cannot read gets MaxParamBlock.
func ParamLimit(arch string) int {
	_, num, _ := strings.Cut(arch, "_")
	sm, err := strconv.Atoi(strings.TrimRight(num, "af"))
	if err == nil && sm < 70 {
		return MaxParamBlockPreVolta
	}
	return MaxParamBlock
}

// Launchable reports whether some device can launch k: its parameter block
// is within MaxParamBlock in every layout. A kernel beyond it has no Go
// function (gen skips it); Read says so in a warning.
func (k *Kernel) Launchable() bool { return k.MaxParamSize() <= MaxParamBlock }

// MaxParamSize is k's largest parameter block over its targets' layouts.
func (k *Kernel) MaxParamSize() int {
	n := k.ParamSize
	for _, l := range k.Layouts {
		n = max(n, l.ParamSize)
	}
	return n
}

// paramSizeOn is k's parameter block in the code for target arch.
func (k *Kernel) paramSizeOn(arch string) int {
	for _, l := range k.Layouts {
		if slices.Contains(l.Arches, arch) {
			return l.ParamSize
		}
	}
	return k.ParamSize
}

// checkParamBlocks warns about each kernel whose parameter block exceeds
// the limit of a target it is compiled for: one warning per kernel, so that
// one kernel never fails the input.
func checkParamBlocks(m *Module) {
	for _, k := range m.Kernels {
		if !k.Launchable() {
			m.Warnings = append(m.Warnings, fmt.Sprintf("kernel %s: parameter block of %d bytes exceeds CUDA's limit of %d bytes (sm_70 and later; %d before): no Go function is generated for it",
				k.Name, k.MaxParamSize(), MaxParamBlock, MaxParamBlockPreVolta))
			continue
		}
		arches := k.Arches
		if len(arches) == 0 {
			arches = m.Arches
		}
		var over []string
		size := 0
		for _, a := range arches {
			if n := k.paramSizeOn(a); n > ParamLimit(a) {
				over = append(over, a)
				size = max(size, n)
			}
		}
		if len(over) > 0 {
			m.Warnings = append(m.Warnings, fmt.Sprintf("kernel %s: parameter block of %d bytes exceeds the %d bytes CUDA allows before sm_70: it does not launch from %s",
				k.Name, size, MaxParamBlockPreVolta, strings.Join(over, ", ")))
		}
	}
}

// maxInflation bounds the bytes a run decompresses from fatbin entries, in
// all: this many times the containers' own bytes, plus one entry of
// fatbin.MaxDataSize. nvcc's LZ4 and zstd entries inflate 3 to 10 times;
// 16 entries of RLE blocks, 133 KB that inflate to 4 GiB, do not pass.
const maxInflation = 64

// checkInflation refuses, before decoding any, entries whose declared
// decompressed sizes add up to more than maxInflation times the fatbins
// holding them: the memory budget bounds what decompression holds at once,
// this bounds the work. The entry named is the first past the limit in file
// order.
func checkInflation(name string, fbs []*fatbin.Fatbin, entries []keptEntry) error {
	var stored int64
	for _, fb := range fbs {
		stored += fb.Size()
	}
	limit := uint64(stored)*maxInflation + fatbin.MaxDataSize
	var total uint64
	for _, e := range entries {
		if e.Compression() == fatbin.CompressNone {
			continue
		}
		total += min(e.UncompressedSize, 1<<62)
		if total > limit {
			return fmt.Errorf("%s: entry %s at offset %#x: the compressed entries so far inflate to %d bytes, more than %d times the %d bytes of fatbin plus %d",
				name, e.Target(), e.Offset, total, maxInflation, stored, fatbin.MaxDataSize)
		}
	}
	return nil
}
