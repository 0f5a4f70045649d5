package soft

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

const ptxHeader = softtest.PTXHeader

var (
	kernelSrc = softtest.KernelSrc
	wantErr   = softtest.WantErr
)

func TestMemcheckOOB(t *testing.T) {
	e := newEnv(t, Options{Deterministic: true})
	lib := e.load("typical_sm90.ptx")
	k := e.kernel(lib, "_Z4vaddPKfS0_Pfi")
	n := 100
	pa, pb, pc := e.buf(make([]float32, n)), e.buf(make([]float32, n)), e.buf(make([]float32, n))
	err := e.launchErr(k, rt.D1(1), rt.D1(128), 0, pa, pb, pc, 101)
	// Thread 100 reads b[100] first (ld of %rd8 comes before %rd6).
	wantErr(t, err, rt.ErrIllegalAddress,
		`kernel _Z4vaddPKfS0_Pfi, block \(0,0,0\), thread \(100,0,0\)`,
		`typical_sm90\.ptx:\d+:\d+ \(ld\.global\.f32\)`,
		`Invalid __global__ read of size 4 bytes`,
		`0x[0-9a-f]+ is out of bounds: 0 bytes after the nearest allocation at 0x[0-9a-f]+ of size 400 bytes`)
}

func TestMemcheckUseAfterFree(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.load("typical_sm90.ptx")
	k := e.kernel(lib, "_Z4vaddPKfS0_Pfi")
	n := 64
	pa, pb, pc := e.buf(make([]float32, n)), e.buf(make([]float32, n)), e.buf(make([]float32, n))
	if err := e.d.MemFree(e.ctx, pb); err != nil {
		t.Fatal(err)
	}
	// Freeing twice is an error of the call, not of a kernel.
	wantErr(t, e.d.MemFree(e.ctx, pb), rt.ErrInvalidValue)
	err := e.launchErr(k, rt.D1(1), rt.D1(64), 0, pa, pb, pc, n)
	wantErr(t, err, rt.ErrIllegalAddress, `freed`, `cuMemAlloc`)
}

func TestMemcheckMisaligned(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.loadSrc("mis.ptx", kernelSrc(".param .u64 p", `
	.reg .b64 %rd<3>;
	.reg .b32 %r<2>;
	ld.param.u64 %rd1, [p];
	add.s64 %rd2, %rd1, 2;
	ld.global.u32 %r1, [%rd2];
	ret;`))
	p := e.buf(make([]uint32, 4))
	err := e.launchErr(e.kernel(lib, "k"), rt.D1(1), rt.D1(1), 0, p)
	wantErr(t, err, rt.ErrMisalignedAddress, `mis\.ptx:11:\d+ \(ld\.global\.u32\)`, `not aligned`)
}

func TestMemcheckSharedAndNull(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.loadSrc("sh.ptx", kernelSrc(".param .u64 p", `
	.shared .align 4 .b8 buf[64];
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, buf;
	add.s32 %r2, %r2, %r3;
	st.shared.u32 [%r2], %r1;
	ret;`))
	err := e.launchErr(e.kernel(lib, "k"), rt.D1(1), rt.D1(32), 0, rt.DevPtr(0))
	wantErr(t, err, rt.ErrIllegalAddress, `thread \(16,0,0\)`, `Invalid __shared__ write of size 4`, `1088 bytes of shared memory \(the 1024 the system reserves at 0, then 64 of its own\)`)
	e.reset() // the fault is sticky

	lib2 := e.loadSrc("null.ptx", kernelSrc(".param .u64 p", `
	.reg .b64 %rd<3>;
	.reg .b32 %r<2>;
	ld.param.u64 %rd1, [p];
	ld.u32 %r1, [%rd1];
	ret;`))
	err = e.launchErr(e.kernel(lib2, "k"), rt.D1(1), rt.D1(1), 0, rt.DevPtr(0))
	wantErr(t, err, rt.ErrIllegalAddress, `null pointer`)
}

