//go:build cgo

package cgo

import (
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/cgo/internal/cbench"
)

// The C loops the launch- and graph-cost tests compare with
// (rt/cgo/internal/cbench), over this Driver's handles.

func shim() cbench.Shim {
	l, p, s := shimEntries()
	return cbench.Shim{Launch: l, LaunchPlaced: p, ExecKernelSet: s}
}

func cbErr(op string, rc int) error {
	if rc != 0 {
		return rt.Errorf(op, rt.Result(rc), "")
	}
	return nil
}

// fnOf is kernel h's CUfunction (for a placed kernel, its CUkernel cast to
// one, as launches do), and its CUkernel.
func (d *Driver) fnOf(h rt.KernelHandle) (fn, kern uintptr, err error) {
	k := d.kernels.get(uintptr(h))
	if k == nil {
		return 0, 0, rt.Errorf("cbench", rt.ErrInvalidHandle, "kernel handle %d", h)
	}
	fn, kern = uintptr(unsafe.Pointer(k.fn)), uintptr(unsafe.Pointer(k.k))
	if fn == 0 {
		fn = kern
	}
	return fn, kern, nil
}

// cLoopVecAdd launches the vecAdd-shaped kernel h count times from C on
// stream s and returns the C-measured time. With extra set, the C loop
// passes a packed buffer the way rt/cgo does, which separates the driver's
// cost for that form from cgo's.
func (d *Driver) cLoopVecAdd(h rt.KernelHandle, s rt.StreamHandle, a, b, c rt.DevPtr, n int32, count int, extra bool) (time.Duration, error) {
	fn, _, err := d.fnOf(h)
	if err != nil {
		return 0, err
	}
	t, rc := cbench.VecAdd(fn, uintptr(s), uint64(a), uint64(b), uint64(c), n, count, extra)
	return t, cbErr("cuLaunchKernel (C loop)", rc)
}

// cLoopShim times count launches of the shim's launch from a C loop.
func (d *Driver) cLoopShim(h rt.KernelHandle, s rt.StreamHandle, params *[28]byte, count int) (time.Duration, error) {
	fn, _, err := d.fnOf(h)
	if err != nil {
		return 0, err
	}
	t, rc := cbench.ShimLoop(shim(), fn, uintptr(s), unsafe.Pointer(params), count)
	return t, cbErr("cg_launch (C loop)", rc)
}

// crossings launches count times from Go, one C loop call of one launch
// each, adding extra empty cgo calls after each launch: with extra = 1 minus
// extra = 0, the cost of one crossing in the cache state a launch leaves.
func (d *Driver) crossings(h rt.KernelHandle, s rt.StreamHandle, a rt.DevPtr, count, extra int) (time.Duration, error) {
	fn, _, err := d.fnOf(h)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	for i := 0; i < count; i++ {
		if _, rc := cbench.VecAdd(fn, uintptr(s), uint64(a), uint64(a), uint64(a), 32, 1, false); rc != 0 {
			return 0, cbErr("cuLaunchKernel (C loop)", rc)
		}
		for j := 0; j < extra; j++ {
			cbench.Noop()
		}
	}
	return time.Since(t0), nil
}

// cLoopTouch is the shim's C loop reading touch cold cache lines of pool
// after each launch.
func (d *Driver) cLoopTouch(h rt.KernelHandle, s rt.StreamHandle, params *[28]byte, count int, pool []byte, touch int) (time.Duration, error) {
	fn, _, err := d.fnOf(h)
	if err != nil {
		return 0, err
	}
	t, rc := cbench.Touch(shim(), fn, uintptr(s), unsafe.Pointer(params), count, pool, touch)
	return t, cbErr("cg_launch (C loop)", rc)
}

// cNoops makes count empty cgo calls: the Go→C transition cost alone.
func cNoops(count int) time.Duration { return cbench.Noops(count) }

