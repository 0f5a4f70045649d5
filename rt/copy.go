package rt

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"sync"
	"unsafe"
)

// Stream-ordered copies and memsets, typed memsets, page-locked host
// buffers, 2-D copies and the device's free memory. The synchronous copies
// and what both kinds promise are in memory.go (see Buffer).

func (c *Context) memOps(op string) (MemoryOps, error) {
	return capability[MemoryOps](c.drv, op, "page-locked memory, 16/32-bit memsets or 2-D copies (rt.MemoryOps)")
}

// CopyFromAsync copies src to the start of the buffer in s's order (see
// Buffer): leave src alone until s has passed the copy, unless it is Go
// memory, which CUDA reads before the call returns. During a capture src
// must be a PinnedBuffer's (see captureHost).
func (b Buffer[T]) CopyFromAsync(s *Stream, src []T) error {
	const op = "rt.Buffer.CopyFromAsync"
	s, err := b.on(op, s)
	if err != nil {
		return err
	}
	if len(src) > b.Len {
		return Errorf(op, ErrInvalidValue, "%d elements into a buffer of %d", len(src), b.Len)
	}
	if len(src) == 0 {
		return nil
	}
	p, n := unsafe.Pointer(unsafe.SliceData(src)), uint64(len(src))*sizeOf[T]()
	if err := s.captureHost(op, p, n); err != nil {
		return err
	}
	return s.ctx.drv.MemcpyHtoD(s.ctx.h, DevPtr(b.Ptr), p, n, s.h, true)
}

// CopyToAsync copies the start of the buffer into dst in s's order (see
// Buffer). dst holds the copy once s has passed it: read it after
// s.Synchronize, an event, or in a later host function. During a capture
// dst must be a PinnedBuffer's (see captureHost).
func (b Buffer[T]) CopyToAsync(s *Stream, dst []T) error {
	const op = "rt.Buffer.CopyToAsync"
	s, err := b.on(op, s)
	if err != nil {
		return err
	}
	if len(dst) > b.Len {
		return Errorf(op, ErrInvalidValue, "%d elements from a buffer of %d", len(dst), b.Len)
	}
	if len(dst) == 0 {
		return nil
	}
	p, n := unsafe.Pointer(unsafe.SliceData(dst)), uint64(len(dst))*sizeOf[T]()
	if err := s.captureHost(op, p, n); err != nil {
		return err
	}
	return s.ctx.drv.MemcpyDtoH(s.ctx.h, p, DevPtr(b.Ptr), n, s.h, true)
}

// on checks b and resolves s for work on it (nil: the NULL stream of b's
// context).
func (b Buffer[T]) on(op string, s *Stream) (*Stream, error) {
	if err := b.check(op); err != nil {
		return nil, err
	}
	return s.in(op, b.ctx)
}

// pinnedSpans are the PinnedBuffers' memory, sorted by address.
var pinnedSpans struct {
	mu    sync.RWMutex
	spans []pinnedSpan
}

type pinnedSpan struct{ p, n uintptr }

func addPinned(p unsafe.Pointer, n uint64) {
	pinnedSpans.mu.Lock()
	defer pinnedSpans.mu.Unlock()
	sp := pinnedSpan{uintptr(p), uintptr(n)}
	i, _ := slices.BinarySearchFunc(pinnedSpans.spans, sp, func(a, b pinnedSpan) int { return cmpUintptr(a.p, b.p) })
	pinnedSpans.spans = slices.Insert(pinnedSpans.spans, i, sp)
}

func removePinned(p unsafe.Pointer) {
	pinnedSpans.mu.Lock()
	defer pinnedSpans.mu.Unlock()
	pinnedSpans.spans = slices.DeleteFunc(pinnedSpans.spans, func(s pinnedSpan) bool { return s.p == uintptr(p) })
}

func cmpUintptr(a, b uintptr) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// isPinned reports whether [p, p+n) lies in one PinnedBuffer.
func isPinned(p unsafe.Pointer, n uint64) bool {
	pinnedSpans.mu.RLock()
	defer pinnedSpans.mu.RUnlock()
	a := uintptr(p)
	i, found := slices.BinarySearchFunc(pinnedSpans.spans, a, func(s pinnedSpan, a uintptr) int { return cmpUintptr(s.p, a) })
	if !found {
		i--
	}
	if i < 0 {
		return false
	}
	sp := pinnedSpans.spans[i]
	return a >= sp.p && uint64(a-sp.p)+n <= uint64(sp.n)
}

