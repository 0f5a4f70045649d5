package gpumath

import (
	"math"
	"testing"
)

// TestF2IBounds: cvt's float-to-integer conversions saturate at 2^(bits-1)
// (signed) and 2^bits (unsigned), each limit built from its exponent bits
// as math.Ldexp gives it, for every width; NaN converts to 0.
func TestF2IBounds(t *testing.T) {
	for bits := uint(0); bits <= 64; bits++ {
		if got, want := math.Float64frombits(uint64(1022+bits)<<52), math.Ldexp(1, int(bits)-1); got != want {
			t.Fatalf("2^(%d-1): %g, want %g", bits, got, want)
		}
		if got, want := math.Float64frombits(uint64(1023+bits)<<52), math.Ldexp(1, int(bits)); got != want {
			t.Fatalf("2^%d: %g, want %g", bits, got, want)
		}
	}
	for _, c := range []struct {
		x    float64
		bits uint
		s, u uint64
	}{
		{math.NaN(), 32, 0, 0},
		{2147483647.5, 32, 0x7fffffff, 2147483647},
		{2147483648, 32, 0x7fffffff, 2147483648},
		{-2147483648, 32, 0x80000000, 0},
		{-2147483649, 32, 0x80000000, 0},
		{4294967296, 32, 0x7fffffff, 0xffffffff},
		{127.9, 8, 127, 127},
		{300, 8, 127, 255},
		{-129, 8, 0x80, 0},
		{0x1p63, 64, 1<<63 - 1, 1 << 63},
		{0x1p64, 64, 1<<63 - 1, math.MaxUint64},
		{-0x1p63, 64, 1 << 63, 0},
		{math.Inf(1), 16, 0x7fff, 0xffff},
		{math.Inf(-1), 16, 0x8000, 0},
	} {
		if got := F2S(c.x, RZ, c.bits); got != c.s {
			t.Errorf("F2S(%g, rz, %d) = %#x, want %#x", c.x, c.bits, got, c.s)
		}
		if got := F2U(c.x, RZ, c.bits); got != c.u {
			t.Errorf("F2U(%g, rz, %d) = %#x, want %#x", c.x, c.bits, got, c.u)
		}
	}
}
