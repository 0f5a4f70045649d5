package fatbin_test

import (
	"bytes"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
)

// BenchmarkParseSO locates and parses both fatbins of the 1 MB k.so.
func BenchmarkParseSO(b *testing.B) {
	data := readFile(b, "k.so")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		secs, err := fatbin.FromELF(bytes.NewReader(data), nil)
		if err != nil || len(secs[0].Fatbins) != 2 {
			b.Fatal(err)
		}
	}
}

// BenchmarkData decompresses the 12 KiB sm_90 cubin stored raw, as LZ4
// and as zstd.
func BenchmarkData(b *testing.B) {
	for _, c := range []struct{ name, file string }{
		{"none", "k.none.fatbin"}, {"lz4", "b.speedall.fatbin"}, {"zstd", "k.size.fatbin"},
	} {
		e := parseFile(b, c.file).Entries[0]
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := e.Data()
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(d)))
			}
		})
	}
}
