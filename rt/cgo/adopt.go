//go:build cgo

package cgo

/*
#include "shim_adopt.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// Foreign handles (rt.Adopter) and the driver's own handles of rt's
// (rt.NativeHandler).

var (
	_ rt.Adopter       = (*Driver)(nil)
	_ rt.NativeHandler = (*Driver)(nil)
)

// StreamContext is cuStreamGetCtx; the NULL, legacy and per-thread default
// streams are every context's, an error.
func (d *Driver) StreamContext(s rt.StreamHandle) (rt.CtxHandle, error) {
	if s <= rt.StreamPerThread {
		// CUDA answers with the calling thread's current context, which a
		// goroutine does not own.
		return 0, rt.Errorf("cuStreamGetCtx", rt.ErrInvalidHandle, "stream %#x (NULL, legacy or per-thread default) belongs to every context", uintptr(s))
	}
	var c C.CUcontext
	if rc := C.cg_stream_ctx(cstream(s), &c); rc != 0 {
		return 0, check("cuStreamGetCtx", rc)
	}
	return ctxh(c), nil
}

// EventContext: CUDA has no call that tells an event's context.
func (d *Driver) EventContext(e rt.EventHandle) (rt.CtxHandle, error) {
	return 0, rt.Errorf("cuEventGetCtx", rt.ErrNotSupported, "CUDA does not tell an event's context")
}

// CUmemorytype values (cuda.h).
const (
	memoryTypeHost    = 1
	memoryTypeDevice  = 2
	memoryTypeArray   = 3
	memoryTypeUnified = 4
)

// PointerInfo is cuPointerGetAttributes (context, memory type, managed,
// device ordinal, range) for addr.
func (d *Driver) PointerInfo(addr uint64) (rt.PointerInfo, error) {
	var (
		ctx        C.CUcontext
		memtype    C.uint
		managed    C.int
		ordinal    C.int
		base, size C.ulonglong
	)
	if rc := C.cga_pointer_info(C.ulonglong(addr), &ctx, &memtype, &managed, &ordinal, &base, &size); rc != 0 {
		return rt.PointerInfo{}, checkd("cuPointerGetAttributes", rc, fmt.Sprintf("address %#x", addr))
	}
	info := rt.PointerInfo{Base: uint64(base), Size: uint64(size), Ctx: ctxh(ctx), Device: int(ordinal)}
	switch {
	case memtype == 0:
		return rt.PointerInfo{Device: -1}, nil
	case managed != 0 || memtype == memoryTypeUnified:
		info.Kind = rt.MemoryManaged
	case memtype == memoryTypeHost:
		info.Kind = rt.MemoryHost
	case memtype == memoryTypeDevice:
		info.Kind = rt.MemoryDevice
	default: // a CUDA array: not linear memory
		info.Kind = rt.MemoryUnregistered
	}
	if info.Device < 0 {
		info.Device = -1
	}
	return info, nil
}

// NativeLibrary is the CUlibrary (0 on the legacy path).
func (d *Driver) NativeLibrary(h rt.LibHandle) (uintptr, error) {
	l, err := d.library(h, "cuLibraryGetModule")
	if err != nil {
		return 0, err
	}
	if l.legacy {
		return 0, nil
	}
	return uintptr(unsafe.Pointer(l.lib)), nil
}

// NativeKernel is the CUkernel (0 on the legacy path).
func (d *Driver) NativeKernel(h rt.KernelHandle) (uintptr, error) {
	k, err := d.kernel(h, "cuKernelGetFunction")
	if err != nil {
		return 0, err
	}
	if k.lib.legacy {
		return 0, nil
	}
	return uintptr(unsafe.Pointer(k.k)), nil
}

// KernelFunction is cuKernelGetFunction in ctx, or on the legacy path the
// kernel's function in ctx's module (loaded there if it is not yet).
func (d *Driver) KernelFunction(h rt.KernelHandle, ctx rt.CtxHandle) (uintptr, error) {
	k, err := d.kernel(h, "cuKernelGetFunction")
	if err != nil {
		return 0, err
	}
	c := cctx(ctx)
	if !k.lib.legacy {
		var f C.CUfunction
		if rc := C.cga_kernel_function(c, k.k, &f); rc != 0 {
			return 0, k.lib.withLog(checkd("cuKernelGetFunction", rc, "kernel "+k.name))
		}
		return uintptr(unsafe.Pointer(f)), nil
	}
	if c == nil {
		if c, err = currentCtx("cuModuleGetFunction"); err != nil {
			return 0, err
		}
	}
	k.lib.mu.Lock()
	defer k.lib.mu.Unlock()
	f, err := d.legacyFunc(k.lib, k, c)
	if err != nil {
		return 0, err
	}
	return uintptr(unsafe.Pointer(f)), nil
}
