package hostile

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// PeakHeap runs f and returns the most heap (live and unswept objects)
// seen above what there was before, sampling every millisecond: at most
// f's peak (a sample can miss it, never exceed it). The memory budget
// tests measure with it.
func PeakHeap(f func()) uint64 {
	runtime.GC()
	base := heapObjects()
	var peak uint64 // the sampler's until wg.Wait returns
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, heapObjects())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	f()
	last := heapObjects()
	close(done)
	wg.Wait()
	peak = max(peak, last)
	return peak - min(base, peak)
}

// heapObjects is the bytes of heap objects now.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
