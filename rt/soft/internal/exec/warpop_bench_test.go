package exec

import (
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// BenchmarkWarpOp is the cost of one full-warp op of a few kinds, each run
// 200 times in a row by every warp of 64 CTAs of 256 threads (the fma's
// sums stay near 1, off its slow path): the
// executor's floor per warp-op (dispatch and the register file's loads
// and stores, 3×256 bytes for a two-source op), which bounds what a kernel
// of n warp-ops per warp can reach. It reports ns/warp-op (wall time on
// one worker).
func BenchmarkWarpOp(b *testing.B) {
	for _, c := range []struct{ name, op string }{
		{"mov", "mov.u32 %v, %t;"},
		{"add.u32", "add.u32 %v, %v, %t;"},
		{"add.f32", "add.f32 %f, %f, %g;"},
		{"fma.f32", "fma.rn.f32 %f, %f, %h, 0f3F800000;"},
		{"setp", "setp.lt.u32 %p, %v, %t;"},
	} {
		b.Run(c.name, func(b *testing.B) {
			src := ptxHeader + `
.visible .entry k(.param .u64 out)
{
	.reg .b32 %t, %v;
	.reg .f32 %f, %g, %h;
	.reg .b64 %o, %q;
	.reg .pred %p;
	mov.u32 %t, %tid.x;
	mov.u32 %v, %t;
	cvt.rn.f32.u32 %f, %t;
	cvt.rn.f32.u32 %g, %t;
	mul.f32 %h, %g, 0f3A800000;
` + strings.Repeat("\t"+c.op+"\n", 200) + `
	selp.u32 %t, 1, 0, %p;
	add.u32 %v, %v, %t;
	mov.b32 %t, %f;
	add.u32 %v, %v, %t;
	ld.param.u64 %o, [out];
	mov.u32 %t, %tid.x;
	mul.wide.u32 %q, %t, 4;
	add.s64 %o, %o, %q;
	st.global.u32 [%o], %v;
	ret;
}
`
			e := newEnv(b, Config{Workers: 1})
			k := e.kernel(e.loadSrc("warpop.ptx", src), "k")
			out := e.buf(make([]uint32, 256))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.run(k, rt.D1(64), rt.D1(256), 0, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(64*8*200), "ns/warp-op")
		})
	}
}
