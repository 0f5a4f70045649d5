package soft

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

// Benchmarks report thread-instructions per second of nvcc -O3 PTX (the
// launch's executed instruction count over wall time) as Gthread-instr/s.

func benchLaunch(b *testing.B, e *env, k rt.KernelHandle, grid, block rt.Dim3, smem uint32, args ...any) {
	b.Helper()
	e.launch(k, grid, block, smem, args...) // warm up (and allocate pools)
	var instr uint64
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		before := e.d.instrCount.Load()
		e.launch(k, grid, block, smem, args...)
		instr += e.d.instrCount.Load() - before
	}
	el, cpu := time.Since(start), cpuTime()-cpu0
	b.ReportMetric(float64(instr)/el.Seconds()/1e9, "Gthread-instr/s")
	// Per CPU-second: robust against other load on a shared machine.
	b.ReportMetric(float64(instr)/cpu.Seconds()/1e9, "Gthread-instr/cpu-s")
	b.ReportMetric(float64(instr)/float64(b.N), "thread-instr/op")
}

func BenchmarkVadd1M(b *testing.B) {
	e := newEnv(b, Options{})
	lib := e.load("typical_sm90.ptx")
	n := 1 << 20
	r := rand.New(rand.NewPCG(1, 1))
	pa, pb, pc := e.buf(randF32(r, n, 0, 1)), e.buf(randF32(r, n, 0, 1)), e.buf(make([]float32, n))
	benchLaunch(b, e, e.kernel(lib, "_Z4vaddPKfS0_Pfi"), rt.D1(n/256), rt.D1(256), 0, pa, pb, pc, n)
}

func BenchmarkReduce(b *testing.B) {
	e := newEnv(b, Options{})
	lib := e.load("typical_sm90.ptx")
	n := 1 << 18
	r := rand.New(rand.NewPCG(1, 1))
	pin, pout := e.buf(randF32(r, n, 0, 1)), e.buf(make([]float32, n/256))
	benchLaunch(b, e, e.kernel(lib, "_Z6reducePKfPfi"), rt.D1(n/256), rt.D1(256), 256*4, pin, pout, n)
}

func BenchmarkMatmul256(b *testing.B) {
	e := newEnv(b, Options{})
	lib := e.load("typical_sm90.ptx")
	N := 256
	r := rand.New(rand.NewPCG(1, 1))
	pa, pb, pc := e.buf(randF32(r, N*N, -1, 1)), e.buf(randF32(r, N*N, -1, 1)), e.buf(make([]float32, N*N))
	benchLaunch(b, e, e.kernel(lib, "_Z2mmPKfS0_Pfi"), rt.D2(N/16, N/16), rt.D2(16, 16), 0, pa, pb, pc, N)
}

// BenchmarkMatmul256Go is the plain-Go triple loop on one goroutine (the
// baseline of docs/soft-backend.md §3.1), and BenchmarkMatmul256GoTiled the
// kernel's own 16×16 tiled loop in Go on as many goroutines as the soft
// backend has workers.
func BenchmarkMatmul256Go(b *testing.B) {
	N := 256
	r := rand.New(rand.NewPCG(1, 1))
	A, B, C := randF32(r, N*N, -1, 1), randF32(r, N*N, -1, 1), make([]float32, N*N)
	b.ResetTimer()
	cpu0 := cpuTime()
	for it := 0; it < b.N; it++ {
		matmulGo(A, B, C, N)
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

//go:noinline
func matmulGo(A, B, C []float32, N int) {
	for i := 0; i < N; i++ {
		for j := 0; j < N; j++ {
			var acc float32
			for k := 0; k < N; k++ {
				acc += A[i*N+k] * B[k*N+j]
			}
			C[i*N+j] = acc
		}
	}
}

func BenchmarkMatmul256GoTiled(b *testing.B) {
	N := 256
	r := rand.New(rand.NewPCG(1, 1))
	A, B, C := randF32(r, N*N, -1, 1), randF32(r, N*N, -1, 1), make([]float32, N*N)
	workers := New(Options{}).opt.Workers
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for t := w; t < (N/16)*(N/16); t += workers {
					matmulTileGo(A, B, C, N, t%(N/16), t/(N/16))
				}
			}(w)
		}
		wg.Wait()
	}
}

