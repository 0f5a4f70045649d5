// Tensor-core arithmetic: D = A·B + C for mma.sync and wmma.mma, gathered
// from and scattered to the warp's registers by the fragment layouts of
// mmatype.go. How the H100 sums floating-point products (block sizes,
// alignment, truncation, rounding) is stated in the package doc and
// encoded in tcSum; every form is checked bit for bit against GPU
// recordings in testdata/mma.

package soft

import (
	"math"
	"math/bits"
)

// tcSum is how one H100 instruction adds floating-point products to the
// accumulator. By default (HMMA): the K products are taken in blocks of
// `block` consecutive k; each block and the running accumulator are added
// as one multi-term sum in which every term is first truncated toward zero
// to the grid 2^-frac below the largest term's exponent (a product's being
// the sum of its factors'); the exact sum of the truncated terms is then
// rounded to the accumulator's precision.
type tcSum struct {
	block int // products per multi-term addition
	frac  int // fraction bits kept below the largest term
	rnd   int // rounding of each block's sum (rnRZ or rnRN)
	prec  int // accumulator precision in bits (24: f32, 11: f16)
	emin  int // accumulator's smallest normal exponent (-126, -14)
	// fma: mma.m8n8k4 with .f16 multiplicands, which sm_90 runs on its
	// FP32 units: f32 accumulators are the products added one by one to
	// zero in k order, then C; f16 ones are C, then the products' pairwise
	// sums, in order; every addition rounded to nearest f32.
	fma bool
	// pairs: fp8, run as two f16 HMMAs over the unpacked halves of each
	// register: the k with k%4 < 2, then those with k%4 >= 2, chained from
	// zero; C is added last, rounded to nearest.
	pairs bool
	pairW int // pairs: k with k%(2·pairW) < pairW go first (0: 2; mma.sp: 4, even chunks first)
	// fp8wg: fp8 wgmma's one reduced-width sum (wgmma_fp8.go).
	fp8wg bool
}

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

// dfma is one step of the double-precision tensor cores' chain of fused
// multiply-adds, on bits: a NaN operand comes out quieted with its payload
// and sign (the first of a, b, c); an invalid operation gives 0x7ff8….
func dfma(a, b, c uint64, rnd int) uint64 {
	for _, x := range []uint64{a, b, c} {
		if x&0x7ff0000000000000 == 0x7ff0000000000000 && x&0xfffffffffffff != 0 {
			return x | 1<<51
		}
	}
	r := fma64(math.Float64frombits(a), math.Float64frombits(b), math.Float64frombits(c), rnd)
	if r != r {
		return 0x7ff8000000000000
	}
	return math.Float64bits(r)
}

// dot is acc + sum(p) the tensor cores' way, as bits of type out.
func (m tcSum) dot(acc float64, p []float64, pe []int, out mmaType) uint64 {
	nan, pinf, ninf := acc != acc, math.IsInf(acc, 1), math.IsInf(acc, -1)
	for _, x := range p {
		nan = nan || x != x
		pinf = pinf || math.IsInf(x, 1)
		ninf = ninf || math.IsInf(x, -1)
	}
	switch {
	case nan || pinf && ninf:
		return outBits(math.NaN(), out)
	case pinf:
		return outBits(math.Inf(1), out)
	case ninf:
		return outBits(math.Inf(-1), out)
	}
	if m.fp8wg {
		return dotFP8(acc, p, pe, out)
	}
	if m.fma && out == mtF16 {
		a := float32(acc)
		for k := 0; k+1 < len(p); k += 2 {
			a += float32(p[k]) + float32(p[k+1])
		}
		return outBits(float64(a), out)
	}
	if m.fma {
		var a float32
		for _, x := range p {
			a = fma32(float32(x), 1, a, rnRN)
		}
		return outBits(float64(a+float32(acc)), out)
	}
	if m.pairs {
		var lo, hi []float64
		var loe, hie []int
		pw := m.pairW
		if pw == 0 {
			pw = 2
		}
		for k := range p {
			if k%(2*pw) < pw {
				lo, loe = append(lo, p[k]), append(loe, pe[k])
			} else {
				hi, hie = append(hi, p[k]), append(hie, pe[k])
			}
		}
		n := m
		n.pairs = false
		d := n.chain(n.chain(0, lo, loe), hi, hie)
		if out == mtF16 {
			return outBits(d+acc, out) // exact, then rounded once
		}
		return outBits(float64(float32(d)+float32(acc)), out)
	}
	return outBits(m.chain(acc, p, pe), out)
}

