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
// reported, not asserted. Each path runs in N fresh contexts, 15 loads; the
// time shown is the median, the memory that of the first load (a context's
// first module with printf also reserves the printf FIFO, which stays with
// the context: see TestLibraryLoadMemory) and of the loads after it.
func TestLibraryLoadVsLegacy(t *testing.T) {
	d := gpu(t)
	// The driver caches JIT output on disk, keyed by the PTX: "cached" loads
	// the same PTX every time (compiled once, then a cache hit), "fresh"
	// makes each load's PTX unique with a comment, so the first context's
	// load compiles (the legacy path's later contexts still hit the cache).
	images := []struct {
		name   string
		data   []byte
		unique bool
	}{{"cubin sm_90 (16 kernels)", typesCubin, false}, {"PTX cached (12 kernels)", morePTX, false},
		{"PTX fresh (12 kernels)", morePTX, true}}
	fmt.Printf("LOAD-COST %-26s %3s %12s %12s %7s %14s %14s\n", "image", "N", "library", "legacy", "ratio", "lib MiB 1st/+", "legacy 1st/+")
	for _, img := range images {
		for _, n := range []int{1, 2, 4} {
			run := func(legacy bool) (med time.Duration, first, again float64) {
				ctxs := make([]rt.CtxHandle, n)
				for i := range ctxs {
					c, err := d.CtxCreate(0, 0)
					must(t, err)
					ctxs[i] = c
				}
				defer func() {
					for _, c := range ctxs {
						must(t, d.CtxDestroy(c))
					}
				}()
				var times []time.Duration
				for rep := 0; rep < 15; rep++ {
					data := img.data
					if img.unique {
						data = append(append([]byte{}, data...), fmt.Sprintf("\n// load %d\n", time.Now().UnixNano())...)
					}
					free0, _, err := d.MemInfo(ctxs[0])
					must(t, err)
					t0 := time.Now()
					lib, err := d.LibraryLoad(data, rt.LoadOptions{Legacy: legacy})
					must(t, err)
					for _, c := range ctxs {
						must(t, d.WarmUp(lib, c))
					}
					el := time.Since(t0)
					free1, _, err := d.MemInfo(ctxs[0])
					must(t, err)
					must(t, d.LibraryUnload(lib))
					times = append(times, el)
					mib := (float64(free0) - float64(free1)) / (1 << 20)
					if rep == 0 {
						first = mib
					} else if mib > again {
						again = mib
					}
				}
				sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
				return times[len(times)/2], first, again
			}
			lt, lf, la := run(false)
			gt, gf, ga := run(true)
			fmt.Printf("LOAD-COST %-26s %3d %12v %12v %6.2fx %8.0f/%-5.0f %8.0f/%-5.0f\n", img.name, n,
				lt.Round(time.Microsecond), gt.Round(time.Microsecond), float64(gt)/float64(lt), lf, la, gf, ga)
		}
	}
}

// TestLibraryLoadMemory prints, per load of each image on each path in one
// fresh context, the device memory taken once the kernels are warm and what
// stays taken after unload (cuMemGetInfo, MiB). It explains the load-cost
// table's memory column; it asserts nothing about sizes.
func TestLibraryLoadMemory(t *testing.T) {
	d := gpu(t)
	images := []struct {
		name string
		data []byte
	}{{"cubin sm_90", typesCubin}, {"PTX, no printf", kernelsPTX}, {"PTX with printf", morePTX}}
	mib := func(a, b uint64) float64 { return (float64(a) - float64(b)) / (1 << 20) }
	for _, img := range images {
		for _, legacy := range []bool{false, true} {
			c, err := d.CtxCreate(0, 0)
			must(t, err)
			line := fmt.Sprintf("LOAD-MEM %-16s legacy=%-5v", img.name, legacy)
			for rep := 0; rep < 3; rep++ {
				free0, _, err := d.MemInfo(c)
				must(t, err)
				lib, err := d.LibraryLoad(img.data, rt.LoadOptions{Legacy: legacy})
				must(t, err)
				free1, _, err := d.MemInfo(c)
				must(t, err)
				must(t, d.WarmUp(lib, c))
				free2, _, err := d.MemInfo(c)
				must(t, err)
				must(t, d.LibraryUnload(lib))
				free3, _, err := d.MemInfo(c)
				must(t, err)
				line += fmt.Sprintf(" | load %5.0f warm %5.0f kept %5.0f", mib(free0, free1), mib(free0, free2), mib(free0, free3))
			}
			fmt.Println(line)
			must(t, d.CtxDestroy(c))
		}
	}
}
