package cubin_test

import (
	"testing"

	"github.com/cugen/cugen/parse/cubin"
)

// BenchmarkParseLarge parses a synthetic 1000-kernel cubin (about 2.5 MB:
// 2 KiB of code, 8 parameters and a parameter bank per kernel).
func BenchmarkParseLarge(b *testing.B) {
	data := largeCubin(1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := cubin.Parse(data)
		if err != nil || len(f.Kernels) != 1000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseK90 parses the 12 KB nvcc cubin of k.cu.
func BenchmarkParseK90(b *testing.B) {
	data := read(b, "k90.cubin")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cubin.Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
