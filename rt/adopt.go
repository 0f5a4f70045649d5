package rt

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Foreign handles: what other code made (the CUDA runtime, cuBLAS, cuFFT,
// PyTorch, a C library), used through rt without rt owning it, and the
// driver's handles of rt's objects, for other code to use.
//
// Adopting wraps a handle in rt's type after checking it where the backend
// can (rt.Adopter): the stream, event or memory must exist, belong to the
// context named, and the memory must hold the length asked for. The adopted
// object is a view: its owner made it and its owner destroys it.
// Release, Destroy and Free on an adopted object free nothing and return an
// error with ErrNotPermitted, so that a program that meant to free it
// learns that it did not. The owner must keep the object alive while rt
// uses it: work rt queued on an adopted stream, or that reads adopted
// memory, must have completed before the owner destroys or frees it (as
// for any CUDA object shared between libraries). Using it after that is
// an error where the backend can tell (rt/soft always can: a freed
// allocation is a memcheck error naming it, a destroyed stream
// ErrInvalidHandle) and undefined otherwise, as in CUDA.
//
// The other direction needs no adoption: every rt object gives out the
// driver's handle, which is the CUDA handle on rt/cgo (Context.Handle is
// the CUcontext, Stream.Handle the CUstream — a cudaStream_t —,
// Event.Handle the CUevent, Buffer.Ptr the CUdeviceptr,
// PinnedBuffer.Pointer the host pointer, Graph.Handle the CUgraph,
// GraphExec.Handle the CUgraphExec, MemPool.Handle the CUmemoryPool,
// Array.Handle the CUarray, Texture.Object and Surface.Object the
// CUtexObject and CUsurfObject, Library.Native the CUlibrary,
// Kernel.Native the CUkernel and Kernel.Function the CUfunction in a
// context). rt/soft gives out its own handles and takes them back, so a
// program's CPU tests can hand soft streams and buffers to a Go stand-in for
// a library, which adopts them as the real library's binding would pass
// them to C.
//
// The CUDA runtime API (libcudart, and every library built on it: cuBLAS,
// cuFFT, cuRAND, cuDNN, NCCL, PyTorch) works in each device's primary
// context: Device.Primary retains that same context, so kernels launched
// in it and the libraries' work share memory and streams with no adoption
// at all; a cudaStream_t is a CUstream.

// MemoryKind is what kind of memory an address is in (PointerInfo.Kind).
type MemoryKind int32

const (
	// MemoryUnregistered is memory the driver did not allocate or
	// register: Go memory, malloc'ed memory, or no memory at all.
	MemoryUnregistered MemoryKind = iota
	// MemoryDevice is device memory (cuMemAlloc, cudaMalloc, a pool).
	MemoryDevice
	// MemoryHost is page-locked host memory (cuMemHostAlloc,
	// cudaHostAlloc, cuMemHostRegister).
	MemoryHost
	// MemoryManaged is managed memory (cuMemAllocManaged, __managed__),
	// accessible from every context.
	MemoryManaged
)

func (k MemoryKind) String() string {
	switch k {
	case MemoryUnregistered:
		return "memory the driver did not allocate"
	case MemoryDevice:
		return "device memory"
	case MemoryHost:
		return "page-locked host memory"
	case MemoryManaged:
		return "managed memory"
	}
	return fmt.Sprintf("MemoryKind(%d)", int32(k))
}

// PointerInfo is what the driver knows about an address
// (cuPointerGetAttributes and cuMemGetAddressRange on rt/cgo).
type PointerInfo struct {
	Kind MemoryKind
	// Base and Size are the allocation that holds the address; Size is 0
	// where the driver cannot tell.
	Base, Size uint64
	// Ctx is the context the memory was allocated or registered in, 0
	// where the driver does not say (managed memory, some pool memory).
	Ctx CtxHandle
	// Device is the device the memory is on, -1 where the driver does not
	// say.
	Device int
}

// Adopter is the optional capability that checks handles made outside rt
// before rt adopts them. Both backends implement it.
type Adopter interface {
	// StreamContext is cuStreamGetCtx: the context a stream belongs to.
	StreamContext(s StreamHandle) (CtxHandle, error)
	// EventContext is the context an event was created in, where the
	// driver can tell (CUDA cannot: rt/cgo returns ErrNotSupported, and rt
	// then checks only that the event exists, with cuEventQuery).
	EventContext(e EventHandle) (CtxHandle, error)
	// PointerInfo describes the memory at addr, a device address or, for
	// page-locked memory, a host address; memory the driver does not know
	// is MemoryUnregistered, not an error.
	PointerInfo(addr uint64) (PointerInfo, error)
}

// NativeHandler gives out the driver's own handles of what rt's handles
// stand for, where the two differ (rt/cgo's LibHandle and KernelHandle
// index tables of its own; its other handles are the CUDA handles).
type NativeHandler interface {
	// NativeLibrary is the library's CUlibrary (0 on the legacy path,
	// where each context has a CUmodule of its own).
	NativeLibrary(lib LibHandle) (uintptr, error)
	// NativeKernel is the kernel's CUkernel (0 on the legacy path).
	NativeKernel(k KernelHandle) (uintptr, error)
	// KernelFunction is the kernel's CUfunction in ctx (cuKernelGetFunction;
	// on the legacy path, the function of ctx's module), loading it there if
	// it is not yet (lazy loading).
	KernelFunction(k KernelHandle, ctx CtxHandle) (uintptr, error)
}

func adopter(d Driver) (Adopter, bool) {
	a, ok := d.(Adopter)
	return a, ok
}

// AdoptContext wraps a context that other code created or retained, such as
// a CUcontext from C or the current context of another library. It checks
// that the handle is a live context (cuCtxGetDevice in it; a value that
// never was a context may crash the CUDA driver, as it would in C). rt
// neither retains nor destroys it: Release fails with ErrNotPermitted, and
// the context must outlive everything rt does in it. For the CUDA runtime's
// context, use the device's Primary instead, which shares it and keeps it
// alive by a retain of its own.
func AdoptContext(d Driver, h CtxHandle) (*Context, error) {
	if err := checkDriver("rt.AdoptContext", d); err != nil {
		return nil, err
	}
	if h == 0 {
		return nil, Errorf("rt.AdoptContext", ErrInvalidContext, "null context handle")
	}
	if destroyedThroughRt(d, h) {
		return nil, Errorf("rt.AdoptContext", ErrInvalidContext, "context %#x was destroyed (through rt.Context.Release)", uintptr(h))
	}
	dev, err := d.CtxDevice(h)
	if err != nil {
		return nil, fmt.Errorf("rt.AdoptContext: %#x is not a live context: %w", uintptr(h), err)
	}
	return &Context{drv: d, h: h, dev: dev, borrowed: true}, nil
}

// CUDA's special stream handles, which other libraries hand out as
// streams (cudaStreamLegacy, cudaStreamPerThread, and a NULL
// cudaStream_t): AdoptStream and Context.AdoptStream take them, and work
// rt queues on them runs as CUDA says.
const (
	// StreamLegacy is CU_STREAM_LEGACY (cudaStreamLegacy): the legacy
	// default stream of the stream's context, what the NULL stream (0) is
	// for the driver API. Work on it waits for the work queued before it
	// on every blocking stream of the context (streams made without
	// StreamNonBlocking), and their later work waits for it; non-blocking
	// streams are not ordered with it. It cannot be captured or destroyed.
	StreamLegacy StreamHandle = 1
	// StreamPerThread is CU_STREAM_PER_THREAD (cudaStreamPerThread): the
	// per-thread default stream of the stream's context for the calling OS
	// thread, a blocking stream (ordered with StreamLegacy) that can be
	// captured. CUDA picks the stream by the thread that queues the work,
	// so work a goroutine queues on it is in one stream's order only while
	// the goroutine stays on one OS thread (runtime.LockOSThread). rt/soft
	// has one per context, as if every call came from one thread.
	StreamPerThread StreamHandle = 2
)

// special reports whether h is a stream handle the driver resolves in the
// context current for the call (0, StreamLegacy, StreamPerThread), not a
// stream object.
func special(h StreamHandle) bool { return h <= StreamPerThread }

// AdoptStream wraps a stream that other code created (a cudaStream_t from
// cudaStreamCreate, a torch.cuda.Stream's cuda_stream, a library's stream),
// in the context the stream belongs to (cuStreamGetCtx), which is adopted
// with it (AdoptContext). A launch or async copy on it is ordered with the
// other code's work on the stream. Destroy fails with ErrNotPermitted: the
// stream's owner destroys it, after the work rt queued there.
//
// CUDA's special handles belong to no one context: 0 (the NULL stream),
// StreamLegacy and StreamPerThread are taken in the context the CUDA
// runtime would use for them, the calling OS thread's current context, or
// else device 0's primary context (as a launch with no stream runs);
// name the context with Context.AdoptStream instead where a goroutine does
// not hold its OS thread. 0 gives that context's NullStream.
func AdoptStream(d Driver, h StreamHandle) (*Stream, error) {
	const op = "rt.AdoptStream"
	if err := checkDriver(op, d); err != nil {
		return nil, err
	}
	if special(h) {
		ch, err := implicitContext(d)
		if err != nil {
			return nil, fmt.Errorf("%s: the context for stream %#x: %w", op, uintptr(h), err)
		}
		dev, err := d.CtxDevice(ch)
		if err != nil {
			return nil, fmt.Errorf("%s: the context for stream %#x: %w", op, uintptr(h), err)
		}
		return (&Context{drv: d, h: ch, dev: dev, borrowed: true}).AdoptStream(h)
	}
	a, ok := adopter(d)
	if !ok {
		return nil, Errorf(op, ErrNotSupported, "backend %s cannot tell a stream's context (rt.Adopter): use Context.AdoptStream", d.Name())
	}
	ch, err := a.StreamContext(h)
	if err != nil {
		return nil, fmt.Errorf("%s: stream %#x: %w", op, uintptr(h), err)
	}
	ctx, err := AdoptContext(d, ch)
	if err != nil {
		return nil, err
	}
	return &Stream{ctx: ctx, h: h, adopted: true}, nil
}

// AdoptStream wraps a stream of c that other code created; see the
// function AdoptStream. A stream of another context is an error
// (ErrInvalidContext), where the backend can tell (rt.Adopter); the NULL
// stream (0) is c.NullStream, and StreamLegacy and StreamPerThread are c's
// legacy and per-thread default streams.
func (c *Context) AdoptStream(h StreamHandle) (*Stream, error) {
	if err := c.check("rt.Context.AdoptStream"); err != nil {
		return nil, err
	}
	if h == 0 {
		return c.NullStream(), nil
	}
	if special(h) {
		return &Stream{ctx: c, h: h, adopted: true}, nil
	}
	if a, ok := adopter(c.drv); ok {
		ch, err := a.StreamContext(h)
		if err != nil {
			return nil, fmt.Errorf("rt.Context.AdoptStream: stream %#x: %w", uintptr(h), err)
		}
		if ch != c.h {
			return nil, Errorf("rt.Context.AdoptStream", ErrInvalidContext, "stream %#x belongs to context %#x, not to %v", uintptr(h), uintptr(ch), c)
		}
	}
	return &Stream{ctx: c, h: h, adopted: true}, nil
}

// AdoptEvent wraps an event of c that other code created (cudaEventCreate,
// a library's event): Stream.WaitEvent on it orders rt's work after the
// other code's, and Record lets the other code wait for rt's. It checks
// that the event exists (cuEventQuery) and, where the backend can tell,
// that it is c's. Destroy fails with ErrNotPermitted.
func (c *Context) AdoptEvent(h EventHandle) (*Event, error) {
	const op = "rt.Context.AdoptEvent"
	if err := c.check(op); err != nil {
		return nil, err
	}
	if h == 0 {
		return nil, Errorf(op, ErrInvalidHandle, "null event handle")
	}
	checked := false
	if a, ok := adopter(c.drv); ok {
		ch, err := a.EventContext(h)
		switch {
		case err == nil && ch != c.h:
			return nil, Errorf(op, ErrInvalidContext, "event %#x belongs to context %#x, not to %v", uintptr(h), uintptr(ch), c)
		case err == nil:
			checked = true
		case CodeOf(err) != ErrNotSupported:
			return nil, fmt.Errorf("%s: event %#x: %w", op, uintptr(h), err)
		}
	}
	if st, ok := c.drv.(Streamer); ok && !checked {
		if _, err := st.EventQuery(c.h, h); err != nil {
			return nil, fmt.Errorf("%s: event %#x: %w", op, uintptr(h), err)
		}
	}
	return &Event{ctx: c, h: h, adopted: true}, nil
}

// Handle is the backend's event handle (a CUevent for rt/cgo), for other
// code to record or wait on.
func (e *Event) Handle() EventHandle {
	if e == nil {
		return 0
	}
	return e.h
}

// Context is the event's context.
func (e *Event) Context() *Context {
	if e == nil {
		return nil
	}
	return e.ctx
}

// Adopted reports whether the stream was made by other code (AdoptStream):
// its owner destroys it.
func (s *Stream) Adopted() bool { return s != nil && s.adopted }

// AdoptBuffer views n elements of T at p, device memory that other code
// allocated in ctx (cudaMalloc, cuMemAlloc, a library's output or
// workspace, PyTorch's caching allocator), as a Buffer, whose Ptr kernels
// take as an rt.Ptr[T]. Where the backend can tell (rt.Adopter) it checks
// that p is device or managed memory, of ctx (managed memory is every
// context's), and that the n elements lie within one allocation; p must be
// aligned for T. Free fails with ErrNotPermitted: the memory's owner frees
// it, after the work that uses it.
func AdoptBuffer[T any](ctx *Context, p DevPtr, n int) (Buffer[T], error) {
	const op = "rt.AdoptBuffer"
	if err := ctx.check(op); err != nil {
		return Buffer[T]{}, err
	}
	size, err := bytesOf(op, n, sizeOf[T]())
	if err != nil {
		return Buffer[T]{}, err
	}
	if p == 0 {
		return Buffer[T]{}, Errorf(op, ErrInvalidValue, "null device pointer")
	}
	var z T
	if a := uint64(unsafe.Alignof(z)); uint64(p)%a != 0 {
		return Buffer[T]{}, Errorf(op, ErrInvalidValue, "%#x is not aligned for %v (%d bytes)", uint64(p), reflect.TypeFor[T](), a)
	}
	if a, ok := adopter(ctx.drv); ok {
		info, err := a.PointerInfo(uint64(p))
		if err != nil {
			return Buffer[T]{}, fmt.Errorf("%s: %#x: %w", op, uint64(p), err)
		}
		if err := info.check(op, ctx, uint64(p), size, MemoryDevice, MemoryManaged); err != nil {
			return Buffer[T]{}, err
		}
	}
	return Buffer[T]{Ptr: Ptr[T](p), Len: n, ctx: ctx, view: true}, nil
}

// check says whether [p, p+size) is memory of one of kinds, in c, within
// one allocation, as far as i tells.
func (i PointerInfo) check(op string, c *Context, p, size uint64, kinds ...MemoryKind) error {
	ok := false
	for _, k := range kinds {
		ok = ok || i.Kind == k
	}
	if !ok {
		return Errorf(op, ErrInvalidValue, "%#x is %v, not %v", p, i.Kind, kinds[0])
	}
	if i.Size != 0 && (p < i.Base || p-i.Base > i.Size || size > i.Size-(p-i.Base)) {
		return Errorf(op, ErrInvalidValue, "%d bytes at %#x run past the end of the %d-byte allocation at %#x", size, p, i.Size, i.Base)
	}
	if i.Kind == MemoryManaged || i.Kind == MemoryHost {
		return nil // every context's
	}
	if i.Ctx != 0 && i.Ctx != c.h {
		return Errorf(op, ErrInvalidContext, "%#x was allocated in context %#x, not in %v", p, uintptr(i.Ctx), c)
	}
	if i.Device >= 0 && i.Device != c.dev {
		return Errorf(op, ErrInvalidContext, "%#x is on device %d, not on %v's device %d", p, i.Device, c, c.dev)
	}
	return nil
}

// Slice is elements [lo, hi) of the buffer, viewed as a buffer of their own
// (to hand a part of a buffer to a library, or to a kernel as a separate
// array). It shares the memory: Free on it fails with ErrNotPermitted.
func (b Buffer[T]) Slice(lo, hi int) (Buffer[T], error) {
	if lo < 0 || hi < lo || hi > b.Len {
		return Buffer[T]{}, Errorf("rt.Buffer.Slice", ErrInvalidValue, "[%d:%d] of a buffer of %d", lo, hi, b.Len)
	}
	return Buffer[T]{Ptr: b.Ptr.Add(lo), Len: hi - lo, ctx: b.ctx, view: true}, nil
}

// IsView reports whether the buffer views memory it does not own: adopted
// (AdoptBuffer) or a Slice.
func (b Buffer[T]) IsView() bool { return b.view }

// AdoptPinned views n elements of T at p, page-locked host memory that
// other code allocated or registered (cudaHostAlloc, cuMemHostAlloc,
// cuMemHostRegister, a library's staging buffer), as a PinnedBuffer: async
// copies to and from it overlap other work, and a capture records them.
// Where the backend can tell (rt.Adopter) it checks that p is page-locked
// and holds the n elements. T must hold no Go pointers. Free fails with
// ErrNotPermitted; the owner frees the memory, after the copies that use it.
func AdoptPinned[T any](ctx *Context, p unsafe.Pointer, n int) (*PinnedBuffer[T], error) {
	const op = "rt.AdoptPinned"
	if err := ctx.check(op); err != nil {
		return nil, err
	}
	size, err := bytesOf(op, n, sizeOf[T]())
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, Errorf(op, ErrInvalidValue, "nil pointer")
	}
	if t := reflect.TypeFor[T](); hasPointers(t) {
		return nil, Errorf(op, ErrInvalidValue, "%v holds Go pointers, which memory outside Go's heap must not", t)
	}
	if a, ok := adopter(ctx.drv); ok {
		addr := uint64(uintptr(p))
		info, err := a.PointerInfo(addr)
		if err != nil {
			return nil, fmt.Errorf("%s: %p: %w", op, p, err)
		}
		if err := info.check(op, ctx, addr, size, MemoryHost); err != nil {
			return nil, err
		}
	}
	m, _ := ctx.drv.(MemoryOps)
	return &PinnedBuffer[T]{ctx: ctx, m: m, p: p, n: n, adopted: true}, nil
}

