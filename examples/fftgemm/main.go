// Command fftgemm interleaves cugen-generated kernels with cuRAND, cuFFT and
// cuBLAS on one stream, with a second stream ordered by events, as an ML or
// simulation code (a micromagnetics solver's thermal field) does:
//
//	stream 1: normal noise → addNoise → FFT(x) → lowPass → inverse FFT → realPart ─ event ─┬─ SGEMM(A, W) ─ wait ─ biasReLU → y
//	stream 2:                                                                  wait ───────┴─ rowEnergy ─ event ─┘
//
// The libraries are called through mathlib's small interface: on the GPU
// its nvidia binding (dlopen'ed libcurand, libcublas and libcufft), elsewhere, and in
// the tests on rt/soft, its Go stand-in. Both get rt's handles as C code
// gets them: the stream's Handle (a cudaStream_t) and the buffers' device
// pointers. The FFT's spectrum is memory the library allocated: the
// program adopts it (rt.AdoptBuffer) to run lowPass on it. The thermal
// noise (curandGenerateNormal, seeded) is read back: its mean and variance
// must be those of a standard normal distribution, and the host reference
// adds the same noise, so a generator that ran out of the stream's order
// with the kernels would show in the result. The result is checked against
// a float64 host reference.
package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"

	"github.com/cugen/cugen/examples/fftgemm/kernels"
	"github.com/cugen/cugen/examples/fftgemm/mathlib"
	"github.com/cugen/cugen/examples/fftgemm/mathlib/nvidia"
	"github.com/cugen/cugen/examples/fftgemm/mathlib/standin"
	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/cgo"
	_ "github.com/cugen/cugen/rt/soft"
)

func main() {
	d, err := rt.Default()
	if err != nil {
		log.Fatal(err)
	}
	libs, err := libsFor(d)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := solve(os.Stdout, d, libs, newProblem(64, 256, 20, 32, 1)); err != nil {
		log.Fatal(err)
	}
}

// libsFor is NVIDIA's libraries on the GPU, where they load, else the Go
// stand-in.
func libsFor(d rt.Driver) (mathlib.Libs, error) {
	if d.Name() == "cuda" {
		l, err := nvidia.Open()
		if err == nil {
			return l, nil
		}
		fmt.Fprintf(os.Stderr, "fftgemm: %v; using the Go stand-in\n", err)
	}
	return standin.New(d), nil
}

// problem is batch complex signals of n points, with thermal noise of
// standard deviation sigma added (cuRAND's, from seed), filtered to the
// frequencies up to keep, then multiplied by an n×outs weight matrix.
type problem struct {
	n, batch, keep, outs int
	signal               []rt.Float2 // batch×n
	w                    []float32   // n×outs, row-major
	bias                 []float32   // outs
	sigma                float32
	seed                 uint64
}

func newProblem(batch, n, keep, outs int, seed uint64) *problem {
	r := rand.New(rand.NewPCG(1, 2))
	p := &problem{n: n, batch: batch, keep: keep, outs: outs, sigma: 0.25, seed: seed,
		signal: make([]rt.Float2, batch*n), w: make([]float32, n*outs), bias: make([]float32, outs)}
	for i := range p.signal {
		p.signal[i] = rt.Float2{X: float32(r.NormFloat64()), Y: float32(r.NormFloat64())}
	}
	for i := range p.w {
		p.w[i] = float32(r.NormFloat64() / math.Sqrt(float64(n)))
	}
	for i := range p.bias {
		p.bias[i] = float32(r.NormFloat64() * 0.1)
	}
	return p
}

// result is what the pipeline computed.
type result struct {
	y      []float32 // batch×outs, row-major
	energy []float32 // batch
	noise  []float32 // 2·batch×n standard normal samples (the reference's input)
}

// solve runs the pipeline on device 0's primary context of d, the context
// the libraries use, checks it against the host reference and reports on w.
func solve(w io.Writer, d rt.Driver, libs mathlib.Libs, p *problem) (*result, error) {
	devs, err := rt.DevicesOf(d)
	if err != nil {
		return nil, err
	}
	name, _ := devs[0].Name()
	ctx, err := devs[0].Primary()
	if err != nil {
		return nil, err
	}
	defer ctx.Release()
	res, err := pipeline(ctx, libs, p)
	if err != nil {
		return nil, err
	}
	want := reference(p, res.noise)
	yErr, yMax := maxDiff(res.y, want.y)
	eErr, eMax := maxDiff(res.energy, want.energy)
	mean, variance := moments(res.noise)
	fmt.Fprintf(w, "fftgemm on %s (%s) with %s\n", d.Name(), name, libs.Name())
	fmt.Fprintf(w, "  %d signals of %d points: noise (σ %g), FFT, low-pass to %d, inverse FFT; energy on a second stream; SGEMM %d×%d·%d×%d; bias, ReLU, scaled by energy\n",
		p.batch, p.n, p.sigma, p.keep, p.batch, p.n, p.n, p.outs)
	fmt.Fprintf(w, "  noise:  %d normal samples (seed %d), mean %.4f, variance %.4f\n", len(res.noise), p.seed, mean, variance)
	if err := checkMoments(mean, variance, len(res.noise)); err != nil {
		return res, err
	}
	fmt.Fprintf(w, "  energy: max |error| %.3g (of values up to %.3g)\n", eErr, eMax)
	fmt.Fprintf(w, "  y:      max |error| %.3g (of values up to %.3g)\n", yErr, yMax)
	if eErr > tolerance*eMax || yErr > tolerance*yMax {
		return res, fmt.Errorf("fftgemm: the result differs from the host reference by more than %g of its range", tolerance)
	}
	fmt.Fprintln(w, "  matches the float64 host reference")
	return res, nil
}

