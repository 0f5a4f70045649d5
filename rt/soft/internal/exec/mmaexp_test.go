package exec

// Designed mma inputs: dot products whose results show how the tensor cores
// align, truncate, round and order the sum of the products and the
// accumulator, and how they treat NaNs, infinities, subnormals and signed
// zeros. Each experiment is one dot product; a case packs eight of them on
// the diagonal of D (rows 8-15 hold the same ones negated).

import (
	"math"
	"math/rand"
)

// dexp is one designed dot product sum_k a[k]*b[k] + c, as element bits.
type dexp struct {
	a, b []uint64
	c    uint64
}

type expSet struct {
	f   mmaForm
	k   int
	out []dexp
}

// split writes the exact product p as a*b with both in their types.
func (s *expSet) split(p float64) (a, b uint64, ok bool) {
	if p == 0 {
		if math.Signbit(p) {
			a, ok = encodeExact(s.f.a, math.Copysign(0, -1))
			b, _ = encodeExact(s.f.b, 1)
			return a, b, ok
		}
		return 0, 0, true
	}
	for d := 0; d <= 160; d++ {
		for _, e := range []int{d, -d} {
			bv := math.Ldexp(1, e)
			if bb, ok1 := encodeExact(s.f.b, bv); ok1 {
				if ab, ok2 := encodeExact(s.f.a, p/bv); ok2 && p/bv*bv == p {
					return ab, bb, true
				}
			}
		}
	}
	return 0, 0, false
}

// prods adds the experiment with products p (by position k) and accumulator c.
func (s *expSet) prods(p map[int]float64, c float64) {
	e := dexp{a: make([]uint64, s.k), b: make([]uint64, s.k)}
	for k, v := range p {
		if k < 0 || k >= s.k {
			return
		}
		a, b, ok := s.split(v)
		if !ok {
			return
		}
		e.a[k], e.b[k] = a, b
	}
	cb, ok := encodeExact(s.f.c, c)
	if !ok {
		return
	}
	e.c = cb
	s.out = append(s.out, e)
}

// raw adds an experiment given as element bits.
func (s *expSet) raw(a, b map[int]uint64, c uint64) {
	e := dexp{a: make([]uint64, s.k), b: make([]uint64, s.k), c: c}
	for k, v := range a {
		if k >= s.k {
			return
		}
		e.a[k] = v
	}
	for k, v := range b {
		if k >= s.k {
			return
		}
		e.b[k] = v
	}
	s.out = append(s.out, e)
}

func (s *expSet) bits(t mmaType, x float64) uint64 {
	b, _ := encodeExact(t, x)
	return b
}

// accPrec is the accumulator's precision in bits (24 for f32, 11 for f16).
func accPrec(t mmaType) int {
	if t == mtF16 {
		return 11
	}
	return 24
}

