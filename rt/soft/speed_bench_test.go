package soft

import (
	"flag"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

// BenchmarkClass runs one kernel of each class of issue 27 on soft and,
// beside it, the same work as a competent Go programmer writes it on one
// goroutine. Both report cpu-ns/op (process CPU time per launch or call),
// whose quotient is the soft/Go ratio that internal/benchratio tabulates:
//
//	rt/soft/testdata/speed.sh            (interleaved rounds, ratio table)
//
// Soft also reports thread-instructions per CPU-second. Each soft case
// checks its result against the Go one once, so a fast path that computes
// the wrong thing fails here too.
func BenchmarkClass(b *testing.B) {
	for _, c := range speedClasses {
		b.Run(c.name+"/soft", func(b *testing.B) { c.soft(b) })
		b.Run(c.name+"/go", func(b *testing.B) { c.goRun(b) })
	}
}

type speedClass struct {
	name  string
	soft  func(b *testing.B)
	goRun func(b *testing.B)
}

var speedClasses = []speedClass{
	{"matmul256", softMatmul, goBench(func() func() {
		A, B, C := matmulInputs()
		return func() { matmulGoIKJ(A, B, C, 256) }
	})},
	{"softmax", softSoftmax, goBench(func() func() {
		x := softmaxInput()
		y := make([]float32, len(x))
		return func() { softmaxGo(x, y, softmaxCols) }
	})},
	{"blockreduce", softBlockReduce, goBench(func() func() {
		in := bredInput()
		out := make([]float32, len(in)/256)
		return func() { blockSumGo(in, out, 256) }
	})},
	{"vadd1M", softVadd, goBench(func() func() {
		a, bb := vaddInputs()
		c := make([]float32, len(a))
		return func() { vaddGo(a, bb, c) }
	})},
	{"stencil128", softStencil, goBench(func() func() {
		a := stencilInput()
		out := make([]float32, len(a))
		return func() { stencilGo(a, out, stencilN) }
	})},
	{"histogram", softHist, goBench(func() func() {
		d := histInput()
		h := make([]uint32, 256)
		return func() { clear(h); histGo(d, h) }
	})},
	{"treereduce", softTreeReduce, goBench(func() func() {
		in := treeInput()
		out := make([]float32, len(in)/256)
		return func() { blockSumGo(in, out, 256) }
	})},
}

// goBench times the Go version; setup returns the call with its buffers.
func goBench(setup func() func()) func(b *testing.B) {
	return func(b *testing.B) {
		f := setup()
		f()
		b.ResetTimer()
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			f()
		}
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// softBench times launches of k; check, when not nil, verifies the result
// of the warm-up launch.
func softBench(b *testing.B, e *env, k rt.KernelHandle, grid, block rt.Dim3, smem uint32, check func(), args ...any) {
	b.Helper()
	defer exec.SetSIMD(exec.SetSIMD(*simdFlag))
	e.launch(k, grid, block, smem, args...)
	if check != nil {
		check()
	}
	var instr uint64
	b.ResetTimer()
	run0, wt0, late0, early0 := e.d.runTime.Load(), e.d.workerTime.Load(), e.d.lateTime.Load(), e.d.earlyTime.Load()
	start, cpu0 := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		before := e.d.instrCount.Load()
		e.launch(k, grid, block, smem, args...)
		instr += e.d.instrCount.Load() - before
	}
	el, cpu := time.Since(start), cpuTime()-cpu0
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(instr)/cpu.Seconds()/1e9, "Gthread-instr/cpu-s")
	b.ReportMetric(float64(instr)/el.Seconds()/1e9, "Gthread-instr/s")
	// What keeps a grid from scaling over the workers, besides each CTA
	// running slower (exec.Launch.Spread): the share of the wall time
	// spent outside the grid's run (the launch and the sync), and the
	// share of the run's worker-time lost waking the workers and in the
	// grid's tail.
	b.ReportMetric(100*(1-float64(e.d.runTime.Load()-run0)/float64(el)), "outside-%")
	if wt := float64(e.d.workerTime.Load() - wt0); wt > 0 {
		b.ReportMetric(100*float64(e.d.lateTime.Load()-late0)/wt, "late-%")
		b.ReportMetric(100*float64(e.d.earlyTime.Load()-early0)/wt, "early-%")
	}
}

func matmulInputs() (A, B, C []float32) {
	r := rand.New(rand.NewPCG(1, 1))
	return randF32(r, 256*256, -1, 1), randF32(r, 256*256, -1, 1), make([]float32, 256*256)
}

// matmulGoIKJ is the cache-friendly i-k-j loop.
//
//go:noinline
func matmulGoIKJ(A, B, C []float32, N int) {
	for i := 0; i < N; i++ {
		c := C[i*N : i*N+N]
		clear(c)
		for k := 0; k < N; k++ {
			a := A[i*N+k]
			bk := B[k*N : k*N+N]
			for j := range c {
				c[j] += a * bk[j]
			}
		}
	}
}

