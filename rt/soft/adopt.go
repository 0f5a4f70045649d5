package soft

import "github.com/cugen/cugen/rt"

// Foreign handles (rt.Adopter) and native handles (rt.NativeHandler) over
// soft's own handles: a program's CPU tests hand soft streams, events and
// memory to a Go stand-in for a library (cuBLAS, cuFFT), which adopts them
// as the library's binding would pass CUDA's to C. Soft's handles are its
// native ones.

var (
	_ rt.Adopter       = (*Driver)(nil)
	_ rt.NativeHandler = (*Driver)(nil)
)

// StreamContext is cuStreamGetCtx. The NULL stream, rt.StreamLegacy and
// rt.StreamPerThread are every context's (CUDA answers with the calling
// thread's current context): an error, as on rt/cgo.
func (d *Driver) StreamContext(sh rt.StreamHandle) (rt.CtxHandle, error) {
	if sh <= rt.StreamPerThread {
		return 0, rt.Errorf("cuStreamGetCtx", rt.ErrInvalidHandle, "stream %#x (NULL, legacy or per-thread default) belongs to every context", uintptr(sh))
	}
	s, err := d.streamAny("cuStreamGetCtx", 0, sh)
	if err != nil {
		return 0, err
	}
	return s.ctx.h, nil
}

// EventContext is the context the event was created in.
func (d *Driver) EventContext(eh rt.EventHandle) (rt.CtxHandle, error) {
	e, err := d.event("cuEventQuery", eh)
	if err != nil {
		return 0, err
	}
	return e.ctx.h, nil
}

// PointerInfo describes addr: a device allocation (cuMemAlloc, a pool's,
// a module variable), managed memory, or page-locked host memory from
// MemHostAlloc. An address in freed memory is an error that says so.
func (d *Driver) PointerInfo(addr uint64) (rt.PointerInfo, error) {
	const op = "cuPointerGetAttributes"
	a := d.mem.Lookup(addr)
	if a != nil && a.Freed() {
		_, err := d.mem.Span(op, addr, 1) // the error says it was freed
		return rt.PointerInfo{}, err
	}
	var info rt.PointerInfo
	if a != nil {
		info = rt.PointerInfo{Kind: rt.MemoryDevice, Base: a.Base, Size: a.Size, Device: a.Dev}
		if c := ownerOf(a); c == nil {
			info.Kind, info.Device = rt.MemoryManaged, -1
		} else {
			info.Ctx = c.h
		}
	}
	if info.Kind != rt.MemoryUnregistered {
		return info, nil
	}
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	for base, buf := range d.ext.pinned {
		if size := uint64(len(buf)) * 8; addr >= uint64(base) && addr-uint64(base) < size {
			return rt.PointerInfo{Kind: rt.MemoryHost, Base: uint64(base), Size: size, Device: -1}, nil
		}
	}
	return rt.PointerInfo{Device: -1}, nil
}

// NativeLibrary is the library's handle: soft's handles are its native ones.
func (d *Driver) NativeLibrary(h rt.LibHandle) (uintptr, error) {
	if _, err := d.library("cuLibraryGetModule", h); err != nil {
		return 0, err
	}
	return uintptr(h), nil
}

// NativeKernel is the kernel's handle.
func (d *Driver) NativeKernel(k rt.KernelHandle) (uintptr, error) {
	if _, err := d.program("cuKernelGetFunction", k); err != nil {
		return 0, err
	}
	return uintptr(k), nil
}

// KernelFunction is the kernel's handle, once ctx is checked: a soft
// kernel is the same in every context.
func (d *Driver) KernelFunction(k rt.KernelHandle, ch rt.CtxHandle) (uintptr, error) {
	const op = "cuKernelGetFunction"
	if _, err := d.program(op, k); err != nil {
		return 0, err
	}
	if _, err := d.ctx(op, ch); err != nil {
		return 0, err
	}
	return uintptr(k), nil
}
