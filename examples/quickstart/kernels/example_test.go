package kernels_test

import (
	"fmt"

	"github.com/cugen/cugen/examples/quickstart/kernels"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
)

// A generated launch function takes the launch configuration and the
// kernel's parameters with their C++ types in Go: here
// extern "C" vecAdd(const float*, const float*, float*, int).
func ExampleVecAdd() {
	devs, err := rt.DevicesOf(soft.New(soft.Options{})) // rt.Devices() picks the GPU when there is one
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Release()
	a, _ := rt.AllocFrom(ctx, []float32{1, 2, 3, 4})
	b, _ := rt.AllocFrom(ctx, []float32{10, 20, 30, 40})
	c, _ := rt.Alloc[float32](ctx, 4)
	s := ctx.NullStream()
	if err := kernels.VecAdd(rt.Linear(4, 32).On(s), a.Const(), b.Const(), c.Ptr, 4); err != nil {
		fmt.Println(err)
		return
	}
	s.Synchronize()
	out, _ := c.ToHost()
	fmt.Println(out)
	// Output: [11 22 33 44]
}

// A __device__ variable has one copy per context: its accessors take the
// context. A __managed__ variable has one address for all of them.
func ExampleLaunches() {
	devs, _ := rt.DevicesOf(soft.New(soft.Options{}))
	a, _ := devs[0].Primary()
	b, _ := devs[0].NewContext(0)
	kernels.Launches.Set(a, 1)
	kernels.Launches.Set(b, 2)
	va, _ := kernels.Launches.Get(a)
	vb, _ := kernels.Launches.Get(b)
	ma, _ := kernels.Total.Ptr(a)
	mb, _ := kernels.Total.Ptr(b)
	fmt.Println(va, vb, ma == mb)
	// Output: 1 2 true
}
