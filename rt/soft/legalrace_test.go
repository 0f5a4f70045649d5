package soft

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// Kernels whose blocks touch the same memory in ways CUDA allows: run
// under go test -race, soft's own Go code must not be reported (the kernel's
// races are the GPU's business, and racecheck's when asked). Each test also
// checks the result, so that in every build it tests the kernel too. The
// launches use eight workers so that blocks run on goroutines at once.

var racyOpts = Options{Workers: 8}

// Several blocks store the same flag: if (x[i] > t) *flag = 1; and each
// block stores a byte of its own beside the others' (one word, several
// goroutines: the stores must not tear each other's bytes).
func TestLegalRaceSharedFlag(t *testing.T) {
	e := newEnv(t, racyOpts)
	lib := e.loadSrc("flag.ptx", ptxHeader+`
.visible .entry flag(.param .u64 px, .param .u64 pflag, .param .u64 pseen, .param .f32 t, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b16 %h1;
	.reg .b32 %r<7>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [px];
	ld.param.u64 %rd2, [pflag];
	ld.param.u64 %rd6, [pseen];
	ld.param.f32 %f1, [t];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	cvta.to.global.u64 %rd6, %rd6;
	cvt.u64.u32 %rd7, %r2;
	add.s64 %rd7, %rd6, %rd7;
	mov.u16 %h1, 1;
	st.global.u8 [%rd7], %h1;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd3, %rd1;
	mul.wide.u32 %rd4, %r5, 4;
	add.s64 %rd5, %rd3, %rd4;
	ld.global.f32 %f2, [%rd5];
	setp.gt.f32 %p2, %f2, %f1;
	@!%p2 bra DONE;
	cvta.to.global.u64 %rd3, %rd2;
	mov.u32 %r6, 1;
	st.global.u32 [%rd3], %r6;
DONE:
	ret;
}
`)
	k := e.kernel(lib, "flag")
	const n, blocks = 256 * 256, 256
	x := make([]float32, n)
	r := rand.New(rand.NewPCG(7, 8))
	for i := range x {
		x[i] = r.Float32()
	}
	for _, c := range []struct {
		t    float32
		want uint32
	}{{0.5, 1}, {2, 0}, {0.5, 1}, {0.99, 1}, {0.5, 1}} {
		flag := e.buf(make([]uint32, 1))
		seen := e.buf(make([]byte, blocks))
		e.launch(k, rt.D1(blocks), rt.D1(256), 0, e.buf(x), flag, seen, c.t, uint32(n))
		got := make([]uint32, 1)
		e.get(flag, got)
		if got[0] != c.want {
			t.Errorf("t = %v: flag %d, want %d", c.t, got[0], c.want)
		}
		s := make([]byte, blocks)
		e.get(seen, s)
		for i, b := range s {
			if b != 1 {
				t.Errorf("block %d's byte is %d", i, b)
			}
		}
	}
}

// The last block of a reduction finds itself by an atomic counter, after
// every block stored its partial sum and fenced (__threadfence), and reads
// the others' partials: CUDA's threadFenceReduction pattern.
func TestLegalRaceLastBlockReduction(t *testing.T) {
	e := newEnv(t, racyOpts)
	lib := e.loadSrc("lastblock.ptx", ptxHeader+`
.visible .entry sum(.param .u64 px, .param .u64 ppart, .param .u64 pcount, .param .u64 pout)
{
	.reg .pred %p<5>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	.shared .align 4 .b8 sh[1024];
	ld.param.u64 %rd1, [px];
	ld.param.u64 %rd2, [ppart];
	ld.param.u64 %rd3, [pcount];
	ld.param.u64 %rd4, [pout];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	cvta.to.global.u64 %rd3, %rd3;
	cvta.to.global.u64 %rd4, %rd4;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %nctaid.x;
	mad.lo.s32 %r4, %r1, 256, %r2;
	mul.wide.u32 %rd5, %r4, 4;
	add.s64 %rd6, %rd1, %rd5;
	ld.global.u32 %r5, [%rd6];
	mov.u32 %r6, sh;
	shl.b32 %r7, %r2, 2;
	add.s32 %r8, %r6, %r7;
	st.shared.u32 [%r8], %r5;
	bar.sync 0;
	mov.u32 %r9, 128;
HALVE:
	setp.ge.u32 %p1, %r2, %r9;
	@%p1 bra SKIP;
	shl.b32 %r10, %r9, 2;
	add.s32 %r11, %r8, %r10;
	ld.shared.u32 %r12, [%r11];
	ld.shared.u32 %r13, [%r8];
	add.s32 %r13, %r13, %r12;
	st.shared.u32 [%r8], %r13;
SKIP:
	bar.sync 0;
	shr.u32 %r9, %r9, 1;
	setp.ne.u32 %p2, %r9, 0;
	@%p2 bra HALVE;
	setp.ne.u32 %p3, %r2, 0;
	@%p3 bra DONE;
	ld.shared.u32 %r5, [%r6];
	mul.wide.u32 %rd7, %r1, 4;
	add.s64 %rd8, %rd2, %rd7;
	st.global.u32 [%rd8], %r5;
	membar.gl;
	atom.global.add.u32 %r14, [%rd3], 1;
	add.s32 %r14, %r14, 1;
	setp.ne.u32 %p4, %r14, %r3;
	@%p4 bra DONE;
	mov.u32 %r15, 0;
	mov.u32 %r10, 0;
	mov.u64 %rd9, %rd2;
LAST:
	ld.global.u32 %r12, [%rd9];
	add.s32 %r15, %r15, %r12;
	add.s64 %rd9, %rd9, 4;
	add.s32 %r10, %r10, 1;
	setp.lt.u32 %p1, %r10, %r3;
	@%p1 bra LAST;
	st.global.u32 [%rd4], %r15;
DONE:
	ret;
}
`)
	const blocks = 96
	x := make([]uint32, blocks*256)
	var want uint32
	for i := range x {
		x[i] = uint32(i*7 + 3)
		want += x[i]
	}
	part, count, out := e.buf(make([]uint32, blocks)), e.buf(make([]uint32, 1)), e.buf(make([]uint32, 1))
	e.launch(e.kernel(lib, "sum"), rt.D1(blocks), rt.D1(256), 0, e.buf(x), part, count, out)
	got := make([]uint32, 1)
	e.get(out, got)
	if got[0] != want {
		t.Errorf("the last block summed %d, want %d", got[0], want)
	}
}