func softMatmul(b *testing.B) {
	e := newEnv(b, Options{})
	k := e.kernel(e.load("typical_sm90.ptx"), "_Z2mmPKfS0_Pfi")
	A, B, C := matmulInputs()
	pa, pb, pc := e.buf(A), e.buf(B), e.buf(C)
	softBench(b, e, k, rt.D2(16, 16), rt.D2(16, 16), 0, func() {
		got := make([]float32, len(C))
		e.get(pc, got)
		matmulGoIKJ(A, B, C, 256)
		closeF32(b, "matmul", got, C, 1e-4)
	}, pa, pb, pc, 256)
}

const softmaxRows, softmaxCols = 256, 1024

func softmaxInput() []float32 {
	return randF32(rand.New(rand.NewPCG(2, 2)), softmaxRows*softmaxCols, -8, 8)
}

//go:noinline
func softmaxGo(x, y []float32, n int) {
	for r := 0; r+n <= len(x); r += n {
		row, out := x[r:r+n], y[r:r+n]
		m := float32(math.Inf(-1))
		for _, v := range row {
			m = max(m, v)
		}
		var s float32
		for _, v := range row {
			s += float32(math.Exp(float64(v - m)))
		}
		inv := 1 / s
		for i, v := range row {
			out[i] = float32(math.Exp(float64(v-m))) * inv
		}
	}
}

func softSoftmax(b *testing.B) {
	e := newEnv(b, Options{})
	k := e.kernel(e.load("bench_sm90.ptx"), "_Z7softmaxPKfPfi")
	x := softmaxInput()
	px, py := e.buf(x), e.buf(make([]float32, len(x)))
	softBench(b, e, k, rt.D1(softmaxRows), rt.D1(256), 0, func() {
		got, want := make([]float32, len(x)), make([]float32, len(x))
		e.get(py, got)
		softmaxGo(x, want, softmaxCols)
		closeF32(b, "softmax", got, want, 1e-5)
	}, px, py, softmaxCols)
}

func bredInput() []float32 { return randF32(rand.New(rand.NewPCG(3, 3)), 1<<20, 0, 1) }

//go:noinline
func blockSumGo(in, out []float32, bs int) {
	for blk := range out {
		var s float32
		for _, v := range in[blk*bs : blk*bs+bs] {
			s += v
		}
		out[blk] = s
	}
}

func softBlockReduce(b *testing.B) {
	e := newEnv(b, Options{})
	k := e.kernel(e.load("bench_sm90.ptx"), "_Z4bredPKfPfi")
	in := bredInput()
	pin, pout := e.buf(in), e.buf(make([]float32, len(in)/256))
	softBench(b, e, k, rt.D1(len(in)/256), rt.D1(256), 0, func() {
		got, want := make([]float32, len(in)/256), make([]float32, len(in)/256)
		e.get(pout, got)
		blockSumGo(in, want, 256)
		closeF32(b, "blockreduce", got, want, 1e-5)
	}, pin, pout, len(in))
}

func vaddInputs() (a, b []float32) {
	r := rand.New(rand.NewPCG(4, 4))
	return randF32(r, 1<<20, 0, 1), randF32(r, 1<<20, 0, 1)
}

//go:noinline
func vaddGo(a, b, c []float32) {
	for i := range c {
		c[i] = a[i] + b[i]
	}
}

func softVadd(b *testing.B) {
	e := newEnv(b, Options{})
	k := e.kernel(e.load("typical_sm90.ptx"), "_Z4vaddPKfS0_Pfi")
	x, y := vaddInputs()
	pa, pb, pc := e.buf(x), e.buf(y), e.buf(make([]float32, len(x)))
	softBench(b, e, k, rt.D1(len(x)/256), rt.D1(256), 0, func() {
		got, want := make([]float32, len(x)), make([]float32, len(x))
		e.get(pc, got)
		vaddGo(x, y, want)
		closeF32(b, "vadd", got, want, 0)
	}, pa, pb, pc, len(x))
}

const stencilN = 128

func stencilInput() []float32 {
	return randF32(rand.New(rand.NewPCG(5, 5)), stencilN*stencilN*stencilN, 0, 1)
}

//go:noinline
func stencilGo(a, b []float32, n int) {
	p := n * n
	for z := 1; z < n-1; z++ {
		for y := 1; y < n-1; y++ {
			for x := 1; x < n-1; x++ {
				i := z*p + y*n + x
				b[i] = 0.4*a[i] + 0.1*(a[i-1]+a[i+1]+a[i-n]+a[i+n]+a[i-p]+a[i+p])
			}
		}
	}
}

