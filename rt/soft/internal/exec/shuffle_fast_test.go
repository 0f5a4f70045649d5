package exec

import (
	"math/rand/v2"
	"testing"
)

// TestShflFullMatchesLanes: the full-warp shfl fast path gives the per-lane
// loop's destination and predicate for every mode, lane operand and clamp
// (segment bits set or not: the fast path declines those).
func TestShflFullMatchesLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var vals [32]uint64
	for i := range vals {
		vals[i] = r.Uint64()
	}
	fast := 0
	for _, mode := range []uint16{shflUp, shflDown, shflBfly, shflIdx} {
		for bv := uint64(0); bv < 40; bv++ {
			for _, cv := range []uint64{0, 1, 7, 15, 16, 30, 31, 0x1f | 0x18<<8, 0x1c00, 32} {
				var b, c [32]uint64
				for i := range b {
					b[i], c[i] = bv, cv
				}
				var want, got [32]uint64
				wantP := shflLanes(mode, &vals, &b, &c, &want, fullMask)
				gotP := ^uint32(0) - 5
				if !shflFull(mode, &vals, &b, &c, &got, &gotP) {
					continue
				}
				fast++
				if got != want || gotP != wantP {
					t.Fatalf("mode %d b=%d c=%#x: fast path gives %v pred %#x, lanes give %v pred %#x", mode, bv, cv, got, gotP, want, wantP)
				}
			}
		}
	}
	if fast < 4*40*6 {
		t.Errorf("the fast path took only %d of the width-32 cases", fast)
	}
}
