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
	// Seven accesses fold (two instructions recorded each), four of them
	// with the add defining a source (%rd25, %rd12, %rd21, %rd37); the
	// load through %rd16, read twice, does not, nor do the adds of
	// %rd14 and %rd11, read twice.
	if folds != 18 {
		t.Fatalf("%d instructions recorded as folded, want 18", folds)
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

// foldHistSrc counts bytes into shared bins with atom.shared.add through a
// folded address add (and its byte load and stores folded too); each
// lane adds its index, so the old values it stores show the order the
// lanes ran in. Lane bad's bin is shift bytes further.
const foldHistSrc = ptxHeader + `
.visible .entry h(.param .u64 d, .param .u64 old, .param .u64 bins, .param .u32 n, .param .u32 bad, .param .u32 shift)
{
	.reg .b32 %r<30>;
	.reg .b16 %rs<2>;
	.reg .b64 %rd<20>;
	.reg .pred %p<4>;
	.shared .align 4 .b8 sh[1024];
	ld.param.u64 %rd1, [d];
	ld.param.u64 %rd2, [old];
	ld.param.u64 %rd11, [bins];
	ld.param.u32 %r1, [n];
	ld.param.u32 %r2, [bad];
	ld.param.u32 %r3, [shift];
	mov.u32 %r4, %tid.x;
	mov.u32 %r5, sh;
	shl.b32 %r6, %r4, 2;
	add.s32 %r7, %r5, %r6;
	mov.u32 %r8, 0;
	st.shared.u32 [%r7], %r8;
	bar.sync 0;
	mov.u32 %r9, %ctaid.x;
	mov.u32 %r10, %ntid.x;
	mad.lo.s32 %r11, %r9, %r10, %r4;
	setp.ge.s32 %p1, %r11, %r1;
	@%p1 bra SKIP;
	setp.eq.s32 %p2, %r11, %r2;
	selp.b32 %r12, %r3, 0, %p2;
	cvta.to.global.u64 %rd3, %rd1;
	cvt.s64.s32 %rd4, %r11;
	add.s64 %rd5, %rd3, %rd4;
	ld.global.u8 %rs1, [%rd5];
	mul.wide.u16 %r13, %rs1, 4;
	add.s32 %r14, %r13, %r12;
	mov.u32 %r15, sh;
	add.s32 %r16, %r15, %r14;
	atom.shared.add.u32 %r17, [%r16], %r11;
	cvta.to.global.u64 %rd6, %rd2;
	mul.wide.s32 %rd7, %r11, 4;
	add.s64 %rd8, %rd6, %rd7;
	st.global.u32 [%rd8], %r17;
SKIP:
	bar.sync 0;
	ld.shared.u32 %r18, [%r7];
	mad.lo.s32 %r19, %r9, 256, %r4;
	cvta.to.global.u64 %rd12, %rd11;
	mul.wide.s32 %rd9, %r19, 4;
	add.s64 %rd10, %rd12, %rd9;
	st.global.u32 [%rd10], %r18;
	ret;
}
`

// foldHistRun launches foldHistSrc over n bytes in CTAs of 256 threads and
// returns the old values and the bins stored, the fault, the
// thread-instructions executed and the folded instructions.
func foldHistRun(t *testing.T, fold bool, race RaceMode, n, bad, shift int) ([]uint32, string, uint64, int) {
	t.Helper()
	defer func(v bool) { foldAddrs = v }(foldAddrs)
	foldAddrs = fold
	e := newEnv(t, Config{Workers: 1, RaceCheck: race})
	k := e.kernel(e.loadSrc("foldhist.ptx", foldHistSrc), "h")
	grid := (n + 255) / 256
	d := make([]byte, n)
	for i := range d {
		d[i] = byte(i*i*37/11 + i/3) // repeats within a warp
	}
	pd, pold, pbins := e.buf(d), e.buf(make([]uint32, n)), e.buf(make([]uint32, grid*256))
	p := e.kernels[k]
	folds := len(p.folds)
	prm := params(pd, pold, pbins, n, bad, shift)
	pbuf := make([]uint64, len(prm)/8+1)
	pbytes := unsafe.Slice((*byte)(unsafe.Pointer(&pbuf[0])), len(prm))
	copy(pbytes, prm)
	l := &Launch{Program: p, Host: e.host, Mem: e.mem, Config: &e.cfg, Grid: rt.D1(grid).Norm(), Block: rt.D1(256).Norm(), Params: pbytes}
	msg := ""
	if err := l.Run(); err != nil {
		msg = err.Error()
	}
	got := make([]uint32, n+grid*256)
	e.get(pold, got[:n])
	e.get(pbins, got[n:])
	return got, msg, l.Executed(), folds
}

// TestFoldAtom: a folded atom.shared.add adds, in lane order, what the add
// and the atom one by one do, and faults like them.
func TestFoldAtom(t *testing.T) {
	if _, _, _, folds := foldHistRun(t, true, RaceOff, 512, -1, 0); folds != 11 {
		// The atom (with the add of the bin's offset), the byte load
		// (with the index's cvt), two stores (one with its mul.wide).
		t.Fatalf("%d instructions recorded as folded, want 11", folds)
	}
	cases := []struct {
		name          string
		n, bad, shift int
	}{
		{"full warps", 512, -1, 0},
		{"partial warps", 400, -1, 0},
		{"bin out of bounds", 512, 300, 1 << 12},
		{"bin out of bounds, lane 0", 512, 32, 1 << 12},
		{"bin out of bounds, partial warp", 400, 395, 1 << 12},
		{"misaligned bin", 512, 77, 2},
	}
	for _, race := range []RaceMode{RaceOff, RaceOn} {
		for _, tc := range cases {
			want, msgW, nW, _ := foldHistRun(t, false, race, tc.n, tc.bad, tc.shift)
			got, msgG, nG, _ := foldHistRun(t, true, race, tc.n, tc.bad, tc.shift)
			t.Logf("%s (race %d): %d executed: %s", tc.name, race, nW, msgW)
			if (msgW == "") != (tc.shift == 0) {
				t.Fatalf("%s: fault %q", tc.name, msgW)
			}
			if msgG != msgW || nG != nW {
				t.Errorf("%s (race %d):\nfolded:   %q (%d executed)\nunfolded: %q (%d executed)", tc.name, race, msgG, nG, msgW, nW)
			}
			nonzero := 0
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s (race %d): word %d is %d folded, %d unfolded", tc.name, race, i, got[i], want[i])
				}
				if i < tc.n && want[i] != 0 {
					nonzero++
				}
			}
			if msgW == "" && nonzero < tc.n/4 {
				t.Fatalf("%s: only %d lanes found their bin in use", tc.name, nonzero)
			}
		}
	}
}
