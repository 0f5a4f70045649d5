package soft

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// The corpus is nvcc 13.0 output for testdata/typical.cu and more.cu; each
// kernel runs through the rt.Driver interface and is checked against a Go
// reference computation.

var typicalFiles = []string{"typical_sm75.ptx", "typical_sm90.ptx", "typical_sm90_fastmath.ptx"}

// refFMA32 is an independent correctly rounded fp32 fma (math/big).
func refFMA32(a, b, c float32) float32 {
	var x, y, z big.Float
	x.SetPrec(200).SetFloat64(float64(a))
	y.SetPrec(200).SetFloat64(float64(b))
	z.SetPrec(200).SetFloat64(float64(c))
	x.Mul(&x, &y).Add(&x, &z)
	f, _ := x.Float32()
	return f
}

func randF32(r *rand.Rand, n int, lo, hi float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = lo + (hi-lo)*r.Float32()
	}
	return v
}

func TestCorpusTypical(t *testing.T) {
	for _, f := range typicalFiles {
		t.Run(f, func(t *testing.T) {
			e := newCorpusEnv(t, Options{Deterministic: true})
			lib := e.load(f)
			r := rand.New(rand.NewPCG(1, 2))

			t.Run("vadd", func(t *testing.T) {
				n := 1000
				a, b := randF32(r, n, -10, 10), randF32(r, n, -10, 10)
				pa, pb, pc := e.buf(a), e.buf(b), e.buf(make([]float32, n))
				e.launch(e.kernel(lib, "_Z4vaddPKfS0_Pfi"), rt.D1(4), rt.D1(256), 0, pa, pb, pc, n)
				c := make([]float32, n)
				e.get(pc, c)
				for i := range c {
					if c[i] != a[i]+b[i] {
						t.Fatalf("c[%d] = %v, want %v", i, c[i], a[i]+b[i])
					}
				}
			})
			t.Run("saxpy", func(t *testing.T) {
				n := 777
				x, y := randF32(r, n, -5, 5), randF32(r, n, -5, 5)
				px, py := e.buf(x), e.buf(y)
				e.launch(e.kernel(lib, "_Z5saxpyifPKfPf"), rt.D1(7), rt.D1(128), 0, n, float32(1.7), px, py)
				got := make([]float32, n)
				e.get(py, got)
				for i := range got {
					if want := refFMA32(1.7, x[i], y[i]); got[i] != want {
						t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
					}
				}
			})
			t.Run("reduce", func(t *testing.T) {
				n, bs := 3000, 256
				nb := (n + bs - 1) / bs
				in := randF32(r, n, 0, 1)
				pin, pout := e.buf(in), e.buf(make([]float32, nb))
				e.launch(e.kernel(lib, "_Z6reducePKfPfi"), rt.D1(nb), rt.D1(bs), uint32(bs*4), pin, pout, n)
				got := make([]float32, nb)
				e.get(pout, got)
				for b := 0; b < nb; b++ {
					s := make([]float32, bs)
					for t := range s {
						if i := b*bs + t; i < n {
							s[t] = in[i]
						}
					}
					for k := bs / 2; k > 0; k >>= 1 {
						for t := 0; t < k; t++ {
							s[t] += s[t+k]
						}
					}
					if got[b] != s[0] {
						t.Fatalf("block %d: %v, want %v", b, got[b], s[0])
					}
				}
			})
			t.Run("hist", func(t *testing.T) {
				n := 10000
				d := make([]byte, n)
				for i := range d {
					d[i] = byte(r.IntN(256))
				}
				pd, ph := e.buf(d), e.buf(make([]uint32, 256))
				e.launch(e.kernel(lib, "_Z4histPKhPji"), rt.D1(8), rt.D1(128), 0, pd, ph, n)
				got := make([]uint32, 256)
				e.get(ph, got)
				want := make([]uint32, 256)
				for _, v := range d {
					want[v]++
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("histogram differs:\n got %v\nwant %v", got, want)
				}
			})
			t.Run("mm", func(t *testing.T) {
				N := 48
				A, B := randF32(r, N*N, -1, 1), randF32(r, N*N, -1, 1)
				pa, pb, pc := e.buf(A), e.buf(B), e.buf(make([]float32, N*N))
				e.launch(e.kernel(lib, "_Z2mmPKfS0_Pfi"), rt.D2(N/16, N/16), rt.D2(16, 16), 0, pa, pb, pc, N)
				got := make([]float32, N*N)
				e.get(pc, got)
				for i := 0; i < N; i++ {
					for j := 0; j < N; j++ {
						var acc float32
						for k := 0; k < N; k++ {
							acc = refFMA32(A[i*N+k], B[k*N+j], acc)
						}
						if got[i*N+j] != acc {
							t.Fatalf("C[%d][%d] = %v, want %v", i, j, got[i*N+j], acc)
						}
					}
				}
			})
			t.Run("wred", func(t *testing.T) {
				n, bs, nb := 1000, 128, 8
				in := randF32(r, n, -1, 1)
				pin, pout := e.buf(in), e.buf(make([]float32, 1))
				e.launch(e.kernel(lib, "_Z4wredPKfPfi"), rt.D1(nb), rt.D1(bs), 0, pin, pout, n)
				got := make([]float32, 1)
				e.get(pout, got)
				var want float32
				for w := 0; w < nb*bs/32; w++ {
					v := make([]float32, 32)
					for l := range v {
						if i := w*32 + l; i < n {
							v[l] = in[i]
						}
					}
					for o := 16; o > 0; o >>= 1 {
						nv := make([]float32, 32)
						for l := range v {
							j := l + o
							if j > 31 {
								j = l
							}
							nv[l] = v[l] + v[j]
						}
						v = nv
					}
					want += v[0]
				}
				// Deterministic soft adds the warps' atomics in warp order, as
				// the reference does; hardware adds them in any order, which
				// moves the float sum by a few ulps.
				if e.d != nil && got[0] != want || math.Abs(float64(got[0]-want)) > 1e-5 {
					t.Fatalf("sum = %v, want %v", got[0], want)
				}
			})
			t.Run("math", func(t *testing.T) {
				// One warp: mathk's y[i] = sqrt(y[i])/y[i+1] + v reads the
				// word the next thread writes, a race across a warp
				// boundary (racecheck reports it); within a warp lockstep
				// execution reads before it writes.
				n := 32
				x := randF32(r, n, 0.5, 4)
				y := make([]float64, n+1)
				for i := range y {
					y[i] = 0.5 + 3*r.Float64()
				}
				px, py := e.buf(append([]float32(nil), x...)), e.buf(append([]float64(nil), y...))
				e.launch(e.kernel(lib, "_Z5mathkPfPd"), rt.D1(1), rt.D1(n), 0, px, py)
				gx, gy := make([]float32, n), make([]float64, n+1)
				e.get(px, gx)
				e.get(py, gy)
				for i := 0; i < n; i++ {
					v := float64(x[i])
					want := 2*math.Exp(v) + 1/v + math.Sqrt(v) + v/3 + math.Sin(v) + 1/math.Sqrt(v) + math.Log(v) + math.Tanh(v)
					// The terms carry up to a few ulp each (the §3.4
					// tolerances); the sum is compared relatively.
					if d := math.Abs(float64(gx[i])-want) / want; d > 2e-6 {
						t.Errorf("x[%d] = %v, want %v (rel %g)", i, gx[i], want, d)
					}
					if wy := math.Sqrt(y[i])/y[i+1] + v; gy[i] != wy {
						t.Errorf("y[%d] = %v, want %v", i, gy[i], wy)
					}
				}
			})
			t.Run("vote", func(t *testing.T) {
				// One warp: vote's p[i] = o[0]*o[1] + … reads what threads
				// 0 and 1 store, a race for the threads of other warps
				// (racecheck reports it); within the warp lockstep
				// execution stores before it reads.
				o, p := e.buf(make([]int32, 32)), e.buf(make([]int64, 32))
				e.launch(e.kernel(lib, "_Z4votePiPx"), rt.D1(1), rt.D1(32), 0, o, p)
				got, gp := make([]int32, 32), make([]int64, 32)
				e.get(o, got)
				e.get(p, gp)
				b := uint32(0xAAAAAAAA)
				want := int32(b + 0xffffffff + 16 + 1 + b + b)
				for i, v := range got {
					if v != want {
						t.Fatalf("o[%d] = %#x, want %#x", i, uint32(v), uint32(want))
					}
					if gp[i] < int64(want)*int64(want) {
						t.Fatalf("p[%d] = %d: clock64 term went backwards", i, gp[i])
					}
				}
			})
		})
	}
}

