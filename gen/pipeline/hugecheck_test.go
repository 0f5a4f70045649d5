package pipeline

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/hostile"
	"github.com/cugen/cugen/rt/soft"
	"github.com/klauspost/compress/zstd"
)

// TestHugeKernelSkipsCheck: a kernel too large for rt/soft's check to
// hold (24 MB of PTX on one line; its check would peak near 1 GB, a 50 MB
// one's ended the process under a 3 GB limit) is generated without the
// check, with a warning naming the kernel and -gpu-only, and the run's
// heap stays near what generating without the check takes.
func TestHugeKernelSkipsCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 24 MB of PTX")
	}
	src := hostile.HugePTX(24 << 20)
	run := func(check bool) (*Result, uint64) {
		req := &Request{Inputs: []Input{{Name: "h.ptx", Data: src}}, Output: filepath.Join(t.TempDir(), "h.go"), Package: "h"}
		if check {
			req.Check = soft.CheckBudget
		}
		var r *Result
		var err error
		peak := hostile.PeakHeap(func() { r, err = Run(req) })
		if err != nil {
			t.Fatal(err)
		}
		return r, peak
	}
	_, plain := run(false)
	r, checked := run(true)
	t.Logf("heap peak: %d MB without the check, %d MB with it (%.1f× the input)", plain>>20, checked>>20, float64(checked)/float64(len(src)))
	found := false
	for _, w := range r.Warnings {
		if w.Input == "h.ptx" && strings.Contains(w.Message, "did not check kernel k") && strings.Contains(w.Message, "-gpu-only") {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning names kernel k and -gpu-only: %v", r.Warnings)
	}
	if checked > plain+plain/2 {
		t.Errorf("with the check the heap peaks at %d MB, %d MB without: the kernel was checked in memory that grows with it", checked>>20, plain>>20)
	}
}

// TestZstdEntryPeak generates from a fatbin whose zstd PTX entry inflates
// to 64 MiB, with rt/soft's check, which decodes it again: the heap's
// peak stays under 2.5 times the entry (it was 4 times: the zstd decoder
// kept each output, and the check's decoding came on top of the garbage
// the model's left; for a 256 MiB entry, 1.06 GB).
func TestZstdEntryPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 128 MiB")
	}
	const size = 64 << 20
	ptx := hostile.PaddedPTX(size)
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	fb := hostile.Fatbin(hostile.Entry(hostile.KindPTX, 70, hostile.FlagZstd, enc.EncodeAll(ptx, nil), uint64(len(ptx))))
	ptx = nil
	req := &Request{Inputs: []Input{{Name: "z.fatbin", Data: fb}}, Output: filepath.Join(t.TempDir(), "z.go"), Package: "z", Check: soft.CheckBudget}
	peak := hostile.PeakHeap(func() {
		if _, err := Run(req); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("heap peak %d MB for an entry of %d MB (%.2f×)", peak>>20, size>>20, float64(peak)/size)
	if peak > size*5/2 {
		t.Errorf("generating from a %d MB zstd entry peaks at %d MB, more than 2.5 times it", size>>20, peak>>20)
	}
}
