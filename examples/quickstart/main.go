// Command quickstart runs cugen-generated kernels: on the GPU when rt/cgo finds
// one, otherwise on rt/soft, the pure-Go PTX executor. The code is the same.
//
//	go run ./examples/quickstart
package main

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/cugen/cugen/examples/quickstart/kernels"
	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/cgo"  // the GPU, when there is one
	_ "github.com/cugen/cugen/rt/soft" // otherwise the CPU
)

func main() {
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
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
	dev, _ := ctx.Device().Name()
	fmt.Fprintf(w, "backend %s, device 0: %s\n", ctx.Driver().Name(), dev)

	s, err := ctx.NewStream()
	if err != nil {
		return err
	}
	defer s.Destroy()

	const n = 1000
	a, b, v := make([]float32, n), make([]float32, n), make([]uint32, n)
	for i := range a {
		a[i], b[i], v[i] = float32(i), float32(2*i), uint32(i)
	}
	da, err := rt.AllocFrom(ctx, a)
	if err != nil {
		return err
	}
	defer da.Free()
	db, err := rt.AllocFrom(ctx, b)
	if err != nil {
		return err
	}
	defer db.Free()
	dc, err := rt.Alloc[float32](ctx, n)
	if err != nil {
		return err
	}
	defer dc.Free()
	dv, err := rt.AllocFrom(ctx, v)
	if err != nil {
		return err
	}
	defer dv.Free()

	// c = (a + b) * 0.5, two kernels on one stream.
	cfg := rt.Linear(n, 256).On(s)
	if err := kernels.VecAdd(cfg, da.Const(), db.Const(), dc.Ptr, n); err != nil {
		return err
	}
	if err := kernels.ScaleFloat32(cfg, dc.Ptr, 0.5, n); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	c, err := dc.ToHost()
	if err != nil {
		return err
	}
	for i := range c {
		if want := (a[i] + b[i]) * 0.5; c[i] != want {
			return fmt.Errorf("c[%d] = %v, want %v", i, c[i], want)
		}
	}
	fmt.Fprintf(w, "vecAdd+scale<float>: c[1] = %v, c[%d] = %v (all %d checked)\n", c[1], n-1, c[n-1], n)

	// A __managed__ total and a __device__ launch counter.
	if err := kernels.Total.Set(ctx, 0); err != nil {
		return err
	}
	if err := kernels.Sum(cfg, dv.Const(), n); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	total, err := kernels.Total.Get(ctx)
	if err != nil {
		return err
	}
	launches, err := kernels.Launches.Get(ctx)
	if err != nil {
		return err
	}
	if total != n*(n-1)/2 {
		return fmt.Errorf("managed total = %d, want %d", total, n*(n-1)/2)
	}
	fmt.Fprintf(w, "sum: managed total = %d, launches in this context = %d\n", total, launches)
	return nil
}
