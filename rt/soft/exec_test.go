package soft

import (
	"testing"

	"github.com/cugen/cugen/rt"
)

// warpKernel runs a one-warp (or n-thread) kernel whose body stores %r9 to
// out[tid] and returns the 32-bit results.
func warpKernel(t *testing.T, name, decls, body string, threads int) []uint32 {
	t.Helper()
	e := newEnv(t, Options{Deterministic: true})
	src := kernelSrc(".param .u64 out", decls+`
	.reg .b64 %ro<4>;
	.reg .b32 %rtid, %r9;
`+body+`
	mov.u32 %rtid, %tid.x;
	ld.param.u64 %ro1, [out];
	mul.wide.u32 %ro2, %rtid, 4;
	add.s64 %ro1, %ro1, %ro2;
	st.global.u32 [%ro1], %r9;
	ret;`)
	lib := e.loadSrc(name, src)
	out := e.buf(make([]uint32, threads))
	e.launch(e.kernel(lib, "k"), rt.D1(1), rt.D1(threads), 0, out)
	got := make([]uint32, threads)
	e.get(out, got)
	return got
}

func TestDivergenceReconverges(t *testing.T) {
	got := warpKernel(t, "div.ptx", `
	.reg .b32 %r<5>;
	.reg .pred %p<2>;`, `
	mov.u32 %r1, %laneid;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra EVEN;
	mul.lo.u32 %r3, %r1, 10;
	bra.uni JOIN;
EVEN:
	add.u32 %r3, %r1, 1000;
JOIN:
	shfl.sync.bfly.b32 %r9, %r3, 1, 31, -1;`, 32)
	for l, v := range got {
		want := uint32((l + 1) * 10) // even lanes see their odd neighbour
		if l%2 == 1 {
			want = uint32(l - 1 + 1000)
		}
		if v != want {
			t.Fatalf("lane %d: %d, want %d", l, v, want)
		}
	}
}

func TestNestedLoopsDivergent(t *testing.T) {
	got := warpKernel(t, "loops.ptx", `
	.reg .b32 %i, %j, %s, %l, %b;
	.reg .pred %p<4>;`, `
	mov.u32 %l, %laneid;
	mov.u32 %s, 0;
	mov.u32 %i, 0;
OUTER:
	setp.ge.u32 %p1, %i, %l;
	@%p1 bra DONE;
	mov.u32 %j, 0;
INNER:
	setp.ge.u32 %p2, %j, %i;
	@%p2 bra NEXT;
	add.u32 %j, %j, 1;
	add.u32 %s, %s, %j;
	bra.uni INNER;
NEXT:
	add.u32 %i, %i, 1;
	bra.uni OUTER;
DONE:
	setp.gt.u32 %p3, %s, 10;
	vote.sync.ballot.b32 %b, %p3, -1;
	add.u32 %r9, %s, %b;`, 32)
	var ballot uint32
	sums := make([]uint32, 32)
	for l := range sums {
		for i := 0; i < l; i++ {
			sums[l] += uint32(i * (i + 1) / 2)
		}
		if sums[l] > 10 {
			ballot |= 1 << l
		}
	}
	for l, v := range got {
		if v != sums[l]+ballot {
			t.Fatalf("lane %d: %d, want %d", l, v, sums[l]+ballot)
		}
	}
}

