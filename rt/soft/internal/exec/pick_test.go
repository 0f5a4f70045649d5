package exec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPickGroups checks pick against its definition on converged and
// diverged warps, full and partial: the group is every runnable lane at the
// lowest pc, and stop the next higher pc of a runnable lane (MaxInt32 when
// none). Lanes outside run hold other pcs, which must not matter.
func TestPickGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 2))
	c := &cta{}
	for i := 0; i < 4000; i++ {
		w := &warp{}
		base := int32(r.IntN(100))
		for l := range w.pc {
			w.pc[l] = base
		}
		run := uint32(fullMask)
		if i%2 == 1 {
			run = r.Uint32() | 1<<uint(r.IntN(32))
		}
		switch i % 8 / 2 {
		case 1: // one lane elsewhere: first, last or any
			l := []int{0, 31, r.IntN(32)}[i%3]
			w.pc[l] = base + int32(r.IntN(5)) - 2
		case 2: // lanes outside run elsewhere
			for l := range w.pc {
				if run>>uint(l)&1 == 0 {
					w.pc[l] = int32(r.IntN(100))
				}
			}
		case 3: // fully diverged
			for l := range w.pc {
				w.pc[l] = int32(r.IntN(8))
			}
		}
		group, pc, stop := c.pick(w, run)
		wantPC, wantStop := int32(math.MaxInt32), int32(math.MaxInt32)
		for l := range w.pc {
			if run>>uint(l)&1 != 0 && w.pc[l] < wantPC {
				wantPC = w.pc[l]
			}
		}
		var want uint32
		for l := range w.pc {
			if run>>uint(l)&1 == 0 {
				continue
			}
			if p := w.pc[l]; p == wantPC {
				want |= 1 << uint(l)
			} else if p < wantStop {
				wantStop = p
			}
		}
		if group != want || pc != wantPC || stop != wantStop {
			t.Fatalf("case %d: run %#x pcs %v: pick = (%#x, %d, %d), want (%#x, %d, %d)",
				i, run, w.pc, group, pc, stop, want, wantPC, wantStop)
		}
	}
}
