package soft

import (
	"testing"

	"github.com/cugen/cugen/rt"
)

// allocaPTX: each thread sums 1..n over rounds of VLAs (alloca of n*4 bytes,
// filled with 1..n and summed back, released by stackrestore so every round
// reuses the same memory), then asks a function that allocas its own
// buffer (and calls a second one that does) for a sum. out[3t..3t+2]: the
// VLA sums over all rounds, 1 if every round got the first round's
// pointer, and the called function's result.
const allocaPTX = ptxHeader + `
.func (.param .b32 r) leaf(.param .b32 n)
{
	.reg .b32 %n, %i, %s, %v;
	.reg .b64 %p, %q, %o;
	.reg .pred %lp;
	ld.param.b32 %n, [n];
	mul.wide.u32 %o, %n, 4;
	alloca.u64 %p, %o, 16;
	mov.u32 %i, 0;
	mov.b64 %q, %p;
FILL:
	mul.lo.u32 %v, %i, 3;
	st.local.u32 [%q], %v;
	add.s64 %q, %q, 4;
	add.u32 %i, %i, 1;
	setp.lt.u32 %lp, %i, %n;
	@%lp bra FILL;
	mov.u32 %s, 0;
SUM:
	sub.s64 %q, %q, 4;
	ld.local.u32 %v, [%q];
	add.u32 %s, %s, %v;
	setp.gt.u64 %lp, %q, %p;
	@%lp bra SUM;
	st.param.b32 [r], %s;
	ret;
}

.func (.param .b32 r) mid(.param .b32 n)
{
	.reg .b32 %n, %a, %b;
	.reg .b64 %p, %s0, %s1, %g;
	ld.param.b32 %n, [n];
	alloca.u64 %p, 8;
	stacksave.u64 %s0;
	st.local.u32 [%p], %n;
	{
	.param .b32 pn;
	st.param.b32 [pn], %n;
	.param .b32 pr;
	call (pr), leaf, (pn);
	ld.param.b32 %a, [pr];
	}
	// leaf's allocation was released when it returned.
	stacksave.u64 %s1;
	sub.s64 %s1, %s1, %s0;
	cvt.u32.u64 %b, %s1;
	add.u32 %a, %a, %b;
	// Through a generic pointer.
	cvta.local.u64 %g, %p;
	ld.u32 %b, [%g];
	add.u32 %a, %a, %b;
	st.param.b32 [r], %a;
	ret;
}

.visible .entry k(.param .u64 out)
{
	.reg .b32 %t, %n, %i, %v, %s, %round, %same;
	.reg .b64 %p, %p0, %q, %o, %sv, %dst;
	.reg .pred %lp;
	mov.u32 %t, %tid.x;
	add.u32 %n, %t, 1;
	mov.u32 %s, 0;
	mov.u32 %round, 0;
	mov.u32 %same, 1;
ROUND:
	stacksave.u64 %sv;
	mul.wide.u32 %o, %n, 4;
	alloca.u64 %p, %o;
	setp.eq.u32 %lp, %round, 0;
	@%lp mov.b64 %p0, %p;
	setp.ne.u64 %lp, %p, %p0;
	@%lp mov.u32 %same, 0;
	mov.u32 %i, 0;
	mov.b64 %q, %p;
FILL:
	add.u32 %v, %i, 1;
	st.local.u32 [%q], %v;
	add.s64 %q, %q, 4;
	add.u32 %i, %i, 1;
	setp.lt.u32 %lp, %i, %n;
	@%lp bra FILL;
	mov.b64 %q, %p;
	mov.u32 %i, 0;
SUM:
	ld.local.u32 %v, [%q];
	add.u32 %s, %s, %v;
	add.s64 %q, %q, 4;
	add.u32 %i, %i, 1;
	setp.lt.u32 %lp, %i, %n;
	@%lp bra SUM;
	stackrestore.u64 %sv;
	add.u32 %round, %round, 1;
	setp.lt.u32 %lp, %round, 5;
	@%lp bra ROUND;
	ld.param.u64 %dst, [out];
	mul.wide.u32 %o, %t, 12;
	add.s64 %dst, %dst, %o;
	st.global.u32 [%dst], %s;
	st.global.u32 [%dst+4], %same;
	{
	.param .b32 pn;
	st.param.b32 [pn], %n;
	.param .b32 pr;
	call (pr), mid, (pn);
	ld.param.b32 %v, [pr];
	}
	st.global.u32 [%dst+8], %v;
	ret;
}
`

