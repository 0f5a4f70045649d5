// Package twoctx is the quickstart kernels' context-independence test, shared
// by the package generated from PTX and the one generated from a fatbin.
package twoctx

import (
	"sync/atomic"
	"testing"

	"github.com/cugen/cugen/rt"
)

// Kernels are the generated functions and variables under test.
type Kernels struct {
	VecAdd   func(cfg rt.Config, a, b rt.ConstPtr[float32], c rt.Ptr[float32], n int32) error
	Scale    func(cfg rt.Config, x rt.Ptr[float32], s float32, n int32) error
	Launches *rt.Global[int32]
	Total    *rt.Managed[uint32]
}

// countingDriver counts library loads of the driver it wraps.
type countingDriver struct {
	rt.Driver
	loads atomic.Int32
}

func (d *countingDriver) LibraryLoad(image []byte, opts rt.LoadOptions) (rt.LibHandle, error) {
	d.loads.Add(1)
	return d.Driver.LibraryLoad(image, opts)
}

// Run checks the context-independent loading promise on the default backend:
// the library is loaded once, its kernels run in the primary context and in
// a second created context with exact results, each context has its own
// __device__ variable, and the __managed__ variable has one address.
func Run(t *testing.T, k Kernels) {
	base, err := rt.Default()
	if err != nil {
		t.Fatal(err)
	}
	drv := &countingDriver{Driver: base}
	devs, err := rt.DevicesOf(drv)
	if err != nil {
		t.Fatal(err)
	}
	primary, err := devs[0].Primary()
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Release()
	created, err := devs[0].NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	defer created.Release()
	t.Logf("backend %s: %v and %v", drv.Name(), primary, created)

	const n = 4099 // not a multiple of the block size
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i)*0.25, float32(n-i)
	}
	var addrs [2]rt.Ptr[int32]
	var managed [2]rt.Ptr[uint32]
	for ci, ctx := range []*rt.Context{primary, created} {
		s, err := ctx.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		da, _ := rt.AllocFrom(ctx, a)
		db, _ := rt.AllocFrom(ctx, b)
		dc, err := rt.Alloc[float32](ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		cfg := rt.Linear(n, 128).On(s)
		if err := k.VecAdd(cfg, da.Const(), db.Const(), dc.Ptr, n); err != nil {
			t.Fatal(err)
		}
		scale := float32(ci + 2)
		if err := k.Scale(cfg, dc.Ptr, scale, n); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		c, err := dc.ToHost()
		if err != nil {
			t.Fatal(err)
		}
		for i := range c {
			if want := (a[i] + b[i]) * scale; c[i] != want {
				t.Fatalf("context %d: c[%d] = %v, want %v", ci, i, c[i], want)
			}
		}
		if err := k.Launches.Set(ctx, int32(100*(ci+1))); err != nil {
			t.Fatal(err)
		}
		if addrs[ci], err = k.Launches.Ptr(ctx); err != nil {
			t.Fatal(err)
		}
		if managed[ci], err = k.Total.Ptr(ctx); err != nil {
			t.Fatal(err)
		}
		for _, f := range []func() error{da.Free, db.Free, dc.Free, s.Destroy} {
			if err := f(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if addrs[0] == addrs[1] {
		t.Errorf("__device__ launches has one address %v in both contexts", addrs[0])
	}
	if managed[0] != managed[1] {
		t.Errorf("__managed__ total has addresses %v and %v", managed[0], managed[1])
	}
	p, _ := k.Launches.Get(primary)
	c, _ := k.Launches.Get(created)
	if p != 100 || c != 200 {
		t.Errorf("per-context launches = %d, %d; want 100, 200", p, c)
	}
	if n := drv.loads.Load(); n != 1 {
		t.Errorf("library loaded %d times, want once", n)
	}
	t.Logf("launches at %v (primary) and %v (created); managed total at %v in both", addrs[0], addrs[1], managed[0])
}
