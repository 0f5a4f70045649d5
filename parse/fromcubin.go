package parse

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/cugen/cugen/parse/cubin"
	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/ptx"
)

// FromCubin builds the model of one cubin; arch names its target ("sm_90").
// A cubin records parameter offsets and sizes but no types: C++ kernels get
// their types from the mangled name, extern "C" ones are typed by width.
func FromCubin(f *cubin.File, arch string, image []byte) (*Module, error) {
	mod := &Module{Format: fatbin.FormatCubin, Arches: []string{arch}, Image: image}
	for _, ck := range f.Kernels {
		k, err := kernelFromCubin(ck, arch)
		if err != nil {
			return nil, err
		}
		mod.Kernels = append(mod.Kernels, k)
	}
	for _, cg := range f.Globals {
		mod.Globals = append(mod.Globals, globalFromCubin(cg))
	}
	mod.Warnings = append(mod.Warnings, noPTXWarning)
	sortModule(mod)
	return mod, nil
}

const noPTXWarning = "no PTX entry: rt/soft cannot run this image (add PTX, e.g. nvcc -gencode arch=compute_90,code=compute_90)"

func kernelFromCubin(ck *cubin.Kernel, arch string) (*Kernel, error) {
	k := &Kernel{
		Name:            ck.Name,
		MaxThreads:      dims(ck.MaxThreads),
		ReqThreads:      dims(ck.ReqNTID),
		ClusterDims:     dims(ck.ClusterDim),
		ExplicitCluster: ck.ExplicitCluster,
		MaxClusterRank:  int(ck.MaxClusterRank),
		ParamSize:       int(ck.ParamSize),
		Regs:            map[string]int{arch: int(ck.RegCount)},
	}
	if ck.MaxRegCount != 0 && ck.MaxRegCount != 0xff {
		k.MaxRegs = int(ck.MaxRegCount)
	}
	for i, cp := range ck.Params {
		if cp.Ordinal != i {
			return nil, fmt.Errorf("%s: kernel %s: parameter ordinals are not 0..%d", arch, ck.Name, len(ck.Params)-1)
		}
		p := &Param{Ordinal: i, Offset: int(cp.Offset), Size: int(cp.Size), Align: inferAlign(int(cp.Offset), int(cp.Size))}
		switch p.Size {
		case 1, 2, 4, 8:
			p.PTXType = fmt.Sprintf("b%d", p.Size*8)
		default:
			p.PTXType, p.ArrayLen = "b8", p.Size
		}
		k.Params = append(k.Params, p)
	}
	if err := typeKernel(k); err != nil {
		return nil, fmt.Errorf("%s: %v", arch, err)
	}
	return k, nil
}

// inferAlign guesses a parameter's alignment from its offset and size (the
// cubin does not record it): the largest power of two ≤ 16 that divides the
// offset and does not exceed the size rounded up to a power of two.
func inferAlign(off, size int) int {
	a := 1
	for a < 16 && a < size && off%(a*2) == 0 {
		a *= 2
	}
	return a
}

func dims(d cubin.Dim3) [3]int {
	if d.X == 0 && d.Y == 0 && d.Z == 0 {
		return [3]int{}
	}
	return [3]int{int(d.X), int(d.Y), int(d.Z)}
}

func globalFromCubin(cg *cubin.Global) *Global {
	g := &Global{Name: cg.Name, Space: SpaceGlobal, Managed: cg.Managed, PTXType: "b8",
		ElemSize: 1, Count: int(cg.Size), Size: int(cg.Size), Align: 1, Init: trimZeros(cg.Init)}
	if cg.Space == cubin.SpaceConst {
		g.Space = SpaceConst
	}
	return g
}

func trimZeros(b []byte) []byte {
	end := len(b)
	for end > 0 && b[end-1] == 0 {
		end--
	}
	if end == 0 {
		return nil
	}
	return append([]byte(nil), b[:end]...)
}

