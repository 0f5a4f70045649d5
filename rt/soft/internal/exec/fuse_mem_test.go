package exec

import (
	"math"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// foldSrc has every shape of address add foldAddr folds: a uniform base
// plus a lane offset (the add a uniform-B twin), two lane values, a byte
// load, a store, an access with nops and other arithmetic between it and
// its add, and one under a guard; and one it must not fold (an address
// read twice). Each store goes to its own half of out. Lane bad's accesses go shift bytes further (out of bounds,
// misaligned), its store sshift further.
const foldSrc = ptxHeader + `
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 out, .param .u32 n, .param .u32 bad, .param .u32 shift, .param .u32 sshift)
{
	.reg .b32 %r<20>;
	.reg .f32 %f<10>;
	.reg .b16 %rs<3>;
	.reg .b64 %rd<40>;
	.reg .pred %p<4>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [out];
	ld.param.u32 %r2, [n];
	ld.param.u32 %r7, [bad];
	ld.param.u32 %r8, [shift];
	ld.param.u32 %r12, [sshift];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.s32 %p1, %r1, %r2;
	@%p1 bra DONE;
	setp.eq.s32 %p2, %r1, %r7;
	selp.b32 %r6, %r8, 0, %p2;
	selp.b32 %r13, %r12, 0, %p2;
	cvta.to.global.u64 %rd4, %rd1;
	mul.wide.s32 %rd5, %r1, 4;
	cvt.s64.s32 %rd13, %r6;
	add.s64 %rd14, %rd5, %rd13;
	add.s64 %rd6, %rd4, %rd14;
	cvta.to.global.u64 %rd7, %rd2;
	mul.lo.s32 %r14, %r1, 3;
	ld.global.f32 %f1, [%rd6+4];
	add.s64 %rd16, %rd4, %rd5;
	and.b32 %r16, %r1, 3;
	mul.wide.s32 %rd24, %r16, 4;
	add.s64 %rd25, %rd24, %rd13;
	add.s64 %rd17, %rd16, %rd25;
	ld.global.f32 %f2, [%rd17];
	ld.global.f32 %f6, [%rd16+8];
	cvt.s64.s32 %rd11, %r1;
	add.s64 %rd12, %rd7, %rd11;
	add.s64 %rd22, %rd12, %rd13;
	ld.global.u8 %rs1, [%rd22+1];
	cvt.u32.u16 %r11, %rs1;
	add.s64 %rd26, %rd7, %rd11;
	ld.global.u8 %rs2, [%rd26+2];
	cvt.u32.u16 %r17, %rs2;
	add.s32 %r11, %r11, %r17;
	add.s32 %r11, %r11, %r14;
	cvt.rn.f32.u32 %f4, %r11;
	add.f32 %f3, %f1, %f2;
	add.f32 %f5, %f3, %f4;
	add.f32 %f5, %f5, %f6;
	and.b32 %r15, %r1, 5;
	setp.ne.s32 %p3, %r15, 0;
	add.s64 %rd18, %rd4, %rd14;
	@%p3 ld.global.f32 %f7, [%rd18+12];
	@!%p3 mov.f32 %f7, 0f3F800000;
	add.f32 %f5, %f5, %f7;
	cvta.to.global.u64 %rd9, %rd3;
	cvt.s64.s32 %rd20, %r13;
	add.s64 %rd21, %rd5, %rd20;
	add.s64 %rd10, %rd9, %rd21;
	st.global.f32 [%rd10], %f5;
	mul.wide.s32 %rd30, %r2, 4;
	add.s64 %rd36, %rd9, %rd30;
	add.s64 %rd37, %rd36, %rd5;
	add.s64 %rd38, %rd37, %rd20;
	mul.f32 %f8, %f5, 0f40400000;
	st.global.f32 [%rd38], %f8;
DONE:
	ret;
}
`

// foldRun launches foldSrc over n threads in blocks of block with address
// folding as given and returns the stores, the fault, the
// thread-instructions executed and how many instructions were folded.
func foldRun(t *testing.T, fold bool, race RaceMode, n, block, bad, shift, sshift int) ([]float32, string, uint64, int) {
	t.Helper()
	defer func(v bool) { foldAddrs = v }(foldAddrs)
	foldAddrs = fold
	e := newEnv(t, Config{Workers: 1, RaceCheck: race})
	src := foldSrc
	k := e.kernel(e.loadSrc("fold.ptx", src), "k")
	a := make([]float32, n+8)
	b := make([]byte, n+8)
	for i := range a {
		a[i] = float32(i)*0.37 + 1/float32(i+1)
		b[i] = byte(i*7 + 3)
	}
	pa, pb, pout := e.buf(a), e.buf(b), e.buf(make([]float32, 2*n))
	p := e.kernels[k]
	folds := len(p.folds)
	prm := params(pa, pb, pout, n, bad, shift, sshift)
	pbuf := make([]uint64, len(prm)/8+1)
	pbytes := unsafe.Slice((*byte)(unsafe.Pointer(&pbuf[0])), len(prm))
	copy(pbytes, prm)
	grid := (n + block - 1) / block
	l := &Launch{Program: p, Host: e.host, Mem: e.mem, Config: &e.cfg, Grid: rt.D1(grid).Norm(), Block: rt.D1(block).Norm(), Params: pbytes}
	msg := ""
	if err := l.Run(); err != nil {
		msg = err.Error()
	}
	got := make([]float32, 2*n)
	e.get(pout, got)
	return got, msg, l.Executed(), folds
}

// TestFoldAddr: folded address adds load and store what the add and the
// access one by one do, bit for bit, and fault at the same pc, lane and
// address with the same message, with the same instruction counts; in
// full and partial warps, and under racecheck (which undoes the folds).
func TestFoldAddr(t *testing.T) {
	_, _, _, folds := foldRun(t, true, RaceOff, 64, 64, -1, 0, 0)
	// Seven accesses fold (two instructions recorded each); the load
	// through %rd16, read twice, does not.
	if folds != 14 {
		t.Fatalf("%d instructions recorded as folded, want 14", folds)
	}
	if _, _, _, f := foldRun(t, false, RaceOff, 64, 64, -1, 0, 0); f != 0 {
		t.Fatalf("%d folds with folding off", f)
	}
	cases := []struct {
		name                         string
		n, block, bad, shift, sshift int
	}{
		{"full warps", 256, 128, -1, 0, 0},
		{"partial warps", 200, 80, -1, 0, 0},
		{"load out of bounds", 256, 128, 37, 1 << 20, 0},
		{"load out of bounds, lane 0", 256, 128, 64, 1 << 20, 0},
		{"load out of bounds, partial warp", 200, 80, 75, 1 << 20, 0},
		{"load before the allocation", 256, 128, 5, -1 << 20, 0},
		{"misaligned load", 256, 128, 40, 2, 0},
		{"misaligned load, partial warp", 200, 80, 78, 2, 0},
		{"store out of bounds", 256, 128, 99, 0, 1 << 20},
		{"misaligned store", 256, 128, 31, 0, 1},
		{"misaligned store, partial warp", 200, 80, 161, 0, 3},
	}
	for _, race := range []RaceMode{RaceOff, RaceOn} {
		for _, tc := range cases {
			want, msgW, nW, _ := foldRun(t, false, race, tc.n, tc.block, tc.bad, tc.shift, tc.sshift)
			got, msgG, nG, _ := foldRun(t, true, race, tc.n, tc.block, tc.bad, tc.shift, tc.sshift)
			if (msgW == "") != (tc.shift == 0 && tc.sshift == 0) {
				t.Fatalf("%s: fault %q", tc.name, msgW)
			}
			t.Logf("%s (race %d): %d executed: %s", tc.name, race, nW, msgW)
			if msgG != msgW || nG != nW {
				t.Errorf("%s (race %d):\nfolded:   %q (%d executed)\nunfolded: %q (%d executed)", tc.name, race, msgG, nG, msgW, nW)
			}
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s (race %d): thread %d stored %v folded, %v unfolded", tc.name, race, i, got[i], want[i])
				}
			}
			if msgW == "" && (want[tc.n-1] == 0 || want[2*tc.n-1] == 0) {
				t.Fatalf("%s: the last thread stored nothing", tc.name)
			}
		}
	}
}