// captureHost refuses an async copy to or from host memory that is not a
// PinnedBuffer's while s is being captured. CUDA records such a copy, and
// each launch of the graph would then read or write the Go memory's
// address long after the call: memory the garbage collector may have freed
// or, for a goroutine's stack, moved. A PinnedBuffer's memory stays where
// it is until Free, and so does page-locked memory of other code's
// (AdoptPinned), which the driver knows (rt.Adopter). Outside a capture it costs nothing for pinned memory
// and one driver query for Go memory (whose copy CUDA stages anyway).
func (s *Stream) captureHost(op string, p unsafe.Pointer, n uint64) error {
	if isPinned(p, n) {
		return nil
	}
	g, ok := s.ctx.drv.(Grapher)
	if !ok || s.h == 0 {
		return nil
	}
	st, _, err := g.StreamCaptureInfo(s.ctx.h, s.h, nil)
	if err == nil && st != CaptureNone && !foreignPinned(s.ctx.drv, p, n) {
		return Errorf(op, ErrStreamCaptureUnsupported, "a graph would keep the address of Go memory, which the garbage collector may free or move: copy through an rt.PinnedBuffer during a capture")
	}
	return nil
}

// ToHostAsync returns a new slice that holds the whole buffer once s has
// passed the copy (see CopyToAsync): it waits for s's earlier work only.
func (b Buffer[T]) ToHostAsync(s *Stream) ([]T, error) {
	if _, err := b.on("rt.Buffer.ToHostAsync", s); err != nil {
		return nil, err
	}
	out := make([]T, b.Len)
	return out, b.CopyToAsync(s, out)
}

// CopyFromBufferAsync copies src to the start of the buffer, device to
// device, in s's order.
func (b Buffer[T]) CopyFromBufferAsync(s *Stream, src Buffer[T]) error {
	const op = "rt.Buffer.CopyFromBufferAsync"
	s, err := b.on(op, s)
	if err != nil {
		return err
	}
	if err := src.check(op); err != nil {
		return err
	}
	if err := sameDriver(op, b.ctx, src.ctx); err != nil {
		return err
	}
	if src.Len > b.Len {
		return Errorf(op, ErrInvalidValue, "%d elements into a buffer of %d", src.Len, b.Len)
	}
	if src.Len == 0 {
		return nil
	}
	return s.ctx.drv.MemcpyDtoD(s.ctx.h, DevPtr(b.Ptr), DevPtr(src.Ptr), src.Bytes(), s.h, true)
}

// ZeroAsync sets every byte of the buffer to 0 in s's order.
func (b Buffer[T]) ZeroAsync(s *Stream) error {
	s, err := b.on("rt.Buffer.ZeroAsync", s)
	if err != nil {
		return err
	}
	if b.Len == 0 {
		return nil
	}
	return s.ctx.drv.MemsetD8(s.ctx.h, DevPtr(b.Ptr), 0, b.Bytes(), s.h, true)
}

// Fill sets every element to v (cuMemsetD8, D16 or D32 by T's size),
// synchronously with respect to all work in the buffer's context (see
// Buffer). T must be 1, 2 or 4 bytes, or a multiple of 4 bytes whose 4-byte
// words are all equal (a float64 0, a struct of equal int32s): the driver
// sets no wider values.
func (b Buffer[T]) Fill(v T) error {
	if err := b.check("rt.Buffer.Fill"); err != nil {
		return err
	}
	if b.Len == 0 {
		return nil
	}
	return b.ctx.synchronous("rt.Buffer.Fill", true, func() error {
		return fill(b.ctx, DevPtr(b.Ptr), b.Len, v, 0, false)
	})
}

// FillAsync is Fill in s's order.
func (b Buffer[T]) FillAsync(s *Stream, v T) error {
	s, err := b.on("rt.Buffer.FillAsync", s)
	if err != nil {
		return err
	}
	if b.Len == 0 {
		return nil
	}
	return fill(s.ctx, DevPtr(b.Ptr), b.Len, v, s.h, true)
}

func fill[T any](c *Context, p DevPtr, n int, v T, s StreamHandle, async bool) error {
	size := sizeOf[T]()
	vp := unsafe.Pointer(&v)
	switch {
	case size == 1:
		return c.drv.MemsetD8(c.h, p, *(*uint8)(vp), uint64(n), s, async)
	case size == 2:
		m, err := c.memOps("cuMemsetD16")
		if err != nil {
			return err
		}
		return m.MemsetD16(c.h, p, *(*uint16)(vp), uint64(n), s, async)
	case size%4 == 0:
		words := unsafe.Slice((*uint32)(vp), size/4)
		for _, w := range words[1:] {
			if w != words[0] {
				return Errorf("rt.Buffer.Fill", ErrNotSupported, "a %d-byte value whose 4-byte words differ (%#x, %#x): the driver sets 1-, 2- and 4-byte values", size, words[0], w)
			}
		}
		m, err := c.memOps("cuMemsetD32")
		if err != nil {
			return err
		}
		return m.MemsetD32(c.h, p, words[0], uint64(n)*(size/4), s, async)
	}
	return Errorf("rt.Buffer.Fill", ErrNotSupported, "%d-byte elements: the driver sets 1-, 2- and 4-byte values", size)
}

