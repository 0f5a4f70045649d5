// Package standin implements mathlib's cuBLAS, cuFFT and cuRAND calls in plain Go
// over rt, for a program's tests on rt/soft (it runs on any backend). It is
// written as a binding to a C library is: it receives a stream handle and
// device pointers, adopts them (rt.AdoptStream, rt.AdoptBuffer, which check
// them as cuBLAS would fault on them), and does its work in the stream's
// order without waiting: each call queues a copy of its inputs into
// page-locked staging memory, a host function that computes there, and a
// copy of the result back, so that kernels queued before and after it, and
// other streams' events, order with it as with the real libraries.
package standin

import (
	"fmt"
	"math"
	"math/bits"
	"math/cmplx"
	"math/rand/v2"

	"github.com/cugen/cugen/examples/fftgemm/mathlib"
	"github.com/cugen/cugen/rt"
)

// Libs is the stand-in for cuBLAS and cuFFT on the driver d, whose handles
// the calls receive.
type Libs struct{ d rt.Driver }

var _ mathlib.Libs = (*Libs)(nil)

// New returns the stand-in on d.
func New(d rt.Driver) *Libs { return &Libs{d: d} }

// Name says what this is.
func (l *Libs) Name() string {
	return "Go stand-in for cuBLAS, cuFFT and cuRAND (on rt/" + l.d.Name() + ")"
}

// staging is page-locked host memory the calls compute in, grown as
// needed; growing waits for the stream, whose queued work may still use it.
type staging[T any] struct {
	s   *rt.Stream
	buf *rt.PinnedBuffer[T]
}

func (st *staging[T]) get(n int) ([]T, error) {
	if st.buf == nil || st.buf.Len() < n {
		if st.buf != nil {
			if err := st.s.Synchronize(); err != nil {
				return nil, err
			}
			if err := st.buf.Free(); err != nil {
				return nil, err
			}
		}
		b, err := rt.AllocPinned[T](st.s.Context(), n)
		if err != nil {
			return nil, err
		}
		st.buf = b
	}
	return st.buf.Slice()[:n], nil
}

func (st *staging[T]) free() error {
	if st.buf == nil {
		return nil
	}
	if err := st.s.Synchronize(); err != nil {
		return err
	}
	return st.buf.Free()
}

// NewBLAS adopts s, the stream the handle's GEMMs run on.
func (l *Libs) NewBLAS(s rt.StreamHandle) (mathlib.BLAS, error) {
	st, err := rt.AdoptStream(l.d, s)
	if err != nil {
		return nil, fmt.Errorf("standin: cublasSetStream: %w", err)
	}
	return &blas{s: st, stage: staging[float32]{s: st}}, nil
}

type blas struct {
	s     *rt.Stream
	stage staging[float32]
}