// FromFatbins builds one model from the entries of fatbins: the PTX gives
// types and directives, every cubin is cross-checked against it, and kernels
// missing from some targets say which ones they exist for. image is what the
// generated package embeds (a standalone fatbin of the kept entries).
func FromFatbins(name string, fbs []*fatbin.Fatbin, opts Options) (*Module, error) {
	keep := func(e *fatbin.Entry) bool {
		if len(opts.Arches) == 0 {
			return true
		}
		for _, a := range opts.Arches {
			if a == e.Target() {
				return true
			}
		}
		return false
	}
	var entries []*fatbin.Entry
	from := map[*fatbin.Entry]int{} // entry → index of its fatbin
	for i, fb := range fbs {
		for _, e := range fb.Entries {
			if keep(e) {
				entries = append(entries, e)
				from[e] = i
			}
		}
	}
	if len(entries) == 0 {
		var all []string
		for _, fb := range fbs {
			for _, e := range fb.Entries {
				all = append(all, e.Target())
			}
		}
		return nil, fmt.Errorf("%s: -arch %s keeps none of the entries (%s)", name, strings.Join(opts.Arches, ","), strings.Join(all, " "))
	}

	type part struct {
		arch string
		mod  *Module
	}
	useful := map[int]bool{} // fatbins whose entries define kernels or variables
	var ptxParts, elfParts []part
	mod := &Module{Source: name, Format: fatbin.FormatFatbin}
	hasELF := false
	for _, e := range entries {
		hasELF = hasELF || e.Kind == fatbin.KindELF
	}
	// Decode every entry in parallel (decompression and parsing dominate on
	// large libraries), then merge in entry order so the result does not
	// depend on scheduling.
	decoded := make([]decodedEntry, len(entries))
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				decoded[i] = decodeEntry(name, entries[i])
			}
		}()
	}
	for i := range entries {
		work <- i
	}
	close(work)
	wg.Wait()
	for i, e := range entries {
		d := decoded[i]
		mod.Arches = append(mod.Arches, d.arch)
		switch {
		case d.err != nil && e.Kind == fatbin.KindPTX && hasELF:
			// The cubins still describe the kernels; say what was skipped.
			mod.Warnings = append(mod.Warnings, fmt.Sprintf("PTX entry %s at offset %#x skipped: %v", d.arch, e.Offset, d.err))
			continue
		case d.err != nil:
			return nil, d.err
		case d.mod == nil:
			continue // LTO-IR: obfuscated NVVM bitcode, present but unreadable
		}
		if len(d.mod.Kernels)+len(d.mod.Globals) > 0 {
			useful[from[e]] = true
		}
		if e.Kind == fatbin.KindPTX {
			ptxParts = append(ptxParts, part{d.arch, d.mod})
		} else {
			elfParts = append(elfParts, part{d.arch, d.mod})
		}
	}
	parts := append(ptxParts, elfParts...) // PTX first: it carries the types
	if len(ptxParts) == 0 {
		mod.Warnings = append(mod.Warnings, noPTXWarning)
	}

	kernels := map[string]*Kernel{}
	present := map[string][]string{}
	for _, pt := range parts {
		for _, k := range pt.mod.Kernels {
			present[k.Name] = append(present[k.Name], pt.arch)
			base, ok := kernels[k.Name]
			if !ok {
				c := *k
				c.Regs = nil
				kernels[k.Name] = &c
				base = &c
			} else if err := sameLayout(base, k, pt.arch); err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
			for a, r := range k.Regs {
				if base.Regs == nil {
					base.Regs = map[string]int{}
				}
				base.Regs[a] = r
			}
		}
		for _, g := range pt.mod.Globals {
			if mod.Global(g.Name) == nil {
				mod.Globals = append(mod.Globals, g)
			}
		}
	}
	for n, k := range kernels {
		if len(present[n]) < len(parts) {
			k.Arches = present[n]
			sort.Strings(k.Arches)
		}
		mod.Kernels = append(mod.Kernels, k)
	}
	sortModule(mod)

	// The image: the input fatbin itself when nothing was dropped, else a
	// standalone fatbin of the kept entries of the fatbins that define
	// something (a shared library's device-link stub defines nothing, and a
	// duplicate target in one fatbin would hide the real one from the loader).
	switch {
	case opts.NoImage:
	case len(fbs) == 1 && len(entries) == len(fbs[0].Entries):
		mod.Image = fbs[0].Raw
	default:
		var img []*fatbin.Entry
		seen := map[string]bool{}
		dup := false
		for _, e := range entries {
			if useful[from[e]] {
				img = append(img, e)
				dup = dup || seen[e.Target()]
				seen[e.Target()] = true
			}
		}
		if dup {
			mod.Warnings = append(mod.Warnings, "several fatbins define code for the same target; the loader uses the first matching entry")
		}
		mod.Image = fatbin.Build(img)
	}
	mod.Arches = uniqueSorted(mod.Arches)
	return mod, nil
}

// sameLayout reports a parameter-layout disagreement between two decodings
// of one kernel (PTX vs a cubin, or two cubins).
func sameLayout(a, b *Kernel, arch string) error {
	if len(a.Params) != len(b.Params) {
		return fmt.Errorf("kernel %s: %d parameters in %s, %d in another entry", a.Name, len(b.Params), arch, len(a.Params))
	}
	for i := range a.Params {
		pa, pb := a.Params[i], b.Params[i]
		if pa.Offset != pb.Offset || pa.Size != pb.Size {
			return fmt.Errorf("kernel %s: parameter %d is at offset %d size %d in %s, at offset %d size %d in another entry",
				a.Name, i, pb.Offset, pb.Size, arch, pa.Offset, pa.Size)
		}
	}
	if a.ParamSize != b.ParamSize && b.ParamSize != 0 {
		return fmt.Errorf("kernel %s: parameter block is %d bytes in %s, %d in another entry", a.Name, b.ParamSize, arch, a.ParamSize)
	}
	return nil
}

func uniqueSorted(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

type decodedEntry struct {
	arch string
	mod  *Module
	err  error
}

// decodeEntry builds the model of one fatbin entry. PTX is read for its
// headers only: the model needs signatures and variables, not statements.
func decodeEntry(name string, e *fatbin.Entry) decodedEntry {
	d := decodedEntry{arch: e.Target()}
	switch e.Kind {
	case fatbin.KindPTX:
		text, err := e.Data()
		if err != nil {
			d.err = fmt.Errorf("%s: entry %s at offset %#x: %w", name, d.arch, e.Offset, err)
			return d
		}
		pm, err := ptx.ParseHeaders(fmt.Sprintf("%s[%s]", name, d.arch), text)
		if err == nil {
			d.mod, err = FromPTX(pm, nil)
		}
		d.err = err
	case fatbin.KindELF:
		data, err := e.Data()
		if err != nil {
			d.err = fmt.Errorf("%s: entry %s at offset %#x: %w", name, d.arch, e.Offset, err)
			return d
		}
		cf, err := cubin.Parse(data)
		if err != nil {
			d.err = fmt.Errorf("%s: entry %s at offset %#x: %w", name, d.arch, e.Offset, err)
			return d
		}
		if d.mod, err = FromCubin(cf, d.arch, nil); err != nil {
			d.err = fmt.Errorf("%s: %w", name, err)
		}
	}
	return d
}