const factPTX = ptxHeader + `
.func (.param .b32 ret) fact(.param .b32 n)
{
	.local .align 4 .b8 buf[8];
	.reg .b32 %n, %m, %r;
	.reg .pred %p;
	.reg .b64 %a;
	ld.param.b32 %n, [n];
	mov.u64 %a, buf;
	st.local.u32 [%a], %n;
	setp.le.s32 %p, %n, 1;
	@%p bra BASE;
	sub.s32 %m, %n, 1;
	{
	.param .b32 p0;
	st.param.b32 [p0+0], %m;
	.param .b32 r0;
	call.uni (r0), fact, (p0);
	ld.param.b32 %r, [r0+0];
	}
	ld.local.u32 %m, [%a];
	mul.lo.s32 %r, %r, %m;
	st.param.b32 [ret+0], %r;
	ret;
BASE:
	st.param.b32 [ret+0], 1;
	ret;
}

.func (.param .b32 ret) twice(.param .b32 x)
{
	.reg .b32 %x;
	ld.param.b32 %x, [x];
	shl.b32 %x, %x, 1;
	st.param.b32 [ret+0], %x;
	ret;
}

.visible .entry k(.param .u64 out)
{
	.reg .b32 %l, %n, %f, %g, %s;
	.reg .pred %p;
	.reg .b64 %ro<3>;
	mov.u32 %l, %laneid;
	rem.u32 %n, %l, 7;
	add.u32 %n, %n, 1;
	{
	.param .b32 p0;
	st.param.b32 [p0+0], %n;
	.param .b32 r0;
	call.uni (r0), fact, (p0);
	ld.param.b32 %f, [r0+0];
	}
	mov.u32 %g, %l;
	setp.lt.u32 %p, %l, 16;
	@!%p bra SKIP;
	{
	.param .b32 p0;
	st.param.b32 [p0+0], %l;
	.param .b32 r0;
	call (r0), twice, (p0);
	ld.param.b32 %g, [r0+0];
	}
SKIP:
	shfl.sync.idx.b32 %s, %g, 3, 31, -1;
	add.u32 %f, %f, %s;
	ld.param.u64 %ro1, [out];
	mul.wide.u32 %ro2, %l, 4;
	add.s64 %ro1, %ro1, %ro2;
	st.global.u32 [%ro1], %f;
	ret;
}
`

func TestRecursionAndDivergentCalls(t *testing.T) {
	e := newEnv(t, Options{Deterministic: true})
	lib := e.loadSrc("fact.ptx", factPTX)
	out := e.buf(make([]uint32, 32))
	e.launch(e.kernel(lib, "k"), rt.D1(1), rt.D1(32), 0, out)
	got := make([]uint32, 32)
	e.get(out, got)
	fact := func(n int) uint32 {
		r := 1
		for i := 2; i <= n; i++ {
			r *= i
		}
		return uint32(r)
	}
	for l, v := range got {
		// Every lane sees lane 3's value (6) after the divergent call.
		if want := fact(l%7+1) + 6; v != want {
			t.Fatalf("lane %d: %d, want %d", l, v, want)
		}
	}
	// Deep recursion grows the stack until the limit.
	e2 := newEnv(t, Options{StackBytes: 4096})
	lib2 := e2.loadSrc("fact.ptx", factPTX)
	err := e2.launchErr(e2.kernel(lib2, "k"), rt.D1(1), rt.D1(32), 0, e2.buf(make([]uint32, 32)))
	if err != nil {
		t.Fatalf("7-deep recursion in 4 KiB of stack: %v", err)
	}
}

func TestStackOverflow(t *testing.T) {
	src := ptxHeader + `
.func inf()
{
	.local .align 8 .b8 buf[256];
	call.uni inf;
	ret;
}
.visible .entry k()
{
	call.uni inf;
	ret;
}
`
	e := newEnv(t, Options{StackBytes: 8192})
	lib := e.loadSrc("inf.ptx", src)
	wantErr(t, e.launchErr(e.kernel(lib, "k"), rt.D1(1), rt.D1(1), 0), rt.ErrHardwareStackError, `stack overflow`)
}

