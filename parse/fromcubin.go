package parse

import (
	"fmt"

	"github.com/cugen/cugen/parse/cubin"
	"github.com/cugen/cugen/parse/fatbin"
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
