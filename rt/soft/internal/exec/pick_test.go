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

// TestPickSameFlag: setPCs keeps warp.same true only while every live lane
// has one pc, and pick answers the same with the flag as without it (the
// pass over the pcs), on full and partial warps after random stores of
// pcs to random masks, the single-lane stores of brx and ret included.
func TestPickSameFlag(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 3))
	c := &cta{}
	for i := 0; i < 2000; i++ {
		w := &warp{live: fullMask, same: true}
		if i%3 == 1 {
			w.live = 1<<uint(1+r.IntN(31)) - 1
		}
		for step := 0; step < 20; step++ {
			switch r.IntN(4) {
			case 0:
				w.setPCs(w.live, int32(r.IntN(50)))
			case 1:
				w.setPCs(r.Uint32(), int32(r.IntN(50)))
			case 2:
				w.setPCs(r.Uint32()|w.live, int32(r.IntN(50)))
			case 3: // brx.go and call.go store one lane's pc
				w.pc[r.IntN(32)] = int32(r.IntN(50))
				w.same = false
			}
			if w.same {
				for l := range w.pc {
					if w.live>>uint(l)&1 != 0 && w.pc[l] != w.pc[0] {
						t.Fatalf("case %d step %d: same set, but live %#x pcs %v", i, step, w.live, w.pc)
					}
				}
			}
			run := w.live
			if r.IntN(2) == 0 {
				run &= r.Uint32() | 1
			}
			if run == 0 {
				continue
			}
			same := w.same
			g1, p1, s1 := c.pick(w, run)
			w.same = false
			g2, p2, s2 := c.pick(w, run)
			if g1 != g2 || p1 != p2 || s1 != s2 {
				t.Fatalf("case %d step %d: run %#x pcs %v: pick with same=%v = (%#x, %d, %d), without = (%#x, %d, %d)",
					i, step, run, w.pc, same, g1, p1, s1, g2, p2, s2)
			}
			w.same = same || w.same
		}
	}
}