// moreResult is every output buffer of every kernel of more.cu, so the -O3
// and -G builds can be compared bit for bit.
type moreResult map[string]any

func runMore(t *testing.T, file string) (moreResult, string) {
	e := newCorpusEnv(t, Options{Deterministic: true})
	lib := e.load(file)
	res := moreResult{}
	r := rand.New(rand.NewPCG(3, 4))
	k := func(name string) rt.KernelHandle { return e.kernel(lib, name) }
	debug := strings.Contains(file, "_G")

	{ // vr: grid-stride c = a*b with size_t n
		n := 3000
		a, b := randF32(r, n, -2, 2), randF32(r, n, -2, 2)
		pa, pb, pc := e.buf(a), e.buf(b), e.buf(make([]float32, n))
		e.launch(k("_Z2vrPKfS0_Pfm"), rt.D1(4), rt.D1(128), 0, pa, pb, pc, uint64(n))
		c := make([]float32, n)
		e.get(pc, c)
		for i := range c {
			if c[i] != a[i]*b[i] {
				t.Fatalf("vr: c[%d] = %v, want %v", i, c[i], a[i]*b[i])
			}
		}
		res["vr"] = c
	}
	{ // v4: float4 reversal
		n := 100
		a := randF32(r, 4*n, -1, 1)
		pa, pc := e.buf(a), e.buf(make([]float32, 4*n))
		e.launch(k("_Z2v4PK6float4PS_i"), rt.D1(2), rt.D1(64), 0, pa, pc, n)
		c := make([]float32, 4*n)
		e.get(pc, c)
		for i := 0; i < n; i++ {
			for j := 0; j < 4; j++ {
				if c[4*i+j] != a[4*i+3-j] {
					t.Fatalf("v4: element %d.%d", i, j)
				}
			}
		}
		res["v4"] = c
	}
	{ // pr: printf
		o := e.buf(make([]int32, 1))
		e.out.Reset()
		e.launch(k("_Z2prPi"), rt.D1(3), rt.D1(64), 0, o)
		if e.d == nil {
			t.Log("pr: printf output goes to the process's stdout on this backend; not captured")
		} else if got, want := e.out.String(), "hi 0 1.500000\nhi 1 1.500000\nhi 2 1.500000\n"; got != want {
			t.Fatalf("printf output %q, want %q", got, want)
		}
		g := make([]int32, 1)
		e.get(o, g)
		if g[0] != 1 {
			t.Fatalf("pr: o[0] = %d", g[0])
		}
		res["pr"] = e.out.String()
	}
	{ // loc: local array
		in := make([]int32, 16)
		for i := range in {
			in[i] = int32(r.IntN(1000)) - 500
		}
		o := e.buf(append([]int32(nil), in...))
		kk := 5
		e.launch(k("_Z3locPii"), rt.D1(1), rt.D1(16), 0, o, kk)
		g := make([]int32, 16)
		e.get(o, g)
		for i := range g {
			j := (kk + i) & 15
			if g[i] != in[j]*int32(j) {
				t.Fatalf("loc: o[%d] = %d, want %d", i, g[i], in[j]*int32(j))
			}
		}
		res["loc"] = g
	}
	{ // hf: half arithmetic a + a*a
		n := 40
		in := make([]uint16, n)
		for i := range in {
			in[i] = uint16(gpumath.F16.Round(float64(r.Float32()*4-2), gpumath.RN))
		}
		pa := e.buf(append([]uint16(nil), in...))
		e.launch(k("_Z2hfP6__halfi"), rt.D1(1), rt.D1(64), 0, pa, n)
		g := make([]uint16, n)
		e.get(pa, g)
		for i := range g {
			// Optimized code rounds once: ptxas contracts the inline-asm
			// mul.f16 and add.f16 (no rounding modifiers) into an fma, as the
			// H100 shows. -G code is not optimized and rounds twice.
			a := big.NewFloat(gpumath.H2F(uint64(in[i])))
			prec := uint(64) // exact: the product of two 11-bit significands
			if debug {
				prec = 11
			}
			sq := new(big.Float).SetPrec(prec).Mul(a, a)
			s, _ := new(big.Float).SetPrec(11).Add(a, sq).Float64()
			if gpumath.H2F(uint64(g[i])) != s {
				t.Fatalf("hf: a[%d] = %v, want %v", i, gpumath.H2F(uint64(g[i])), s)
			}
		}
		res["hf"] = g
	}
	{ // idiv
		n := 32
		a, b := make([]int32, n), make([]uint32, n)
		for i := range a {
			a[i] = int32(r.Uint32())
			b[i] = r.Uint32()
		}
		a[0], a[1] = math.MinInt32, -7
		pa, pb := e.buf(append([]int32(nil), a...)), e.buf(append([]uint32(nil), b...))
		e.launch(k("_Z4idivPiPj"), rt.D1(1), rt.D1(n), 0, pa, pb)
		ga, gb := make([]int32, n), make([]uint32, n)
		e.get(pa, ga)
		e.get(pb, gb)
		for i := 0; i < n; i++ {
			v := a[i]
			abs := v
			if abs < 0 {
				abs = -abs
			}
			wa := v/7 + v%int32(i+1) + min(v, 3) + abs
			wb := b[i]/uint32(i+1) + max(b[i], 9) + b[i]>>3
			if ga[i] != wa || gb[i] != wb {
				t.Fatalf("idiv %d: got %d/%d, want %d/%d", i, ga[i], gb[i], wa, wb)
			}
		}
		res["idiv"] = [][]int32{ga, {int32(len(gb))}}
		res["idivb"] = gb
	}
	{ // dbl
		n := 32
		x := make([]float64, n+2)
		for i := range x {
			x[i] = 0.1 + 3*r.Float64()
		}
		x[5] = 800 // exp overflow path
		px := e.buf(append([]float64(nil), x...))
		e.launch(k("_Z3dblPd"), rt.D1(1), rt.D1(n), 0, px)
		g := make([]float64, n+2)
		e.get(px, g)
		for i := 0; i < n; i++ {
			want := math.FMA(x[i], x[i+1], math.Sqrt(x[i])/x[i+2]) + math.Exp(x[i])
			if d := math.Abs(g[i]-want) / math.Abs(want); !(d <= 4e-16) && !(math.IsInf(want, 1) && math.IsInf(g[i], 1)) {
				t.Fatalf("dbl: x[%d] = %v, want %v (rel %g)", i, g[i], want, d)
			}
		}
		res["dbl"] = g
	}
	{ // cv: conversions
		n := 32
		c := make([]byte, n)
		l := make([]int64, n)
		for i := range c {
			c[i] = byte(r.IntN(256))
			l[i] = int64(r.Uint64()) >> uint(r.IntN(60))
		}
		pc, ps, pf, pl := e.buf(c), e.buf(make([]int16, n)), e.buf(make([]float32, n)), e.buf(append([]int64(nil), l...))
		e.launch(k("_Z2cvPKhPsPfPx"), rt.D1(1), rt.D1(n), 0, pc, ps, pf, pl)
		gs, gf, gl := make([]int16, n), make([]float32, n), make([]int64, n)
		e.get(ps, gs)
		e.get(pf, gf)
		e.get(pl, gl)
		for i := 0; i < n; i++ {
			f := float32(l[i]) + float32(c[i])
			ws := int16(int(c[i]) * 3)
			wl := int64(f) + int64(int32(math.RoundToEven(float64(f))))
			if math.Abs(float64(f)) >= 1<<31 {
				r := math.RoundToEven(float64(f))
				wl = int64(f) + int64(int32(max(min(r, math.MaxInt32), math.MinInt32)))
			}
			if gs[i] != ws || gf[i] != f || gl[i] != wl {
				t.Fatalf("cv %d: got %d %v %d, want %d %v %d", i, gs[i], gf[i], gl[i], ws, f, wl)
			}
		}
		res["cv"] = []any{gs, gf, gl}
	}
	{ // ws: warp shuffle-up, match, redux, ffs/clz/brev
		n := 32
		o := e.buf(make([]int32, n))
		e.launch(k("_Z2wsPi"), rt.D1(1), rt.D1(n), 0, o)
		g := make([]int32, n)
		e.get(o, g)
		v := make([]uint32, n)
		var sum uint32
		for i := range v {
			v[i] = uint32(i)
			if i > 0 {
				v[i] += uint32(i - 1)
			}
			sum += v[i]
		}
		for i := range v {
			var m uint32
			for j := range v {
				if v[j]&3 == v[i]&3 {
					m |= 1 << j
				}
			}
			ffs := uint32(0)
			if v[i] != 0 {
				ffs = uint32(bits.TrailingZeros32(v[i]) + 1)
			}
			want := v[i] + m + sum + ffs + uint32(bits.LeadingZeros32(v[i])) + bits.Reverse32(v[i])
			if uint32(g[i]) != want {
				t.Fatalf("ws: o[%d] = %#x, want %#x", i, uint32(g[i]), want)
			}
		}
		res["ws"] = g
	}
	{ // at: atomics in deterministic lane order
		n := 32
		pc, pf, pd, pu := e.buf(make([]int32, 5)), e.buf(make([]float32, n)), e.buf(make([]float64, 1)), e.buf(make([]uint64, 1))
		e.launch(k("_Z2atPiPfPdPy"), rt.D1(1), rt.D1(n), 0, pc, pf, pd, pu)
		gc, gf, gd, gu := make([]int32, 5), make([]float32, n), make([]float64, 1), make([]uint64, 1)
		e.get(pc, gc)
		e.get(pf, gf)
		e.get(pd, gd)
		e.get(pu, gu)
		if want := []int32{32, 31, 31, 32, 32}; !reflect.DeepEqual(gc, want) {
			t.Fatalf("at: c = %v, want %v", gc, want)
		}
		for i := range gf {
			if gf[i] != float32(i) {
				t.Fatalf("at: f[%d] = %v", i, gf[i])
			}
		}
		if gd[0] != 32 || gu[0] != 32 {
			t.Fatalf("at: d=%v u=%v", gd[0], gu[0])
		}
		res["at"] = []any{gc, gf, gd, gu}
	}
	{ // call: a real call with param blocks
		n := 48
		x := randF32(r, n, -3, 3)
		px := e.buf(append([]float32(nil), x...))
		e.launch(k("_Z4callPf"), rt.D1(1), rt.D1(n), 0, px)
		g := make([]float32, n)
		e.get(px, g)
		for i := range g {
			want := refFMA32(x[i], x[i], 1)
			if debug {
				want = float32(x[i]*x[i]) + 1 // -G does not contract into fma
			}
			if g[i] != want {
				t.Errorf("%s call: x[%d] = %v, want %v (x=%v)", file, i, g[i], want, x[i])
			}
		}
		res["call"] = g
	}
	{ // sel: select/min/max/rounding
		x := []float32{-3.5, -2.5, -1, -0.5, -0.0, 0, 0.3, 0.5, 1.5, 2.5, 3.7, 100, float32(math.NaN()),
			float32(math.Inf(1)), float32(math.Inf(-1)), 2, 1e-40, -1e-40}
		n := len(x)
		px, py := e.buf(append([]float32(nil), x...)), e.buf(make([]int32, n))
		e.launch(k("_Z3selPfPi"), rt.D1(1), rt.D1(n), 0, px, py)
		gx, gy := make([]float32, n), make([]int32, n)
		e.get(px, gx)
		e.get(py, gy)
		for i, v := range x {
			wy := int32(-1)
			if v > 0 {
				wy = int32(gpumath.F2S(float64(v), gpumath.RZ, 32))
			}
			if v != v {
				wy = 7
			}
			fv := float64(v)
			s := float32(gpumath.Min32(v, 2, false)) + gpumath.Max32(v, -1, false)
			s += float32(math.Abs(fv))
			s += float32(math.Floor(fv))
			s += float32(math.Ceil(fv))
			s += float32(math.Trunc(fv))
			s += float32(math.RoundToEven(fv))
			s -= float32(math.Abs(fv))
			if gy[i] != wy || !(gx[i] == s || gx[i] != gx[i] && s != s) {
				t.Fatalf("sel(%v): got %v %d, want %v %d", v, gx[i], gy[i], s, wy)
			}
		}
		res["sel"] = []any{gx, gy}
	}
	return res, e.out.String()
}

