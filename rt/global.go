package rt

import "fmt"

// variable is what a Global and a Managed share: a named, sized variable of
// a Library and its accessors; only how its address is found differs.
type variable[T any] struct {
	lib     *Library
	name    string
	n       int
	managed bool
}

// Name is the variable's symbol name.
func (v *variable[T]) Name() string { return v.name }

// Len is the number of elements.
func (v *variable[T]) Len() int { return v.n }

// Ptr is the variable's address in ctx: cuLibraryGetGlobal, a different
// address per context, for a Global; cuLibraryGetManaged, one address for
// every context, for a Managed (ctx then says which driver).
func (v *variable[T]) Ptr(ctx *Context) (Ptr[T], error) {
	if err := ctx.check("rt.Global.Ptr"); err != nil {
		return 0, err
	}
	if v.lib == nil {
		return 0, Errorf("rt.Global.Ptr", ErrInvalidHandle, "variable %s of a nil rt.Library", v.name)
	}
	h, err := v.lib.Load(ctx.drv)
	if err != nil {
		return 0, err
	}
	lookup, kind := ctx.drv.LibraryGlobal, "global"
	if v.managed {
		lookup, kind = ctx.drv.LibraryManaged, "managed"
	}
	p, size, err := lookup(ctx.h, h, v.name)
	if err != nil {
		return 0, fmt.Errorf("rt: library %s: %s %s: %w", v.lib.name, kind, v.name, err)
	}
	if err := checkVarSize(v.lib.name, v.name, size, v.n, sizeOf[T]()); err != nil {
		return 0, err
	}
	return Ptr[T](p), nil
}

// Get reads element 0 in ctx.
func (v *variable[T]) Get(ctx *Context) (T, error) {
	var x [1]T
	err := v.Read(ctx, x[:])
	return x[0], err
}

// Set writes element 0 in ctx.
func (v *variable[T]) Set(ctx *Context, x T) error { return v.Write(ctx, []T{x}) }

// Read copies the first len(dst) elements in ctx into dst, synchronously
// with respect to all work in ctx, as Buffer.CopyTo does.
func (v *variable[T]) Read(ctx *Context, dst []T) error {
	p, err := v.Ptr(ctx)
	if err != nil {
		return err
	}
	return readVar(ctx, v.lib.name, v.name, v.n, dst, p)
}

// Write copies src over the first len(src) elements in ctx, synchronously
// with respect to all work in ctx, as Buffer.CopyFrom does.
func (v *variable[T]) Write(ctx *Context, src []T) error {
	p, err := v.Ptr(ctx)
	if err != nil {
		return err
	}
	return writeVar(ctx, v.lib.name, v.name, v.n, src, p)
}

// Global is a __device__ or __constant__ variable of a Library: n elements of
// T. CUDA gives it a separate address in every context, so each accessor
// names the context it works in.
type Global[T any] struct{ variable[T] }

// NewGlobal declares the variable name of lib holding n elements of T.
func NewGlobal[T any](lib *Library, name string, n int) *Global[T] {
	return &Global[T]{variable[T]{lib: lib, name: name, n: n}}
}

// Managed is a __managed__ variable of a Library: one address shared by every
// context and the host. (A backend on CUDA's legacy per-context module path,
// drivers before 12.0, has a copy per context instead: each module load
// makes its own.)
type Managed[T any] struct{ variable[T] }

// NewManaged declares the managed variable name of lib holding n elements of T.
func NewManaged[T any](lib *Library, name string, n int) *Managed[T] {
	return &Managed[T]{variable[T]{lib: lib, name: name, n: n, managed: true}}
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
	return CopyDtoH(ctx, dst, p)
}

func writeVar[T any](ctx *Context, lib, name string, n int, src []T, p Ptr[T]) error {
	if len(src) > n {
		return Errorf("rt.Write", ErrInvalidValue, "library %s: %s has %d elements, got %d", lib, name, n, len(src))
	}
	if len(src) == 0 {
		return nil
	}
	return CopyHtoD(ctx, p, src)
}

// View reinterprets a variable's memory as elements of U. NVVM lowers
// initialized and aggregate arrays to bytes (`unsigned w[256]` becomes
// `.b8 w[1024]`), so a generated accessor may be a Global[uint8]; View gives
// the element type back. The size must divide evenly.
func View[U, T any](g *Global[T]) (*Global[U], error) {
	if g == nil {
		return nil, Errorf("rt.View", ErrInvalidValue, "a nil rt.Global")
	}
	total := uint64(g.n) * sizeOf[T]()
	eu := sizeOf[U]()
	if eu == 0 || total%eu != 0 {
		return nil, fmt.Errorf("rt: variable %s is %d bytes, not a whole number of %d-byte elements", g.name, total, eu)
	}
	return &Global[U]{variable[U]{lib: g.lib, name: g.name, n: int(total / eu)}}, nil
}