func TestAllocaVLA(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.loadSrc("alloca.ptx", allocaPTX)
	const n = 70 // three warps, the last partial: lanes of one warp allocate different sizes
	out := e.buf(make([]uint32, 3*n))
	e.launch(e.kernel(lib, "k"), rt.D1(2), rt.D1(n), 0, out)
	got := make([]uint32, 3*n)
	e.get(out, got)
	for i := 0; i < n; i++ {
		k := uint32(i + 1)
		if want := 5 * k * (k + 1) / 2; got[3*i] != want {
			t.Errorf("thread %d: VLA sums %d, want %d", i, got[3*i], want)
		}
		if got[3*i+1] != 1 {
			t.Errorf("thread %d: alloca after stackrestore returned a different pointer", i)
		}
		// leaf: 3*(0+..+k-1); mid adds 0 (its stack pointer is back
		// where it was before the call) and its own k.
		if want := 3*k*(k-1)/2 + k; got[3*i+2] != want {
			t.Errorf("thread %d: called functions give %d, want %d", i, got[3*i+2], want)
		}
	}
}

// Recursion: depth(n) allocas n+1 words at each level, fills them with
// n, recurses and then checks its words survived the deeper levels: it
// returns the sum of n*(n+1) over the levels, or 1<<31 if a word changed.
func TestAllocaRecursion(t *testing.T) {
	src := ptxHeader + `
.func (.param .b32 r) depth(.param .b32 n)
{
	.reg .b32 %n, %i, %v, %s, %m;
	.reg .b64 %p, %q, %o;
	.reg .pred %lp, %z;
	ld.param.b32 %n, [n];
	add.u32 %m, %n, 1;
	mul.wide.u32 %o, %m, 4;
	alloca.u64 %p, %o;
	mov.b64 %q, %p;
	mov.u32 %i, 0;
F:
	st.local.u32 [%q], %n;
	add.s64 %q, %q, 4;
	add.u32 %i, %i, 1;
	setp.lt.u32 %lp, %i, %m;
	@%lp bra F;
	mov.u32 %s, 0;
	setp.eq.u32 %z, %n, 0;
	@%z bra CHECK;
	sub.u32 %v, %n, 1;
	{
	.param .b32 pn;
	st.param.b32 [pn], %v;
	.param .b32 pr;
	call (pr), depth, (pn);
	ld.param.b32 %s, [pr];
	}
CHECK:
	mov.b64 %q, %p;
	mov.u32 %i, 0;
C:
	ld.local.u32 %v, [%q];
	setp.ne.u32 %lp, %v, %n;
	@%lp or.b32 %s, %s, 0x80000000;
	add.u32 %s, %s, %v;
	add.s64 %q, %q, 4;
	add.u32 %i, %i, 1;
	setp.lt.u32 %lp, %i, %m;
	@%lp bra C;
	st.param.b32 [r], %s;
	ret;
}

.visible .entry k(.param .u64 out)
{
	.reg .b32 %t, %v;
	.reg .b64 %dst, %o;
	mov.u32 %t, %tid.x;
	and.b32 %t, %t, 7;
	{
	.param .b32 pn;
	st.param.b32 [pn], %t;
	.param .b32 pr;
	call (pr), depth, (pn);
	ld.param.b32 %v, [pr];
	}
	// Back in the kernel, the dynamic stack is empty again.
	stacksave.u64 %o;
	cvt.u32.u64 %t, %o;
	and.b32 %t, %t, 0x7fffffff;
	shl.b32 %t, %t, 16;
	or.b32 %v, %v, %t;
	mov.u32 %t, %tid.x;
	ld.param.u64 %dst, [out];
	mul.wide.u32 %o, %t, 4;
	add.s64 %dst, %dst, %o;
	st.global.u32 [%dst], %v;
	ret;
}
`
	e := newEnv(t, Options{})
	lib := e.loadSrc("rec.ptx", src)
	out := e.buf(make([]uint32, 32))
	e.launch(e.kernel(lib, "k"), rt.D1(1), rt.D1(32), 0, out)
	got := make([]uint32, 32)
	e.get(out, got)
	for i, v := range got {
		want := uint32(0)
		for n := uint32(0); n <= uint32(i%8); n++ {
			want += n * (n + 1)
		}
		if v != want {
			t.Errorf("lane %d: %#x, want %#x", i, v, want)
		}
	}
}