// floatExps designs the experiments for floating-point multiplicands with
// f32 or f16 accumulators.
func floatExps(f mmaForm) []dexp {
	s := &expSet{f: f, k: f.shape.k}
	K := s.k
	p := accPrec(f.c)
	pw := func(e int) float64 { return math.Ldexp(1, e) }
	// Alignment: how far below the largest term a term still counts.
	for j := 0; j <= p+24; j++ {
		for _, sg := range []float64{1, -1} {
			s.prods(map[int]float64{0: 1, K - 1: sg * pw(-j)}, 0)
			s.prods(map[int]float64{K - 1: 1, 0: sg * pw(-j)}, 0)
			s.prods(map[int]float64{0: sg * pw(-j)}, 1)
			s.prods(map[int]float64{K - 1: sg * pw(-j)}, 1)
			s.prods(map[int]float64{0: 1}, sg*pw(-j))
		}
	}
	// Rounding of the result: multiples of a quarter ulp around 1.
	for _, c := range []float64{1, 1 + pw(1-p), -1, -1 - pw(1-p), 0} {
		for _, r := range []float64{0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3} {
			for _, sg := range []float64{1, -1} {
				x := sg * r * pw(-p)
				if c == 0 {
					s.prods(map[int]float64{0: 1, K - 1: x}, 0)
					s.prods(map[int]float64{0: -1, K - 1: x}, 0)
				} else {
					s.prods(map[int]float64{0: x}, c)
					s.prods(map[int]float64{K - 1: x}, c)
				}
			}
		}
	}
	// Blocks: +big and -big cancel; a tiny term elsewhere survives only
	// when it is summed apart from them.
	big, tiny := 1.0, pw(-p-8)
	if _, _, ok := s.split(tiny); !ok {
		big, tiny = pw(16), pw(-16)
	}
	for _, i := range []int{0, K / 2, K - 2} {
		for l := 0; l < K; l++ {
			if l != i && l != i+1 {
				s.prods(map[int]float64{i: big, i + 1: -big, l: tiny}, 0)
				s.prods(map[int]float64{i: -big, l: tiny}, big)
			}
		}
		s.prods(map[int]float64{i: big, i + 1: -big}, tiny)
	}
	for l := 1; l < K; l++ {
		s.prods(map[int]float64{0: big, l: -big, (l + K/2) % K: tiny}, 0)
	}
	// Many small terms against a large accumulator or product.
	for j := p - 4; j <= p+10; j++ {
		all, neg, with1 := map[int]float64{}, map[int]float64{}, map[int]float64{0: 1}
		for k := 0; k < K; k++ {
			all[k], neg[k] = pw(-j), -pw(-j)
			if k > 0 {
				with1[k] = pw(-j)
			}
		}
		s.prods(all, 1)
		s.prods(neg, 1)
		s.prods(with1, 0)
	}
	// Carries out of the top: the result's exponent exceeds every term's.
	for j := p - 4; j <= p+6; j++ {
		s.prods(map[int]float64{0: 1, 1: 1, 2: 1, 3: 1, K - 1: pw(-j)}, 0)
		s.prods(map[int]float64{0: 1 - pw(1-p)}, 1-pw(1-p))
		s.prods(map[int]float64{0: 1.5, 1: 1.5, K - 1: pw(-j)}, 1)
	}
	specialExps(s)
	if f.a == mtTF32 {
		// Which bits of a tf32 operand count (the f32 register's low 13
		// bits are not part of the format).
		one := uint64(math.Float32bits(1))
		for _, low := range []uint64{0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x2fff, 0x3000, 0x3001, 0x7fffff} {
			s.raw(map[int]uint64{0: one | low}, map[int]uint64{0: one}, 0)
			s.raw(map[int]uint64{0: one}, map[int]uint64{0: one | low}, 0)
			s.raw(map[int]uint64{0: one | 1<<31 | low}, map[int]uint64{0: one}, 0)
		}
	}
	// Random sparse sums from an alphabet near the rounding boundaries.
	rnd := formRand("exp:" + f.name())
	for n := 0; n < 300; n++ {
		m := map[int]float64{}
		for t := 1 + rnd.Intn(min(K, 6)); t > 0; t-- {
			m[rnd.Intn(K)] = alphabet(rnd, p)
		}
		c := 0.0
		if rnd.Intn(4) != 0 {
			c = alphabet(rnd, p)
		}
		s.prods(m, c)
	}
	return s.out
}

func alphabet(rnd *rand.Rand, p int) float64 {
	ms := []float64{1, 1.5, 1.25, 1.75, 1.125, 1.875}
	x := math.Ldexp(ms[rnd.Intn(len(ms))], rnd.Intn(p+8)-p-2)
	if rnd.Intn(2) == 0 {
		x = -x
	}
	return x
}