func TestPrintfFormats(t *testing.T) {
	src := ptxHeader + `
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 p0, .param .b64 p1);
.global .align 1 .b8 fmtstr[46] = {37,53,100,124,37,45,53,100,124,37,48,56,46,51,102,124,37,120,124,37,35,111,124,37,115,124,37,99,124,37,108,108,100,124,37,101,124,37,103,124,37,37,10};
.global .align 1 .b8 str[4] = {115, 116, 114};
.visible .entry k()
{
	.local .align 8 .b8 __local_depot0[64];
	.reg .b64 %SP, %SPL, %rd<4>;
	.reg .b32 %r<2>;
	mov.u64 %SPL, __local_depot0;
	cvta.local.u64 %SP, %SPL;
	st.local.u32 [%SPL+0], 42;
	st.local.u32 [%SPL+4], -7;
	st.local.f64 [%SPL+8], 0d400921F9F01B866E;
	st.local.u32 [%SPL+16], 255;
	st.local.u32 [%SPL+20], 8;
	mov.u64 %rd1, str;
	cvta.global.u64 %rd1, %rd1;
	st.local.u64 [%SPL+24], %rd1;
	st.local.u32 [%SPL+32], 65;
	st.local.u64 [%SPL+40], -5000000000;
	st.local.f64 [%SPL+48], 0d3F50624DD2F1A9FC;
	st.local.f64 [%SPL+56], 0d3F50624DD2F1A9FC;
	mov.u64 %rd2, fmtstr;
	cvta.global.u64 %rd2, %rd2;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd2;
	.param .b64 param1;
	st.param.b64 [param1+0], %SP;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (param0, param1);
	ld.param.b32 %r1, [retval0+0];
	}
	ret;
}
`
	e := newEnv(t, Options{Deterministic: true})
	lib := e.loadSrc("printf.ptx", src)
	e.launch(e.kernel(lib, "k"), rt.D1(2), rt.D1(2), 0)
	line := "   42|-7   |0003.142|ff|010|str|A|-5000000000|1.000000e-03|0.001|%\n"
	if got := e.out.String(); got != line+line+line+line {
		t.Fatalf("printf output:\n%q\nwant 4 × %q", got, line)
	}
}

func TestCpAsync(t *testing.T) {
	// Each thread copies 16 bytes global → shared with cp.async (thread 0
	// only 8, zero-filling the rest), waits, and reads two words back.
	src := ptxHeader + `
.global .align 16 .b8 gbuf[512] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
.visible .entry k(.param .u64 out)
{
	.shared .align 16 .b8 sbuf[512];
	.reg .b32 %t, %s, %n, %v<3>;
	.reg .b64 %g, %o, %q;
	.reg .pred %p;
	mov.u32 %t, %tid.x;
	shl.b32 %s, %t, 4;
	mov.u64 %g, gbuf;
	cvt.u64.u32 %o, %s;
	add.s64 %g, %g, %o;
	mov.u32 %n, sbuf;
	add.u32 %s, %s, %n;
	setp.eq.u32 %p, %t, 0;
	selp.u32 %n, 8, 16, %p;
	cp.async.ca.shared.global [%s], [%g], 16, %n;
	cp.async.commit_group;
	cp.async.wait_group 0;
	bar.sync 0;
	ld.shared.u32 %v1, [%s];
	ld.shared.u32 %v2, [%s+8];
	add.u32 %v0, %v1, %v2;
	ld.param.u64 %q, [out];
	mul.wide.u32 %o, %t, 4;
	add.s64 %q, %q, %o;
	st.global.u32 [%q], %v0;
	ret;
}
`
	e := newEnv(t, Options{})
	lib := e.loadSrc("cpasync.ptx", src)
	out := e.buf(make([]uint32, 32))
	e.launch(e.kernel(lib, "k"), rt.D1(1), rt.D1(32), 0, out)
	got := make([]uint32, 32)
	e.get(out, got)
	if got[0] != 0x04030201 || got[1] != 0x14131211 || got[2] != 0 {
		t.Fatalf("cp.async results %#x %#x %#x", got[0], got[1], got[2])
	}
}

