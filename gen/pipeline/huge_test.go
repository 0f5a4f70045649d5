package pipeline

import (
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/cugen/cugen/parse/hostile"
	"github.com/cugen/cugen/rt/soft"
)

// peakHeap runs f and samples the live heap objects every millisecond,
// returning the most seen above what was live before.
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	var peak uint64
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait() // the sampler's writes of peak happen before this
	peak = max(peak, read())
	return peak - min(base, peak)
}

// BenchmarkHugePTX runs cugen's generator on 16 MB of PTX on one line, as
// dense as PTX gets (an add every 23 bytes): one kernel of it all, and
// kernels of 64 KB; listed (Load), generated without the check (-gpu-only)
// and with rt/soft's check. It reports per input byte the heap's peak above
// the start, sampled (peak/B), and what was allocated in all (alloc/B).
func BenchmarkHugePTX(b *testing.B) {
	const size = 16 << 20
	inputs := []struct {
		name string
		src  []byte
	}{{"one-kernel", hostile.HugePTX(size)}, {"kernels-64K", hostile.HugeKernelsPTX(size, 64<<10)}}
	for _, in := range inputs {
		for _, mode := range []string{"list", "generate", "generate+check"} {
			b.Run(in.name+"/"+mode, func(b *testing.B) {
				req := &Request{Inputs: []Input{{Name: "h.ptx", Data: in.src}}, Output: filepath.Join(b.TempDir(), "h.go"), Package: "h"}
				if mode == "generate+check" {
					req.Check = soft.CheckBudget
				}
				b.SetBytes(int64(len(in.src)))
				var peak, alloc uint64
				for b.Loop() {
					var m0, m1 runtime.MemStats
					runtime.ReadMemStats(&m0)
					peak = max(peak, peakHeap(func() {
						var err error
						if mode == "list" {
							_, err = Load(req)
						} else {
							_, err = Run(req)
						}
						if err != nil {
							b.Fatal(err)
						}
					}))
					runtime.ReadMemStats(&m1)
					alloc = m1.TotalAlloc - m0.TotalAlloc
				}
				n := float64(len(in.src))
				b.ReportMetric(float64(peak)/n, "peak/B")
				b.ReportMetric(float64(alloc)/n, "alloc/B")
			})
		}
	}
}
