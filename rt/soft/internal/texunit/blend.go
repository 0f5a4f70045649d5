// The filter's arithmetic: the H100's 8-bit weights (3-D included), its
// block-floating-point blend of float and half texels, the fixed point of
// normalized 8- and 16-bit texels, the sRGB decode table and the border
// colours' sRGB encode, and the conversions of formatted surface stores.

package texunit

import (
	"math"
	"math/bits"
)

// texSRGB is the H100's sRGB decode of an 8-bit channel value, as the top
// 16 bits of the float it returns (every entry has 8 significant bits).
// Measured on the H100 (rt/soft/testdata/tex/tex2-a.bin.zst, rec tex2 srgb: a point
// sample of every value in every channel): the table follows the sRGB curve
// ((c+0.055)/1.055)^2.4, c/12.92 below 0.04045, but is not that formula
// rounded to 8 bits (entries 1-12 are v*5/16384, up to 1.4 of their ulps
// above c/12.92, and the rest differ by up to one ulp either way), so it is
// kept as recorded.
var texSRGB = [256]uint16{
	0x0000, 0x39a0, 0x3a20, 0x3a70, 0x3aa0, 0x3ac8, 0x3af0, 0x3b0c, 0x3b20, 0x3b34, 0x3b48, 0x3b5c,
	0x3b70, 0x3b84, 0x3b90, 0x3b9c, 0x3baa, 0x3bb8, 0x3bc6, 0x3bd6, 0x3be6, 0x3bf6, 0x3c03, 0x3c0c,
	0x3c16, 0x3c1f, 0x3c29, 0x3c34, 0x3c3e, 0x3c49, 0x3c55, 0x3c60, 0x3c6c, 0x3c7a, 0x3c83, 0x3c8a,
	0x3c91, 0x3c98, 0x3c9f, 0x3ca6, 0x3cae, 0x3cb6, 0x3cbe, 0x3cc6, 0x3cce, 0x3cd7, 0x3ce0, 0x3ce9,
	0x3cf2, 0x3cfc, 0x3d03, 0x3d08, 0x3d0d, 0x3d12, 0x3d17, 0x3d1c, 0x3d22, 0x3d28, 0x3d2d, 0x3d33,
	0x3d39, 0x3d3f, 0x3d45, 0x3d4c, 0x3d52, 0x3d58, 0x3d60, 0x3d66, 0x3d6c, 0x3d74, 0x3d7a, 0x3d81,
	0x3d85, 0x3d88, 0x3d8c, 0x3d90, 0x3d94, 0x3d98, 0x3d9c, 0x3da0, 0x3da4, 0x3da9, 0x3dad, 0x3db1,
	0x3db6, 0x3dba, 0x3dbf, 0x3dc3, 0x3dc8, 0x3dcd, 0x3dd1, 0x3dd6, 0x3ddb, 0x3de0, 0x3de5, 0x3dea,
	0x3df0, 0x3df4, 0x3dfa, 0x3e00, 0x3e02, 0x3e05, 0x3e08, 0x3e0b, 0x3e0e, 0x3e11, 0x3e14, 0x3e17,
	0x3e1a, 0x3e1d, 0x3e20, 0x3e23, 0x3e26, 0x3e29, 0x3e2c, 0x3e30, 0x3e33, 0x3e36, 0x3e3a, 0x3e3d,
	0x3e40, 0x3e44, 0x3e47, 0x3e4b, 0x3e4e, 0x3e52, 0x3e56, 0x3e59, 0x3e5d, 0x3e61, 0x3e65, 0x3e68,
	0x3e6c, 0x3e70, 0x3e74, 0x3e78, 0x3e7c, 0x3e80, 0x3e82, 0x3e84, 0x3e86, 0x3e88, 0x3e8a, 0x3e8d,
	0x3e8f, 0x3e91, 0x3e93, 0x3e95, 0x3e98, 0x3e9a, 0x3e9c, 0x3e9e, 0x3ea1, 0x3ea3, 0x3ea5, 0x3ea8,
	0x3eaa, 0x3ead, 0x3eaf, 0x3eb2, 0x3eb4, 0x3eb6, 0x3eb9, 0x3ebc, 0x3ebe, 0x3ec1, 0x3ec3, 0x3ec6,
	0x3ec8, 0x3ecb, 0x3ece, 0x3ed1, 0x3ed3, 0x3ed6, 0x3ed9, 0x3edb, 0x3ede, 0x3ee1, 0x3ee4, 0x3ee7,
	0x3eea, 0x3eed, 0x3ef0, 0x3ef2, 0x3ef6, 0x3ef8, 0x3efc, 0x3efe, 0x3f01, 0x3f02, 0x3f04, 0x3f05,
	0x3f07, 0x3f09, 0x3f0a, 0x3f0c, 0x3f0d, 0x3f0f, 0x3f11, 0x3f12, 0x3f14, 0x3f16, 0x3f17, 0x3f19,
	0x3f1b, 0x3f1c, 0x3f1e, 0x3f20, 0x3f21, 0x3f23, 0x3f25, 0x3f27, 0x3f29, 0x3f2a, 0x3f2c, 0x3f2e,
	0x3f30, 0x3f32, 0x3f33, 0x3f35, 0x3f37, 0x3f39, 0x3f3b, 0x3f3d, 0x3f3f, 0x3f41, 0x3f43, 0x3f45,
	0x3f47, 0x3f49, 0x3f4b, 0x3f4d, 0x3f4f, 0x3f51, 0x3f53, 0x3f55, 0x3f57, 0x3f59, 0x3f5b, 0x3f5d,
	0x3f5f, 0x3f61, 0x3f63, 0x3f65, 0x3f68, 0x3f6a, 0x3f6c, 0x3f6e, 0x3f70, 0x3f72, 0x3f74, 0x3f76,
	0x3f7a, 0x3f7c, 0x3f7e, 0x3f80,
}