func TestCorpusMore(t *testing.T) {
	o3, _ := runMore(t, "more_sm90.ptx")
	g, _ := runMore(t, "more_sm90_G.ptx")
	for k, v := range o3 {
		if k == "call" || k == "dbl" || k == "hf" {
			continue // -O3 contracts a*b+c into fma, -G does not
		}
		if !reflect.DeepEqual(fmt.Sprint(v), fmt.Sprint(g[k])) {
			t.Errorf("%s: -G result differs from -O3:\n-O3 %v\n -G %v", k, v, g[k])
		}
	}
}

func TestCorpusKernelNames(t *testing.T) {
	e := newCorpusEnv(t, Options{})
	lib := e.load("more_sm90.ptx")
	names, err := e.r.LibraryKernelNames(lib)
	if err != nil {
		t.Fatal(err)
	}
	// Source order on soft; CUDA does not promise an order.
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	want := "_Z2atPiPfPdPy _Z2cvPKhPsPfPx _Z2hfP6__halfi _Z2prPi _Z2v4PK6float4PS_i _Z2vrPKfS0_Pfm _Z2wsPi _Z3dblPd _Z3locPii _Z3selPfPi _Z4callPf _Z4idivPiPj"
	if got := strings.Join(sorted, " "); got != want {
		t.Fatalf("kernel names %v", names)
	}
	if e.d != nil && names[0] != "_Z2vrPKfS0_Pfm" {
		t.Errorf("soft lists kernels out of source order: %v", names)
	}
}
