package cubin_test

import (
	"debug/elf"
	"runtime"
	"slices"
	"testing"

	"github.com/cugen/cugen/parse/hostile"
)

// No CUDA toolkit compresses a cubin's sections, and debug/elf would
// decompress a compressed symbol or name table to whatever size it
// claims: Parse refuses them before debug/elf reads them.
func TestCompressedSections(t *testing.T) {
	orig := read(t, "k90.cubin")
	bomb := hostile.Compressed(elf.COMPRESS_ZSTD, 1<<30, hostile.ZstdRLE(8192, 0))
	for _, name := range []string{".symtab", ".strtab", ".shstrtab", ".nv.info"} {
		b := slices.Clone(orig)
		hdr, s := sectionHeader(t, orig, name)
		// Put a 1 GiB zstd bomb where the section was, if it fits, and
		// mark the section compressed.
		if int(s.Size) >= len(bomb) {
			copy(b[s.Offset:], bomb)
		}
		le.PutUint64(b[hdr+8:], uint64(s.Flags|elf.SHF_COMPRESSED))
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		msg := "is compressed (SHF_COMPRESSED)"
		if name == ".shstrtab" {
			msg = "section name table is compressed"
		}
		wantError(t, name, b, int64(hdr), msg)
		runtime.ReadMemStats(&m1)
		if d := m1.TotalAlloc - m0.TotalAlloc; d > 16<<20 {
			t.Errorf("%s: Parse allocated %d bytes", name, d)
		}
	}
}