// texSRGBEncode is the 8-bit sRGB code of a linear border colour (float
// bits), as the driver writes it into the sampler header: NaN and negatives
// 0, 1 and above 255, else the sRGB curve evaluated in float with the
// exponent written as 0.41666 (not 1/2.4) and rounded to nearest even:
// rint(255·(1.055·c^0.41666 - 0.055)), or rint(255·(12.92·c)) up to
// 0.0031308, each product and the difference rounded to float. The sampler
// reads a decoded channel's border colour as a texel of that code (texSRGB:
// 0.1 reads 0x3dcd0000 from code 89, 1/3 0x3eaa0000 from 156). Fitted on
// tex2-srg3 (3,837 colours, most within a float ulp of a tie, where the
// textbook curve in double misses 377 and 1/2.4 in float 551).
func texSRGBEncode(w uint32) uint8 {
	c := math.Float32frombits(w)
	var v float32
	switch {
	case !(c > 0):
		return 0
	case c >= 1:
		return 255
	case c <= 0.0031308:
		v = float32(float32(c*12.92) * 255)
	default:
		// float32(math.Pow) is powf correctly rounded
		p := float32(math.Pow(float64(c), float64(float32(0.41666))))
		v = float32(float32(float32(1.055*p)-0.055) * 255)
	}
	return uint8(math.RoundToEven(float64(v)))
}

// texS8Snorm16 is the H100's widening of a weighted s8 sum (in 1/256 of
// an s8 step) to its 16-bit snorm S: round(sum*32767/(127*256)) as the
// series sum*(1 + 2^-7 + 2^-15) with the 2^-15 term cut to 3 fractional
// bits toward -inf (sum>>12 / 8), the total rounded half up. Shifts are
// arithmetic, so negative sums round as two's complement, not by
// magnitude.
func texS8Snorm16(sum int64) int64 {
	return (sum*129 + 16*(sum>>12) + 64) >> 7
}

