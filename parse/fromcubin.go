package parse

import (
	"fmt"

	"github.com/cugen/cugen/parse/cubin"
	"github.com/cugen/cugen/parse/fatbin"
)

// FromCubin builds the model of one cubin; arch names its target ("sm_90").
// A cubin records parameter offsets and sizes but no types: C++ kernels get
// their types from the mangled name, extern "C" ones are typed by width.
// Parameters are in the canonical layout (see Kernel); a kernel whose cubin
// places them elsewhere lists the cubin's layout in Layouts.
func FromCubin(f *cubin.File, arch string, image []byte) (*Module, error) {
	mod, err := modelCubin(f, arch, image)
	if err != nil {
		return nil, err
	}
	for _, k := range mod.Kernels {
		settleLayout(k, []observedLayout{observe(k, arch)})
	}
	typeKernels(mod)
	return mod, nil
}

// modelCubin is FromCubin with the parameters where the cubin puts them,
// and without C++ types: a fatbin's model settles both after merging.
func modelCubin(f *cubin.File, arch string, image []byte) (*Module, error) {
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
	end := 0 // of the previous parameter
	for i, cp := range ck.Params {
		if cp.Ordinal != i {
			return nil, fmt.Errorf("%s: kernel %s: parameter ordinals are not 0..%d", arch, ShortName(ck.Name), len(ck.Params)-1)
		}
		p := &Param{Ordinal: i, Offset: int(cp.Offset), Size: int(cp.Size), Align: inferAlign(int(ck.ParamBase), end, int(cp.Offset), int(cp.Size))}
		end = p.Offset + p.Size
		switch p.Size {
		case 1, 2, 4, 8:
			p.PTXType = fmt.Sprintf("b%d", p.Size*8)
		default:
			p.PTXType, p.ArrayLen = "b8", p.Size
		}
		k.Params = append(k.Params, p)
	}
	return k, nil
}

// inferAlign infers a parameter's alignment from where a cubin puts it (the
// cubin does not record it). base is the parameter area's address in
// constant bank 0 and end the end of the previous parameter. Padding before
// the parameter bounds its alignment from below: the compiled code aligns
// the address, so an over-aligned parameter moves with base, and the
// smallest power of two that rounds base+end up to base+off is taken (a
// fatbin's model takes the largest any of its cubins needs). Without
// padding it is a guess: the largest power of two ≤ 16 that divides
// base+off and does not exceed the size rounded up to a power of two.
func inferAlign(base, end, off, size int) int {
	if off > end {
		for a := 2; a <= 1<<12; a *= 2 {
			if alignUp(base+end, a) == base+off {
				return a
			}
		}
	}
	a := 1
	for a < 16 && a < size && (base+off)%(a*2) == 0 {
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