// checkMoments says whether n samples' mean and variance are those of a
// standard normal distribution: within five standard errors (1/√n for the
// mean, √(2/n) for the variance), which a seeded generator either always
// or never meets.
func checkMoments(mean, variance float64, n int) error {
	if n == 0 {
		return errors.New("fftgemm: no noise samples")
	}
	if math.Abs(mean) > 5/math.Sqrt(float64(n)) || math.Abs(variance-1) > 5*math.Sqrt(2/float64(n)) {
		return fmt.Errorf("fftgemm: %d noise samples have mean %.4f and variance %.4f: not a standard normal distribution", n, mean, variance)
	}
	return nil
}

// moments is the samples' mean and (population) variance.
func moments(x []float32) (mean, variance float64) {
	for _, v := range x {
		mean += float64(v)
	}
	mean /= float64(max(len(x), 1))
	for _, v := range x {
		variance += (float64(v) - mean) * (float64(v) - mean)
	}
	return mean, variance / float64(max(len(x), 1))
}

// tolerance is the largest error allowed, relative to the largest value:
// float32 FFTs and GEMMs of these sizes stay within a few ulp of it.
const tolerance = 1e-4

// pipeline runs the example's work: kernels and library calls on stream 1,
// rowEnergy on stream 2 between two events.
func pipeline(ctx *rt.Context, libs mathlib.Libs, p *problem) (res *result, err error) {
	n, batch, outs := p.n, p.batch, p.outs
	keep := func(e error) {
		if err == nil {
			err = e
		}
	}
	s1, err := ctx.NewStream()
	if err != nil {
		return nil, err
	}
	defer func() { keep(s1.Destroy()) }()
	s2, err := ctx.NewStream()
	if err != nil {
		return nil, err
	}
	defer func() { keep(s2.Destroy()) }()

	x, err := rt.AllocFrom(ctx, p.signal)
	if err != nil {
		return nil, err
	}
	defer func() { keep(x.Free()) }()
	wm, err := rt.AllocFrom(ctx, p.w)
	if err != nil {
		return nil, err
	}
	defer func() { keep(wm.Free()) }()
	bias, err := rt.AllocFrom(ctx, p.bias)
	if err != nil {
		return nil, err
	}
	defer func() { keep(bias.Free()) }()
	z, err := rt.Alloc[rt.Float2](ctx, batch*n)
	if err != nil {
		return nil, err
	}
	defer func() { keep(z.Free()) }()
	a, err := rt.Alloc[float32](ctx, batch*n)
	if err != nil {
		return nil, err
	}
	defer func() { keep(a.Free()) }()
	energy, err := rt.Alloc[float32](ctx, batch)
	if err != nil {
		return nil, err
	}
	defer func() { keep(energy.Free()) }()
	y, err := rt.Alloc[float32](ctx, batch*outs)
	if err != nil {
		return nil, err
	}
	defer func() { keep(y.Free()) }()
	noise, err := rt.Alloc[float32](ctx, 2*batch*n)
	if err != nil {
		return nil, err
	}
	defer func() { keep(noise.Free()) }()

	// The libraries take the stream as a cudaStream_t.
	rng, err := libs.NewRNG(p.seed, s1.Handle())
	if err != nil {
		return nil, err
	}
	defer func() { keep(rng.Destroy()) }()
	fft, err := libs.NewFFT(n, batch, s1.Handle())
	if err != nil {
		return nil, err
	}
	defer func() { keep(fft.Destroy()) }()
	blas, err := libs.NewBLAS(s1.Handle())
	if err != nil {
		return nil, err
	}
	defer func() { keep(blas.Destroy()) }()
	// The spectrum is the library's memory: adopted, it is a typed buffer
	// that the kernels take, and that only the library frees.
	spec, err := rt.AdoptBuffer[rt.Float2](ctx, fft.Spectrum(), batch*n)
	if err != nil {
		return nil, err
	}
	if err := spec.Free(); !errors.Is(err, rt.ErrNotPermitted) {
		return nil, fmt.Errorf("freeing the library's spectrum through rt: %v, want ErrNotPermitted", err)
	}
	filtered, err := ctx.NewEvent(rt.EventDisableTiming)
	if err != nil {
		return nil, err
	}
	defer func() { keep(filtered.Destroy()) }()
	summed, err := ctx.NewEvent(rt.EventDisableTiming)
	if err != nil {
		return nil, err
	}
	defer func() { keep(summed.Destroy()) }()

	all := rt.Linear(batch*n, 256).On(s1)
	steps := []func() error{
		// Thermal noise, on stream 1 before the kernel that adds it.
		func() error { return rng.Normal(noise.Ptr.Addr(), noise.Len, 0, 1) },
		func() error { return kernels.AddNoise(all, x.Ptr, noise.Const(), int32(batch*n), p.sigma) },
		func() error { return fft.Forward(x.Ptr.Addr()) },
		func() error { return kernels.LowPass(all, spec.Ptr, int32(n), int32(batch), int32(p.keep)) },
		func() error { return fft.Inverse(z.Ptr.Addr()) },
		func() error { return kernels.RealPart(all, a.Ptr, z.Const(), int32(batch*n), 1/float32(n)) },
		func() error { return filtered.Record(s1) },
		// Stream 2 sums each row's energy while stream 1 multiplies.
		func() error { return s2.WaitEvent(filtered) },
		func() error {
			const block = 128
			cfg := rt.Config{Grid: rt.D1(batch), Block: rt.D1(block), SharedMem: block * 4, Stream: s2}
			return kernels.RowEnergy(cfg, energy.Ptr, a.Const(), int32(batch), int32(n))
		},
		func() error { return summed.Record(s2) },
		// Row-major y = a·w is column-major yᵀ = wᵀ·aᵀ.
		func() error {
			return blas.Sgemm(false, false, outs, batch, n, 1, wm.Ptr.Addr(), outs, a.Ptr.Addr(), n, 0, y.Ptr.Addr(), outs)
		},
		func() error { return s1.WaitEvent(summed) },
		func() error {
			return kernels.BiasReLU(rt.Linear(batch*outs, 256).On(s1), y.Ptr, bias.Const(), energy.Const(), int32(batch), int32(outs))
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	res = &result{}
	if res.y, err = y.ToHostAsync(s1); err != nil {
		return nil, err
	}
	if res.energy, err = energy.ToHostAsync(s1); err != nil {
		return nil, err
	}
	if res.noise, err = noise.ToHostAsync(s1); err != nil {
		return nil, err
	}
	if err := s1.Synchronize(); err != nil {
		return nil, err
	}
	return res, nil
}

// reference is the pipeline in float64 on the host, with the noise the
// device generated: direct DFTs, the low-pass, the product and the rest.
func reference(p *problem, noise []float32) *result {
	n, batch, outs := p.n, p.batch, p.outs
	a := make([]float64, batch*n)
	spec, back := make([]complex128, n), make([]complex128, n)
	dft := func(dst, src []complex128, sign float64) {
		for k := range dst {
			var s complex128
			for j, v := range src {
				s += v * cmplx.Rect(1, sign*2*math.Pi*float64(j*k%n)/float64(n))
			}
			dst[k] = s
		}
	}
	for b := 0; b < batch; b++ {
		x := make([]complex128, n)
		for i := range x {
			j := b*n + i
			v := p.signal[j]
			x[i] = complex(float64(v.X)+float64(p.sigma)*float64(noise[2*j]), float64(v.Y)+float64(p.sigma)*float64(noise[2*j+1]))
		}
		dft(spec, x, -1)
		for k := range spec {
			if min(k, n-k) > p.keep {
				spec[k] = 0
			}
		}
		dft(back, spec, +1)
		for i, v := range back {
			a[b*n+i] = real(v) / float64(n)
		}
	}
	res := &result{y: make([]float32, batch*outs), energy: make([]float32, batch)}
	for b := 0; b < batch; b++ {
		var e float64
		for _, v := range a[b*n : (b+1)*n] {
			e += v * v
		}
		res.energy[b] = float32(e)
		for o := 0; o < outs; o++ {
			var s float64
			for i := 0; i < n; i++ {
				s += a[b*n+i] * float64(p.w[i*outs+o])
			}
			res.y[b*outs+o] = float32(math.Max(s+float64(p.bias[o]), 0) / math.Sqrt(e+1))
		}
	}
	return res
}

// maxDiff is the largest |got-want| and the largest |want|.
func maxDiff(got, want []float32) (diff, scale float64) {
	for i := range want {
		diff = max(diff, math.Abs(float64(got[i])-float64(want[i])))
		scale = max(scale, math.Abs(float64(want[i])))
	}
	return diff, scale
}