// A histogram: every thread adds to a global bin with atom.global.add.
func TestLegalRaceHistogram(t *testing.T) {
	e := newEnv(t, racyOpts)
	lib := e.loadSrc("hist.ptx", ptxHeader+`
.visible .entry hist(.param .u64 px, .param .u64 pbins, .param .u32 n)
{
	.reg .pred %p1;
	.reg .b32 %r<9>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [px];
	ld.param.u64 %rd2, [pbins];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd3, %rd1;
	mul.wide.u32 %rd4, %r5, 4;
	add.s64 %rd5, %rd3, %rd4;
	ld.global.u32 %r6, [%rd5];
	and.b32 %r7, %r6, 63;
	cvta.to.global.u64 %rd6, %rd2;
	mul.wide.u32 %rd7, %r7, 4;
	add.s64 %rd6, %rd6, %rd7;
	atom.global.add.u32 %r8, [%rd6], 1;
DONE:
	ret;
}
`)
	const n = 128 * 256
	x := make([]uint32, n)
	want := make([]uint32, 64)
	r := rand.New(rand.NewPCG(9, 10))
	for i := range x {
		x[i] = r.Uint32()
		want[x[i]&63]++
	}
	bins := e.buf(make([]uint32, 64))
	e.launch(e.kernel(lib, "hist"), rt.D1(n/256), rt.D1(256), 0, e.buf(x), bins, uint32(n))
	got := make([]uint32, 64)
	e.get(bins, got)
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("bin %d: %d, want %d", i, got[i], want[i])
		}
	}
}

// Two streams touch one buffer, ordered by an event: a kernel on s1 fills
// it, s2 waits for the event recorded after it, then a kernel on s2 reads
// it and a copy on s2 brings the result back, while s1 goes on clearing
// another part of the buffer.
func TestLegalRaceStreamsOrderedByEvent(t *testing.T) {
	e := newEnv(t, racyOpts)
	lib := e.loadSrc("streams.ptx", ptxHeader+`
.visible .entry fill(.param .u64 pbuf)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [pbuf];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r2, %r1, 256, %r3;
	mul.lo.s32 %r3, %r2, 3;
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
.visible .entry twice(.param .u64 pbuf, .param .u64 pout)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [pbuf];
	ld.param.u64 %rd4, [pout];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd4, %rd4;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r2, %r1, 256, %r3;
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.u32 %r3, [%rd3];
	add.s32 %r3, %r3, %r3;
	add.s64 %rd5, %rd4, %rd2;
	st.global.u32 [%rd5], %r3;
	ret;
}
`)
	const n = 64 * 256
	d := e.d
	s1, err := d.StreamCreate(e.ctx, streamNonBlocking, 0)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := d.StreamCreate(e.ctx, streamNonBlocking, 0)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := d.EventCreate(e.ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	buf, out := e.buf(make([]uint32, 2*n)), e.buf(make([]uint32, n))
	launch := func(s rt.StreamHandle, name string, args ...any) {
		t.Helper()
		p := params(args...)
		if err := d.Launch(e.kernel(lib, name), rt.LaunchArgs{Stream: s, Grid: rt.D1(n / 256), Block: rt.D1(256),
			Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}); err != nil {
			t.Fatal(err)
		}
	}
	launch(s1, "fill", buf)
	if err := d.EventRecord(e.ctx, ev, s1); err != nil {
		t.Fatal(err)
	}
	if err := d.StreamWaitEvent(e.ctx, s2, ev, 0); err != nil {
		t.Fatal(err)
	}
	launch(s2, "twice", buf, out)
	// s1 goes on with the buffer's other half while s2 reads the first.
	if err := d.MemsetD32(e.ctx, buf+4*n, 7, n, s1, true); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, n)
	if err := d.MemcpyDtoH(e.ctx, unsafe.Pointer(&got[0]), out, 4*n, s2, true); err != nil {
		t.Fatal(err)
	}
	for _, s := range []rt.StreamHandle{s1, s2} {
		if err := d.StreamSynchronize(e.ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range got {
		if v != uint32(6*i) {
			t.Fatalf("out[%d] = %d, want %d", i, v, 6*i)
		}
	}
	rest := make([]uint32, n)
	e.get(buf+4*n, rest)
	for i, v := range rest {
		if v != 7 {
			t.Fatalf("buf[%d] = %d, want 7", n+i, v)
		}
	}
}