func TestMemcheckDeadlock(t *testing.T) {
	e := newEnv(t, Options{})
	// A barrier inside a divergent branch: half the threads wait on
	// barrier 1, the other half on barrier 2, each expecting everyone.
	lib := e.loadSrc("dl.ptx", kernelSrc("", `
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra A;
	bar.sync 2;
	bra.uni B;
A:
	bar.sync 1;
B:
	ret;`))
	err := e.launchErr(e.kernel(lib, "k"), rt.D1(2), rt.D1(64), 0)
	wantErr(t, err, rt.ErrLaunchFailed, `deadlock`, `barrier 1 has 16 of 64 threads`, `barrier 2 has 48 of 64`, `block \(0,0,0\)`, `dl\.ptx:\d+`)
	e.reset() // the fault is sticky

	// A thread count the CTA cannot reach.
	lib2 := e.loadSrc("dl2.ptx", kernelSrc("", `
	bar.sync 0, 64;
	ret;`))
	err = e.launchErr(e.kernel(lib2, "k"), rt.D1(1), rt.D1(32), 0)
	wantErr(t, err, rt.ErrLaunchFailed, `waits for 64 threads but the CTA has 32`)
	e.reset()

	// Threads that exit count as arrived at bar.sync without a count: no
	// deadlock when the others return early.
	lib3 := e.loadSrc("ok.ptx", kernelSrc("", `
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 40;
	@%p1 ret;
	bar.sync 0;
	ret;`))
	if err := e.launchErr(e.kernel(lib3, "k"), rt.D1(1), rt.D1(64), 0); err != nil {
		t.Fatal(err)
	}
}

func TestMemcheckBudget(t *testing.T) {
	e := newEnv(t, Options{InstrBudget: 1 << 20})
	lib := e.loadSrc("loop.ptx", kernelSrc("", `
L:
	bra.uni L;`))
	err := e.launchErr(e.kernel(lib, "k"), rt.D1(4), rt.D1(64), 0)
	wantErr(t, err, rt.ErrLaunchTimeout, `instruction budget`, `loop\.ptx:8`)
}

func TestTrapAndAssert(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.loadSrc("trap.ptx", kernelSrc("", "trap;"))
	wantErr(t, e.launchErr(e.kernel(lib, "k"), rt.D1(1), rt.D1(1), 0), rt.ErrLaunchFailed, `trap`)
	e.reset() // the fault is sticky

	src := ptxHeader + `
.extern .func __assertfail(.param .b64 a, .param .b64 b, .param .b32 c, .param .b64 d, .param .b64 e);
.global .align 1 .b8 msg[6] = {120, 32, 62, 32, 48};
.global .align 1 .b8 file[5] = {97, 46, 99, 117};
.global .align 1 .b8 fn[2] = {102};
.visible .entry k()
{
	.reg .b64 %rd<4>;
	mov.u64 %rd1, msg;
	cvta.global.u64 %rd1, %rd1;
	mov.u64 %rd2, file;
	cvta.global.u64 %rd2, %rd2;
	mov.u64 %rd3, fn;
	cvta.global.u64 %rd3, %rd3;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b64 param1;
	st.param.b64 [param1+0], %rd2;
	.param .b32 param2;
	st.param.b32 [param2+0], 7;
	.param .b64 param3;
	st.param.b64 [param3+0], %rd3;
	.param .b64 param4;
	st.param.b64 [param4+0], 1;
	call.uni __assertfail, (param0, param1, param2, param3, param4);
	}
	ret;
}
`
	lib2 := e.loadSrc("assert.ptx", src)
	e.out.Reset()
	err := e.launchErr(e.kernel(lib2, "k"), rt.D1(1), rt.D1(1), 0)
	wantErr(t, err, rt.ErrAssert, "`x > 0` failed at a.cu:7")
	if !strings.Contains(e.out.String(), "a.cu:7: f: block: [0,0,0], thread: [0,0,0] Assertion `x > 0` failed.") {
		t.Fatalf("assert output %q", e.out.String())
	}
}

