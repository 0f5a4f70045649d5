// fp8 (e4m3/e5m2) wgmma: how the H100 sums the products, fitted bit for
// bit to its recordings in testdata/wgmma (79 forms: f16 and f32
// accumulators, all type pairs, A from registers or shared memory,
// negated operands, chained wgmmas, designed and random cases).
//
// Unlike fp8 mma.sync, which sm_90 runs as two f16 HMMAs (mma.go), fp8
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
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
	"math"
)

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
