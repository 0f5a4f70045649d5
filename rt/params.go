package rt

import (
	"fmt"
	"slices"
)

// Where a kernel's parameters go.
//
// Generated code packs every kernel's parameters at one layout, the PTX's
// (the natural C layout of their sizes and alignments). The compiled kernel
// usually reads them there, but not always: ptxas aligns a parameter's
// address in the constant bank, and the bank's parameter area starts at an
// address that is 16-byte aligned and no more (0x160 on sm_80, 0x210 on
// sm_90), so a parameter aligned above 16 bytes (struct alignas(64),
// CUtensorMap's .align 128) moves, by how much depending on the target. On
// the H100, bigParam(const __grid_constant__ Big64, u64*) reads its
// parameters at 48 and 112, not at the PTX's 0 and 64. A buffer at the PTX's
// offsets then fails to launch (701) or is read as garbage.
//
// rt learns where the loaded kernel reads its parameters when it binds the
// kernel in a driver (ParamInfoer, cuKernelGetParamInfo) and, where that
// differs from the packed layout with the same count and sizes, has the
// backend place each parameter itself (ParamPlacer: rt/cgo passes the driver
// kernelParams, one pointer per parameter into the packed buffer, and the
// driver puts each where the kernel reads it). A driver that cannot report
// the layout (CUDA before 12.4) gets the same treatment for any kernel with
// a parameter aligned above 16 bytes (ParamSpec.Align), and none for the
// others, whose layout no target changes. Kernels whose layout matches take
// the ordinary launch path, untouched.

// paramBankAlign is the alignment of the constant bank's parameter area:
// parameters aligned up to it sit at their PTX offsets on every target.
const paramBankAlign = 16

// ParamSpec is one kernel parameter's place in the parameter buffer the
// generated code packs, and its size. Align is the parameter's alignment
// where it is above 16 bytes, else 0 (generated code leaves it out): compiled
// code may read such a parameter elsewhere than at Offset, per target, and rt
// then has the backend place it (see Kernel.Placed). A driver reports
// layouts (ParamInfoer) without Align.
type ParamSpec struct {
	Offset, Size uint32
	Align        uint32
}

// Placed reports whether launches of k in d have the backend place each
// parameter where the loaded kernel reads it (ParamPlacer), binding the
// kernel there if it is not yet: because the driver's layout
// (DriverParams) differs from Params in offsets or, with no layout to
// compare, because a parameter is aligned above 16 bytes.
func (k *Kernel) Placed(d Driver) (bool, error) {
	b, err := k.binding(d)
	if err != nil {
		return false, err
	}
	return b.placed, nil
}

// bindLayout checks k's packed layout against the one the driver reports for
// the kernel bound as b, and has the backend place the parameters where the
// two differ in offsets only, or, with no report, where a parameter is
// over-aligned. A different count or size is an error of this kernel alone.
func (k *Kernel) bindLayout(d Driver, b *kernelBinding) error {
	var (
		got   []ParamSpec
		known bool
	)
	if pi, ok := d.(ParamInfoer); ok {
		var err error
		got, err = pi.KernelParamInfo(b.h)
		known = err == nil
	}
	var why string
	switch {
	case known && sameOffsets(got, k.params):
		b.layout = got
		return nil
	case known:
		if err := k.checkParams(got); err != nil {
			return Errorf("rt.Kernel", ErrInvalidValue, "library %s: %v", k.lib.name, err)
		}
		b.layout = got
		why = fmt.Sprintf("the loaded kernel reads its parameters at %s, the generated code packs them at %s", offsets(got), offsets(k.params))
	default:
		i := slices.IndexFunc(k.params, func(p ParamSpec) bool { return p.Align > paramBankAlign })
		if i < 0 {
			return nil // no target moves these parameters
		}
		why = fmt.Sprintf("parameter %d is aligned to %d bytes and backend %s cannot say where the loaded kernel reads it", i, k.params[i].Align, d.Name())
	}
	pp, ok := d.(ParamPlacer)
	if !ok {
		return Errorf("rt.Kernel", ErrNotSupported, "library %s: kernel %s: %s, and backend %s cannot place parameters (rt.ParamPlacer)",
			k.lib.name, k.name, why, d.Name())
	}
	if err := pp.PlaceParams(b.h, k.params); err != nil {
		return fmt.Errorf("rt: library %s: kernel %s: %s: %w", k.lib.name, k.name, why, err)
	}
	b.placed = true
	return nil
}

// checkParams reports a driver's layout that differs from the declared one
// in more than offsets: such a package is stale.
func (k *Kernel) checkParams(got []ParamSpec) error {
	if len(got) != len(k.params) {
		return fmt.Errorf("kernel %s: the image has %d parameters, the generated code %d (regenerate with cugen)", k.name, len(got), len(k.params))
	}
	for i, p := range k.params {
		if got[i].Size != p.Size {
			return fmt.Errorf("kernel %s: parameter %d is at offset %d size %d in the image, at offset %d size %d in the generated code (regenerate with cugen)",
				k.name, i, got[i].Offset, got[i].Size, p.Offset, p.Size)
		}
	}
	return nil
}

// sameOffsets reports whether a and b put the same number of parameters at
// the same offsets with the same sizes (Align aside).
func sameOffsets(a, b []ParamSpec) bool {
	return slices.EqualFunc(a, b, func(x, y ParamSpec) bool { return x.Offset == y.Offset && x.Size == y.Size })
}

// offsets renders a layout as "0:8 48:64 112:8" (offset:size).
func offsets(ps []ParamSpec) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%d:%d", p.Offset, p.Size)
	}
	return s
}
