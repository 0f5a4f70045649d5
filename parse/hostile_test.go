package parse

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/hostile"
)

// The hostile inputs of issue 17, through Read as cugen runs it. Sizes are
// those of the issue where a test can afford them; cmd/cugen's tests and
// the closing note's measurements run the full-size ones.

// readAllocs runs Read and returns what it allocated in all.
func readAllocs(name string, data []byte, opts Options) (*Module, error, uint64) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	mod, err := Read(name, data, opts)
	runtime.ReadMemStats(&m1)
	return mod, err, m1.TotalAlloc - m0.TotalAlloc
}

func TestHostileCompressedSection(t *testing.T) {
	for _, size := range []uint64{4 << 30, 1 << 30} {
		data := hostile.ELFBomb(size)
		_, err, n := readAllocs("bomb.o", data, Options{})
		if !errors.Is(err, fatbin.ErrBudget) || !strings.Contains(err.Error(), "bomb.o: fatbin: section .nv_fatbin: decompressed size") ||
			!strings.Contains(err.Error(), "at offset 0x48") {
			t.Errorf("%d-byte bomb of %#x: %v", len(data), size, err)
		}
		if n > 2<<20 {
			t.Errorf("%d-byte bomb of %#x: Read allocated %d bytes", len(data), size, n)
		}
	}
}

// 2,000 headers naming one 1 MiB fatbin: read, decoded and embedded once.
func TestHostileOverlappingSections(t *testing.T) {
	data := hostile.OverlappingELF(2000, 1<<20)
	for _, noImage := range []bool{true, false} {
		mod, err, n := readAllocs("overlap.o", data, Options{NoImage: noImage})
		if err != nil {
			t.Fatal(err)
		}
		if len(mod.Kernels) != 1 || len(mod.Image) > 1<<20 {
			t.Errorf("%d kernels, %d-byte image", len(mod.Kernels), len(mod.Image))
		}
		if n > 8*uint64(len(data)) {
			t.Errorf("NoImage %v: Read allocated %d bytes for a %d-byte file", noImage, n, len(data))
		}
	}
}

// Entries inflating to many times their size, decoded in parallel: what
// the decoders hold at once stays within the run's budget whatever the
// number of cores, and the first failing entry is the one reported.
func TestHostileEntriesShareBudget(t *testing.T) {
	const size = 4 << 20
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	b := fatbin.NewBudget(2 * size)
	_, err := Read("z.fatbin", hostile.ZstdEntries(16, size), Options{Budget: b})
	if err == nil || !strings.Contains(err.Error(), "z.fatbin: entry sm_70 at offset 0x10: cubin: not an ELF file") {
		t.Errorf("Read: %v", err)
	}
	if b.Peak() > 2*size || b.InUse() != 0 {
		t.Errorf("peak %d bytes in a budget of %d, %d still held", b.Peak(), 2*size, b.InUse())
	}
	// Entries that cannot fit fail at once, naming the entry.
	_, err = Read("z.fatbin", hostile.ZstdEntries(2, size), Options{Budget: fatbin.NewBudget(size / 2)})
	if !errors.Is(err, fatbin.ErrBudget) || !strings.Contains(err.Error(), "entry sm_70 at offset 0x10: fatbin: entry sm_70: decompressed size 0x400000 exceeds the memory budget") {
		t.Errorf("Read over budget: %v", err)
	}
}

// Entries whose declared sizes add up to far more than their fatbin could
// hold (16 x 256 MiB from 133 KB; 64 PTX entries of 256 MiB of NULs, which
// would each parse as an empty module) are refused before any is decoded:
// the budget bounds memory, this bounds the work.
func TestHostileInflation(t *testing.T) {
	var nuls [][]byte
	for i := range 64 {
		nuls = append(nuls, hostile.Entry(hostile.KindPTX, uint32(70+i), hostile.FlagZstd, hostile.ZstdRLE(2048, 0), 256<<20))
	}
	for _, c := range []struct {
		name string
		data []byte
		msg  string
	}{
		{"z.fatbin", hostile.ZstdEntries(16, 256<<20), "z.fatbin: entry sm_71 at offset 0x2060: the compressed entries so far inflate to 536870912 bytes, more than 64 times the 132368 bytes of fatbin plus 268435456"},
		{"nul.fatbin", hostile.Fatbin(nuls...), "nul.fatbin: entry compute_71 at offset "},
	} {
		_, err, n := readAllocs(c.name, c.data, Options{})
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v", c.name, err)
		}
		if n > 4*uint64(len(c.data))+1<<20 {
			t.Errorf("%s: Read allocated %d bytes for %d", c.name, n, len(c.data))
		}
	}
	// Within the limit, entries decode as usual.
	if _, err := Read("ok.fatbin", hostile.ZstdEntries(1, 64<<20), Options{NoImage: true}); err == nil || !strings.Contains(err.Error(), "not an ELF file") {
		t.Errorf("one entry of 64 MiB: %v", err)
	}
}