func TestBarrierReductionsAndArrive(t *testing.T) {
	// 64 threads: bar.red.popc counts threads with tid%3 == 0 (22), and
	// warp 0 signals named barrier 1 with bar.arrive while warp 1 waits on
	// it, after warp 0 wrote the value warp 1 reads.
	src := ptxHeader + `
.visible .entry k(.param .u64 out)
{
	.shared .align 4 .b32 box;
	.reg .b32 %t, %c, %r, %v, %w;
	.reg .b64 %o, %q;
	.reg .pred %p, %a, %isw0;
	mov.u32 %t, %tid.x;
	rem.u32 %r, %t, 3;
	setp.eq.u32 %p, %r, 0;
	bar.red.popc.u32 %c, 0, %p;
	setp.lt.u32 %a, %t, 100;
	bar.red.and.pred %a, 0, %a;
	selp.u32 %w, 1000, 0, %a;
	add.u32 %c, %c, %w;
	setp.lt.u32 %isw0, %t, 32;
	@!%isw0 bra CONSUMER;
	st.shared.u32 [box], 77;
	bar.arrive 1, 64;
	mov.u32 %v, 0;
	bra.uni DONE;
CONSUMER:
	bar.sync 1, 64;
	ld.shared.u32 %v, [box];
DONE:
	add.u32 %c, %c, %v;
	ld.param.u64 %o, [out];
	mul.wide.u32 %q, %t, 4;
	add.s64 %o, %o, %q;
	st.global.u32 [%o], %c;
	ret;
}
`
	e := newEnv(t, Options{})
	lib := e.loadSrc("barred.ptx", src)
	out := e.buf(make([]uint32, 64))
	e.launch(e.kernel(lib, "k"), rt.D1(1), rt.D1(64), 0, out)
	got := make([]uint32, 64)
	e.get(out, got)
	for i, v := range got {
		want := uint32(22 + 1000)
		if i >= 32 {
			want += 77
		}
		if v != want {
			t.Fatalf("thread %d: %d, want %d", i, v, want)
		}
	}
}

// TestFusedLoadLoadFma checks the ld.shared+ld.shared+fma superinstruction
// against its unfused meaning, including its fallbacks.
func TestFusedLoadLoadFma(t *testing.T) {
	body := func(bad string) string {
		return `
	.shared .align 4 .f32 s[64];
	.reg .b32 %t, %o, %b, %a1, %a2;
	.reg .f32 %f1, %f2, %x, %y, %z, %u, %v, %w;
	.reg .b64 %q, %p;
	mov.u32 %t, %tid.x;
	cvt.rn.f32.u32 %f1, %t;
	shl.b32 %o, %t, 2;
	mov.u32 %b, s;
	add.u32 %a1, %b, %o;
	st.shared.f32 [%a1], %f1;
	mov.f32 %f2, 0f40000000;
	st.shared.f32 [%a1+128], %f2;
	bar.sync 0;
	mov.u32 %a2, %a1;
	` + bad + `
	ld.shared.f32 %x, [%a1];
	ld.shared.f32 %y, [%a2+128];
	fma.rn.f32 %z, %y, %x, %f1;
	ld.shared.f32 %u, [%a1];
	ld.shared.f32 %v, [%a1+128];
	fma.rn.f32 %w, %f1, %f1, %u;
	add.f32 %z, %z, %w;
	add.f32 %z, %z, %v;
	ld.param.u64 %q, [out];
	mul.wide.u32 %p, %t, 4;
	add.s64 %q, %q, %p;
	st.global.f32 [%q], %z;
	ret;`
	}
	e := newEnv(t, Options{})
	lib := e.loadSrc("fuse.ptx", kernelSrc(".param .u64 out", body("")))
	out := e.buf(make([]float32, 32))
	e.launch(e.kernel(lib, "k"), rt.D1(1), rt.D1(32), 0, out)
	got := make([]float32, 32)
	e.get(out, got)
	for i, v := range got {
		x := float32(i)
		if want := (2*x + x) + (x*x + x) + 2; v != want {
			t.Fatalf("thread %d: %v, want %v", i, v, want)
		}
	}
	// Lane 5's second address is out of range: the fallback reports it at
	// the second load.
	lib2 := e.loadSrc("fuse2.ptx", kernelSrc(".param .u64 out", ".reg .pred %pp;"+body(`setp.eq.u32 %pp, %t, 5;
	@%pp add.u32 %a2, %a2, 4096;`)))
	err := e.launchErr(e.kernel(lib2, "k"), rt.D1(1), rt.D1(32), 0, out)
	wantErr(t, err, rt.ErrIllegalAddress, `thread \(5,0,0\)`, `fuse2\.ptx:24:\d+ \(ld\.shared\.f32\)`)
}