// matmulTileGo is one CTA of the tiled kernel (typical.cu's mm) in Go.
func matmulTileGo(A, B, C []float32, N, bx, by int) {
	var As, Bs [16][16]float32
	var acc [16][16]float32
	for k := 0; k < N; k += 16 {
		for ty := 0; ty < 16; ty++ {
			for tx := 0; tx < 16; tx++ {
				As[ty][tx] = A[(by*16+ty)*N+k+tx]
				Bs[ty][tx] = B[(k+ty)*N+bx*16+tx]
			}
		}
		for ty := 0; ty < 16; ty++ {
			for tx := 0; tx < 16; tx++ {
				s := acc[ty][tx]
				for j := 0; j < 16; j++ {
					s += As[ty][j] * Bs[j][tx]
				}
				acc[ty][tx] = s
			}
		}
	}
	for ty := 0; ty < 16; ty++ {
		for tx := 0; tx < 16; tx++ {
			C[(by*16+ty)*N+bx*16+tx] = acc[ty][tx]
		}
	}
}

// BenchmarkLaunchEmpty is the round trip of one tiny launch and its sync.
func BenchmarkLaunchEmpty(b *testing.B) {
	e := newEnv(b, Options{})
	lib := e.loadSrc("empty.ptx", kernelSrc("", "ret;"))
	k := e.kernel(lib, "k")
	e.launch(k, rt.D1(1), rt.D1(32), 0)
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		e.launch(k, rt.D1(1), rt.D1(32), 0)
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

var cpuTime = softtest.CPUTime

// TestLaunchAllocs: a steady-state launch allocates nothing, however large
// the grid and however many workers run it: the stream's queued operation,
// the parameter copy and the executor's launch are those of an earlier
// launch, the CTAs' registers, shared and local memory those of an earlier
// launch's CTAs, and the workers parked goroutines. It holds for launches
// on the NULL stream synchronised one by one and for a burst of launches
// on a non-blocking stream (rt.Context.NewStream's kind, whose work the
// hazard check tracks) synchronised once, of an empty kernel and of vadd.
func TestLaunchAllocs(t *testing.T) {
	for _, workers := range []int{1, 4} {
		e := newEnv(t, Options{Workers: workers})
		lib := e.load("typical_sm90.ptx")
		vadd := e.kernel(lib, "_Z4vaddPKfS0_Pfi")
		empty := e.kernel(e.loadSrc("empty.ptx", kernelSrc("", "ret;")), "k")
		n := 1 << 14
		pa, pb, pc := e.buf(make([]float32, n)), e.buf(make([]float32, n)), e.buf(make([]float32, n))
		p := params(pa, pb, pc, n)
		sh, err := e.d.StreamCreate(e.ctx, streamNonBlocking, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []struct {
			name string
			h    rt.KernelHandle
		}{{"empty", empty}, {"vadd", vadd}} {
			for _, grid := range []int{1, n / 256} {
				la := rt.LaunchArgs{Ctx: e.ctx, Grid: rt.D1(grid), Block: rt.D1(256), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}
				sync := func() {
					if err := e.d.Launch(k.h, la); err != nil {
						t.Fatal(err)
					}
					if err := e.d.CtxSynchronize(e.ctx); err != nil {
						t.Fatal(err)
					}
				}
				async := func() {
					la := la
					la.Stream = sh
					for range 10 {
						if err := e.d.Launch(k.h, la); err != nil {
							t.Fatal(err)
						}
					}
					if err := e.d.StreamSynchronize(e.ctx, sh); err != nil {
						t.Fatal(err)
					}
				}
				for _, c := range []struct {
					name string
					f    func()
				}{{"launch+CtxSynchronize", sync}, {"10 launches on a stream+StreamSynchronize", async}} {
					c.f() // warm up
					if a := testing.AllocsPerRun(20, c.f); a != 0 {
						t.Errorf("%d workers, %s, %d CTAs, %s: %v allocations, want 0", workers, k.name, grid, c.name, a)
					}
				}
			}
		}
	}
}

// TestFirstUseCosts logs (not asserts: the machine is shared) the one-off
// costs of a fresh process: the driver, the first library load (the
// decoder's tables), the first launch, and the first launch needing the
// MUFU tables (mathk: ex2, rcp, sqrt, sin, rsqrt, lg2; see also
// gpumath's TestMUFUFirstUse, per function). Run alone:
//
//	go test -run TestFirstUseCosts -v ./rt/soft
func TestFirstUseCosts(t *testing.T) {
	tick := time.Now()
	lap := func(what string) {
		t.Logf("%-32s %v", what, time.Since(tick))
		tick = time.Now()
	}
	e := newEnv(t, Options{})
	lap("New + PrimaryCtxRetain")
	lib := e.load("typical_sm90.ptx")
	lap("first LibraryLoad (typical_sm90)")
	k := e.kernel(lib, "_Z4vaddPKfS0_Pfi")
	n := 1024
	pa, pb, pc := e.buf(make([]float32, n)), e.buf(make([]float32, n)), e.buf(make([]float32, n))
	lap("kernel + 3 buffers")
	e.launch(k, rt.D1(n/256), rt.D1(256), 0, pa, pb, pc, n)
	lap("first launch (vadd)")
	e.launch(k, rt.D1(n/256), rt.D1(256), 0, pa, pb, pc, n)
	lap("second launch (vadd)")
	x, y := e.buf(randF32(rand.New(rand.NewPCG(1, 1)), 64, 0.5, 2)), e.buf(make([]float64, 65))
	e.launch(e.kernel(lib, "_Z5mathkPfPd"), rt.D1(1), rt.D1(32), 0, x, y)
	lap("first launch using MUFU (mathk)")
	e.launch(e.kernel(lib, "_Z5mathkPfPd"), rt.D1(1), rt.D1(32), 0, x, y)
	lap("second launch (mathk)")
}

// BenchmarkLaunchAsync1000 is 1,000 launches of an empty kernel on a
// non-blocking stream, then one synchronisation: what queuing costs.
func BenchmarkLaunchAsync1000(b *testing.B) {
	e := newEnv(b, Options{})
	k := e.kernel(e.loadSrc("empty.ptx", kernelSrc("", "ret;")), "k")
	sh, err := e.d.StreamCreate(e.ctx, streamNonBlocking, 0)
	if err != nil {
		b.Fatal(err)
	}
	la := rt.LaunchArgs{Ctx: e.ctx, Stream: sh, Grid: rt.D1(1), Block: rt.D1(32)}
	round := func() {
		for range 1000 {
			if err := e.d.Launch(k, la); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.d.StreamSynchronize(e.ctx, sh); err != nil {
			b.Fatal(err)
		}
	}
	// Warm up with the stream held until all 1,000 are queued: the
	// stream keeps the works of its deepest backlog for reuse, and a
	// warm-up the runner kept pace with would leave the timed rounds to
	// make the rest (about one a round, amortised, on two cores).
	hold := make(chan struct{})
	if err := e.d.LaunchHostFunc(e.ctx, sh, func() { <-hold }); err != nil {
		b.Fatal(err)
	}
	for range 1000 {
		if err := e.d.Launch(k, la); err != nil {
			b.Fatal(err)
		}
	}
	close(hold)
	if err := e.d.StreamSynchronize(e.ctx, sh); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		round()
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkLaunchGrid16K is BenchmarkLaunchEmpty with 16,384 threads (64
// CTAs of 256): with -benchmem, what a launch allocates per grid.
func BenchmarkLaunchGrid16K(b *testing.B) {
	e := newEnv(b, Options{})
	lib := e.loadSrc("empty.ptx", kernelSrc("", "ret;"))
	k := e.kernel(lib, "k")
	e.launch(k, rt.D1(64), rt.D1(256), 0)
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		e.launch(k, rt.D1(64), rt.D1(256), 0)
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
