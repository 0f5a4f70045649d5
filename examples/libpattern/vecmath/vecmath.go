// Package vecmath is a Go library backed by CUDA kernels whose callers never
// see CUDA: plain functions over []float32 that take the context to run in.
// The library owns no contexts and keeps no per-context state; callers create
// and destroy contexts as they like, and each call works in the one it is
// given. That is what context-independent loading makes possible: the
// kernels are loaded once per process, and usable in every context.
package vecmath

import (
	"fmt"

	"github.com/cugen/cugen/examples/libpattern/vecmath/internal/kernels"
	"github.com/cugen/cugen/rt"
)

const block = 256

// Axpby returns a*x + b*y, computed on ctx's device.
func Axpby(ctx *rt.Context, a float32, x []float32, b float32, y []float32) ([]float32, error) {
	if len(x) != len(y) {
		return nil, fmt.Errorf("vecmath.Axpby: len(x) = %d, len(y) = %d", len(x), len(y))
	}
	dx, dy, err := upload(ctx, x, y)
	if err != nil {
		return nil, err
	}
	defer dx.Free()
	defer dy.Free()
	out, err := rt.Alloc[float32](ctx, len(x))
	if err != nil {
		return nil, err
	}
	defer out.Free()
	s := ctx.NullStream()
	if err := kernels.Axpby(rt.Linear(len(x), block).On(s), int32(len(x)), a, dx.Const(), b, dy.Const(), out.Ptr); err != nil {
		return nil, err
	}
	if err := s.Synchronize(); err != nil {
		return nil, err
	}
	return out.ToHost()
}

// Dot returns the dot product of x and y, computed on ctx's device.
func Dot(ctx *rt.Context, x, y []float32) (float32, error) {
	if len(x) != len(y) {
		return 0, fmt.Errorf("vecmath.Dot: len(x) = %d, len(y) = %d", len(x), len(y))
	}
	dx, dy, err := upload(ctx, x, y)
	if err != nil {
		return 0, err
	}
	defer dx.Free()
	defer dy.Free()
	out, err := rt.AllocFrom(ctx, []float32{0})
	if err != nil {
		return 0, err
	}
	defer out.Free()
	s := ctx.NullStream()
	if err := kernels.Dot(rt.Config{Grid: rt.D1(8), Block: rt.D1(block), Stream: s}, int32(len(x)), dx.Const(), dy.Const(), out.Ptr); err != nil {
		return 0, err
	}
	if err := s.Synchronize(); err != nil {
		return 0, err
	}
	r, err := out.ToHost()
	if err != nil {
		return 0, err
	}
	return r[0], nil
}

func upload(ctx *rt.Context, x, y []float32) (dx, dy rt.Buffer[float32], err error) {
	if dx, err = rt.AllocFrom(ctx, x); err != nil {
		return
	}
	if dy, err = rt.AllocFrom(ctx, y); err != nil {
		dx.Free()
	}
	return
}
