package rt

import (
	"encoding/binary"
	"math"
)

// Half is CUDA's __half (IEEE 754 binary16) as its bit pattern: 2 bytes,
// 2-aligned. Convert with HalfFrom and Float32.
type Half uint16

// BFloat16 is CUDA's __nv_bfloat16 (the upper half of a float32) as its bit
// pattern: 2 bytes, 2-aligned. Convert with BFloat16From and Float32.
type BFloat16 uint16

// Half2 is CUDA's __half2: two halves, 4 bytes, 4-aligned in CUDA.
type Half2 struct {
	_    [0]uint32 // CUDA's alignment
	X, Y Half
}

// BFloat162 is CUDA's __nv_bfloat162: two bfloat16s, 4 bytes, 4-aligned in CUDA.
type BFloat162 struct {
	_    [0]uint32 // CUDA's alignment
	X, Y BFloat16
}

// HalfFrom rounds f to the nearest half, ties to even (as __float2half does).
// Values beyond the largest half, 65504, round to ±Inf; a NaN stays a quiet
// NaN with f's sign and top payload bits.
func HalfFrom(f float32) Half {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return Half(sign | 0x7e00 | uint16(mant>>13))
		}
		return Half(sign | 0x7c00)
	}
	e := exp - 127 + 15 // the half's biased exponent
	if e >= 0x1f {
		return Half(sign | 0x7c00)
	}
	if e >= 1 {
		// Normal: drop 13 mantissa bits, rounding; a carry out of the mantissa
		// correctly bumps the exponent (up to Inf).
		r := uint32(e)<<10 | mant>>13
		return Half(sign | uint16(roundShifted(r, mant&0x1fff, 13)))
	}
	// Subnormal or zero: the value in units of 2^-24 is m >> s.
	if exp == 0 {
		return Half(sign) // float32 subnormals are far below half's range
	}
	m := mant | 0x800000
	s := uint(126 - exp)
	if s >= 32 {
		return Half(sign)
	}
	return Half(sign | uint16(roundShifted(m>>s, m&(1<<s-1), s)))
}

// roundShifted rounds r, which had its low s bits rem shifted off, to the
// nearest value, ties to even.
func roundShifted(r, rem uint32, s uint) uint32 {
	half := uint32(1) << (s - 1)
	if rem > half || (rem == half && r&1 == 1) {
		r++
	}
	return r
}

// Float32 is h's exact value.
func (h Half) Float32() float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		e := uint32(127 - 14)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// Put stores h in b[:2], little-endian.
func (h Half) Put(b []byte) { binary.LittleEndian.PutUint16(b, uint16(h)) }

// BFloat16From rounds f to the nearest bfloat16, ties to even (as
// __float2bfloat16 does); a NaN stays a quiet NaN.
func BFloat16From(f float32) BFloat16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return BFloat16(b>>16 | 0x40)
	}
	b += 0x7fff + (b>>16)&1
	return BFloat16(b >> 16)
}

// Float32 is b's exact value.
func (b BFloat16) Float32() float32 { return math.Float32frombits(uint32(b) << 16) }

// Put stores b in p[:2], little-endian.
func (b BFloat16) Put(p []byte) { binary.LittleEndian.PutUint16(p, uint16(b)) }

// Half2From rounds x and y to a Half2 (__floats2half2_rn).
func Half2From(x, y float32) Half2 { return Half2{X: HalfFrom(x), Y: HalfFrom(y)} }

// Put stores v in b[:4]: X, then Y, little-endian.
func (v Half2) Put(b []byte) {
	_ = b[3]
	binary.LittleEndian.PutUint16(b[0:], uint16(v.X))
	binary.LittleEndian.PutUint16(b[2:], uint16(v.Y))
}

// BFloat162From rounds x and y to a BFloat162 (__floats2bfloat162_rn).
func BFloat162From(x, y float32) BFloat162 { return BFloat162{X: BFloat16From(x), Y: BFloat16From(y)} }

// Put stores v in b[:4]: X, then Y, little-endian.
func (v BFloat162) Put(b []byte) {
	_ = b[3]
	binary.LittleEndian.PutUint16(b[0:], uint16(v.X))
	binary.LittleEndian.PutUint16(b[2:], uint16(v.Y))
}