// specialExps adds NaNs, infinities, overflow, subnormals and signed zeros.
func specialExps(s *expSet) {
	f := s.f
	one := s.bits(f.b, 1)
	aOne := s.bits(f.a, 1)
	nanA := map[mmaType][]uint64{mtF16: {0x7e00, 0x7d55, 0x7c01, 0xfe00}, mtBF16: {0x7fc0, 0x7f81, 0xffc0},
		mtTF32: {0x7fc00000, 0x7f802000, 0x7fa00000, 0xffc00000}, mtE4M3: {0x7f, 0xff}, mtE5M2: {0x7e, 0x7d, 0xfe},
		mtF64: {0x7ff8000000000000, 0x7ff0000000000001, 0x7ff8dead00000000}}[f.a]
	for _, n := range nanA {
		s.raw(map[int]uint64{0: n}, map[int]uint64{0: one}, 0)
		s.raw(map[int]uint64{1: n}, map[int]uint64{1: one}, s.bits(f.c, 1))
	}
	nanC := map[mmaType][]uint64{mtF32: {0x7fc00000, 0x7f800001, 0xffc12345, 0x7fbfffff},
		mtF16: {0x7e00, 0x7c01, 0xfe55}, mtF64: {0x7ff8000000000000, 0x7ff0000000000001, 0xfff8000012345678}}[f.c]
	for _, n := range nanC {
		s.raw(map[int]uint64{0: aOne}, map[int]uint64{0: one}, n)
		s.raw(nil, nil, n)
	}
	inf := math.Inf(1)
	if b, ok := encodeExact(f.a, inf); ok {
		ninf, _ := encodeExact(f.a, -inf)
		zero := uint64(0)
		s.raw(map[int]uint64{0: b}, map[int]uint64{0: one}, 0)
		s.raw(map[int]uint64{0: b}, map[int]uint64{0: zero}, 0)
		s.raw(map[int]uint64{0: b, 1: ninf}, map[int]uint64{0: one, 1: one}, 0)
		s.raw(map[int]uint64{0: ninf}, map[int]uint64{0: one}, s.bits(f.c, 1))
	}
	if cinf, ok := encodeExact(f.c, inf); ok {
		cninf, _ := encodeExact(f.c, -inf)
		s.raw(map[int]uint64{0: aOne}, map[int]uint64{0: one}, cinf)
		s.raw(nil, nil, cninf)
		if b, ok := encodeExact(f.a, -inf); ok {
			s.raw(map[int]uint64{0: b}, map[int]uint64{0: one}, cinf)
		}
	}
	// Overflow of the accumulator format.
	maxC := map[mmaType]float64{mtF32: math.MaxFloat32, mtF16: 65504, mtF64: math.MaxFloat64}[f.c]
	for _, sg := range []float64{1, -1} {
		for _, x := range []float64{maxC / 2, maxC / 4, maxC / 64, 1} {
			s.prods(map[int]float64{0: sg * x, 1: sg * x}, sg*maxC)
			s.prods(map[int]float64{0: sg * x}, sg*maxC)
		}
	}
	for e := 100; e <= 127; e += 9 {
		s.prods(map[int]float64{0: math.Ldexp(1, 2*e)}, 0)
		s.prods(map[int]float64{0: math.Ldexp(1, 2*e), 1: -math.Ldexp(1, 2*e)}, 1)
	}
	// Subnormals.
	cSub := map[mmaType][]uint64{mtF32: {1, 0x7fffff, 0x80000001, 0x400000}, mtF16: {1, 0x3ff, 0x8001},
		mtF64: {1, 0xfffffffffffff, 0x8000000000000001}}[f.c]
	for _, c := range cSub {
		s.raw(nil, nil, c)
		s.raw(map[int]uint64{0: aOne}, map[int]uint64{0: one}, c)
		s.raw(map[int]uint64{0: 1}, map[int]uint64{0: one}, c)
	}
	for _, a := range []uint64{1, 2, 0x3, 0x200, 0x2000, 0x8001} {
		s.raw(map[int]uint64{0: a}, map[int]uint64{0: one}, 0)
		s.raw(map[int]uint64{0: a}, map[int]uint64{0: one}, s.bits(f.c, 1))
	}
	for _, e := range []int{-60, -63, -70, -74, -75, -76, -80, -100, -140, -200, -520, -537, -540} {
		x := math.Ldexp(1, e)
		s.prods(map[int]float64{0: x * x}, 0)
		s.prods(map[int]float64{0: 1.5 * x * x}, 0)
		s.prods(map[int]float64{0: x * x, 1: x * x}, 0)
		s.prods(map[int]float64{0: -x * x}, 0)
	}
	for _, e := range []int{-126, -127, -130, -149, -1022, -1074, -14, -15, -24} {
		x := math.Ldexp(1, e)
		s.prods(map[int]float64{0: 1.5 * x}, -x)
		s.prods(map[int]float64{0: x}, -1.5*x)
	}
	// Signed zeros.
	nz := math.Copysign(0, -1)
	for _, c := range []float64{0, nz} {
		s.prods(map[int]float64{}, c)
		s.prods(map[int]float64{0: nz}, c)
		s.prods(map[int]float64{0: nz, 1: nz}, c)
		s.prods(map[int]float64{0: 1, 1: -1}, c)
		s.prods(map[int]float64{0: -1}, 1)
		s.prods(map[int]float64{0: 1}, -1)
	}
}

