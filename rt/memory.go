package rt

import (
	"fmt"
	"unsafe"
)

// Ptr is a typed device pointer: the Go type of a kernel's T* parameter. It is
// a device address, never dereferenced on the host.
type Ptr[T any] DevPtr

// Addr is the untyped device address.
func (p Ptr[T]) Addr() DevPtr { return DevPtr(p) }

// IsNil reports whether p is the null device pointer.
func (p Ptr[T]) IsNil() bool { return p == 0 }

// Add returns p advanced by n elements of T.
func (p Ptr[T]) Add(n int) Ptr[T] {
	var z T
	return p + Ptr[T](uintptr(n)*unsafe.Sizeof(z))
}

func (p Ptr[T]) String() string { return fmt.Sprintf("%#x", uint64(p)) }

// Cast reinterprets a device pointer as a pointer to another element type.
func Cast[U, T any](p Ptr[T]) Ptr[U] { return Ptr[U](p) }

// PtrOf types an untyped device address.
func PtrOf[T any](a DevPtr) Ptr[T] { return Ptr[T](a) }

func sizeOf[T any]() uint64 {
	var z T
	return uint64(unsafe.Sizeof(z))
}

// Buffer is n elements of T in device memory of one context. T must hold no
// Go pointers: copies move raw bytes between host and device.
//
// Its copies come in two kinds, and neither can read or overwrite data that
// queued work is still writing or reading:
//
//   - The plain ones (CopyFrom, CopyTo, ToHost, CopyFromBuffer, Zero, Fill)
//     are synchronous with respect to all work in the buffer's context: they
//     wait for everything queued on every stream of the context, blocking and
//     non-blocking alike (cuCtxSynchronize), then copy, and return when the
//     copy has completed. Work queued afterwards on any stream sees the
//     result. They are the safe default, not the fast path: each waits for
//     the whole context. An error left by earlier asynchronous work (a
//     faulting kernel) is reported by the next one, and the copy is not made.
//   - The Async ones (CopyFromAsync, CopyToAsync, ToHostAsync,
//     CopyFromBufferAsync, ZeroAsync, FillAsync) are stream-ordered, like a
//     launch: they run after the work queued before them on their stream and
//     before the work queued after it, and wait for nothing else. Order work
//     of other streams with events (Stream.WaitEvent). Between the device and
//     Go memory CUDA copies synchronously on the host side (the call returns
//     when the Go memory may be reused); with pinned memory (PinnedBuffer)
//     the call returns at once and the copy overlaps other work: touch the
//     host memory only once the stream has passed the copy.
type Buffer[T any] struct {
	Ptr  Ptr[T]
	Len  int
	ctx  *Context
	view bool // memory it does not own (AdoptBuffer, Slice): Free refuses
}

// Alloc allocates n elements of T in ctx (contents undefined).
func Alloc[T any](ctx *Context, n int) (Buffer[T], error) {
	const op = "rt.Alloc"
	if err := ctx.check(op); err != nil {
		return Buffer[T]{}, err
	}
	size, err := bytesOf(op, n, sizeOf[T]())
	if err != nil {
		return Buffer[T]{}, err
	}
	if size == 0 {
		size = 1 // cuMemAlloc rejects 0; keep a distinct valid address
	}
	p, err := ctx.drv.MemAlloc(ctx.h, size)
	if err != nil {
		return Buffer[T]{}, err
	}
	return Buffer[T]{Ptr: Ptr[T](p), Len: n, ctx: ctx}, nil
}

// AllocFrom allocates a device copy of src in ctx.
func AllocFrom[T any](ctx *Context, src []T) (Buffer[T], error) {
	b, err := Alloc[T](ctx, len(src))
	if err != nil {
		return b, err
	}
	if err := b.CopyFrom(src); err != nil {
		b.Free()
		return Buffer[T]{}, err
	}
	return b, nil
}

// Context is the context the buffer was allocated in.
func (b Buffer[T]) Context() *Context { return b.ctx }

// check refuses a buffer that no allocation made (but has a length).
func (b Buffer[T]) check(op string) error {
	if b.ctx == nil {
		if b.Len == 0 && b.Ptr == 0 {
			return Errorf(op, ErrInvalidValue, "a zero rt.Buffer (buffers come from Alloc, AllocFrom or AllocAsync)")
		}
		return Errorf(op, ErrInvalidValue, "a Buffer of %d elements at %v with no context (buffers come from Alloc, AllocFrom or AllocAsync)", b.Len, b.Ptr)
	}
	if b.Len < 0 {
		return Errorf(op, ErrInvalidValue, "a Buffer of length %d", b.Len)
	}
	return b.ctx.check(op)
}

// Bytes is the buffer's size in bytes.
func (b Buffer[T]) Bytes() uint64 { return uint64(b.Len) * sizeOf[T]() }

// Free releases the device memory. A view (AdoptBuffer, Slice) owns none:
// ErrNotPermitted.
func (b Buffer[T]) Free() error {
	if b.ctx == nil && b.Ptr == 0 {
		return nil // the zero Buffer, as cuMemFree(0)
	}
	if err := b.check("rt.Buffer.Free"); err != nil {
		return err
	}
	if b.view {
		return Errorf("rt.Buffer.Free", ErrNotPermitted, "the buffer at %v views memory it does not own (AdoptBuffer or Slice): its owner frees it", b.Ptr)
	}
	return b.ctx.drv.MemFree(b.ctx.h, DevPtr(b.Ptr))
}

