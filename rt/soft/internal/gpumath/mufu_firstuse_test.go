package gpumath

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

// TestMUFUFirstUse reports (not asserts: the machine is shared) what the
// first use of each MUFU function's table costs in this process, wall and
// CPU time: for one input (one segment) and for the whole table (what a
// first launch with inputs spread over the domain pays at most); run it
// alone in a fresh process for the one-off figures:
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
		start, cpu := time.Now(), softtest.CPUTime()
		got := c.tab.at(c.i)
		wall1, cpu1 := time.Since(start), softtest.CPUTime()-cpu
		for i := 0; i < c.tab.n; i += mufuSegment {
			c.tab.at(uint32(i))
		}
		t.Logf("%-4s first use: %v (CPU %v); whole table: %v (CPU %v)", c.tab.name, wall1, cpu1,
			time.Since(start), softtest.CPUTime()-cpu)
		if c.tab != tabTanh && got != c.want {
			t.Errorf("%s[%#x] = %#08x, want %#08x", c.tab.name, c.i, got, c.want)
		}
	}
}

// TestMUFUConcurrentFirstUse: goroutines that meet a table's segments for
// the first time together each get the entries one decoding gives (run
// with -race for the publication itself).
func TestMUFUConcurrentFirstUse(t *testing.T) {
	fresh := &lazyTable{name: tabEx2.name, z: tabEx2.z}
	tabEx2.header()
	segs := (tabEx2.n + mufuSegment - 1) / mufuSegment
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range segs {
				i := uint32((k*7+g*5)%segs*mufuSegment + g*4099)
				if got, want := fresh.at(i), tabEx2.at(i); got != want {
					errs <- fmt.Sprintf("goroutine %d: ex2[%#x] = %#08x, want %#08x", g, i, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