// texBlend is the weighted sum of float texels t with weights w (in 1/256
// of the total). NaN and Inf texels count when live (live bit k: texel k
// is not the far texel of an axis whose fraction is 0, so a 2-D weight of
// 0 from rounding a*b does not hide them; f32 as f16) or when their weight
// is not 0. Finite texels of weight 0 are skipped; the others are aligned,
// in groups of 4 (the 2-D footprint, or each z plane of the 3-D one), to
// the group's largest exponent E and cut toward zero to multiples of
// 2^(E-27) (f16 texels: 2^(E-14)); the sum of products is exact and
// rounded once to float (f16: to half precision), ties away from zero; a
// zero sum is -0 when all the texels it adds are negative zeros.
func texBlend(t []uint32, w []int64, live uint32, half bool) uint32 {
	var inf uint32
	nan := false
	for k := range t {
		e := int(t[k] >> 23 & 0xff)
		if e == 0xff && (w[k] != 0 || live>>k&1 != 0) {
			if t[k]&0x7fffff != 0 {
				nan = true
			} else if inf != 0 && inf != t[k] {
				nan = true
			} else {
				inf = t[k]
			}
		}
	}
	if nan {
		if half {
			return 0x7fffe000 // the canonical half NaN
		}
		return 0x7fffffff
	}
	if inf != 0 {
		return inf
	}
	guard := 27
	if half {
		guard = 14
	}
	sum, emax, ok := texAlignedSum(t[:min(4, len(t))], w[:min(4, len(t))], guard)
	if len(t) > 4 {
		// 3-D: the other z plane's sum, aligned on its own
		s1, e1, ok1 := texAlignedSum(t[4:], w[4:], guard)
		switch {
		case !ok:
			sum, emax, ok = s1, e1, ok1
		case ok1:
			sum, emax = PlanesAdd(sum, emax, s1, e1)
		}
	}
	if !ok {
		return 0
	}
	if sum == 0 && texAllNegZero(t, w) {
		return 0x80000000
	}
	// value = sum * 2^(emax-127-guard) / 256
	if half {
		return texHalfRoundAway(sum, emax-127-guard-8)
	}
	return texRoundAway(sum, emax-127-guard-8)
}

// PlanesAdd adds the sums of a 3-D filter's two z planes: a counted in
// units of 2^(ea-c), b in units of 2^(eb-c), where ea and eb are the planes'
// biased exponents E (texAlignedSum's emax) and c a constant (127+guard+8).
// The finer plane's sum (smaller E) is cut toward -inf (two's complement)
// to multiples of 2^(4*floor(E/4) - c), E the coarser plane's exponent: to
// the coarser plane's unit when E is a multiple of 4, else to 2^-(E mod 4)
// of it, as the H100's f32, f16 and sRGB filters do (NOTES.md: "3-D
// blend"). The result is exact in units of 2^(e-c); it returns the result
// and e.
func PlanesAdd(a int64, ea int, b int64, eb int) (int64, int) {
	if ea > eb {
		a, ea, b, eb = b, eb, a, ea
	}
	k := eb & 3 // bits kept below the coarser plane's unit
	d := eb - ea
	if d <= k {
		return b<<uint(d) + a, ea
	}
	return b<<uint(k) + a>>uint(min(d-k, 63)), eb - k
}

// texAlignedSum is the weighted sum of texels t (weights w) aligned to the
// largest exponent E of those of weight not 0, cut toward zero to multiples
// of 2^(E-127-guard) and counted in those units; ok is false when every
// weight is 0.
func texAlignedSum(t []uint32, w []int64, guard int) (sum int64, emax int, ok bool) {
	emax = -1 << 30
	for k := range t {
		if w[k] != 0 {
			emax = max(emax, max(int(t[k]>>23&0xff), 1))
		}
	}
	if emax < 0 {
		return 0, 0, false
	}
	// texel k is m * 2^(e-150) with m the 24-bit significand; in units of
	// 2^(emax-127-guard) it is m >> (emax-e + 23-guard) (or << if negative).
	for k := range t {
		if w[k] == 0 {
			continue
		}
		e := int(t[k] >> 23 & 0xff)
		m := int64(t[k] & 0x7fffff)
		if e == 0 {
			e, m = 1, 0 // subnormal texels are read as zero
		} else {
			m |= 1 << 23
		}
		sh := emax - e + 23 - guard
		if sh >= 0 {
			if sh >= 63 {
				m = 0
			} else {
				m >>= uint(sh)
			}
		} else {
			m <<= uint(-sh)
		}
		if t[k]>>31 != 0 {
			m = -m
		}
		sum += m * w[k]
	}
	return sum, emax, true
}

