// Tensor-core arithmetic: D = A·B + C for mma.sync and wmma.mma, gathered
// from and scattered to the warp's registers by the fragment layouts of
// mmatype.go. How the H100 sums floating-point products (block sizes,
// alignment, truncation, rounding) is stated in the package doc and
// encoded in tcSum; every form is checked bit for bit against GPU
// recordings in testdata/mma.

package exec

import (
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
	"math"
)

// mmaSpec is one decoded mma.sync or wmma.mma instruction.
type mmaSpec struct {
	shape      mmaShape
	batch      int // independent products (4 for mma.m8n8k4 with .f16)
	a, b, c, d mmaType
	sat        bool // .satfinite: clamp integer results to int32
	bop        int  // b1: popcAnd or popcXor
	rnd        int  // f64 rounding
	sum        tcSum
	// maps[op] gives, for lane l's fragment element i, the element's index
	// q*rows*cols + row*cols + col in its matrix (op: opA, opB, opC; D
	// shares C's layout but may have another type, hence maps[3]).
	maps  [4][]int32
	nregs [4]int
}

const (
	popcXor = 1
	popcAnd = 2
)

// elems is the number of fragment elements per lane of operand i.
func (s *mmaSpec) elems(i int) int { return len(s.maps[i]) / 32 }

// typ is operand i's element type.
func (s *mmaSpec) typ(i int) mmaType { return [4]mmaType{s.a, s.b, s.c, s.d}[i] }

// gather reads operand i's matrix (element bits) from its registers;
// regs[r][lane] is register r of lane. Where a fragment repeats an element
// (wmma's f16 multiplicands), the first copy counts.
func (s *mmaSpec) gather(i int, regs []*[32]uint64, out []uint64) {
	t := s.typ(i)
	epr := t.perReg()
	n := s.elems(i)
	for lane := 0; lane < 32; lane++ {
		m := s.maps[i][lane*n : lane*n+n]
		for e := len(m) - 1; e >= 0; e-- {
			out[m[e]] = t.elemBits(regs[e/epr][lane], e%epr)
		}
	}
}

// scatter writes D's elements into its registers for the lanes in mask.
func (s *mmaSpec) scatter(d []uint64, regs []*[32]uint64, mask uint32) {
	t := s.d
	epr := t.perReg()
	n := s.elems(3)
	w := uint(t.bits())
	for lane := 0; lane < 32; lane++ {
		if mask>>uint(lane)&1 == 0 {
			continue
		}
		m := s.maps[3][lane*n : lane*n+n]
		for r := 0; r < s.nregs[3]; r++ {
			var v uint64
			for j := 0; j < epr; j++ {
				v |= d[m[r*epr+j]] << (uint(j) * w)
			}
			regs[r][lane] = v
		}
	}
}

// compute fills D (element bits) from A, B and C.
func (s *mmaSpec) compute(A, B, C, D []uint64) {
	M, N, K := s.shape.m, s.shape.n, s.shape.k
	prods := make([]float64, K)
	exps := make([]int, K)
	for q := 0; q < s.batch; q++ {
		a, b := A[q*M*K:], B[q*K*N:]
		c, d := C[q*M*N:], D[q*M*N:]
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				o := i*N + j
				switch {
				case s.a == mtB1:
					var n int64
					for k := 0; k < K; k++ {
						x, y := a[i*K+k], b[k*N+j]
						if s.bop == popcAnd && x&y != 0 || s.bop == popcXor && x != y {
							n++
						}
					}
					d[o] = uint64(uint32(int32(n) + int32(c[o])))
				case !s.a.isFloat():
					n := s.c.toInt(c[o])
					for k := 0; k < K; k++ {
						n += s.a.toInt(a[i*K+k]) * s.b.toInt(b[k*N+j])
					}
					if s.sat {
						n = min(max(n, math.MinInt32), math.MaxInt32)
					}
					d[o] = uint64(uint32(n))
				case s.a == mtF64:
					acc := c[o]
					for k := 0; k < K; k++ {
						acc = dfma(a[i*K+k], b[k*N+j], acc, s.rnd)
					}
					d[o] = acc
				default:
					for k := 0; k < K; k++ {
						x, y := s.a.toFloat(a[i*K+k]), s.b.toFloat(b[k*N+j])
						prods[k] = x * y
						exps[k] = prodExp(s.a, x, s.b, y)
						if s.sum.fp8wg {
							exps[k] = fp8WGExp(s.a, x, s.b, y)
						}
					}
					d[o] = s.sum.dot(s.c.toFloat(c[o]), prods, exps, s.d)
				}
			}
		}
	}
}

// newMMASpec builds the spec of mma.sync with the given shape and types
// (layouts matter only for m8n8k4 with .f16).
func newMMASpec(shape mmaShape, a, b, c, d mmaType, arow, brow bool) *mmaSpec {
	s := &mmaSpec{shape: shape, batch: 1, a: a, b: b, c: c, d: d, rnd: gpumath.RN}
	if quadPair(shape, a) {
		s.batch = 4
	}
	for i, t := range []mmaType{a, b, c, d} {
		op, row := min(i, opC), []bool{arow, brow, true, true}[i]
		rows, cols := shape.dims(op)
		n := s.batch * rows * cols / 32
		s.maps[i] = make([]int32, 32*n)
		for lane := 0; lane < 32; lane++ {
			for e := 0; e < n; e++ {
				q, r, col := mmaFragPos(shape, op, t, row, lane, e)
				s.maps[i][lane*n+e] = int32(q*rows*cols + r*cols + col)
			}
		}
		s.nregs[i] = n / t.perReg()
	}
	s.sum = tcModel(shape, shape.k, a, c, d, s.batch == 4)
	return s
}

// newWMMASpec builds the spec of wmma.mma (its fragment layout does not
// depend on .row/.col: wmma.load arranges the registers).
func newWMMASpec(shape mmaShape, a, c, d mmaType) *mmaSpec {
	s := &mmaSpec{shape: shape, batch: 1, a: a, b: a, c: c, d: d, rnd: gpumath.RN}
	for i, t := range []mmaType{a, a, c, d} {
		op := min(i, opC)
		_, cols := shape.dims(op)
		nr := wmmaRegs(shape, op, t)
		n := nr * t.perReg()
		s.maps[i] = make([]int32, 32*n)
		for lane := 0; lane < 32; lane++ {
			for e := 0; e < n; e++ {
				r, col := wmmaFragPos(shape, op, a, t, lane, e)
				s.maps[i][lane*n+e] = int32(r*cols + col)
			}
		}
		s.nregs[i] = nr
	}
	s.sum = tcModel(shape, wmmaTile(a).k, a, c, d, false)
	if a == mtTF32 {
		s.sum.block = 4 // two chained HMMA.1684 per tile
	}
	return s
}

// tcModel is how the H100 sums an instruction's floating-point products
// (see the package doc; k is the k of one hardware instruction).
func tcModel(shape mmaShape, k int, a, c, d mmaType, quad bool) tcSum {
	m := tcSum{block: k, frac: 25, rnd: gpumath.RZ, prec: 24, emin: -126}
	if c == mtF16 && d == mtF16 {
		// HMMA.F16: f16 accumulation, rounded to nearest.
		m.rnd, m.prec, m.emin = gpumath.RN, 11, -14
	}
	switch {
	case quad:
		m.fma = true
	case a == mtE4M3 || a == mtE5M2:
		m.pairs, m.block = true, k/2
	}
	return m
}
