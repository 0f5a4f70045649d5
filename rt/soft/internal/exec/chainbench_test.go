package exec

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// BenchmarkChainRows times chainRows's paired path on a 16×16 tile of
// random values, as the typical matmul's inner loop runs it, in each of
// its forms (chainRowForms).
func BenchmarkChainRows(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	mem := make([]uint32, 512)
	for i := range mem {
		mem[i] = math.Float32bits(float32(r.Float64()*2 - 1))
	}
	var a, bb [32]uint64
	for l := range 32 {
		a[l] = uint64(l/16) * 64
		bb[l] = 1024 + uint64(l%16)*4
	}
	ch := &ldChain{o1: 0, o2: 0, s1: 4, s2: 64}
	sh := unsafe.Pointer(&mem[0])
	for _, form := range chainRowForms() {
		b.Run(form.name, func(b *testing.B) {
			chainStrongRows, chainFMA = form.strong, form.fma
			defer func() { chainStrongRows, chainFMA = true, hasSIMD }()
			var acc [32]float32
			b.ResetTimer()
			c0 := cpuTime()
			for range b.N {
				chainRows(sh, ch, &a, &bb, true, true, 16, &acc)
			}
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
