package soft

import (
	"slices"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

// paramMove copies one parameter from where a launch's buffer packs it to
// its PTX offset, where the kernel reads it.
type paramMove struct{ from, to, size uint32 }

// PlaceParams is rt.ParamPlacer: launches of k pass buffers packed at
// packed, and each launch copies every parameter to its PTX offset. The
// layout must have the kernel's parameter count and sizes.
func (d *Driver) PlaceParams(k rt.KernelHandle, packed []rt.ParamSpec) error {
	const op = "PlaceParams"
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.kernels[k]
	if p == nil {
		return rt.Errorf(op, rt.ErrInvalidHandle, "kernel handle %#x is not loaded", uintptr(k))
	}
	offs, _ := exec.LayoutParams(p.Func.Params, 0)
	if len(packed) != len(offs) {
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s has %d parameters, the layout %d", p.Name, len(offs), len(packed))
	}
	moves := make([]paramMove, len(offs))
	for i, q := range p.Func.Params {
		size, _ := exec.ParamSize(q)
		if packed[i].Size != size {
			return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: parameter %d is %d bytes, the layout says %d", p.Name, i, size, packed[i].Size)
		}
		moves[i] = paramMove{from: packed[i].Offset, to: offs[i], size: size}
	}
	if old, ok := d.placed[k]; ok {
		if !slices.Equal(old, moves) {
			return rt.Errorf(op, rt.ErrNotPermitted, "kernel %s is placed from other offsets already", p.Name)
		}
		return nil
	}
	if d.placed == nil {
		d.placed = map[rt.KernelHandle][]paramMove{}
	}
	d.placed[k] = moves
	return nil
}

// placeArgs is la as kernel k, program p, reads it: la itself, or, for a
// placed kernel, la with its buffer laid out as p's PTX has it (launches
// and graph node updates alike).
func (d *Driver) placeArgs(op string, k rt.KernelHandle, p *exec.Program, la rt.LaunchArgs) (rt.LaunchArgs, error) {
	d.mu.Lock()
	moves := d.placed[k]
	d.mu.Unlock()
	if moves == nil {
		return la, nil
	}
	return place(op, p, moves, la)
}

// place returns la with its buffer laid out as p's PTX has it, from the
// packed buffer moves describe.
func place(op string, p *exec.Program, moves []paramMove, la rt.LaunchArgs) (rt.LaunchArgs, error) {
	src := unsafe.Slice((*byte)(la.Params), la.ParamSize)
	buf := make([]byte, p.ParamSize)
	for i, m := range moves {
		if uint64(m.from)+uint64(m.size) > uint64(len(src)) {
			return la, rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: parameter %d at %d (%d bytes) is past the %d-byte buffer", p.Name, i, m.from, m.size, len(src))
		}
		copy(buf[m.to:m.to+m.size], src[m.from:])
	}
	la.ParamSize = uintptr(len(buf))
	la.Params = nil
	if len(buf) > 0 {
		la.Params = unsafe.Pointer(&buf[0])
	}
	return la, nil
}