// f64Exps designs the experiments for double precision: the order of the
// chain of fused multiply-adds shows in where the half-ulp terms land.
func f64Exps(f mmaForm) []dexp {
	s := &expSet{f: f, k: f.shape.k}
	K := s.k
	u := math.Ldexp(1, -53)
	var pos []int
	for _, k := range []int{0, 1, 2, 3, 4, 7, 8, 11, 12, 15} {
		if k < K {
			pos = append(pos, k)
		}
	}
	for _, i := range pos {
		for _, j := range pos {
			if i == j {
				continue
			}
			s.prods(map[int]float64{i: u, j: u}, 1)
			s.prods(map[int]float64{i: 1, j: u}, u)
			for l := 0; l < K; l += max(1, K/4) {
				if l != i && l != j {
					s.prods(map[int]float64{i: 1, j: u, l: u}, 0)
				}
			}
		}
	}
	specialExps(s)
	rnd := formRand("exp:" + f.name())
	alpha := []float64{1, -1, u, -u, u / 2, 3 * u / 2, 1 + 2*u, -(1 + 2*u), math.Ldexp(1, 53), u * u, 0.75, 1.5}
	for n := 0; n < 300; n++ {
		m := map[int]float64{}
		for t := 1 + rnd.Intn(min(K, 5)); t > 0; t-- {
			m[rnd.Intn(K)] = alpha[rnd.Intn(len(alpha))]
		}
		s.prods(m, alpha[rnd.Intn(len(alpha))])
	}
	return s.out
}

// intExps puts the accumulator near the int32 limits.
func intExps(f mmaForm) []dexp {
	s := &expSet{f: f, k: f.shape.k}
	lo, hi := int64(0), int64(0)
	switch f.a {
	case mtS8:
		lo, hi = -128, 127
	case mtU8:
		hi = 255
	case mtS4:
		lo, hi = -8, 7
	case mtU4:
		hi = 15
	}
	blo, bhi := lo, hi
	switch f.b {
	case mtS8:
		blo, bhi = -128, 127
	case mtU8:
		blo, bhi = 0, 255
	case mtS4:
		blo, bhi = -8, 7
	case mtU4:
		blo, bhi = 0, 15
	}
	mk := func(av, bv int64, c int64) {
		e := dexp{a: make([]uint64, s.k), b: make([]uint64, s.k), c: uint64(uint32(int32(c)))}
		for k := range e.a {
			e.a[k] = uint64(av) & (1<<uint(f.a.bits()) - 1)
			e.b[k] = uint64(bv) & (1<<uint(f.b.bits()) - 1)
		}
		s.out = append(s.out, e)
	}
	for _, c := range []int64{math.MaxInt32, math.MaxInt32 - 100, math.MinInt32, math.MinInt32 + 100, 0, -1} {
		mk(hi, bhi, c)
		mk(lo, bhi, c)
		mk(lo, blo, c)
		mk(hi, blo, c)
	}
	return s.out
}

// designedCases packs a form's designed experiments into cases.
func designedCases(f mmaForm) [][]byte {
	var exps []dexp
	switch {
	case f.a == mtF64:
		exps = f64Exps(f)
	case f.a == mtS8 || f.a == mtU8 || f.a == mtS4 || f.a == mtU4:
		exps = intExps(f)
	case f.a.isFloat() && designedFloat(f):
		exps = floatExps(f)
	}
	var cases [][]byte
	per := 8 * f.batch()
	for i := 0; i < len(exps); i += per {
		m := newMats(f)
		for j := 0; j < per && i+j < len(exps); j++ {
			e := exps[i+j]
			q, d := j/8, j%8
			_, ac := f.shape.dims(opA)
			_, bc := f.shape.dims(opB)
			_, cc := f.shape.dims(opC)
			for k := range e.a {
				m.a[q][d*ac+k] = e.a[k]
				m.b[q][k*bc+d] = e.b[k]
			}
			m.c[q][d*cc+d] = e.c
			if f.shape.m == 16 {
				// The same experiment negated (floats) or again (integers).
				neg := func(t mmaType, v uint64) uint64 {
					if t.isFloat() {
						return v ^ 1<<uint(t.bits()-1)
					}
					return v
				}
				for k := range e.a {
					m.a[q][(d+8)*ac+k] = neg(f.a, e.a[k])
				}
				m.c[q][(d+8)*cc+d] = neg(f.c, e.c)
			}
		}
		cases = append(cases, m.pack(f))
	}
	return cases
}

// designedFloat says which float forms get the designed experiments (the
// rest share their hardware path and get random inputs).
func designedFloat(f mmaForm) bool {
	switch {
	case f.a == mtE4M3 || f.a == mtE5M2:
		return f.a == f.b && (f.shapeName == "m16n8k32")
	case f.shapeName == "m8n8k4":
		return f.arow && !f.brow
	}
	return true
}
