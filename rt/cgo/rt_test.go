//go:build cgo

package cgo

import (
	"encoding/binary"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestRtLaunchAllocs drives the backend through rt's public API, the way
// generated packages do (rt.Kernel.Launch with a stack buffer), and counts
// the allocations of a launch: none on the context-independent path.
func TestRtLaunchAllocs(t *testing.T) {
	d := gpu(t)
	ctx := primary(t, d)
	defer ctx.Release()
	lib := rt.NewLibrary("kernels.ptx", kernelsPTX)
	defer lib.Unload(d)
	vecAdd := lib.Kernel("vecAdd",
		rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 8},
		rt.ParamSpec{Offset: 16, Size: 8}, rt.ParamSpec{Offset: 24, Size: 4})

	a, b := inputs()
	da, err := rt.AllocFrom(ctx, a)
	must(t, err)
	db, err := rt.AllocFrom(ctx, b)
	must(t, err)
	dc, err := rt.Alloc[float32](ctx, nElems)
	must(t, err)
	defer func() { da.Free(); db.Free(); dc.Free() }()
	s, err := ctx.NewStream()
	must(t, err)
	defer s.Destroy()

	launch := func() {
		var p [28]byte
		binary.LittleEndian.PutUint64(p[0:], uint64(da.Ptr))
		binary.LittleEndian.PutUint64(p[8:], uint64(db.Ptr))
		binary.LittleEndian.PutUint64(p[16:], uint64(dc.Ptr))
		binary.LittleEndian.PutUint32(p[24:], nElems)
		if err := vecAdd.Launch(rt.Linear(nElems, 128).On(s), p[:]); err != nil {
			panic(err)
		}
	}
	launch()
	must(t, s.Synchronize())
	c, err := dc.ToHost()
	must(t, err)
	for i := range c {
		if c[i] != a[i]+b[i] {
			t.Fatalf("c[%d] = %v, want %v", i, c[i], a[i]+b[i])
		}
	}
	allocs := testing.AllocsPerRun(1000, launch)
	must(t, s.Synchronize())
	t.Logf("allocs/launch through rt.Kernel.Launch (generated-code path): %.2f", allocs)
	if allocs != 0 && d.ContextIndependent() {
		t.Errorf("rt.Kernel.Launch allocates %.2f times per launch", allocs)
	}
}
