package exec

import (
	"math"
	"testing"
)

// BenchmarkApprox times one lane of each f32 .approx form through the
// generated op, over 32768 inputs spread across [-40, 40).
func BenchmarkApprox(b *testing.B) {
	for _, key := range []string{"ex2.approx.ftz.f32", "ex2.approx.f32", "lg2.approx.ftz.f32", "rcp.approx.ftz.f32",
		"rsqrt.approx.ftz.f32", "sqrt.approx.f32", "sin.approx.ftz.f32", "cos.approx.ftz.f32", "tanh.approx.f32"} {
		b.Run(key, func(b *testing.B) {
			g, ok := genOps[key]
			if !ok {
				b.Fatalf("no op %s", key)
			}
			xs := make([]uint64, 1<<15)
			for i := range xs {
				xs[i] = uint64(math.Float32bits(float32(i)*(80.0/(1<<15)) - 40))
			}
			r := make([]uint64, 3*32)
			in := &inst{op: g.op, a: 32, d: 64}
			for o := 0; o < len(xs); o += 32 { // decode any table before timing
				copy(r[32:64], xs[o:o+32])
				execALU(in, r, fullMask)
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				o := i * 32 & (len(xs) - 1)
				copy(r[32:64], xs[o:o+32])
				execALU(in, r, fullMask)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/32, "ns/lane")
			// Per CPU-second, as the executor benchmarks: robust on a shared machine.
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/32, "cpu-ns/lane")
		})
	}
}
