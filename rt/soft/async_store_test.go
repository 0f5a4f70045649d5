package soft

import (
	"math"
	"testing"

	"github.com/cugen/cugen/rt"
)

const asyncStorePTX = `
.version 8.0
.target sm_90
.address_size 64

// push: in 2-CTA clusters, rank 0's thread 0 stores {a, b} into rank 1's
// buffer with st.async and adds c into its counter with red.async, both
// counted by rank 1's mbarrier, which expects 12 bytes; rank 1 waits and
// writes out[0..3] = buffer, counter.
.visible .entry push(.param .u64 out, .param .u32 a, .param .u32 b, .param .u32 c)
{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<4>;
	.shared .align 8 .b64 bar;
	.shared .align 8 .b32 buf[2];
	.shared .align 4 .u32 counter;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %cluster_ctarank;
	mov.u32 %r2, %tid.x;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra SYNC;
	mbarrier.init.shared.b64 [bar], 1;
	st.shared.u32 [counter], 100;
	setp.ne.u32 %p2, %r1, 1;
	@%p2 bra SYNC;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 12;
SYNC:
	barrier.cluster.arrive;
	barrier.cluster.wait;
	@%p1 bra END;
	setp.ne.u32 %p2, %r1, 0;
	@%p2 bra WAIT;
	ld.param.u32 %r3, [a];
	ld.param.u32 %r4, [b];
	ld.param.u32 %r5, [c];
	mov.u32 %r6, buf;
	mapa.shared::cluster.u32 %r7, %r6, 1;
	mov.u32 %r8, bar;
	mapa.shared::cluster.u32 %r9, %r8, 1;
	mov.u32 %r10, counter;
	mapa.shared::cluster.u32 %r11, %r10, 1;
	st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.u32 [%r7], {%r3, %r4}, [%r9];
	red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r11], %r5, [%r9];
	bra END;
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;
	@!%p3 bra WAIT;
	ld.shared.u32 %r12, [buf];
	ld.shared.u32 %r13, [buf+4];
	ld.shared.u32 %r14, [counter];
	st.global.u32 [%rd1], %r12;
	st.global.u32 [%rd1+4], %r13;
	st.global.u32 [%rd1+8], %r14;
END:
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
}

// vadd: atom.global.v4.f32.add of {1, 2, 3, 4} at p, the old values to
// out; then a tensor map's 128 bytes built in shared memory are copied to
// map with tensormap.cp_fenceproxy.
.visible .entry vadd(.param .u64 p, .param .u64 out, .param .u64 map)
{
	.reg .pred %p1;
	.reg .f32 %f<9>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<8>;
	.shared .align 128 .b8 tm[128];
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [out];
	ld.param.u64 %rd3, [map];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra COPY;
	mov.f32 %f1, 0f3F800000;
	mov.f32 %f2, 0f40000000;
	mov.f32 %f3, 0f40400000;
	mov.f32 %f4, 0f40800000;
	atom.global.v4.f32.add {%f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4};
	st.global.v4.f32 [%rd2], {%f5, %f6, %f7, %f8};
COPY:
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, tm;
	add.u32 %r3, %r3, %r2;
	st.shared.u32 [%r3], %r1;
	bar.sync 0;
	mov.u32 %r3, tm;
	tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd3], [%r3], 128;
	ret;
}
`

// TestAsyncStores: st.async and red.async into another CTA of the
// cluster complete its mbarrier's phase with their bytes.
func TestAsyncStores(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.loadSrc("async.ptx", asyncStorePTX)
	out := e.buf(u32s(3))
	if err := e.launchEx(e.kernel(lib, "push"), rt.D1(2), rt.D1(32), rt.D1(2), 0, params(out, uint32(7), uint32(9), uint32(5))); err != nil {
		t.Fatal(err)
	}
	got := u32s(3)
	e.get(out, got)
	if got[0] != 7 || got[1] != 9 || got[2] != 105 {
		t.Errorf("rank 1 read %v, want [7 9 105]", got)
	}
}

// TestVectorAtomics: a vector atomic adds each element and returns the
// old ones; tensormap.cp_fenceproxy copies 128 bytes.
func TestVectorAtomics(t *testing.T) {
	e := newEnv(t, Options{})
	k := e.kernel(e.loadSrc("async.ptx", asyncStorePTX), "vadd")
	p, out, m := e.buf([]float32{10, 20, 30, 40}), e.buf(make([]float32, 4)), e.buf(u32s(32))
	e.launch(k, rt.D1(1), rt.D1(32), 0, p, out, m)
	sum, old, tm := make([]float32, 4), make([]float32, 4), u32s(32)
	e.get(p, sum)
	e.get(out, old)
	e.get(m, tm)
	for i := range sum {
		if old[i] != float32(10*(i+1)) || math.Abs(float64(sum[i]-float32(11*(i+1)))) != 0 {
			t.Errorf("element %d: old %v, now %v", i, old[i], sum[i])
		}
	}
	for i, v := range tm {
		if v != uint32(i) {
			t.Fatalf("the copied map's word %d is %d", i, v)
		}
	}
}
