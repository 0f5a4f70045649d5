//go:build cgo

package cgo

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// The vecAdd of costLib once more, in a library of its own whose kernel the
// backend is told to place: the same kernel launched the placed way.
var (
	placedLib    = rt.NewLibrary("kernels.ptx", kernelsPTX)
	placedVecAdd = placedLib.Kernel("vecAdd", costVecAdd.Params()...)
)

func placedVecAddGen(cfg rt.Config, a, b, c rt.Ptr[float32], n int32) error {
	var args [28]byte
	binary.LittleEndian.PutUint64(args[0:], uint64(a))
	binary.LittleEndian.PutUint64(args[8:], uint64(b))
	binary.LittleEndian.PutUint64(args[16:], uint64(c))
	binary.LittleEndian.PutUint32(args[24:], uint32(n))
	return placedVecAdd.Launch(cfg, args[:])
}

// TestPlacedLaunchCost measures what placing a kernel's parameters costs a
// launch, on one kernel launched every way in one process: generated code
// on the fast path (a packed buffer), generated code for a placed kernel
// (kernelParams built in C from the packed buffer), and, from C loops, the
// two ways placing could be done: kernelParams, or copying each parameter
// to the device's offset in a stack buffer (the alternative not taken),
// against the C reference loop. Batches of 256 launches, a sync after each,
// median per variant; each round runs the variants in a new order. It prints
// a PLACE-COST table and fails only on errors, wrong results or allocations.
func TestPlacedLaunchCost(t *testing.T) {
	d := gpu(t)
	ctx := primary(t, d)
	defer ctx.Release()
	s, err := ctx.NewStream()
	must(t, err)
	defer s.Destroy()
	const n = 32
	a, err := rt.AllocFrom(ctx, make([]float32, n))
	must(t, err)
	defer a.Free()
	c, err := rt.Alloc[float32](ctx, n)
	must(t, err)
	defer c.Free()
	cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: s}
	must(t, vecAddGen(cfg, a.Ptr, a.Ptr, c.Ptr, n))
	must(t, placedVecAddGen(cfg, a.Ptr, a.Ptr, c.Ptr, n))
	kh, err := costVecAdd.Handle(d)
	must(t, err)
	ph, err := placedVecAdd.Handle(d)
	must(t, err)
	must(t, d.PlaceParams(ph, placedVecAdd.Params()))

	// The placed kernel computes what the other does.
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i) * 1.5
	}
	must(t, a.CopyFrom(host))
	must(t, c.Zero())
	must(t, placedVecAddGen(cfg, a.Ptr, a.Ptr, c.Ptr, n))
	must(t, s.Synchronize())
	got, err := c.ToHost()
	must(t, err)
	for i, v := range got {
		if v != 3*float32(i) {
			t.Fatalf("placed vecAdd: c[%d] = %v, want %v", i, v, 3*float32(i))
		}
	}
	if n := testing.AllocsPerRun(1000, func() { placedVecAddGen(cfg, a.Ptr, a.Ptr, c.Ptr, n) }); n != 0 {
		t.Errorf("a placed launch allocates %v times", n)
	}
	must(t, s.Synchronize())

	var pb [28]byte
	p := a.Ptr.Addr()
	binary.LittleEndian.PutUint64(pb[0:], uint64(p))
	binary.LittleEndian.PutUint64(pb[8:], uint64(p))
	binary.LittleEndian.PutUint64(pb[16:], uint64(c.Ptr.Addr()))
	binary.LittleEndian.PutUint32(pb[24:], n)
	layout := costVecAdd.Params()
	const batch, batches, warm = 256, 300, 30
	goLoop := func(f func() error) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			t0 := time.Now()
			for j := 0; j < batch; j++ {
				if err := f(); err != nil {
					return 0, err
				}
			}
			return time.Since(t0), nil
		}
	}
	vs := []struct {
		name string
		run  func() (time.Duration, error)
	}{
		{"C loop, kernelParams (reference)", func() (time.Duration, error) {
			return d.cLoopVecAdd(kh, s.Handle(), p, p, c.Ptr.Addr(), n, batch, false)
		}},
		{"C loop, packed buffer", func() (time.Duration, error) {
			return d.cLoopVecAdd(kh, s.Handle(), p, p, c.Ptr.Addr(), n, batch, true)
		}},
		{"C loop, cg_launch_placed (kernelParams)", func() (time.Duration, error) {
			return d.placeLoop(ph, s.Handle(), unsafe.Pointer(&pb), layout, batch, false)
		}},
		{"C loop, repacked to a stack buffer", func() (time.Duration, error) {
			return d.placeLoop(kh, s.Handle(), unsafe.Pointer(&pb), layout, batch, true)
		}},
		{"generated, fast path", goLoop(func() error { return vecAddGen(cfg, a.Ptr, a.Ptr, c.Ptr, n) })},
		{"generated, placed", goLoop(func() error { return placedVecAddGen(cfg, a.Ptr, a.Ptr, c.Ptr, n) })},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	order := make([]int, len(vs))
	for i := range order {
		order[i] = i
	}
	times := make([][]time.Duration, len(vs))
	for i := 0; i < batches; i++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, vi := range order {
			dt, err := vs[vi].run()
			must(t, err)
			must(t, s.Synchronize())
			if i >= warm {
				times[vi] = append(times[vi], dt/batch)
			}
		}
	}
	med := func(x []time.Duration) time.Duration {
		sort.Slice(x, func(i, j int) bool { return x[i] < x[j] })
		return x[len(x)/2]
	}
	ref := med(times[0])
	fast := med(times[4])
	for vi, v := range vs {
		m := med(times[vi])
		line := fmt.Sprintf("PLACE-COST %-42s %8v  %.3f of C  %.3f of the fast path", v.name, m, float64(m)/float64(ref), float64(m)/float64(fast))
		t.Log(line)
		fmt.Println(line)
	}
}
