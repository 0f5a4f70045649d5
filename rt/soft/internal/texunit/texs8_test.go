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