// Sgemm is cublasSgemm on the handle's stream.
func (b *blas) Sgemm(transA, transB bool, m, n, k int, alpha float32, a rt.DevPtr, lda int, bp rt.DevPtr, ldb int, beta float32, c rt.DevPtr, ldc int) error {
	ra, ca := m, k // op(A) is m×k: A itself is ra×ca
	if transA {
		ra, ca = k, m
	}
	rb, cb := k, n
	if transB {
		rb, cb = n, k
	}
	if m < 0 || n < 0 || k < 0 || lda < max(1, ra) || ldb < max(1, rb) || ldc < max(1, m) {
		return fmt.Errorf("standin: cublasSgemm: CUBLAS_STATUS_INVALID_VALUE (m=%d n=%d k=%d lda=%d ldb=%d ldc=%d)", m, n, k, lda, ldb, ldc)
	}
	if m == 0 || n == 0 {
		return nil
	}
	ctx := b.s.Context()
	// The matrices' extents, column-major: the last column needs only its rows.
	extent := func(rows, cols, ld int) int { return max(cols-1, 0)*ld + rows }
	A, err := rt.AdoptBuffer[float32](ctx, a, extent(ra, ca, lda))
	if err != nil {
		return fmt.Errorf("standin: cublasSgemm: A: %w", err)
	}
	B, err := rt.AdoptBuffer[float32](ctx, bp, extent(rb, cb, ldb))
	if err != nil {
		return fmt.Errorf("standin: cublasSgemm: B: %w", err)
	}
	C, err := rt.AdoptBuffer[float32](ctx, c, extent(m, n, ldc))
	if err != nil {
		return fmt.Errorf("standin: cublasSgemm: C: %w", err)
	}
	h, err := b.stage.get(A.Len + B.Len + C.Len)
	if err != nil {
		return err
	}
	ha, hb, hc := h[:A.Len], h[A.Len:A.Len+B.Len], h[A.Len+B.Len:]
	for _, cp := range []struct {
		dev  rt.Buffer[float32]
		host []float32
	}{{A, ha}, {B, hb}, {C, hc}} {
		if err := cp.dev.CopyToAsync(b.s, cp.host); err != nil {
			return err
		}
	}
	at := func(x []float32, ld int, trans bool, i, j int) float64 {
		if trans {
			i, j = j, i
		}
		return float64(x[j*ld+i])
	}
	err = b.s.LaunchHostFunc(func() {
		col := make([]float64, m)
		for j := 0; j < n; j++ {
			for i := range col {
				var s float64
				for p := 0; p < k; p++ {
					s += at(ha, lda, transA, i, p) * at(hb, ldb, transB, p, j)
				}
				col[i] = s
			}
			for i, s := range col {
				v := float64(alpha) * s
				if beta != 0 { // beta 0 ignores C, NaNs included, as cuBLAS does
					v += float64(beta) * float64(hc[j*ldc+i])
				}
				hc[j*ldc+i] = float32(v)
			}
		}
	})
	if err != nil {
		return err
	}
	return C.CopyFromAsync(b.s, hc)
}

// Destroy frees the staging memory once the stream's work is done; the
// stream stays its owner's.
func (b *blas) Destroy() error { return b.stage.free() }

// NewFFT adopts s and allocates the plan's spectrum buffer with the driver
// itself, in s's context, as the library does: memory that is none of rt's
// (the program adopts it to hand it to a kernel).
func (l *Libs) NewFFT(n, batch int, s rt.StreamHandle) (mathlib.FFT, error) {
	if n <= 0 || batch <= 0 {
		return nil, fmt.Errorf("standin: cufftPlan1d: CUFFT_INVALID_SIZE (n=%d batch=%d)", n, batch)
	}
	st, err := rt.AdoptStream(l.d, s)
	if err != nil {
		return nil, fmt.Errorf("standin: cufftSetStream: %w", err)
	}
	p, err := l.d.MemAlloc(st.Context().Handle(), uint64(n*batch)*8)
	if err != nil {
		return nil, fmt.Errorf("standin: cufftPlan1d: %w", err)
	}
	return &fft{d: l.d, s: st, n: n, batch: batch, spec: p, stage: staging[rt.Float2]{s: st}}, nil
}

type fft struct {
	d        rt.Driver
	s        *rt.Stream
	n, batch int
	spec     rt.DevPtr
	stage    staging[rt.Float2]
}

func (f *fft) Spectrum() rt.DevPtr { return f.spec }

func (f *fft) Forward(in rt.DevPtr) error  { return f.exec(in, f.spec, -1) }
func (f *fft) Inverse(out rt.DevPtr) error { return f.exec(f.spec, out, +1) }