// texAllNegZero says whether every texel of nonzero weight is a negative
// zero or (read as one) a negative subnormal: then a zero sum is -0, as in
// IEEE arithmetic; otherwise it is +0.
func texAllNegZero(t []uint32, w []int64) bool {
	for k := range t {
		if w[k] != 0 && (t[k]>>31 == 0 || t[k]&0x7f800000 != 0) {
			return false
		}
	}
	return true
}

// texHalfRoundAway rounds v*2^e to half precision, ties away from zero
// (half subnormals kept, overflow to Inf), and returns it widened to float
// bits.
func texHalfRoundAway(v int64, e int) uint32 {
	if v == 0 {
		return 0
	}
	var sgn uint32
	if v < 0 {
		sgn, v = 1<<31, -v
	}
	u := uint64(v)
	n := 64 - bits.LeadingZeros64(u)
	// keep the bits down to 2^q: 11 significant bits, or 2^-24 (the half
	// subnormals' step) at the least
	q := max(n-1+e-10, -24)
	if drop := q - e; drop > 0 {
		if drop >= 64 {
			return sgn
		}
		r := u >> uint(drop)
		if u>>uint(drop-1)&1 != 0 {
			r++
		}
		u, e = r, q
	}
	f := math.Ldexp(float64(u), e) // exact: at most 12 bits
	if f >= 65536 {
		return sgn | 0x7f800000
	}
	return sgn | math.Float32bits(float32(f))
}

// texRoundAway rounds v*2^e to float32 bits, ties away from zero.
func texRoundAway(v int64, e int) uint32 {
	if v == 0 {
		return 0
	}
	var sgn uint32
	if v < 0 {
		sgn, v = 1<<31, -v
	}
	u := uint64(v)
	n := 64 - bits.LeadingZeros64(u) // value in [2^(n-1+e), 2^(n+e))
	exp := n - 1 + e                 // unbiased exponent of the leading bit
	keep := 24
	if exp < -126 {
		keep = 24 - (-126 - exp)
	}
	if keep < 24 {
		return sgn // subnormal results are flushed to zero
	}
	if drop := n - keep; drop > 0 {
		half := uint64(1) << uint(drop-1)
		r := u >> uint(drop)
		if u&(half<<1-1) >= half {
			r++
		}
		u = r
		e += drop
		if u == 1<<uint(keep) {
			u >>= 1
			e++
		}
	} else {
		u <<= uint(-drop)
		e -= -drop
	}
	// u has keep bits, value u*2^e
	if keep < 24 {
		if u>>23 != 0 { // rounded up into the normals
			return sgn | 1<<23
		}
		return sgn | uint32(u)
	}
	be := e + 23 + 127
	if be >= 255 {
		return sgn | 0x7f800000
	}
	return sgn | uint32(be)<<23 | uint32(u)&0x7fffff
}

// texHalf widens a half to float bits, NaN payloads kept as they are (the
// texture unit does not quiet them).
func texHalf(h uint32) uint32 {
	s := (h >> 15) << 31
	e := h >> 10 & 31
	m := h & 0x3ff
	switch {
	case e == 31:
		return s | 0x7f800000 | m<<13
	case e == 0 && m == 0:
		return s
	case e == 0:
		f := float32(m) / (1 << 24)
		return s | math.Float32bits(f)
	}
	return s | (e+112)<<23 | m<<13
}

// tex3DWeights gives the weights (in 1/256) of the 8 texels of a 3-D linear
// filter, index bit 0 x, bit 1 y, bit 2 z, for 8-bit fractions a, b, c.
// The H100 splits the whole weight 256 along z (256-c, c), each z plane's
// share P along x (the x+1 column gets P*a/256 rounded half up), and each
// column's share C along y (the y+1 texel gets C*b/256, rounded half up in
// the x+1 column and half down in the x column). With c = 0 this is the
// 2-D rule.
func tex3DWeights(a, b, c int64) [8]int64 {
	var w [8]int64
	for z, p := range [2]int64{256 - c, c} {
		x1 := (p*a + 128) >> 8
		x0 := p - x1
		y11 := (x1*b + 128) >> 8 // ties up
		y01 := (x0*b + 127) >> 8 // ties down
		k := 4 * z
		w[k], w[k+1], w[k+2], w[k+3] = x0-y01, x1-y11, y01, y11
	}
	return w
}

