package hostile

import "testing"

// PeakHeap sees an allocation that f holds while it runs, and not one it
// made before (run it with -race: the sampler and f share nothing).
func TestPeakHeap(t *testing.T) {
	const n = 64 << 20
	var keep []byte
	got := PeakHeap(func() {
		keep = make([]byte, n)
		for i := range keep {
			keep[i] = 1
		}
	})
	if got < n*15/16 {
		t.Errorf("PeakHeap = %d, want about %d", got, n)
	}
	before := PeakHeap(func() { keep[0] = 2 })
	if before > n/2 {
		t.Errorf("PeakHeap of a function that allocates nothing = %d", before)
	}
}