// MemInfo is the free and total memory of c's device, in bytes
// (cuMemGetInfo).
func (c *Context) MemInfo() (free, total uint64, err error) {
	if err := c.check("rt.Context.MemInfo"); err != nil {
		return 0, 0, err
	}
	m, err := c.memOps("cuMemGetInfo")
	if err != nil {
		return 0, 0, err
	}
	return m.MemInfo(c.h)
}

// PinnedBuffer is n elements of T in page-locked host memory
// (cuMemHostAlloc, portable to every context of the driver). Copies between
// it and the device run at full speed and, in their Async forms, return at
// once and overlap kernels and other copies. Its memory is the backend's,
// not Go's: Slice views it, Free returns it, and nothing may use the slice
// after Free. T must hold no Go pointers (the garbage collector does not
// see this memory).
type PinnedBuffer[T any] struct {
	ctx     *Context
	m       MemoryOps
	p       unsafe.Pointer
	n       int
	adopted bool // other code's memory (AdoptPinned): Free refuses
}

// AllocPinned allocates a page-locked buffer of n elements of T, zeroed.
func AllocPinned[T any](ctx *Context, n int) (*PinnedBuffer[T], error) {
	const op = "rt.AllocPinned"
	if err := ctx.check(op); err != nil {
		return nil, err
	}
	size, err := bytesOf(op, n, sizeOf[T]())
	if err != nil {
		return nil, err
	}
	if size > math.MaxInt {
		// Slice could not view it: no Go slice is that large.
		return nil, Errorf(op, ErrInvalidValue, "%d elements of %d bytes: more than a Go slice can hold", n, sizeOf[T]())
	}
	if t := reflect.TypeFor[T](); hasPointers(t) {
		return nil, Errorf("rt.AllocPinned", ErrInvalidValue, "%v holds Go pointers, which memory outside Go's heap must not", t)
	}
	m, err := ctx.memOps("cuMemHostAlloc")
	if err != nil {
		return nil, err
	}
	size = max(size, 1)
	p, err := m.MemHostAlloc(ctx.h, size)
	if err != nil {
		return nil, err
	}
	clear(unsafe.Slice((*byte)(p), size))
	addPinned(p, size)
	return &PinnedBuffer[T]{ctx: ctx, m: m, p: p, n: n}, nil
}

// Slice is the buffer's memory as a Go slice (nil after Free).
func (b *PinnedBuffer[T]) Slice() []T {
	if b == nil || b.p == nil {
		return nil
	}
	return unsafe.Slice((*T)(b.p), b.n)
}

// Len is the number of elements.
func (b *PinnedBuffer[T]) Len() int {
	if b == nil {
		return 0
	}
	return b.n
}