func mx(a, b uint32) uint32 {
	if a > b {
		return a
	}
	return b
}

// TestReduxLabeledGroups: lanes of one converged warp pass different
// membermasks (cg::labeled_partition's, from match.any.sync), and each
// group reduces over its own lanes only, as the CUDA sample
// warpAggregatedAtomicsCG's per-bucket maxima need.
func TestReduxLabeledGroups(t *testing.T) {
	got := warpKernel(t, "reduxlabel.ptx", `
	.reg .b32 %l, %lab, %m, %v, %s, %x;`, `
	mov.u32 %l, %laneid;
	rem.u32 %lab, %l, 3;
	match.any.sync.b32 %m, %lab, -1;
	mul.lo.u32 %v, %l, 7;
	xor.b32 %v, %v, 21;
	redux.sync.max.u32 %x, %v, %m;
	redux.sync.add.u32 %s, %l, %m;
	mad.lo.u32 %r9, %s, 65536, %x;`, 32)
	for l, v := range got {
		var max, sum uint32
		for k := 0; k < 32; k++ {
			if k%3 == l%3 {
				max = mx(max, uint32(k*7^21))
				sum += uint32(k)
			}
		}
		if want := sum*65536 + max; v != want {
			t.Fatalf("lane %d: %#x, want %#x (max %d, sum %d of lanes ≡ %d mod 3)", l, v, want, max, sum, l%3)
		}
	}
}

// TestSpinWaitYields: warp 0 polls a shared flag (ld.acquire, as cg::reduce
// does in the reserved shared memory) that only warp 1, scheduled after it,
// sets. The polling loop must give way to warp 1; without that the launch
// runs out of its instruction budget.
func TestSpinWaitYields(t *testing.T) {
	for _, ld := range []string{"ld.acquire.cta.shared.u32", "ld.volatile.shared.u32", "ld.relaxed.cta.shared.u32"} {
		e := newEnv(t, Options{Deterministic: true, InstrBudget: 1 << 24})
		src := kernelSrc(".param .u64 out", `
	.reg .b32 %t, %f, %n;
	.reg .b64 %a<2>;
	.reg .pred %p;
	.shared .align 4 .b32 flag;
	mov.u32 %t, %tid.x;
	mov.u32 %n, 0;
	setp.ge.u32 %p, %t, 32;
	@%p bra SET;
WAIT:
	add.u32 %n, %n, 1;
	`+ld+` %f, [flag];
	setp.eq.u32 %p, %f, 0;
	@%p bra WAIT;
	ld.param.u64 %a1, [out];
	st.global.u32 [%a1], %f;
	ret;
SET:
	mov.u32 %f, 5;
	st.release.cta.shared.u32 [flag], %f;
	ret;`)
		out := e.buf(make([]uint32, 1))
		if err := e.launchErr(e.kernel(e.loadSrc("spin.ptx", src), "k"), rt.D1(1), rt.D1(64), 0, out); err != nil {
			t.Fatalf("%s: %v", ld, err)
		}
		got := make([]uint32, 1)
		e.get(out, got)
		if got[0] != 5 {
			t.Errorf("%s: warp 0 read the flag as %d, want 5", ld, got[0])
		}
	}
}
