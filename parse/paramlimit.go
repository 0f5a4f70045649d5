package parse

import (
	"fmt"
	"strconv"
	"strings"
)

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
// is within MaxParamBlock. A kernel beyond it has no Go function (gen skips
// it); Read says so in a warning.
func (k *Kernel) Launchable() bool { return k.ParamSize <= MaxParamBlock }

// checkParamBlocks warns about each kernel whose parameter block exceeds
// the limit of a target it is compiled for: one warning per kernel, so that
// one kernel never fails the input.
func checkParamBlocks(m *Module) {
	for _, k := range m.Kernels {
		if !k.Launchable() {
			m.Warnings = append(m.Warnings, fmt.Sprintf("kernel %s: parameter block of %d bytes exceeds CUDA's limit of %d bytes (sm_70 and later; %d before): no Go function is generated for it",
				k.Name, k.ParamSize, MaxParamBlock, MaxParamBlockPreVolta))
			continue
		}
		arches := k.Arches
		if len(arches) == 0 {
			arches = m.Arches
		}
		var over []string
		for _, a := range arches {
			if k.ParamSize > ParamLimit(a) {
				over = append(over, a)
			}
		}
		if len(over) > 0 {
			m.Warnings = append(m.Warnings, fmt.Sprintf("kernel %s: parameter block of %d bytes exceeds the %d bytes CUDA allows before sm_70: it does not launch from %s",
				k.Name, k.ParamSize, MaxParamBlockPreVolta, strings.Join(over, ", ")))
		}
	}
}
