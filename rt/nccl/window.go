package nccl

import (
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// Symmetric memory: NCCL's windows, device memory that every rank of a
// communicator registers at once, which the device API (ncclGetLsaPointer
// and the like) and NCCL's symmetric kernels address across ranks.

// Memory is device memory from ncclMemAlloc (CUDA VMM memory, NCCL 2.19+),
// the kind windows need: Len elements of T at Ptr in the rank's context.
// Free it with Free, not rt's: rt's buffers are cuMemAlloc's. The soft
// engine's is an rt buffer.
type Memory[T any] struct {
	Ptr rt.Ptr[T]
	Len int
	c   *Comm
	buf rt.Buffer[T] // the soft engine's
}

// AllocMemory allocates n elements of T for c's rank (ncclMemAlloc).
func AllocMemory[T any](c *Comm, n int) (*Memory[T], error) {
	const op = "ncclMemAlloc"
	if err := c.usable(op); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errorf(op, InvalidArgument, "negative length %d", n)
	}
	var z T
	size := uint64(n) * uint64(unsafe.Sizeof(z))
	if _, soft := c.impl.(*softComm); soft {
		b, err := rt.Alloc[T](c.ctx, n)
		if err != nil {
			return nil, &Error{Op: op, Code: UnhandledCudaError, Err: err}
		}
		return &Memory[T]{Ptr: b.Ptr, Len: n, c: c, buf: b}, nil
	}
	p, err := c.impl.memAlloc(max(size, 1))
	if err != nil {
		return nil, err
	}
	return &Memory[T]{Ptr: rt.PtrOf[T](p), Len: n, c: c}, nil
}

// Free returns the memory (ncclMemFree).
func (m *Memory[T]) Free() error {
	if m.Ptr == 0 {
		return nil
	}
	p := m.Ptr
	m.Ptr, m.Len = 0, 0
	if m.buf.Context() != nil {
		return m.buf.Free()
	}
	return m.c.impl.memFree(p.Addr())
}

// Window is a registered symmetric window (ncclWindow_t).
type Window struct {
	c    *Comm
	impl windowImpl
}

type windowImpl interface {
	handle() (uintptr, error)
	deregister() error
}

// RegisterWindow registers size bytes at p, memory from AllocMemory, as a
// symmetric window of c (ncclCommWindowRegister with
// NCCL_WIN_COLL_SYMMETRIC): every rank registers its own memory, and the
// call is collective, so one goroutine that drives several ranks calls it
// for each between GroupStart and GroupEnd (the window is ready after
// GroupEnd). NCCL 2.27+, on a communicator with symmetric memory support
// (see Comm.DevComm); the soft engine has none.
func (c *Comm) RegisterWindow(p rt.DevPtr, size uint64) (*Window, error) {
	const op = "ncclCommWindowRegister"
	if err := c.usable(op); err != nil {
		return nil, err
	}
	if p == 0 || size == 0 {
		return nil, errorf(op, InvalidArgument, "%d bytes at %#x", size, uint64(p))
	}
	if size%windowAlign != 0 || uint64(p)%windowAlign != 0 {
		return nil, errorf(op, InvalidArgument, "%d bytes at %#x: windows start and end on %d-byte boundaries (NCCL_WIN_REQUIRED_ALIGNMENT)", size, uint64(p), windowAlign)
	}
	w, err := c.impl.registerWindow(p, size, currentGroup())
	if err != nil {
		return nil, err
	}
	return &Window{c: c, impl: w}, nil
}

// windowAlign is NCCL_WIN_REQUIRED_ALIGNMENT.
const windowAlign = 4096

// Handle is the window as kernels take it (an ncclWindow_t, a device
// address).
func (w *Window) Handle() (uintptr, error) { return w.impl.handle() }

// Deregister releases the window (ncclCommWindowDeregister).
func (w *Window) Deregister() error { return w.impl.deregister() }

// The soft engine's AllocMemory is rt.Alloc's, freed by the buffer.
func (sc *softComm) memAlloc(uint64) (rt.DevPtr, error) {
	return 0, errorf("ncclMemAlloc", InternalError, "the soft engine allocates through rt")
}
func (sc *softComm) memFree(rt.DevPtr) error { return nil }

func (sc *softComm) registerWindow(rt.DevPtr, uint64, *groupState) (windowImpl, error) {
	return nil, errorf("ncclCommWindowRegister", InvalidUsage, "the soft engine has no symmetric memory: soft kernels reach no peer memory")
}