func TestAllocaOverflow(t *testing.T) {
	// Each round allocates 1 KiB and never releases it.
	src := kernelSrc(".param .u64 out", `
	.reg .b64 %p, %q;
	.reg .b32 %i;
	.reg .pred %lp;
	mov.u32 %i, 0;
L:
	alloca.u64 %p, 1024;
	st.local.u32 [%p+1020], %i;
	add.u32 %i, %i, 1;
	setp.lt.u32 %lp, %i, 100;
	@%lp bra L;
	ld.param.u64 %q, [out];
	st.global.u32 [%q], %i;
	ret;`)
	e := newEnv(t, Options{StackBytes: 64 << 10})
	lib := e.loadSrc("overflow.ptx", src)
	out := e.buf(make([]uint32, 1))
	wantErr(t, e.launchErr(e.kernel(lib, "k"), rt.D1(1), rt.D1(32), 0, out), rt.ErrHardwareStackError, `stack overflow: alloca of 1024 bytes`)
	// 100 KiB fits a larger limit.
	e2 := newEnv(t, Options{StackBytes: 128 << 10})
	lib2 := e2.loadSrc("overflow.ptx", src)
	out2 := e2.buf(make([]uint32, 1))
	e2.launch(e2.kernel(lib2, "k"), rt.D1(1), rt.D1(32), 0, out2)
	got := make([]uint32, 1)
	e2.get(out2, got)
	if got[0] != 100 {
		t.Fatalf("100 rounds of alloca: %d", got[0])
	}
}

func TestAllocaBadAccess(t *testing.T) {
	// Reading past the allocation, and through a pointer stackrestore freed.
	for _, tc := range []struct {
		name, body string
		code       rt.Result
		want       string
	}{
		{"past", `
	alloca.u64 %p, 16;
	ld.local.u32 %v, [%p+16];`, rt.ErrIllegalAddress, `outside the thread's dynamic stack`},
		{"freed", `
	stacksave.u64 %s;
	alloca.u64 %p, 16;
	stackrestore.u64 %s;
	ld.local.u32 %v, [%p];`, rt.ErrIllegalAddress, `outside the thread's dynamic stack`},
		{"restore", `
	stacksave.u64 %s;
	add.s64 %s, %s, 64;
	stackrestore.u64 %s;`, rt.ErrHardwareStackError, `stackrestore to`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := kernelSrc("", "\t.reg .b64 %p, %s;\n\t.reg .b32 %v;"+tc.body+"\n\tret;")
			e := newEnv(t, Options{})
			lib := e.loadSrc("bad.ptx", src)
			wantErr(t, e.launchErr(e.kernel(lib, "k"), rt.D1(1), rt.D1(1), 0), tc.code, tc.want)
		})
	}
}

func TestAllocaDecodeErrors(t *testing.T) {
	for _, body := range []string{
		"alloca.u64 %p, 16, 3;",
		"alloca.u64 %p, 16, %p;",
		"alloca.b64 %p, 16;",
		"stacksave.u64 %p, %p;",
	} {
		e := newEnv(t, Options{})
		_, err := e.loadNamed([]byte(kernelSrc("", "\t.reg .b64 %p;\n\t"+body+"\n\tret;")), "bad.ptx")
		if err == nil {
			t.Errorf("%s: loaded", body)
		}
	}
}