// Pointer is the buffer's memory as a pointer, for other code (nil after
// Free).
func (b *PinnedBuffer[T]) Pointer() unsafe.Pointer {
	if b == nil {
		return nil
	}
	return b.p
}

// foreignPinned says whether [p, p+n) is page-locked memory the driver
// knows (memory rt did not allocate: AdoptPinned's, or any other code's).
func foreignPinned(d Driver, p unsafe.Pointer, n uint64) bool {
	a, ok := adopter(d)
	if !ok {
		return false
	}
	addr := uint64(uintptr(p))
	info, err := a.PointerInfo(addr)
	// Only an allocation the driver can measure: a system that maps
	// pageable memory for the GPU (HMM) may call any host memory host
	// memory, and a graph must not keep Go memory's address.
	return err == nil && info.Kind == MemoryHost && info.Size != 0 && addr >= info.Base && addr-info.Base+n <= info.Size
}

func nativeHandler(d Driver, op string) (NativeHandler, error) {
	return capability[NativeHandler](d, op, "native handles (rt.NativeHandler)")
}

// Native is the driver's handle of the library loaded in d (a CUlibrary on
// rt/cgo; 0 on its legacy path), loading it there if it is not yet. The
// library keeps it: other code must not unload it.
func (l *Library) Native(d Driver) (uintptr, error) {
	if err := l.check("rt.Library.Native", d); err != nil {
		return 0, err
	}
	nh, err := nativeHandler(d, "rt.Library.Native")
	if err != nil {
		return 0, err
	}
	h, err := l.Load(d)
	if err != nil {
		return 0, err
	}
	return nh.NativeLibrary(h)
}