// CopyFrom copies src to the start of the buffer, synchronously with
// respect to all work in the buffer's context (see Buffer).
func (b Buffer[T]) CopyFrom(src []T) error {
	if err := b.check("rt.Buffer.CopyFrom"); err != nil {
		return err
	}
	if len(src) > b.Len {
		return Errorf("rt.Buffer.CopyFrom", ErrInvalidValue, "%d elements into a buffer of %d", len(src), b.Len)
	}
	return CopyHtoD(b.ctx, b.Ptr, src)
}

// CopyTo copies the start of the buffer into dst, synchronously with
// respect to all work in the buffer's context (see Buffer): what a kernel
// queued on any stream writes is there.
func (b Buffer[T]) CopyTo(dst []T) error {
	if err := b.check("rt.Buffer.CopyTo"); err != nil {
		return err
	}
	if len(dst) > b.Len {
		return Errorf("rt.Buffer.CopyTo", ErrInvalidValue, "%d elements from a buffer of %d", len(dst), b.Len)
	}
	return CopyDtoH(b.ctx, dst, b.Ptr)
}

// CopyFromBuffer copies src to the start of the buffer, device to device
// (cuMemcpyDtoD), synchronously with respect to all work in the buffer's
// context (see Buffer). src may belong to another context of the driver
// (unified addressing); its work is not waited for.
func (b Buffer[T]) CopyFromBuffer(src Buffer[T]) error {
	const op = "rt.Buffer.CopyFromBuffer"
	if err := b.check(op); err != nil {
		return err
	}
	if err := src.check(op); err != nil {
		return err
	}
	if err := sameDriver(op, b.ctx, src.ctx); err != nil {
		return err
	}
	if src.Len > b.Len {
		return Errorf("rt.Buffer.CopyFromBuffer", ErrInvalidValue, "%d elements into a buffer of %d", src.Len, b.Len)
	}
	if src.Len == 0 {
		return nil
	}
	return b.ctx.synchronous("rt.Buffer.CopyFromBuffer", true, func() error {
		return b.ctx.drv.MemcpyDtoD(b.ctx.h, DevPtr(b.Ptr), DevPtr(src.Ptr), src.Bytes(), 0, false)
	})
}

// ToHost returns a host copy of the whole buffer, made synchronously with
// respect to all work in the buffer's context (see Buffer).
func (b Buffer[T]) ToHost() ([]T, error) {
	if err := b.check("rt.Buffer.ToHost"); err != nil {
		return nil, err
	}
	out := make([]T, b.Len)
	return out, b.CopyTo(out)
}

// Zero sets every byte of the buffer to 0, synchronously with respect to
// all work in the buffer's context (see Buffer).
func (b Buffer[T]) Zero() error {
	if err := b.check("rt.Buffer.Zero"); err != nil {
		return err
	}
	if b.Len == 0 {
		return nil
	}
	return b.ctx.synchronous("rt.Buffer.Zero", true, func() error {
		return b.ctx.drv.MemsetD8(b.ctx.h, DevPtr(b.Ptr), 0, b.Bytes(), 0, false)
	})
}

// CopyHtoD copies src to the device address dst in ctx, synchronously with
// respect to all work in ctx (see Buffer).
func CopyHtoD[T any](ctx *Context, dst Ptr[T], src []T) error {
	if err := ctx.check("rt.CopyHtoD"); err != nil {
		return err
	}
	if len(src) == 0 {
		return nil
	}
	return ctx.synchronous("rt.CopyHtoD", true, func() error {
		return ctx.drv.MemcpyHtoD(ctx.h, DevPtr(dst), unsafe.Pointer(unsafe.SliceData(src)), uint64(len(src))*sizeOf[T](), 0, false)
	})
}

// CopyDtoH copies len(dst) elements from the device address src in ctx,
// synchronously with respect to all work in ctx (see Buffer).
func CopyDtoH[T any](ctx *Context, dst []T, src Ptr[T]) error {
	if err := ctx.check("rt.CopyDtoH"); err != nil {
		return err
	}
	if len(dst) == 0 {
		return nil
	}
	// A copy into Go (pageable) memory has completed when cuMemcpyDtoH
	// returns: no wait after it.
	return ctx.synchronous("rt.CopyDtoH", false, func() error {
		return ctx.drv.MemcpyDtoH(ctx.h, unsafe.Pointer(unsafe.SliceData(dst)), DevPtr(src), uint64(len(dst))*sizeOf[T](), 0, false)
	})
}

// synchronous runs do, a copy or memset on c's NULL stream, the way rt's
// synchronous operations run: after all work queued in c on any stream
// (cuCtxSynchronize; the NULL stream alone waits only for blocking streams),
// and, when wait is set, complete before it returns (cuMemcpyHtoD from
// pageable memory, cuMemcpyDtoD and cuMemsetD8 may return before the device
// has done them, and a non-blocking stream would not wait for them).
func (c *Context) synchronous(op string, wait bool, do func() error) error {
	if err := c.drv.CtxSynchronize(c.h); err != nil {
		return fmt.Errorf("%s: waiting for the context's earlier work: %w", op, err)
	}
	if err := do(); err != nil {
		return err
	}
	if wait {
		return c.drv.StreamSynchronize(c.h, 0)
	}
	return nil
}