// Free returns the memory (cuMemFreeHost). Copies still queued to or from
// it must have completed. Adopted memory (AdoptPinned) is its owner's to
// free: ErrNotPermitted.
func (b *PinnedBuffer[T]) Free() error {
	if b == nil || b.p == nil {
		return nil // nil, zero or freed already, as cuMemFreeHost(NULL)
	}
	if b.adopted {
		return Errorf("rt.PinnedBuffer.Free", ErrNotPermitted, "%p is other code's page-locked memory (AdoptPinned): its owner frees it", b.p)
	}
	if b.m == nil {
		return Errorf("rt.PinnedBuffer.Free", ErrInvalidValue, "a PinnedBuffer that AllocPinned did not make")
	}
	p := b.p
	b.p, b.n = nil, 0
	removePinned(p)
	return b.m.MemHostFree(b.ctx.h, p)
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func,
		reflect.Interface, reflect.Slice, reflect.String:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// Run copies c synchronously with respect to all work in ctx (see Buffer)
// (cuMemcpy2D).
func (c Copy2D) Run(ctx *Context) error {
	if err := ctx.check("rt.Copy2D.Run"); err != nil {
		return err
	}
	if err := c.extent("rt.Copy2D.Run"); err != nil {
		return err
	}
	m, err := ctx.memOps("cuMemcpy2D")
	if err != nil {
		return err
	}
	wait := c.DstHost == nil // a copy into host memory has completed on return
	return ctx.synchronous("rt.Copy2D.Run", wait, func() error { return m.Memcpy2D(ctx.h, &c, 0, false) })
}

// RunAsync copies c in s's order (cuMemcpy2DAsync). During a capture its
// host memory must be a PinnedBuffer's (see Buffer.CopyToAsync).
func (c Copy2D) RunAsync(s *Stream) error {
	const op = "rt.Copy2D.RunAsync"
	s, err := s.orCurrent(op)
	if err != nil {
		return err
	}
	if err := c.extent(op); err != nil {
		return err
	}
	m, err := s.ctx.memOps("cuMemcpy2DAsync")
	if err != nil {
		return err
	}
	if c.SrcHost != nil {
		err = s.captureHost(op, c.SrcHost, c.SrcPitch*(max(c.Height, 1)-1)+c.WidthBytes)
	} else if c.DstHost != nil {
		err = s.captureHost(op, c.DstHost, c.DstPitch*(max(c.Height, 1)-1)+c.WidthBytes)
	}
	if err != nil {
		return err
	}
	return m.Memcpy2D(s.ctx.h, &c, s.h, true)
}

// extent refuses a copy whose rows reach past 2^64 bytes on either side:
// the driver would compute an address that is no memory's.
func (c *Copy2D) extent(op string) error {
	for _, p := range []struct {
		side  string
		pitch uint64
	}{{"source", c.SrcPitch}, {"destination", c.DstPitch}} {
		hi, lo := bits.Mul64(p.pitch, max(c.Height, 1)-1)
		if hi != 0 || lo+c.WidthBytes < lo {
			return Errorf(op, ErrInvalidValue, "%d rows of %d bytes, %d apart on the %s side: more than 2^64 bytes", c.Height, c.WidthBytes, p.pitch, p.side)
		}
	}
	return nil
}

// PitchAlign is the alignment of AllocPitched's rows, what cuMemAllocPitch
// chooses on current GPUs: rows that start on it keep a kernel's row
// accesses coalesced.
const PitchAlign = 512

// Pitched is a 2-D array of T in device memory: Height rows of Width
// elements, row y starting Pitch bytes after row y-1 (Row(y)). A kernel
// takes Ptr and Pitch; the host side is a dense Width×Height []T.
type Pitched[T any] struct {
	Ptr                  Ptr[T]
	Pitch, Width, Height int
	ctx                  *Context
}

// AllocPitched allocates a width×height array of T with rows PitchAlign
// bytes apart or a multiple of it.
func AllocPitched[T any](ctx *Context, width, height int) (Pitched[T], error) {
	const op = "rt.AllocPitched"
	if err := ctx.check(op); err != nil {
		return Pitched[T]{}, err
	}
	if width < 0 || height < 0 {
		return Pitched[T]{}, Errorf(op, ErrInvalidValue, "shape %d×%d", width, height)
	}
	row, err := bytesOf(op, width, sizeOf[T]())
	if err == nil && row > math.MaxInt {
		err = Errorf(op, ErrInvalidValue, "rows of %d elements of %d bytes: more than 2^63 bytes", width, sizeOf[T]())
	}
	if err != nil {
		return Pitched[T]{}, err
	}
	// The pitch is an int (Pitched.Pitch) and so is every row's offset
	// (Row): the whole array's bytes must fit in one.
	pitch := (row/PitchAlign + min(row%PitchAlign, 1)) * PitchAlign
	total, err := bytesOf(op, height, pitch)
	if err != nil || pitch > math.MaxInt || total > math.MaxInt {
		return Pitched[T]{}, Errorf(op, ErrInvalidValue, "%d×%d elements of %d bytes: rows of %d bytes, more than 2^63 bytes in all", width, height, sizeOf[T](), pitch)
	}
	p, err := ctx.drv.MemAlloc(ctx.h, max(total, 1))
	if err != nil {
		return Pitched[T]{}, err
	}
	return Pitched[T]{Ptr: Ptr[T](p), Pitch: int(pitch), Width: width, Height: height, ctx: ctx}, nil
}

// Row is the address of row y.
func (p Pitched[T]) Row(y int) Ptr[T] { return p.Ptr + Ptr[T](y*p.Pitch) }

// Context is the context the array was allocated in.
func (p Pitched[T]) Context() *Context { return p.ctx }

// Free releases the device memory.
func (p Pitched[T]) Free() error {
	if p.ctx == nil && p.Ptr == 0 {
		return nil // the zero Pitched, as cuMemFree(0)
	}
	if err := p.check("rt.Pitched.Free"); err != nil {
		return err
	}
	return p.ctx.drv.MemFree(p.ctx.h, DevPtr(p.Ptr))
}

// check refuses a Pitched that AllocPitched did not make.
func (p Pitched[T]) check(op string) error {
	if p.ctx == nil {
		return Errorf(op, ErrInvalidValue, "a Pitched with no context (pitched arrays come from AllocPitched)")
	}
	if p.Width < 0 || p.Height < 0 || p.Pitch < 0 {
		return Errorf(op, ErrInvalidValue, "a %d×%d Pitched with pitch %d", p.Width, p.Height, p.Pitch)
	}
	return p.ctx.check(op)
}

func (p Pitched[T]) hostCopy(op string, host []T, toDevice bool) (Copy2D, error) {
	if err := p.check(op); err != nil {
		return Copy2D{}, err
	}
	if len(host) != p.Width*p.Height {
		return Copy2D{}, Errorf(op, ErrInvalidValue, "%d host elements for a %d×%d array", len(host), p.Width, p.Height)
	}
	row := uint64(p.Width) * sizeOf[T]()
	c := Copy2D{WidthBytes: row, Height: uint64(p.Height)}
	hp := unsafe.Pointer(unsafe.SliceData(host))
	if toDevice {
		c.SrcHost, c.SrcPitch, c.DstDevice, c.DstPitch = hp, row, DevPtr(p.Ptr), uint64(p.Pitch)
	} else {
		c.DstHost, c.DstPitch, c.SrcDevice, c.SrcPitch = hp, row, DevPtr(p.Ptr), uint64(p.Pitch)
	}
	return c, nil
}

// CopyFrom copies src, Height dense rows of Width elements, into the array,
// synchronously with respect to all work in its context (see Buffer).
func (p Pitched[T]) CopyFrom(src []T) error {
	c, err := p.hostCopy("rt.Pitched.CopyFrom", src, true)
	if err != nil || len(src) == 0 {
		return err
	}
	return c.Run(p.ctx)
}

// CopyFromAsync is CopyFrom in s's order.
func (p Pitched[T]) CopyFromAsync(s *Stream, src []T) error {
	const op = "rt.Pitched.CopyFromAsync"
	c, err := p.hostCopy(op, src, true)
	if err == nil {
		s, err = s.in(op, p.ctx)
	}
	if err != nil || len(src) == 0 {
		return err
	}
	return c.RunAsync(s)
}

// CopyTo copies the array into dst as Height dense rows of Width elements,
// synchronously with respect to all work in its context (see Buffer).
func (p Pitched[T]) CopyTo(dst []T) error {
	c, err := p.hostCopy("rt.Pitched.CopyTo", dst, false)
	if err != nil || len(dst) == 0 {
		return err
	}
	return c.Run(p.ctx)
}

// CopyToAsync is CopyTo in s's order (see Buffer.CopyToAsync).
func (p Pitched[T]) CopyToAsync(s *Stream, dst []T) error {
	const op = "rt.Pitched.CopyToAsync"
	c, err := p.hostCopy(op, dst, false)
	if err == nil {
		s, err = s.in(op, p.ctx)
	}
	if err != nil || len(dst) == 0 {
		return err
	}
	return c.RunAsync(s)
}

// CopyFromPitchedAsync copies src, an array of the same shape, into p,
// device to device, in s's order.
func (p Pitched[T]) CopyFromPitchedAsync(s *Stream, src Pitched[T]) error {
	const op = "rt.Pitched.CopyFromPitchedAsync"
	if err := p.check(op); err != nil {
		return err
	}
	if err := src.check(op); err != nil {
		return err
	}
	if err := sameDriver(op, p.ctx, src.ctx); err != nil {
		return err
	}
	s, err := s.in(op, p.ctx)
	if err != nil {
		return err
	}
	if src.Width != p.Width || src.Height != p.Height {
		return Errorf(op, ErrInvalidValue, "a %d×%d array into a %d×%d one", src.Width, src.Height, p.Width, p.Height)
	}
	if p.Width == 0 || p.Height == 0 {
		return nil
	}
	c := Copy2D{SrcDevice: DevPtr(src.Ptr), SrcPitch: uint64(src.Pitch), DstDevice: DevPtr(p.Ptr), DstPitch: uint64(p.Pitch),
		WidthBytes: uint64(p.Width) * sizeOf[T](), Height: uint64(p.Height)}
	return c.RunAsync(s)
}

func (p Pitched[T]) String() string {
	return fmt.Sprintf("%d×%d %s at %v, pitch %d", p.Width, p.Height, reflect.TypeFor[T](), p.Ptr, p.Pitch)
}