// shimLaunches calls the shim's launch from a Go loop: rt/cgo's C side and
// the cgo transition, without Driver.Launch's Go code.
func (d *Driver) shimLaunches(h rt.KernelHandle, s rt.StreamHandle, params *[28]byte, count int) (time.Duration, error) {
	fn, _, err := d.fnOf(h)
	if err != nil {
		return 0, err
	}
	sh := shim()
	t0 := time.Now()
	for i := 0; i < count; i++ {
		if rc := cbench.ShimOnce(sh, fn, uintptr(s), unsafe.Pointer(params)); rc != 0 {
			return 0, cbErr("cg_launch", rc)
		}
	}
	return time.Since(t0), nil
}

// placeLoop times count launches of kernel h on stream s from C, with a
// packed buffer at layout ps placed one of the two ways: kernelParams (what
// placed kernels do) or, with repack, a copy to a stack buffer at the same
// offsets, passed as any buffer is.
func (d *Driver) placeLoop(h rt.KernelHandle, s rt.StreamHandle, params unsafe.Pointer, ps []rt.ParamSpec, count int, repack bool) (time.Duration, error) {
	_, kern, err := d.fnOf(h)
	if err != nil {
		return 0, err
	}
	offs := make([]uint32, len(ps))
	sizes := make([]uint32, len(ps))
	var total uint32
	for i, p := range ps {
		offs[i], sizes[i] = p.Offset, p.Size
		total = max(total, p.Offset+p.Size)
	}
	var t time.Duration
	var rc int
	if repack {
		t, rc = cbench.Repack(shim(), kern, uintptr(s), params, offs, offs, sizes, total, count)
	} else {
		t, rc = cbench.Placed(shim(), kern, uintptr(s), params, offs, count)
	}
	return t, cbErr("placed launch (C loop)", rc)
}

// cGraphLoop times count launches of the vecAdd-shaped kernel h on s from
// a C loop, and the synchronize after them.
func (d *Driver) cGraphLoop(h rt.KernelHandle, s rt.StreamHandle, a, b, c rt.DevPtr, n int32, count int) (time.Duration, error) {
	fn, _, err := d.fnOf(h)
	if err != nil {
		return 0, err
	}
	t, rc := cbench.GraphLoop(fn, uintptr(s), uint64(a), uint64(b), uint64(c), n, count)
	return t, cbErr("cuLaunchKernel (C loop)", rc)
}

// cGraphReplay times one launch of x on s from C, and the synchronize.
func cGraphReplay(x rt.GraphExecHandle, s rt.StreamHandle) (time.Duration, error) {
	t, rc := cbench.GraphReplay(uintptr(x), uintptr(s))
	return t, cbErr("cuGraphLaunch (C)", rc)
}

func nodeValues(nodes []rt.GraphNodeHandle) []uintptr {
	out := make([]uintptr, len(nodes))
	for i, n := range nodes {
		out[i] = uintptr(n)
	}
	return out
}

// cGraphUpdate times a C loop of one cuGraphExecKernelNodeSetParams per node.
func (d *Driver) cGraphUpdate(x rt.GraphExecHandle, nodes []rt.GraphNodeHandle, h rt.KernelHandle, ctx rt.CtxHandle, a, b, c rt.DevPtr, n int32) (time.Duration, error) {
	_, kern, err := d.fnOf(h)
	if err != nil {
		return 0, err
	}
	t, rc := cbench.GraphUpdate(uintptr(x), nodeValues(nodes), kern, uintptr(ctx), uint64(a), uint64(b), uint64(c), n)
	return t, cbErr("cuGraphExecKernelNodeSetParams (C loop)", rc)
}

// cGraphUpdateShim times a C loop of the shim's update, one per node.
func (d *Driver) cGraphUpdateShim(x rt.GraphExecHandle, nodes []rt.GraphNodeHandle, h rt.KernelHandle, ctx rt.CtxHandle, params [28]byte) (time.Duration, error) {
	_, kern, err := d.fnOf(h)
	if err != nil {
		return 0, err
	}
	t, rc := cbench.GraphUpdateShim(shim(), uintptr(x), nodeValues(nodes), kern, uintptr(ctx), params)
	return t, cbErr("cgx_exec_kernel_set (C loop)", rc)
}
