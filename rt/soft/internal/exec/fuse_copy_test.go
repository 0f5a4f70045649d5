package exec

import (
	"math"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// copySrc stages a tile in shared memory as a tiled kernel does: two tile
// copies (the second one's loaded value read again afterwards, so it is
// kept), a barrier, then each thread stores a neighbour's staged values.
// Lane bad's global address goes gshift bytes further, its shared address
// sshift further. Warp 0 runs each copy first, through the general load
// that caches the allocation: only a bad lane of a later warp meets the
// fused path. With from ≥ 0, lanes from on go as far as lane bad does
// too (a whole run of addresses shifted).
const copySrc = ptxHeader + `
.visible .entry k(.param .u64 a, .param .u64 out, .param .u32 bad, .param .u32 gshift, .param .u32 sshift, .param .u32 from)
{
	.reg .b32 %r<20>;
	.reg .f32 %f<6>;
	.reg .b64 %rd<12>;
	.reg .pred %p<3>;
	.shared .align 4 .b8 sh[2048];
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r1, [bad];
	ld.param.u32 %r2, [gshift];
	ld.param.u32 %r3, [sshift];
	mov.u32 %r4, %tid.x;
	setp.eq.s32 %p1, %r4, %r1;
	ld.param.u32 %r13, [from];
	setp.ge.s32 %p2, %r4, %r13;
	or.pred %p1, %p1, %p2;
	selp.b32 %r5, %r2, 0, %p1;
	selp.b32 %r6, %r3, 0, %p1;
	cvta.to.global.u64 %rd3, %rd1;
	mul.wide.s32 %rd4, %r4, 4;
	cvt.s64.s32 %rd5, %r5;
	add.s64 %rd6, %rd3, %rd4;
	add.s64 %rd6, %rd6, %rd5;
	mov.u32 %r7, sh;
	shl.b32 %r8, %r4, 2;
	add.s32 %r9, %r7, %r8;
	add.s32 %r9, %r9, %r6;
	ld.global.f32 %f1, [%rd6];
	st.shared.f32 [%r9], %f1;
	ld.global.f32 %f2, [%rd6+1024];
	st.shared.f32 [%r9+1024], %f2;
	bar.sync 0;
	xor.b32 %r10, %r4, 1;
	shl.b32 %r11, %r10, 2;
	add.s32 %r12, %r7, %r11;
	ld.shared.f32 %f3, [%r12];
	ld.shared.f32 %f4, [%r12+1024];
	add.f32 %f5, %f3, %f2;
	cvta.to.global.u64 %rd7, %rd2;
	add.s64 %rd8, %rd7, %rd4;
	st.global.f32 [%rd8], %f4;
	st.global.f32 [%rd8+1024], %f5;
	ret;
}
`

// copyRun launches copySrc over one CTA of threads with tile-copy fusion
// as given and returns out, the fault, the thread-instructions executed
// and how many copies were fused.
func copyRun(t *testing.T, fuse, runs bool, race RaceMode, threads, bad, gshift, sshift, from int) ([]float32, string, uint64, int) {
	t.Helper()
	defer func(v, r bool) { fuseCopies, runs16 = v, r }(fuseCopies, runs16)
	fuseCopies, runs16 = fuse, runs
	e := newEnv(t, Config{Workers: 1, RaceCheck: race})
	k := e.kernel(e.loadSrc("copy.ptx", copySrc), "k")
	p := e.kernels[k]
	fused := 0
	for _, f := range p.folds {
		if f.in.op == opLdG32 {
			fused++
		}
	}
	a := make([]float32, 512)
	for i := range a {
		a[i] = float32(i)*0.37 + 1/float32(i+1)
	}
	pa, pout := e.buf(a), e.buf(make([]float32, 512))
	prm := params(pa, pout, bad, gshift, sshift, from)
	pbuf := make([]uint64, len(prm)/8+1)
	pbytes := unsafe.Slice((*byte)(unsafe.Pointer(&pbuf[0])), len(prm))
	copy(pbytes, prm)
	l := &Launch{Program: p, Host: e.host, Mem: e.mem, Config: &e.cfg, Grid: rt.D1(1).Norm(), Block: rt.D1(threads).Norm(), Params: pbytes}
	msg := ""
	if err := l.Run(); err != nil {
		msg = err.Error()
	}
	got := make([]float32, 512)
	e.get(pout, got)
	return got, msg, l.Executed(), fused
}

// TestLdGStSMatchesUnfused: fused tile copies stage, store and fault what
// the load and the store one by one do, bit for bit, at the same pc, lane
// and address with the same message and instruction counts; in full and
// partial warps, and under racecheck (which undoes the fusion).
func TestLdGStSMatchesUnfused(t *testing.T) {
	if _, _, _, n := copyRun(t, true, true, RaceOff, 64, -1, 0, 0, 1<<30); n != 2 {
		t.Fatalf("%d copies fused, want 2", n)
	}
	cases := []struct {
		name                         string
		threads, bad, gshift, sshift int
		from                         int // 0: none
	}{
		{"full warps", 256, -1, 0, 0, 0},
		{"partial warp", 200, -1, 0, 0, 0},
		{"load out of bounds", 256, 37, 1 << 20, 0, 0},
		{"load out of bounds, lane 0", 256, 64, 1 << 20, 0, 0},
		{"load before the allocation", 256, 45, -1 << 20, 0, 0},
		{"load before the allocation, first warp", 256, 5, -1 << 20, 0, 0},
		{"misaligned load", 256, 40, 2, 0, 0},
		{"misaligned load, partial warp", 200, 197, 2, 0, 0},
		{"store out of the window", 256, 99, 0, 1 << 20, 0},
		{"store out of the window, last lane", 256, 63, 0, 1 << 20, 0},
		{"misaligned store", 256, 95, 0, 1, 0},
		{"misaligned store, first warp", 256, 31, 0, 1, 0},
		{"store onto a neighbour's word", 256, 44, 0, 4, 0},
		{"load and store both bad", 256, 70, 2, 1 << 20, 0},
		// Whole half-warps' runs shifted: in bounds, out from some lane of
		// the run on, out for the whole run, misaligned.
		{"runs shifted, in bounds", 256, 160, -512, 0, 160},
		{"runs shifted onto other runs", 256, 128, 0, -64, 128},
		{"runs out of bounds from the middle", 256, 224, 1056, 0, 224},
		{"runs out of bounds", 256, 224, 1 << 20, 0, 224},
		{"runs misaligned", 256, 96, 2, 0, 96},
		{"runs out of the window", 256, 192, 0, 1024 - 8, 192},
		{"store runs misaligned", 256, 64, 0, 2, 64},
	}
	for _, race := range []RaceMode{RaceOff, RaceOn} {
		for _, tc := range cases {
			from := tc.from
			if from == 0 {
				from = 1 << 30
			}
			want, msgW, nW, _ := copyRun(t, false, false, race, tc.threads, tc.bad, tc.gshift, tc.sshift, from)
			t.Logf("%s (race %d): %d executed: %s", tc.name, race, nW, msgW)
			for _, runs := range []bool{false, true} {
				got, msgG, nG, _ := copyRun(t, true, runs, race, tc.threads, tc.bad, tc.gshift, tc.sshift, from)
				if msgG != msgW || nG != nW {
					t.Errorf("%s (race %d, runs %v):\nfused:   %q (%d executed)\nunfused: %q (%d executed)", tc.name, race, runs, msgG, nG, msgW, nW)
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s (race %d, runs %v): out[%d] = %v fused, %v unfused", tc.name, race, runs, i, got[i], want[i])
					}
				}
			}
			if msgW == "" && tc.threads == 256 && tc.from == 0 && want[255] == 0 {
				t.Fatalf("%s: the last thread stored nothing", tc.name)
			}
		}
	}
}