func softStencil(b *testing.B) {
	e := newEnv(b, Options{})
	k := e.kernel(e.load("bench_sm90.ptx"), "_Z8stencil7PKfPfi")
	a := stencilInput()
	pa, pb := e.buf(a), e.buf(make([]float32, len(a)))
	softBench(b, e, k, rt.D3(stencilN/32, stencilN/8, stencilN), rt.D2(32, 8), 0, func() {
		got, want := make([]float32, len(a)), make([]float32, len(a))
		e.get(pb, got)
		stencilGo(a, want, stencilN)
		closeF32(b, "stencil", got, want, 1e-6)
	}, pa, pb, stencilN)
}

func histInput() []byte {
	r := rand.New(rand.NewPCG(6, 6))
	d := make([]byte, 1<<20)
	for i := range d {
		d[i] = byte(r.Uint32())
	}
	return d
}

//go:noinline
func histGo(d []byte, h []uint32) {
	for _, v := range d {
		h[v]++
	}
}

func softHist(b *testing.B) {
	e := newEnv(b, Options{})
	k := e.kernel(e.load("typical_sm90.ptx"), "_Z4histPKhPji")
	d := histInput()
	pd, ph := e.buf(d), e.buf(make([]uint32, 256))
	// The kernel accumulates into h: the check runs on the first launch.
	softBench(b, e, k, rt.D1(256), rt.D1(256), 0, func() {
		got, want := make([]uint32, 256), make([]uint32, 256)
		e.get(ph, got)
		histGo(d, want)
		for i := range got {
			if got[i] != want[i] {
				b.Fatalf("histogram bin %d: got %d, want %d", i, got[i], want[i])
			}
		}
	}, pd, ph, len(d))
}

func treeInput() []float32 { return randF32(rand.New(rand.NewPCG(7, 7)), 1<<18, 0, 1) }

func softTreeReduce(b *testing.B) {
	e := newEnv(b, Options{})
	k := e.kernel(e.load("typical_sm90.ptx"), "_Z6reducePKfPfi")
	in := treeInput()
	pin, pout := e.buf(in), e.buf(make([]float32, len(in)/256))
	softBench(b, e, k, rt.D1(len(in)/256), rt.D1(256), 256*4, func() {
		got, want := make([]float32, len(in)/256), make([]float32, len(in)/256)
		e.get(pout, got)
		blockSumGo(in, want, 256)
		closeF32(b, "treereduce", got, want, 1e-5)
	}, pin, pout, len(in))
}

// closeF32 fails b unless got and want agree to a relative tolerance (the
// kernels sum in another order than the Go loops).
func closeF32(b *testing.B, what string, got, want []float32, tol float64) {
	b.Helper()
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) {
			b.Fatalf("%s[%d]: got %g, want %g", what, i, g, w)
		}
	}
}

// BenchmarkScale runs the large-grid classes with Options.Workers set by
// -soft.workers (0: GOMAXPROCS), for the wall-clock scaling from 1 to 16
// workers (testdata/scale.sh runs it on a machine with the cores).
func BenchmarkScale(b *testing.B) {
	for _, c := range []struct {
		name string
		run  func(b *testing.B, opt Options)
	}{
		{"matmul256", func(b *testing.B, opt Options) {
			e := newEnv(b, opt)
			k := e.kernel(e.load("typical_sm90.ptx"), "_Z2mmPKfS0_Pfi")
			A, B, C := matmulInputs()
			softBench(b, e, k, rt.D2(16, 16), rt.D2(16, 16), 0, nil, e.buf(A), e.buf(B), e.buf(C), 256)
		}},
		{"softmax", func(b *testing.B, opt Options) {
			e := newEnv(b, opt)
			k := e.kernel(e.load("bench_sm90.ptx"), "_Z7softmaxPKfPfi")
			x := softmaxInput()
			softBench(b, e, k, rt.D1(softmaxRows), rt.D1(256), 0, nil, e.buf(x), e.buf(make([]float32, len(x))), softmaxCols)
		}},
		{"blockreduce", func(b *testing.B, opt Options) {
			e := newEnv(b, opt)
			k := e.kernel(e.load("bench_sm90.ptx"), "_Z4bredPKfPfi")
			in := bredInput()
			softBench(b, e, k, rt.D1(len(in)/256), rt.D1(256), 0, nil, e.buf(in), e.buf(make([]float32, len(in)/256)), len(in))
		}},
		{"vadd1M", func(b *testing.B, opt Options) {
			e := newEnv(b, opt)
			k := e.kernel(e.load("typical_sm90.ptx"), "_Z4vaddPKfS0_Pfi")
			x, y := vaddInputs()
			softBench(b, e, k, rt.D1(len(x)/256), rt.D1(256), 0, nil, e.buf(x), e.buf(y), e.buf(make([]float32, len(x))), len(x))
		}},
		{"stencil128", func(b *testing.B, opt Options) {
			e := newEnv(b, opt)
			k := e.kernel(e.load("bench_sm90.ptx"), "_Z8stencil7PKfPfi")
			a := stencilInput()
			softBench(b, e, k, rt.D3(stencilN/32, stencilN/8, stencilN), rt.D2(32, 8), 0, nil, e.buf(a), e.buf(make([]float32, len(a))), stencilN)
		}},
		{"histogram", func(b *testing.B, opt Options) {
			e := newEnv(b, opt)
			k := e.kernel(e.load("typical_sm90.ptx"), "_Z4histPKhPji")
			d := histInput()
			softBench(b, e, k, rt.D1(256), rt.D1(256), 0, nil, e.buf(d), e.buf(make([]uint32, 256)), len(d))
		}},
		{"treereduce", func(b *testing.B, opt Options) {
			e := newEnv(b, opt)
			k := e.kernel(e.load("typical_sm90.ptx"), "_Z6reducePKfPfi")
			in := treeInput()
			softBench(b, e, k, rt.D1(len(in)/256), rt.D1(256), 256*4, nil, e.buf(in), e.buf(make([]float32, len(in)/256)), len(in))
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			defer exec.SetSIMD(exec.SetSIMD(*simdFlag))
			c.run(b, Options{Workers: *scaleWorkers})
		})
	}
}