// chain adds the products to acc block by block.
func (m tcSum) chain(acc float64, p []float64, pe []int) float64 {
	blk := m.block
	if blk <= 0 {
		blk = len(p)
	}
	for k := 0; k < len(p) && !math.IsInf(acc, 0); k += blk {
		acc = m.add(acc, p[k:min(k+blk, len(p))], pe[k:min(k+blk, len(p))])
	}
	return acc
}

// add is one multi-term addition: acc and the block's products, each
// truncated to the grid below the largest, summed exactly and rounded.
func (m tcSum) add(acc float64, p []float64, pe []int) float64 {
	emax := math.MinInt32
	if acc != 0 {
		emax = math.Ilogb(acc)
	}
	for i, x := range p {
		if x != 0 {
			emax = max(emax, pe[i])
		}
	}
	if emax == math.MinInt32 {
		return 0
	}
	lsb := emax - m.frac
	trunc := func(x float64) int64 { return int64(math.Trunc(math.Ldexp(x, -lsb))) }
	sum := trunc(acc)
	for _, x := range p {
		sum += trunc(x)
	}
	return roundScaled(sum, lsb, m.prec, m.emin, m.rnd)
}

// prodExp is the exponent the tensor cores align a product by: the sum of
// its factors' exponents (one less than the product's own when the
// significands multiply to 2 or more).
func prodExp(tx mmaType, x float64, ty mmaType, y float64) int {
	if x == 0 || y == 0 || x != x || y != y || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.MinInt32
	}
	return max(math.Ilogb(x), tx.emin()) + max(math.Ilogb(y), ty.emin())
}

// roundScaled rounds sum·2^exp to prec significant bits (fewer below
// 2^emin), with infinities on overflow of the format whose largest
// exponent is -emin+1.
func roundScaled(sum int64, exp, prec, emin, rnd int) float64 {
	if sum == 0 {
		return 0
	}
	neg := sum < 0
	mag := uint64(sum)
	if neg {
		mag = uint64(-sum)
	}
	n := bits.Len64(mag)
	top := n - 1 + exp // exponent of the leading bit
	keep := prec
	if top < emin {
		keep = prec - (emin - top)
	}
	if sh := n - keep; sh > 0 {
		rem := mag & (1<<uint(sh) - 1)
		mag >>= uint(sh)
		exp += sh
		half := uint64(1) << uint(sh-1)
		up := false
		switch rnd {
		case rnRN:
			up = rem > half || rem == half && mag&1 == 1
		case rnRM:
			up = neg && rem != 0
		case rnRP:
			up = !neg && rem != 0
		}
		if up {
			mag++
		}
	}
	if mag == 0 {
		return 0
	}
	v := math.Ldexp(float64(mag), exp)
	if math.Ilogb(v) > -emin+1 {
		v = math.Inf(1) // the tensor cores overflow to infinity even when truncating
	}
	if neg {
		v = -v
	}
	return v
}

// outBits encodes an accumulator value (already rounded) as f32 or f16.
func outBits(v float64, t mmaType) uint64 {
	if t == mtF16 {
		return fmtF16.round(v, rnRN)
	}
	return r32(float32(v))
}

// newMMASpec builds the spec of mma.sync with the given shape and types
// (layouts matter only for m8n8k4 with .f16).
func newMMASpec(shape mmaShape, a, b, c, d mmaType, arow, brow bool) *mmaSpec {
	s := &mmaSpec{shape: shape, batch: 1, a: a, b: b, c: c, d: d, rnd: rnRN}
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
	s := &mmaSpec{shape: shape, batch: 1, a: a, b: a, c: c, d: d, rnd: rnRN}
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
	m := tcSum{block: k, frac: 25, rnd: rnRZ, prec: 24, emin: -126}
	if c == mtF16 && d == mtF16 {
		// HMMA.F16: f16 accumulation, rounded to nearest.
		m.rnd, m.prec, m.emin = rnRN, 11, -14
	}
	switch {
	case quad:
		m.fma = true
	case a == mtE4M3 || a == mtE5M2:
		m.pairs, m.block = true, k/2
	}
	return m
}
