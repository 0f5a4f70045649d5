package kernels_test

import (
	"fmt"
	"testing"

	"github.com/cugen/cugen/examples/quickstart/kernels"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
)

// The graph workflow with generated functions: capture the launches once,
// replay them as one unit, and point one kernel node at other buffers with
// the generated XNode function, which has the launch function's signature.
func ExampleVecAddNode() {
	devs, _ := rt.DevicesOf(soft.New(soft.Options{})) // rt.Devices() picks the GPU when there is one
	ctx, _ := devs[0].Primary()
	defer ctx.Release()
	s, _ := ctx.NewStream()
	a, _ := rt.AllocFrom(ctx, []float32{1, 2, 3, 4})
	b, _ := rt.AllocFrom(ctx, []float32{10, 20, 30, 40})
	c, _ := rt.Alloc[float32](ctx, 4)
	cfg := rt.Linear(4, 32)
	var add rt.GraphNode
	g, err := s.Capture(func(s *rt.Stream) error {
		if err := kernels.VecAdd(cfg.On(s), a.Const(), b.Const(), c.Ptr, 4); err != nil {
			return err
		}
		add, _ = s.CapturedNode() // the node VecAdd added
		return kernels.ScaleFloat32(cfg.On(s), c.Ptr, 2, 4)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	x, _ := g.Instantiate()
	x.Launch(s)
	out, _ := c.ToHostAsync(s)
	s.Synchronize()
	fmt.Println(out)
	kernels.VecAddNode(x.KernelNode(add), cfg, a.Const(), a.Const(), c.Ptr, 4) // c = 2*(a+a) from now on
	x.Launch(s)
	out, _ = c.ToHostAsync(s)
	s.Synchronize()
	fmt.Println(out)
	// Output:
	// [22 44 66 88]
	// [4 8 12 16]
}

// TestGraph runs the workflow on the default backend (the GPU where rt/cgo
// finds one), with the exported kernel handles' attributes and occupancy.
func TestGraph(t *testing.T) {
	devs, err := rt.Devices()
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	if _, ok := ctx.Driver().(rt.Grapher); !ok {
		t.Skipf("backend %s has no graphs", ctx.Driver().Name())
	}
	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	const n = 1000
	x1, x2 := make([]float32, n), make([]float32, n)
	for i := range x1 {
		x1[i], x2[i] = float32(i), float32(3*i)
	}
	a, _ := rt.AllocFrom(ctx, x1)
	b, _ := rt.AllocFrom(ctx, x2)
	c, _ := rt.Alloc[float32](ctx, n)
	defer func() { a.Free(); b.Free(); c.Free() }()
	grid, block, err := kernels.VecAddKernel.SuggestBlockSize(ctx, 0, 0)
	if err != nil || block <= 0 || grid <= 0 {
		t.Fatalf("SuggestBlockSize: grid %d, block %d, %v", grid, block, err)
	}
	attrs, err := kernels.VecAddKernel.Attributes(ctx.Device())
	if err != nil || attrs.NumRegs <= 0 || attrs.MaxThreadsPerBlock < block {
		t.Fatalf("VecAddKernel.Attributes = %+v, %v (suggested block %d)", attrs, err, block)
	}
	cfg := rt.Linear(n, block)
	var add, scale rt.GraphNode
	g, err := s.Capture(func(s *rt.Stream) error {
		if err := kernels.VecAdd(cfg.On(s), a.Const(), b.Const(), c.Ptr, n); err != nil {
			return err
		}
		if add, err = s.CapturedNode(); err != nil {
			return err
		}
		if err := kernels.ScaleFloat32(cfg.On(s), c.Ptr, 2, n); err != nil {
			return err
		}
		scale, err = s.CapturedNode()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Destroy()
	x, err := g.Instantiate()
	if err != nil {
		t.Fatal(err)
	}
	defer x.Destroy()
	check := func(what string, want func(i int) float32) {
		t.Helper()
		if err := x.Launch(s); err != nil {
			t.Fatal(err)
		}
		got, err := c.ToHostAsync(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			if v != want(i) {
				t.Fatalf("%s: c[%d] = %v, want %v", what, i, v, want(i))
			}
		}
	}
	check("the captured graph", func(i int) float32 { return 2 * (x1[i] + x2[i]) })
	if err := kernels.VecAddNode(x.KernelNode(add), cfg, b.Const(), b.Const(), c.Ptr, n); err != nil {
		t.Fatal(err)
	}
	if err := kernels.ScaleFloat32Node(x.KernelNode(scale), cfg, c.Ptr, 0.5, n); err != nil {
		t.Fatal(err)
	}
	check("after updating both nodes", func(i int) float32 { return x2[i] })
}
