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
#cgo noescape cg_launch_placed
#cgo nocallback cg_launch_placed
// The legacy launch path and the first launch of a kernel pass
// out-parameters that C does not keep either (noescape takes effect only
// together with nocallback).
#cgo noescape cg_stream_ctx
#cgo nocallback cg_stream_ctx
#cgo noescape cg_ctx_get_current
#cgo nocallback cg_ctx_get_current
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// Launch is cuLaunchKernel with the kernel's CUkernel handle, or
// cuLaunchKernelEx when l asks for a cluster shape, a cooperative launch,
// programmatic serialization or a priority.
// Grid is in blocks (with a cluster it must be a multiple of Cluster).
// A launch with a Stream runs in the stream's context and makes no context
// current; on one of CUDA's default streams (0, rt.StreamLegacy,
// rt.StreamPerThread), which the driver resolves in the current context,
// it runs in Ctx (made current for the call), or with Ctx 0, in the calling
// thread's current context.
//
// l is passed on as rt.LaunchArgs' contract has it: shapes as they are, the
// parameter buffer unchecked (rt.Kernel checked it). The buffer is read
// before Launch returns and never retained. A launch allocates nothing.
func (d *Driver) Launch(h rt.KernelHandle, l rt.LaunchArgs) error {
	// The hot path: a context-independent kernel on a stream. It is kept to
	// a few loads and one C call: this Go code runs with caches the previous
	// launch's driver work has cooled, and each line of it shows in the
	// launch cost.
	k := d.kernels.get(uintptr(h))
	if k == nil || k.fn == nil || l.Stream <= rt.StreamPerThread || needsEx(&l) || k.dead.Load() {
		return d.launchSlow(h, k, l)
	}
	if rc := C.cg_launch(k.fn, nil, C.uint(l.Grid.X), C.uint(l.Grid.Y), C.uint(l.Grid.Z), C.uint(l.Block.X), C.uint(l.Block.Y), C.uint(l.Block.Z),
		C.uint(l.SharedMem), cstream(l.Stream), l.Params, C.size_t(l.ParamSize)); rc != 0 {
		return launchErr("cuLaunchKernel", rc, k, l)
	}
	return nil
}

// launchSlow is Launch for everything else: the legacy path, launches
// without a stream, launches with attributes, placed kernels, and the
// errors.
//
//go:noinline
func (d *Driver) launchSlow(h rt.KernelHandle, k *kernel, l rt.LaunchArgs) error {
	if k == nil || k.dead.Load() {
		return d.badKernel(h, k)
	}
	fn := k.fn
	var ctx C.CUcontext
	if l.Stream <= rt.StreamPerThread { // a default stream: resolved in the current context
		ctx = cctx(l.Ctx)
	}
	if k.lib.legacy {
		var err error
		if fn, err = d.legacyLaunchFunc(k, l); err != nil {
			return err
		}
	} else if fn == nil { // placed
		fn = C.CUfunction(unsafe.Pointer(k.k))
	}
	if k.place != nil {
		return launchPlaced(fn, ctx, k, l)
	}
	g, b := l.Grid, l.Block
	var rc C.int
	if !needsEx(&l) {
		rc = C.cg_launch(fn, ctx, C.uint(g.X), C.uint(g.Y), C.uint(g.Z), C.uint(b.X), C.uint(b.Y), C.uint(b.Z),
			C.uint(l.SharedMem), cstream(l.Stream), l.Params, C.size_t(l.ParamSize))
		if rc != 0 {
			return launchErr("cuLaunchKernel", rc, k, l)
		}
		return nil
	}
	rc = C.cg_launch_ex(fn, ctx, C.uint(g.X), C.uint(g.Y), C.uint(g.Z), C.uint(b.X), C.uint(b.Y), C.uint(b.Z),
		C.uint(l.SharedMem), cstream(l.Stream), l.Params, C.size_t(l.ParamSize),
		C.uint(l.Cluster.X), C.uint(l.Cluster.Y), C.uint(l.Cluster.Z), exFlags(l), C.int(l.Priority))
	if rc != 0 {
		return launchErr("cuLaunchKernelEx", rc, k, l)
	}
	return nil
}

// needsEx reports whether l asks for launch attributes, which only
// cuLaunchKernelEx takes.
func needsEx(l *rt.LaunchArgs) bool {
	return l.Cluster != (rt.Dim3{}) || l.Cooperative || l.ProgrammaticSerialization || l.Priority != 0
}

// exFlags are the launch attributes l asks for, in cg_launch_ex's form.
func exFlags(l rt.LaunchArgs) C.int {
	var f C.int
	if l.Cooperative {
		f |= C.CG_LAUNCH_COOPERATIVE
	}
	if l.ProgrammaticSerialization {
		f |= C.CG_LAUNCH_PROGRAMMATIC
	}
	return f
}

// launchErr is kept out of Launch's body so that building the detail string
// costs nothing on the success path.
func launchErr(op string, rc C.int, k *kernel, l rt.LaunchArgs) error {
	detail := fmt.Sprintf("kernel %s, grid %v, block %v, %d shared bytes, %d parameter bytes",
		k.name, l.Grid, l.Block, l.SharedMem, l.ParamSize)
	if l.Cluster != (rt.Dim3{}) {
		detail += fmt.Sprintf(", cluster %v", l.Cluster)
	}
	if l.Cooperative {
		detail += ", cooperative"
	}
	if l.ProgrammaticSerialization {
		detail += ", programmatic serialization"
	}
	if l.Priority != 0 {
		detail += fmt.Sprintf(", priority %d", l.Priority)
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
// Ctx, or the current one) and returns k's CUfunction there.
func (d *Driver) legacyLaunchFunc(k *kernel, l rt.LaunchArgs) (C.CUfunction, error) {
	var ctx C.CUcontext
	switch {
	case l.Stream > rt.StreamPerThread: // CUDA's default streams have no context of their own: Ctx's or the current one
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