// exec is cufftExecC2C from in to out with the exponent's sign.
func (f *fft) exec(in, out rt.DevPtr, sign float64) error {
	ctx := f.s.Context()
	count := f.n * f.batch
	src, err := rt.AdoptBuffer[rt.Float2](ctx, in, count)
	if err != nil {
		return fmt.Errorf("standin: cufftExecC2C: input: %w", err)
	}
	dst, err := rt.AdoptBuffer[rt.Float2](ctx, out, count)
	if err != nil {
		return fmt.Errorf("standin: cufftExecC2C: output: %w", err)
	}
	host, err := f.stage.get(count)
	if err != nil {
		return err
	}
	if err := src.CopyToAsync(f.s, host); err != nil {
		return err
	}
	n := f.n
	err = f.s.LaunchHostFunc(func() {
		x := make([]complex128, n)
		for b := 0; b < f.batch; b++ {
			row := host[b*n : (b+1)*n]
			for i, v := range row {
				x[i] = complex(float64(v.X), float64(v.Y))
			}
			transform(x, sign)
			for i, v := range x {
				row[i] = rt.Float2{X: float32(real(v)), Y: float32(imag(v))}
			}
		}
	})
	if err != nil {
		return err
	}
	return dst.CopyFromAsync(f.s, host)
}

// Destroy frees the spectrum once the stream's work is done.
func (f *fft) Destroy() error {
	if err := f.stage.free(); err != nil {
		return err
	}
	if err := f.s.Synchronize(); err != nil {
		return err
	}
	return f.d.MemFree(f.s.Context().Handle(), f.spec)
}

// transform is the discrete Fourier transform of x in place,
// x[k] = Σ x[j]·e^(sign·2πi·jk/n): radix-2 for a power of two, else
// directly.
func transform(x []complex128, sign float64) {
	n := len(x)
	if n&(n-1) != 0 {
		y := make([]complex128, n)
		for k := range y {
			for j, v := range x {
				y[k] += v * cmplx.Rect(1, sign*2*math.Pi*float64(j*k%n)/float64(n))
			}
		}
		copy(x, y)
		return
	}
	shift := 64 - bits.Len(uint(n)) + 1
	for i := range x {
		if j := int(bits.Reverse64(uint64(i)) >> shift); j > i {
			x[i], x[j] = x[j], x[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		for j := 0; j < size/2; j++ {
			w := cmplx.Rect(1, sign*2*math.Pi*float64(j)/float64(size))
			for start := j; start < n; start += size {
				a, b := x[start], x[start+size/2]*w
				x[start], x[start+size/2] = a+b, a-b
			}
		}
	}
}

// NewRNG adopts s, the stream the generator's samples are made on; the
// generator is a PCG seeded with seed (not cuRAND's XORWOW: the samples
// differ from cuRAND's, their distribution does not).
func (l *Libs) NewRNG(seed uint64, s rt.StreamHandle) (mathlib.RNG, error) {
	st, err := rt.AdoptStream(l.d, s)
	if err != nil {
		return nil, fmt.Errorf("standin: curandSetStream: %w", err)
	}
	return &rng{s: st, r: rand.New(rand.NewPCG(seed, 0x6375726e64)), stage: staging[float32]{s: st}}, nil
}

type rng struct {
	s     *rt.Stream
	r     *rand.Rand // used only by the stream's host functions, one at a time
	stage staging[float32]
}

// Normal is curandGenerateNormal: a host function on the stream draws the
// samples into staging memory, and an async copy puts them at out, so that
// kernels before and after it order with it as with cuRAND.
func (g *rng) Normal(out rt.DevPtr, n int, mean, stddev float32) error {
	if n%2 != 0 {
		return fmt.Errorf("standin: curandGenerateNormal: CURAND_STATUS_LENGTH_NOT_MULTIPLE (n=%d is odd)", n)
	}
	if n == 0 {
		return nil
	}
	dst, err := rt.AdoptBuffer[float32](g.s.Context(), out, n)
	if err != nil {
		return fmt.Errorf("standin: curandGenerateNormal: output: %w", err)
	}
	host, err := g.stage.get(n)
	if err != nil {
		return err
	}
	err = g.s.LaunchHostFunc(func() {
		for i := range host {
			host[i] = float32(float64(mean) + float64(stddev)*g.r.NormFloat64())
		}
	})
	if err != nil {
		return err
	}
	return dst.CopyFromAsync(g.s, host)
}

// Destroy frees the staging memory once the stream's work is done.
func (g *rng) Destroy() error { return g.stage.free() }
