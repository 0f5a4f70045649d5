//go:build cgo

package cgo

import (
	_ "embed"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/cugen/cugen/rt"
)

var (
	//go:embed testdata/types.cubin
	typesCubin []byte
	//go:embed testdata/more_sm90.ptx
	morePTX []byte
)

// TestLibraryLoadVsLegacy compares one context-independent load serving N
// contexts with the legacy path's N per-context module loads (N = 1, 2, 4):
// wall time until every context can launch every kernel, and device memory
// taken (cuMemGetInfo, 2 MiB granularity). It prints a table; timings are
// reported, not asserted. Each configuration runs 5 times; the median shows.
func TestLibraryLoadVsLegacy(t *testing.T) {
	d := gpu(t)
	images := []struct {
		name string
		data []byte
	}{{"cubin sm_90 (16 kernels)", typesCubin}, {"PTX, JIT (12 kernels)", morePTX}}
	fmt.Printf("LOAD-COST %-26s %3s %14s %14s %8s %12s %12s\n", "image", "N", "library", "legacy", "ratio", "lib MiB", "legacy MiB")
	for _, img := range images {
		for _, n := range []int{1, 2, 4} {
			ctxs := make([]rt.CtxHandle, n)
			for i := range ctxs {
				c, err := d.CtxCreate(0, 0)
				must(t, err)
				ctxs[i] = c
			}
			run := func(legacy bool) (time.Duration, uint64) {
				var times []time.Duration
				var mem uint64
				for rep := 0; rep < 5; rep++ {
					free0, _, err := d.MemInfo(ctxs[0])
					must(t, err)
					t0 := time.Now()
					lib, err := d.LibraryLoad(img.data, rt.LoadOptions{Legacy: legacy})
					must(t, err)
					for _, c := range ctxs {
						must(t, d.WarmUp(lib, c))
					}
					el := time.Since(t0)
					free1, _, err := d.MemInfo(ctxs[0])
					must(t, err)
					must(t, d.LibraryUnload(lib))
					times = append(times, el)
					if free0 > free1 && free0-free1 > mem {
						mem = free0 - free1
					}
				}
				sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
				return times[len(times)/2], mem
			}
			lt, lm := run(false)
			gt, gm := run(true)
			fmt.Printf("LOAD-COST %-26s %3d %14v %14v %7.2fx %12.1f %12.1f\n", img.name, n, lt, gt,
				float64(gt)/float64(lt), float64(lm)/(1<<20), float64(gm)/(1<<20))
			for _, c := range ctxs {
				must(t, d.CtxDestroy(c))
			}
		}
	}
}