func TestAsyncErrorReporting(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.load("typical_sm90.ptx")
	k := e.kernel(lib, "_Z4vaddPKfS0_Pfi")
	pa := e.buf(make([]float32, 4))
	s, err := e.d.StreamCreate(e.ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := params(pa, pa, pa, 1000)
	la := rt.LaunchArgs{Stream: s, Grid: rt.D1(4), Block: rt.D1(256), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}
	if err := e.d.Launch(k, la); err != nil {
		t.Fatalf("launch itself failed: %v", err)
	}
	err = e.d.StreamSynchronize(e.ctx, s)
	ee := wantErr(t, err, rt.ErrIllegalAddress)
	if !ee.Async || ee.Op != "cuStreamSynchronize" {
		t.Fatalf("error not marked async from the sync call: %+v", ee)
	}
	// The fault is sticky: the next sync reports it again.
	ee = wantErr(t, e.d.StreamSynchronize(e.ctx, s), rt.ErrIllegalAddress, `unusable`, `typical_sm90\.ptx`)
	if !ee.Async {
		t.Fatalf("the sticky fault is not marked async: %+v", ee)
	}
	// A synchronous copy waits for blocking streams and reports their
	// failure (in a fresh context: the first is unusable).
	e.reset()
	pa = e.buf(make([]float32, 4))
	if s, err = e.d.StreamCreate(e.ctx, 0, 0); err != nil {
		t.Fatal(err)
	}
	p = params(pa, pa, pa, 1000)
	la = rt.LaunchArgs{Stream: s, Grid: rt.D1(4), Block: rt.D1(256), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}
	if err := e.d.Launch(k, la); err != nil {
		t.Fatal(err)
	}
	var x float32
	ee = wantErr(t, e.d.MemcpyDtoH(e.ctx, unsafe.Pointer(&x), pa, 4, 0, false), rt.ErrIllegalAddress)
	if !ee.Async || ee.Op != "cuMemcpyDtoH" {
		t.Fatalf("sync copy after a failed launch: %+v", ee)
	}
	// With LaunchBlocking the launch itself reports it.
	e2 := newEnv(t, Options{LaunchBlocking: true})
	lib2 := e2.load("typical_sm90.ptx")
	pb := e2.buf(make([]float32, 4))
	err = e2.launchErr(e2.kernel(lib2, "_Z4vaddPKfS0_Pfi"), rt.D1(1), rt.D1(64), 0, pb, pb, pb, 64)
	ee = wantErr(t, err, rt.ErrIllegalAddress)
	if ee.Async || ee.Op != "cuLaunchKernel" {
		t.Fatalf("blocking launch error: %+v", ee)
	}
	// Invalid configurations fail at the launch.
	e.reset()
	pa = e.buf(make([]float32, 4))
	err = e.launchErr(k, rt.D1(1), rt.D1(2048), 0, pa, pa, pa, 1)
	wantErr(t, err, rt.ErrInvalidValue, "block 2048x1x1 is outside the device limits")
	err = e.launchErr(k, rt.D1(1), rt.D1(32), 0, pa)
	wantErr(t, err, rt.ErrInvalidValue, "parameter buffer")
}

func TestLoadErrors(t *testing.T) {
	d := New(Options{})
	_, err := d.LibraryLoad([]byte(kernelSrc("", "\tfoo.bar.u32 %r1;\n")), rt.LoadOptions{Name: "bad.ptx"})
	wantErr(t, err, rt.ErrInvalidPTX, `bad\.ptx:6`)
	_, err = d.LibraryLoad([]byte(kernelSrc("", ".reg .b32 %r<2>;\n\ttex.1d.v4.f32.s32 {%r1,%r1,%r1,%r1}, [t, {%r1}];\n")), rt.LoadOptions{Name: "tex.ptx"})
	wantErr(t, err, rt.ErrInvalidPTX, `tex\.ptx:7:\d+: tex`)
	_, err = d.LibraryLoad([]byte("\x7fELF\x02\x01\x01\x33\x07\x00\x00\x00\x00\x00\x00\x00\x02\x00\xbe\x00\x01\x00\x00\x00"), rt.LoadOptions{})
	wantErr(t, err, rt.ErrNoBinaryForGPU, `compute_90`)
	_, err = d.LibraryLoad([]byte(".version 8.0\n.target sm_100\n.address_size 64\n"), rt.LoadOptions{})
	wantErr(t, err, rt.ErrInvalidPTX, `sm_100`)
	// NUL-terminated PTX is accepted.
	if _, err := d.LibraryLoad(append([]byte(kernelSrc("", "ret;")), 0, 0), rt.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
}