// Native is the driver's handle of the kernel in d (a CUkernel on rt/cgo, 0
// on its legacy path), for other code that launches it or reads its
// attributes. The library keeps it.
func (k *Kernel) Native(d Driver) (uintptr, error) {
	if err := checkDriver("rt.Kernel.Native", d); err != nil {
		return 0, err
	}
	nh, err := nativeHandler(d, "rt.Kernel.Native")
	if err != nil {
		return 0, err
	}
	h, err := k.Handle(d)
	if err != nil {
		return 0, err
	}
	return nh.NativeKernel(h)
}

// Function is the kernel's function in ctx (a CUfunction on rt/cgo:
// cuKernelGetFunction), for code that takes one (cuLaunchKernel from C,
// cuFuncGetAttribute, a graph node built elsewhere). It loads the kernel in
// ctx if it is not yet.
func (k *Kernel) Function(ctx *Context) (uintptr, error) {
	if err := ctx.check("rt.Kernel.Function"); err != nil {
		return 0, err
	}
	nh, err := nativeHandler(ctx.drv, "rt.Kernel.Function")
	if err != nil {
		return 0, err
	}
	h, err := k.Handle(ctx.drv)
	if err != nil {
		return 0, err
	}
	return nh.KernelFunction(h, ctx.h)
}
