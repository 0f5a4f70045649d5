package texunit

import (
	"math"
	"testing"
)

// TestTexS8Snorm16 checks the s8 widening's shape over the whole range of
// weighted sums: monotonic, exact at ±127 (the ends of the snorm range)
// and 0, and never further than 0.5 + 1/8 (the cut 2^-15 term) from the
// exact quotient sum*32767/(127*256). The exact bits are the recordings'
// business (TestTexRecorded).
func TestTexS8Snorm16(t *testing.T) {
	prev := int64(math.MinInt64)
	for sum := int64(-128 * 256); sum <= 127*256; sum++ {
		s := texS8Snorm16(sum)
		if s < prev {
			t.Fatalf("sum %d: S %d below S(sum-1) %d", sum, s, prev)
		}
		prev = s
		if sum < -127*256 {
			continue // -128: clamped to -1 by the caller
		}
		if d := math.Abs(float64(s) - float64(sum)*32767/(127*256)); d > 0.5+1.0/8 {
			t.Fatalf("sum %d: S %d is %g from the exact quotient", sum, s, d)
		}
	}
	for _, c := range [][2]int64{{127 * 256, 32767}, {-127 * 256, -32767}, {0, 0}} {
		if s := texS8Snorm16(c[0]); s != c[1] {
			t.Errorf("S(%d) = %d, want %d", c[0], s, c[1])
		}
	}
}

// TestSurfHalfRZ checks sust.p's f32 → f16 conversion (recorded rule:
// toward zero) against its definition over every half: each half converts
// back to itself, and the f32 values strictly between it and the next
// half away from zero convert to it (to 0x7bff beyond 65504).
func TestSurfHalfRZ(t *testing.T) {
	for h := uint32(0); h < 1<<16; h++ {
		if h&0x7c00 == 0x7c00 {
			continue // Inf, NaN
		}
		w := texHalf(h)
		if got := surfHalfRZ(w); got != h {
			t.Fatalf("half %#04x (f32 %#08x) → %#04x", h, w, got)
		}
		// the f32 just below the next half away from zero, and the one
		// just above h
		next := texHalf(h + 1)
		if h&0x7fff == 0x7bff {
			next = math.Float32bits(65536) | h<<16&0x80000000
		}
		for _, x := range []uint32{w + 1, next - 1} {
			if got := surfHalfRZ(x); got != h {
				t.Fatalf("f32 %#08x (between half %#04x and the next) → %#04x", x, h, got)
			}
		}
	}
	for _, c := range [][2]uint32{
		{0x7f800000, 0x7c00}, {0xff800000, 0xfc00}, {0x7f7fffff, 0x7bff}, {0xc7800000, 0xfbff},
		{0x7fc00000, 0x7e00}, {0xffff8000, 0xfffc}, {0x00000001, 0}, {0x80000001, 0x8000},
	} {
		if got := surfHalfRZ(c[0]); got != c[1] {
			t.Errorf("f32 %#08x → %#04x, want %#04x", c[0], got, c[1])
		}
	}
}

// TestSurfNorm: the unorm/snorm rule at its edges (saturation, NaN, the
// -M floor of snorm) and at the ties it was read from.
func TestSurfNorm(t *testing.T) {
	f := math.Float32bits
	for _, c := range []struct {
		x      uint32
		n      int
		signed bool
		want   uint32
	}{
		{f(0.5), 8, false, 127}, {f(0.5), 16, false, 32767}, {f(0.5), 8, true, 63}, {f(0.5), 16, true, 16383},
		{f(0.378571659), 8, false, 96}, {f(0.25), 8, false, 64}, {f(1), 8, false, 255}, {f(2), 16, false, 65535},
		{f(-0.25), 8, false, 0}, {0x80000000, 8, true, 0}, {0x7fc00000, 16, true, 0}, {0x7fc00000, 8, false, 0},
		{f(-1), 8, true, 0x81}, {f(-3), 16, true, 0x8001}, {f(float32(math.Inf(1))), 16, true, 0x7fff},
		{f(-0.187048837), 8, true, 0xe8},
	} {
		if got := surfNorm(c.x, c.n, c.signed); got != c.want {
			t.Errorf("surfNorm(%#08x, %d, signed %v) = %#x, want %#x", c.x, c.n, c.signed, got, c.want)
		}
	}
}