// texBlendInt is the blend of integer texels t read as integers (signed
// ones sign-extended, as convert gives them) with weights w in 1/256 of
// the total, as tld4 on a seamless cube returns it for the missing corner
// texel. The sum of products is exact; the H100 (tex2-sea4: u32, s32,
// u16, u8x4; tex2-sea5: s16x1, s16x2, s8x4, s8x1) cuts it toward -inf for
// 32-bit texels (an arithmetic shift of the sum by 8: cutting s32 sums
// toward zero instead misses 8,189 of the recorded samples, rounding to
// nearest 1,215 u32 and 7,195 s32 ones), and rounds it to nearest for 8-
// and 16-bit texels, signed or not (fractions of 127/256 and below go
// down, 129/256 and above up; cutting misses 15,118 unsigned and 19,455
// signed samples). A tie (sum ≡ 128 mod 256) rounds up, toward +inf,
// negative sums too (tex2-sea6: 16,201 ties among 98,304 corner gathers
// of random u8, s8, u16 and s16 cubes, 2,855 of them negative; rounding
// ties down misses all 16,201, to even 8,046, away from zero the 2,855
// negative ones), as the 16-bit fixed point of the normalized blend
// (filterNorm) rounds.
func texBlendInt(t []uint32, w []int64, signed bool, bits int) uint32 {
	var sum int64
	for k := range t {
		x := int64(t[k])
		if signed {
			x = int64(int32(t[k]))
		}
		sum += w[k] * x
	}
	if bits < 32 {
		sum += 128
	}
	return uint32(sum >> 8)
}

// surfHalfRZ converts f32 bits to half bits rounding toward zero, as the
// H100's formatted stores do: finite values too large for a half become
// ±65504 (0x7bff), not Inf; half subnormals are kept; ±Inf stay Inf; a NaN
// keeps its sign and the top 10 bits of its payload (0xffff8000 →
// 0xfffc); a NaN whose payload lies in the low 13 bits only becomes
// 0x7c01 with its sign (surf3.bin.zst, recorded on the H100).
func surfHalfRZ(w uint32) uint32 {
	s := w >> 16 & 0x8000
	e, m := int(w>>23&0xff), w&0x7fffff
	switch {
	case e == 0xff && m == 0:
		return s | 0x7c00
	case e == 0xff:
		if m>>13 == 0 {
			return s | 0x7c01
		}
		return s | 0x7c00 | m>>13
	case e >= 127+16:
		return s | 0x7bff
	case e >= 127-14:
		return s | uint32(e-127+15)<<10 | m>>13
	case e <= 126-32:
		return s
	}
	return s | (0x800000|m)>>(126-e)
}

// surfNorm converts f32 bits to an n-bit unorm (or snorm) channel as the
// H100's formatted stores do. With k the channel's magnitude bits (n for
// unorm, n-1 for snorm) and M = 2^k - 1: NaN gives 0; values are
// saturated to [0, 1] (unorm) or [-1, 1] (snorm, so -1 gives -M, never
// -M-1); a magnitude a in between is first cut toward zero to k+4
// fractional bits, Q = floor(a·2^(k+4)), then rounded to the nearest
// multiple, ties toward zero: u = (Q·M + 2^(k+3) - 1) >> (k+4); a negative
// value gives -u. So 0.5 stores 127 (unorm8) and 0.378571659 (Q = 1550,
// 96.4966 before rounding) 96, where round(0.378571659·255) is 97.
// (Negative ties were not recorded: -u assumes the hardware works on the
// magnitude.)
func surfNorm(w uint32, n int, signed bool) uint32 {
	k := n
	if signed {
		k--
	}
	mask := uint32(1)<<n - 1
	f := float64(math.Float32frombits(w))
	M := uint64(1)<<k - 1
	var u uint64
	a := math.Abs(f)
	switch {
	case f != f, a == 0, f < 0 && !signed:
		return 0
	case a >= 1:
		u = M
	default:
		q := uint64(a * float64(uint64(1)<<(k+4))) // exact: a is an f32 below 1
		u = (q*M + 1<<(k+3) - 1) >> (k + 4)
	}
	if f < 0 {
		return uint32(-int64(u)) & mask
	}
	return uint32(u) & mask
}