// BenchmarkScaleGo is BenchmarkScale's classes in plain Go split over
// -soft.workers goroutines (0: GOMAXPROCS), each its share of the rows,
// blocks or tiles: the machine's own scaling (memory bandwidth, shared
// cores), the ceiling for soft's (testdata/scale.sh prints both). The
// stencil is left out (its Go loop does not split), and treereduce's Go is
// blockreduce's.
func BenchmarkScaleGo(b *testing.B) {
	workers := *scaleWorkers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// split runs part(lo, hi) over [0, n) in workers pieces at once.
	split := func(n int, part func(lo, hi int)) {
		var wg sync.WaitGroup
		for w := range workers {
			lo, hi := n*w/workers, n*(w+1)/workers
			wg.Add(1)
			go func() { defer wg.Done(); part(lo, hi) }()
		}
		wg.Wait()
	}
	for _, c := range []struct {
		name  string
		setup func() func()
	}{
		{"matmul256", func() func() {
			A, B, C := matmulInputs()
			return func() {
				split(16*16, func(lo, hi int) {
					for t := lo; t < hi; t++ {
						matmulTileGo(A, B, C, 256, t%16, t/16)
					}
				})
			}
		}},
		{"softmax", func() func() {
			x := softmaxInput()
			y := make([]float32, len(x))
			return func() {
				split(softmaxRows, func(lo, hi int) {
					softmaxGo(x[lo*softmaxCols:hi*softmaxCols], y[lo*softmaxCols:hi*softmaxCols], softmaxCols)
				})
			}
		}},
		{"blockreduce", func() func() {
			in := bredInput()
			out := make([]float32, len(in)/256)
			return func() { split(len(out), func(lo, hi int) { blockSumGo(in[lo*256:hi*256], out[lo:hi], 256) }) }
		}},
		{"vadd1M", func() func() {
			x, y := vaddInputs()
			z := make([]float32, len(x))
			return func() { split(len(x), func(lo, hi int) { vaddGo(x[lo:hi], y[lo:hi], z[lo:hi]) }) }
		}},
		{"histogram", func() func() {
			d := histInput()
			hs := make([][]uint32, workers)
			for i := range hs {
				hs[i] = make([]uint32, 256)
			}
			return func() {
				split(workers, func(lo, hi int) {
					for w := lo; w < hi; w++ {
						clear(hs[w])
						histGo(d[len(d)*w/workers:len(d)*(w+1)/workers], hs[w])
					}
				})
				for _, h := range hs[1:] {
					for i, v := range h {
						hs[0][i] += v
					}
				}
			}
		}},
		{"treereduce", func() func() {
			in := treeInput()
			out := make([]float32, len(in)/256)
			return func() { split(len(out), func(lo, hi int) { blockSumGo(in[lo*256:hi*256], out[lo:hi], 256) }) }
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			f := c.setup()
			f()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				f()
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

var scaleWorkers = flag.Int("soft.workers", 0, "BenchmarkScale: Options.Workers (0: GOMAXPROCS)")

// simdFlag lets one binary time the executor's Go forms against its
// assembly ones (exec.SetSIMD) on a machine without Go, as the GPU
// machine is.
var simdFlag = flag.Bool("soft.simd", true, "BenchmarkClass, BenchmarkScale: run the executor's AVX2/FMA3 forms where the CPU has them")
