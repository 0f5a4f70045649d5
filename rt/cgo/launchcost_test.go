//go:build cgo

package cgo

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// vecAddGen is what cugen generates for extern "C" vecAdd(float*, float*, float*, int).
var (
	costLib    = rt.NewLibrary("kernels.ptx", kernelsPTX)
	costVecAdd = costLib.Kernel("vecAdd",
		rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 8},
		rt.ParamSpec{Offset: 16, Size: 8}, rt.ParamSpec{Offset: 24, Size: 4})
)

func vecAddGen(cfg rt.Config, a, b, c rt.Ptr[float32], n int32) error {
	var args [28]byte
	binary.LittleEndian.PutUint64(args[0:], uint64(a))
	binary.LittleEndian.PutUint64(args[8:], uint64(b))
	binary.LittleEndian.PutUint64(args[16:], uint64(c))
	binary.LittleEndian.PutUint32(args[24:], uint32(n))
	return costVecAdd.Launch(cfg, args[:])
}

func BenchmarkLaunchGenerated(b *testing.B) {
	d := gpu(b)
	ctx := primary(b, d)
	defer ctx.Release()
	s, err := ctx.NewStream()
	must(b, err)
	buf, err := rt.Alloc[float32](ctx, 32)
	must(b, err)
	cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: s}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		vecAddGen(cfg, buf.Ptr, buf.Ptr, buf.Ptr, 32)
		if i++; i%256 == 0 {
			s.Synchronize()
		}
	}
	s.Synchronize()
}

// TestLaunchCostVsC measures the CPU cost of submitting one launch through a
// generated function against a C loop calling cuLaunchKernel, in one
// process, on the same kernel and non-blocking stream: batches of 256
// launches, a sync after each batch, median over 270 batches. Between them
// it times variants that take the Go launch apart (the shim called from C,
// the shim called from a Go loop, each Go layer on top) and a C loop that
// reads 8 cold cache lines per launch. Each round runs the variants in a new
// order. It prints a LAUNCH-COST line (the goal is generated/C ≤ 1.05) and a
// BREAKDOWN table, and fails only on errors or allocations: timings are not
// assertions.
func TestLaunchCostVsC(t *testing.T) {
	d := gpu(t)
	ctx := primary(t, d)
	defer ctx.Release()
	s, err := ctx.NewStream()
	must(t, err)
	defer s.Destroy()
	buf, err := rt.Alloc[float32](ctx, 32)
	must(t, err)
	defer buf.Free()
	p := buf.Ptr
	a := p.Addr()
	cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: s}
	must(t, vecAddGen(cfg, p, p, p, 32))
	kh, err := costVecAdd.Handle(d)
	must(t, err)
	if n := testing.AllocsPerRun(1000, func() { vecAddGen(cfg, p, p, p, 32) }); n != 0 {
		t.Errorf("generated launch allocates %v times", n)
	}
	must(t, s.Synchronize())
	var pb [28]byte
	binary.LittleEndian.PutUint64(pb[0:], uint64(p))
	binary.LittleEndian.PutUint64(pb[8:], uint64(p))
	binary.LittleEndian.PutUint64(pb[16:], uint64(p))
	binary.LittleEndian.PutUint32(pb[24:], 32)
	la := rt.LaunchArgs{Stream: s.Handle(), Grid: rt.D1(1), Block: rt.D1(32), Params: unsafe.Pointer(&pb), ParamSize: 28}

	// 64 MiB of pages for the cold-memory variant, each written once so
	// that they are mapped.
	pool := make([]byte, 64<<20)
	for i := 0; i < len(pool); i += 4096 {
		pool[i] = 1
	}
	var di rt.Driver = d
	const batch, batches, warm = 256, 300, 30
	type variant struct {
		name string
		run  func() (time.Duration, error)
	}
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
	vs := []variant{
		{"C loop, kernelParams (reference)", func() (time.Duration, error) { return d.cLoopVecAdd(kh, s.Handle(), a, a, a, 32, batch, false) }},
		{"C loop, packed buffer", func() (time.Duration, error) { return d.cLoopVecAdd(kh, s.Handle(), a, a, a, 32, batch, true) }},
		{"C loop over the shim (no crossing)", func() (time.Duration, error) { return d.cLoopShim(kh, s.Handle(), &pb, batch) }},
		{"C loop + 8 cold cache lines/launch", func() (time.Duration, error) { return d.cLoopTouch(kh, s.Handle(), &pb, batch, pool, 8) }},
		{"Go loop, 1 C-loop call per launch", func() (time.Duration, error) { return d.crossings(kh, s.Handle(), a, batch, 0) }},
		{"  same + 1 empty cgo call each", func() (time.Duration, error) { return d.crossings(kh, s.Handle(), a, batch, 1) }},
		{"Go loop over the shim", func() (time.Duration, error) { return d.shimLaunches(kh, s.Handle(), &pb, batch) }},
		{"*Driver.Launch", goLoop(func() error { return d.Launch(kh, la) })},
		{"rt.Driver.Launch (interface)", goLoop(func() error { return di.Launch(kh, la) })},
		{"rt.Kernel.Launch", goLoop(func() error { return costVecAdd.Launch(cfg, pb[:]) })},
		{"generated", goLoop(func() error { return vecAddGen(cfg, p, p, p, 32) })},
		{"generated, OS thread locked", func() (time.Duration, error) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			return goLoop(func() error { return vecAddGen(cfg, p, p, p, 32) })()
		}},
		{"empty cgo call (tight loop)", func() (time.Duration, error) { return cNoops(batch), nil }},
	}
	// Each round runs the variants in a new order: what runs first after a
	// long sync, or after another variant, must not favour one variant.
	rng := rand.New(rand.NewPCG(1, 2))
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
	var gen, shim time.Duration
	for vi, v := range vs {
		m := med(times[vi])
		switch v.name {
		case "generated":
			gen = m
		case "Go loop over the shim":
			shim = m
		}
		fmt.Printf("BREAKDOWN %-38s %8v  %.3f\n", v.name, m, float64(m)/float64(ref))
	}
	line := fmt.Sprintf("LAUNCH-COST generated %v  C %v  ratio %.3f  (cgo floor, the shim from a Go loop: %.3f; median of %d batches of %d)",
		gen, ref, float64(gen)/float64(ref), float64(shim)/float64(ref), batches-warm, batch)
	t.Log(line)
	fmt.Println(line)
}
