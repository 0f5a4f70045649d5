// Command saxpy runs one templated kernel, saxpy<T>, instantiated for float
// and double: cugen names the instances SaxpyFloat32 and SaxpyFloat64, with
// the element type in every parameter.
package main

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/cugen/cugen/examples/saxpy/kernels"
	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/cgo"
	_ "github.com/cugen/cugen/rt/soft"
)

func main() {
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// saxpy runs y = a*x + y for one element type through launch, on the device.
func saxpy[T float32 | float64](ctx *rt.Context, s *rt.Stream, a T, x, y []T,
	launch func(rt.Config, int32, T, rt.ConstPtr[T], rt.Ptr[T]) error) ([]T, error) {
	dx, err := rt.AllocFrom(ctx, x)
	if err != nil {
		return nil, err
	}
	defer dx.Free()
	dy, err := rt.AllocFrom(ctx, y)
	if err != nil {
		return nil, err
	}
	defer dy.Free()
	// A grid smaller than the data: the kernel's grid-stride loop covers the rest.
	if err := launch(rt.Config{Grid: rt.D1(4), Block: rt.D1(128), Stream: s}, int32(len(x)), a, dx.Const(), dy.Ptr); err != nil {
		return nil, err
	}
	if err := s.Synchronize(); err != nil {
		return nil, err
	}
	return dy.ToHost()
}

func run(w io.Writer) error {
	devs, err := rt.Devices()
	if err != nil {
		return err
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		return err
	}
	defer ctx.Release()
	s, err := ctx.NewStream()
	if err != nil {
		return err
	}
	defer s.Destroy()

	const n = 3000
	xf, yf := make([]float32, n), make([]float32, n)
	xd, yd := make([]float64, n), make([]float64, n)
	for i := range xf {
		xf[i], yf[i] = float32(i), 1
		xd[i], yd[i] = float64(i)/3, 1
	}
	rf, err := saxpy(ctx, s, 2, xf, yf, kernels.SaxpyFloat32)
	if err != nil {
		return err
	}
	rd, err := saxpy(ctx, s, 2, xd, yd, kernels.SaxpyFloat64)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		// fma or not, 2*x+1 is exact for these inputs in both precisions
		if rf[i] != 2*xf[i]+1 || rd[i] != 2*xd[i]+1 {
			return fmt.Errorf("element %d: float %v, double %v", i, rf[i], rd[i])
		}
	}
	fmt.Fprintf(w, "saxpy<float>:  y[%d] = %v\nsaxpy<double>: y[%d] = %v\n", n-1, rf[n-1], n-1, rd[n-1])
	return nil
}
