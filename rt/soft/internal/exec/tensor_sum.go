// How the H100's tensor cores sum products (tcSum): by default in blocks of
// consecutive k, each block and the accumulator one multi-term addition
// whose terms are truncated to a grid below the largest and whose exact sum
// is rounded once (the package doc of rt/soft states the models per shape
// and type; testdata/mma has the evidence); the f64 chain of fused
// multiply-adds; and fp8 wgmma's reduced-width sum below.
//
// fp8 (e4m3/e5m2) wgmma: how the H100 sums the products, fitted bit for
// bit to its recordings in testdata/wgmma (79 forms: f16 and f32
// accumulators, all type pairs, A from registers or shared memory,
// negated operands, chained wgmmas, designed and random cases).
//
// Unlike fp8 mma.sync, which sm_90 runs as two f16 HMMAs (tcSum.pairs), fp8
// wgmma sums all K = 32 products and the accumulator C in one multi-term
// addition of reduced width:
//
//   - each product is exact and is aligned by the sum of its factors'
//     exponents, a subnormal factor counting with its own format's
//     smallest normal exponent (e4m3: -6, e5m2: -14);
//   - C is aligned by its own exponent (f32 subnormals: -126);
//   - with emax the largest of these exponents, every term is truncated
//     toward zero to the grid 2^(emax-13) and the truncated terms are
//     summed exactly;
//   - the sum is rounded toward zero to 14 significant bits for an f32 D
//     (an "e8m13" result: the low 10 bits of D's fraction are always
//     zero), or to nearest even f16 for an f16 D;
//   - NaNs and infinities are as for the other tensor-core sums.
//
// Each wgmma rounds its own result: chaining k-blocks through the
// accumulator (as fp8 GEMMs do) loses bits at every step, which is why
// libraries promote to f32 with separate adds every few wgmmas.

package exec

import (
	"math"
	"math/bits"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
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
	// fp8wg: fp8 wgmma's one reduced-width sum (dotFP8).
	fp8wg bool
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
	r := gpumath.Fma64(math.Float64frombits(a), math.Float64frombits(b), math.Float64frombits(c), rnd)
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
			a = gpumath.Fma32(float32(x), 1, a, gpumath.RN)
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
		case gpumath.RN:
			up = rem > half || rem == half && mag&1 == 1
		case gpumath.RM:
			up = neg && rem != 0
		case gpumath.RP:
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
		return gpumath.F16.Round(v, gpumath.RN)
	}
	return gpumath.R32(float32(v))
}

// fp8WGFrac is the number of fraction bits kept below the largest term.
const fp8WGFrac = 13

// fp8Emin is the exponent a subnormal fp8 factor counts with in fp8
// wgmma: its own format's smallest normal exponent.
func fp8Emin(t mmaType) int {
	if t == mtE4M3 {
		return -6
	}
	return -14
}

// fp8WGExp is the exponent fp8 wgmma aligns a product x·y by.
func fp8WGExp(tx mmaType, x float64, ty mmaType, y float64) int {
	if x == 0 || y == 0 || x != x || y != y || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.MinInt32
	}
	return max(math.Ilogb(x), fp8Emin(tx)) + max(math.Ilogb(y), fp8Emin(ty))
}

// dotFP8 is acc + sum(p) the fp8 wgmma way (finite operands), as bits of
// type out.
func dotFP8(acc float64, p []float64, pe []int, out mmaType) uint64 {
	emax := math.MinInt32
	if acc != 0 {
		emax = max(math.Ilogb(acc), -126)
	}
	for i, x := range p {
		if x != 0 {
			emax = max(emax, pe[i])
		}
	}
	if emax == math.MinInt32 {
		return outBits(0, out)
	}
	lsb := emax - fp8WGFrac
	sum := int64(math.Trunc(math.Ldexp(acc, -lsb)))
	for _, x := range p {
		sum += int64(math.Trunc(math.Ldexp(x, -lsb)))
	}
	if out == mtF16 {
		return outBits(roundScaled(sum, lsb, 11, -14, gpumath.RN), out)
	}
	return outBits(roundScaled(sum, lsb, fp8WGFrac+1, -126, gpumath.RZ), out)
}
