//go:build cgo

package cgo

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestRtLibrary drives the backend through rt's public API, the way
// generated packages do: a Library with declared kernels and parameter
// layouts, Kernel.Launch with a stack buffer, Global and Managed variables.
func TestRtLibrary(t *testing.T) {
	d := gpu(t)
	ctx, err := rt.PrimaryOn(d, 0)
	must(t, err)
	defer ctx.Release()
	lib := rt.NewLibrary("kernels.ptx", kernelsPTX)
	vecAdd := lib.Kernel("vecAdd",
		rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 8},
		rt.ParamSpec{Offset: 16, Size: 8}, rt.ParamSpec{Offset: 24, Size: 4})
	scale := rt.NewGlobal[float32](lib, "scale", 1)
	total := rt.NewManaged[uint32](lib, "managedTotal", 1)

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

	v, err := scale.Get(ctx)
	must(t, err)
	m, err := total.Get(ctx)
	must(t, err)
	if v != 2.5 || m < 100 {
		t.Errorf("scale = %v, managedTotal = %d; want 2.5 and at least 100", v, m)
	}

	// A kernel the image does not have fails the load, and the error lists
	// what the image has (cuLibraryEnumerateKernels), where the driver can
	// list them without a current context.
	gone := rt.NewLibrary("kernels.ptx", kernelsPTX)
	old := gone.Kernel("vecAddOld", rt.ParamSpec{Offset: 0, Size: 8})
	_, err = gone.Load(d)
	if err == nil && !d.ContextIndependent() {
		// The legacy path looks names up in a context (documented): the
		// kernel's first launch there reports it.
		var p [8]byte
		err = old.Launch(rt.Linear(1, 32).On(s), p[:])
	}
	t.Logf("kernel missing from the image: %v", err)
	if !errors.Is(err, rt.ErrNotFound) || !strings.Contains(err.Error(), "vecAddOld") {
		t.Errorf("a kernel missing from the image: %v, want ErrNotFound naming it", err)
	}
	if d.ContextIndependent() && !strings.Contains(err.Error(), "vecAdd, ") && !strings.Contains(err.Error(), ", vecAdd") {
		t.Errorf("the error does not list the image's kernels: %v", err)
	}

	// A stale layout (what an outdated generated package would declare) is
	// caught at load where the driver reports layouts, and the backend
	// refuses the short buffer at launch in any case: never a launch that
	// reads garbage.
	if !d.hasParamInfo() {
		t.Logf("driver cannot report parameter layouts (older than 12.4): stale-layout checks skipped")
		return
	}
	stale := rt.NewLibrary("kernels.ptx", kernelsPTX)
	k := stale.Kernel("vecAdd", rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 4})
	_, err = stale.Load(d)
	t.Logf("stale layout at load: %v", err)
	if d.ContextIndependent() && (err == nil || !strings.Contains(err.Error(), "regenerate")) {
		t.Errorf("stale layout loaded: %v", err)
	}
	var p [12]byte
	err = k.Launch(rt.Linear(1, 32).On(s), p[:])
	t.Logf("stale layout at launch: %v", err)
	if err == nil {
		t.Fatal("a launch with a stale 12-byte layout for vecAdd went through")
	}
	must(t, s.Synchronize())
}
