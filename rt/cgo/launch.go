//go:build cgo

package cgo

/*
// The launch wrappers neither keep the parameter buffer nor call back into
// Go: noescape lets a caller's stack buffer stay on the stack, nocallback
// lets cgo skip the callback bookkeeping on the hot path.
#cgo noescape cg_launch
#cgo nocallback cg_launch
#cgo noescape cg_launch_ex
#cgo nocallback cg_launch_ex
// The legacy launch path asks for contexts through out-parameters that C
// does not keep either.
#cgo noescape cg_stream_ctx
#cgo noescape cg_ctx_get_current
#include "shim.h"
*/
import "C"

import (
	"fmt"

	"github.com/cugen/cugen/rt"
)

// Launch is cuLaunchKernel with the kernel's CUkernel handle, or
// cuLaunchKernelEx when l asks for a cluster shape or a cooperative launch.
// Grid is in blocks (with a cluster it must be a multiple of Cluster).
// A launch with a Stream runs in the stream's context and makes no context
// current; with Stream 0 it runs on Ctx's NULL stream (made current for the
// call), or with Ctx 0 too, on the calling thread's current context.
//
// The parameter buffer is read before Launch returns and never retained. A
// launch allocates nothing on the context-independent path.
func (d *Driver) Launch(h rt.KernelHandle, l rt.LaunchArgs) error {
	k := d.kernels.get(uintptr(h))
	if k == nil || k.dead.Load() {
		return d.badKernel(h, k)
	}
	if l.ParamSize > 0 && l.Params == nil {
		return rt.Errorf("cuLaunchKernel", rt.ErrInvalidValue, "kernel %s: %d parameter bytes but no buffer", k.name, l.ParamSize)
	}
	fn := k.fn
	if k.lib.legacy {
		var err error
		if fn, err = d.legacyLaunchFunc(k, l); err != nil {
			return err
		}
	}
	var ctx C.CUcontext
	if l.Stream == 0 {
		ctx = cctx(l.Ctx)
	}
	g, b := l.Grid.Norm(), l.Block.Norm()
	var rc C.int
	if l.Cluster == (rt.Dim3{}) && !l.Cooperative {
		rc = C.cg_launch(fn, ctx, C.uint(g.X), C.uint(g.Y), C.uint(g.Z), C.uint(b.X), C.uint(b.Y), C.uint(b.Z),
			C.uint(l.SharedMem), cstream(l.Stream), l.Params, C.size_t(l.ParamSize))
		if rc != 0 {
			return launchErr("cuLaunchKernel", rc, k, l)
		}
		return nil
	}
	rc = C.cg_launch_ex(fn, ctx, C.uint(g.X), C.uint(g.Y), C.uint(g.Z), C.uint(b.X), C.uint(b.Y), C.uint(b.Z),
		C.uint(l.SharedMem), cstream(l.Stream), l.Params, C.size_t(l.ParamSize),
		C.uint(l.Cluster.X), C.uint(l.Cluster.Y), C.uint(l.Cluster.Z), b2i(l.Cooperative))
	if rc != 0 {
		return launchErr("cuLaunchKernelEx", rc, k, l)
	}
	return nil
}

// launchErr is kept out of Launch's body so that building the detail string
// costs nothing on the success path.
func launchErr(op string, rc C.int, k *kernel, l rt.LaunchArgs) error {
	detail := fmt.Sprintf("kernel %s, grid %v, block %v, %d shared bytes, %d parameter bytes",
		k.name, l.Grid.Norm(), l.Block.Norm(), l.SharedMem, l.ParamSize)
	if l.Cluster != (rt.Dim3{}) {
		detail += fmt.Sprintf(", cluster %v", l.Cluster.Norm())
	}
	if l.Cooperative {
		detail += ", cooperative"
	}
	return k.lib.withLog(checkd(op, rc, detail))
}

func (d *Driver) badKernel(h rt.KernelHandle, k *kernel) error {
	if k == nil {
		return rt.Errorf("cuLaunchKernel", rt.ErrInvalidHandle, "unknown KernelHandle %d", h)
	}
	return rt.Errorf("cuLaunchKernel", rt.ErrInvalidHandle, "kernel %s: its library was unloaded", k.name)
}

// legacyLaunchFunc finds the context a legacy launch runs in (the stream's,
// Ctx, or the current one) and k's CUfunction there.
func (d *Driver) legacyLaunchFunc(k *kernel, l rt.LaunchArgs) (C.CUfunction, error) {
	var ctx C.CUcontext
	switch {
	case l.Stream != 0:
		if rc := C.cg_stream_ctx(cstream(l.Stream), &ctx); rc != 0 {
			return nil, check("cuStreamGetCtx", rc)
		}
	case l.Ctx != 0:
		ctx = cctx(l.Ctx)
	default:
		var err error
		if ctx, err = currentCtx("cuLaunchKernel"); err != nil {
			return nil, err
		}
	}
	lib := k.lib
	lib.mu.Lock()
	defer lib.mu.Unlock()
	if lib.unloaded {
		return nil, d.badKernel(0, k)
	}
	return d.legacyFunc(lib, k, ctx)
}
