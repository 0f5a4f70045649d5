package rt

import (
	"fmt"
	"unsafe"
)

// Global is a __device__ or __constant__ variable of a Library: n elements of
// T. CUDA gives it a separate address in every context, so each accessor
// names the context it works in.
type Global[T any] struct {
	lib  *Library
	name string
	n    int
}

// NewGlobal declares the variable name of lib holding n elements of T.
func NewGlobal[T any](lib *Library, name string, n int) *Global[T] {
	return &Global[T]{lib: lib, name: name, n: n}
}

// Name is the variable's symbol name.
func (g *Global[T]) Name() string { return g.name }

// Len is the number of elements.
func (g *Global[T]) Len() int { return g.n }

// Ptr is the variable's address in ctx (cuLibraryGetGlobal).
func (g *Global[T]) Ptr(ctx *Context) (Ptr[T], error) {
	h, err := g.lib.Load(ctx.drv)
	if err != nil {
		return 0, err
	}
	p, size, err := ctx.drv.LibraryGlobal(ctx.h, h, g.name)
	if err != nil {
		return 0, fmt.Errorf("rt: library %s: global %s: %w", g.lib.name, g.name, err)
	}
	if err := checkVarSize(g.lib.name, g.name, size, g.n, sizeOf[T]()); err != nil {
		return 0, err
	}
	return Ptr[T](p), nil
}

// Get reads element 0 in ctx.
func (g *Global[T]) Get(ctx *Context) (T, error) {
	var v [1]T
	err := g.Read(ctx, v[:])
	return v[0], err
}

// Set writes element 0 in ctx.
func (g *Global[T]) Set(ctx *Context, v T) error { return g.Write(ctx, []T{v}) }

// Read copies the first len(dst) elements in ctx into dst.
func (g *Global[T]) Read(ctx *Context, dst []T) error {
	p, err := g.Ptr(ctx)
	if err != nil {
		return err
	}
	return readVar(ctx, g.lib.name, g.name, g.n, dst, p)
}

// Write copies src over the first len(src) elements in ctx.
func (g *Global[T]) Write(ctx *Context, src []T) error {
	p, err := g.Ptr(ctx)
	if err != nil {
		return err
	}
	return writeVar(ctx, g.lib.name, g.name, g.n, src, p)
}

// Managed is a __managed__ variable of a Library: one address shared by every
// context and the host.
type Managed[T any] struct {
	lib  *Library
	name string
	n    int
}

// NewManaged declares the managed variable name of lib holding n elements of T.
func NewManaged[T any](lib *Library, name string, n int) *Managed[T] {
	return &Managed[T]{lib: lib, name: name, n: n}
}

// Name is the variable's symbol name.
func (m *Managed[T]) Name() string { return m.name }

// Len is the number of elements.
func (m *Managed[T]) Len() int { return m.n }

// Ptr is the variable's single address (cuLibraryGetManaged); ctx says which
// driver and is current for the call.
func (m *Managed[T]) Ptr(ctx *Context) (Ptr[T], error) {
	h, err := m.lib.Load(ctx.drv)
	if err != nil {
		return 0, err
	}
	p, size, err := ctx.drv.LibraryManaged(ctx.h, h, m.name)
	if err != nil {
		return 0, fmt.Errorf("rt: library %s: managed %s: %w", m.lib.name, m.name, err)
	}
	if err := checkVarSize(m.lib.name, m.name, size, m.n, sizeOf[T]()); err != nil {
		return 0, err
	}
	return Ptr[T](p), nil
}

// Get reads element 0.
func (m *Managed[T]) Get(ctx *Context) (T, error) {
	var v [1]T
	err := m.Read(ctx, v[:])
	return v[0], err
}

// Set writes element 0.
func (m *Managed[T]) Set(ctx *Context, v T) error { return m.Write(ctx, []T{v}) }

// Read copies the first len(dst) elements into dst.
func (m *Managed[T]) Read(ctx *Context, dst []T) error {
	p, err := m.Ptr(ctx)
	if err != nil {
		return err
	}
	return readVar(ctx, m.lib.name, m.name, m.n, dst, p)
}

// Write copies src over the first len(src) elements.
func (m *Managed[T]) Write(ctx *Context, src []T) error {
	p, err := m.Ptr(ctx)
	if err != nil {
		return err
	}
	return writeVar(ctx, m.lib.name, m.name, m.n, src, p)
}

func checkVarSize(lib, name string, got uint64, n int, elem uint64) error {
	if want := uint64(n) * elem; got != want {
		return fmt.Errorf("rt: library %s: variable %s is %d bytes in the image, %d in the generated code (regenerate with cugen)", lib, name, got, want)
	}
	return nil
}

func readVar[T any](ctx *Context, lib, name string, n int, dst []T, p Ptr[T]) error {
	if len(dst) > n {
		return Errorf("rt.Read", ErrInvalidValue, "library %s: %s has %d elements, asked for %d", lib, name, n, len(dst))
	}
	if len(dst) == 0 {
		return nil
	}
	return ctx.drv.MemcpyDtoH(ctx.h, unsafe.Pointer(unsafe.SliceData(dst)), DevPtr(p), uint64(len(dst))*sizeOf[T](), 0, false)
}

func writeVar[T any](ctx *Context, lib, name string, n int, src []T, p Ptr[T]) error {
	if len(src) > n {
		return Errorf("rt.Write", ErrInvalidValue, "library %s: %s has %d elements, got %d", lib, name, n, len(src))
	}
	if len(src) == 0 {
		return nil
	}
	return ctx.drv.MemcpyHtoD(ctx.h, DevPtr(p), unsafe.Pointer(unsafe.SliceData(src)), uint64(len(src))*sizeOf[T](), 0, false)
}

// View reinterprets a variable's memory as elements of U. NVVM lowers
// initialized and aggregate arrays to bytes (`unsigned w[256]` becomes
// `.b8 w[1024]`), so a generated accessor may be a Global[uint8]; View gives
// the element type back. The size must divide evenly.
func View[U, T any](g *Global[T]) (*Global[U], error) {
	total := uint64(g.n) * sizeOf[T]()
	eu := sizeOf[U]()
	if eu == 0 || total%eu != 0 {
		return nil, fmt.Errorf("rt: variable %s is %d bytes, not a whole number of %d-byte elements", g.name, total, eu)
	}
	return &Global[U]{lib: g.lib, name: g.name, n: int(total / eu)}, nil
}
