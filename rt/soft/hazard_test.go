package soft

import (
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// TestHostHazards: a synchronous copy that touches what unsynchronized work
// on a non-blocking stream writes (or reads, for a host write) is refused,
// naming both sides, whether or not that work happens to be done; each way
// of synchronizing ends it.
func TestHostHazards(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.load("typical_sm90.ptx")
	vadd := e.kernel(lib, "_Z4vaddPKfS0_Pfi")
	const n = 1 << 12
	a, b, c := e.buf(make([]float32, n)), e.buf(make([]float32, n)), e.buf(make([]float32, n))
	s, err := e.d.StreamCreate(e.ctx, streamNonBlocking, 0)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := e.d.EventCreate(e.ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	host := make([]float32, n)
	hp := unsafe.Pointer(&host[0])
	launch := func() {
		t.Helper()
		p := params(a, b, c, n)
		if err := e.d.Launch(vadd, rt.LaunchArgs{Stream: s, Grid: rt.D1(n / 256), Block: rt.D1(256), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}); err != nil {
			t.Fatal(err)
		}
	}
	readC := func() error { return e.d.MemcpyDtoH(e.ctx, hp, c, 4*n, 0, false) }

	launch()
	// Done or not, the host has not synchronized with it.
	e.d.streams[s].last().wait()
	wantErr(t, readC(), rt.ErrIllegalState, `host/device hazard: this synchronous call reads \[0x[0-9a-f]+, 0x[0-9a-f]+\) of the 16384-byte allocation at 0x[0-9a-f]+ \(cuMemAlloc\) in context 0x[0-9a-f]+, which kernel _Z4vaddPKfS0_Pfi, launched on stream 0x[0-9a-f]+ of context 0x[0-9a-f]+, not synchronized with since, may write`)
	wantErr(t, e.d.MemsetD8(e.ctx, c+8, 0, 4, 0, false), rt.ErrIllegalState, `writes .* may write`)
	// vadd only reads a: the host may read it, not write it.
	if err := e.d.MemcpyDtoH(e.ctx, hp, a, 4*n, 0, false); err != nil {
		t.Errorf("reading an input the kernel only reads: %v", err)
	}
	wantErr(t, e.d.MemcpyHtoD(e.ctx, a, hp, 16, 0, false), rt.ErrIllegalState, `writes .* kernel _Z4vaddPKfS0_Pfi, .* reads`)
	wantErr(t, e.d.MemcpyDtoD(e.ctx, b, c, 16, 0, false), rt.ErrIllegalState, `reads .* may write`)

	// Each way of synchronizing ends the hazard.
	for _, sync := range []struct {
		name string
		fn   func() error
	}{
		{"StreamSynchronize", func() error { return e.d.StreamSynchronize(e.ctx, s) }},
		{"CtxSynchronize", func() error { return e.d.CtxSynchronize(e.ctx) }},
		{"EventSynchronize", func() error {
			if err := e.d.EventRecord(e.ctx, ev, s); err != nil {
				return err
			}
			return e.d.EventSynchronize(e.ctx, ev)
		}},
		{"StreamWaitEvent on the NULL stream", func() error {
			if err := e.d.EventRecord(e.ctx, ev, s); err != nil {
				return err
			}
			return e.d.StreamWaitEvent(e.ctx, 0, ev, 0)
		}},
		{"StreamQuery", func() error {
			for {
				if done, err := e.d.StreamQuery(e.ctx, s); done || err != nil {
					return err
				}
			}
		}},
		{"EventQuery", func() error {
			if err := e.d.EventRecord(e.ctx, ev, s); err != nil {
				return err
			}
			for {
				if done, err := e.d.EventQuery(e.ctx, ev); done || err != nil {
					return err
				}
			}
		}},
	} {
		launch()
		if err := sync.fn(); err != nil {
			t.Fatalf("%s: %v", sync.name, err)
		}
		if err := readC(); err != nil {
			t.Errorf("after %s: %v", sync.name, err)
		}
	}

	// An event recorded before the launch orders nothing after it.
	if err := e.d.EventRecord(e.ctx, ev, s); err != nil {
		t.Fatal(err)
	}
	launch()
	if err := e.d.EventSynchronize(e.ctx, ev); err != nil {
		t.Fatal(err)
	}
	wantErr(t, readC(), rt.ErrIllegalState, `kernel _Z4vaddPKfS0_Pfi`)
	if err := e.d.StreamSynchronize(e.ctx, s); err != nil {
		t.Fatal(err)
	}

	// An async copy: its exact range.
	if err := e.d.MemcpyHtoD(e.ctx, c, hp, 2*n, s, true); err != nil {
		t.Fatal(err)
	}
	wantErr(t, e.d.MemcpyDtoH(e.ctx, hp, c+4, 8, 0, false), rt.ErrIllegalState, `cuMemcpyHtoDAsync on stream 0x[0-9a-f]+ of context 0x[0-9a-f]+, not synchronized with since, may write`)
	if err := e.d.MemcpyDtoH(e.ctx, hp, c+2*n, 2*n, 0, false); err != nil {
		t.Errorf("reading the half the async copy does not write: %v", err)
	}
	if err := e.d.StreamSynchronize(e.ctx, s); err != nil {
		t.Fatal(err)
	}

	// Blocking streams are waited for by the NULL stream: no hazard.
	bs, err := e.d.StreamCreate(e.ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := params(a, b, c, n)
	if err := e.d.Launch(vadd, rt.LaunchArgs{Stream: bs, Grid: rt.D1(n / 256), Block: rt.D1(256), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}); err != nil {
		t.Fatal(err)
	}
	if err := readC(); err != nil {
		t.Errorf("a copy after a launch on a blocking stream: %v", err)
	}
}

// TestKernelWrites: the trace from parameters to store addresses.
func TestKernelWrites(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.load("typical_sm90.ptx")
	for _, c := range []struct {
		kernel string
		want   writeSet
	}{
		{"_Z4vaddPKfS0_Pfi", writeSet{slots: 1 << 2}}, // c
		{"_Z5saxpyifPKfPf", writeSet{slots: 1 << 2}},  // n, a at 0, 4; x at 8, y at 16
	} {
		if got := e.d.kernelWrites(e.d.kernels[e.kernel(lib, c.kernel)]); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.kernel, got, c.want)
		}
	}
	src := ptxHeader + `
.global .align 8 .u64 where;
.global .align 4 .u32 count;
.func store(.param .b64 p)
{
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	st.global.u32 [%rd1], 1;
	ret;
}
.visible .entry viaLoad(.param .u64 a)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [a];
	ld.global.u64 %rd2, [%rd1];
	st.global.u32 [%rd2], 1;
	ret;
}
.visible .entry viaVar(.param .u64 a)
{
	.reg .b32 %r<2>;
	atom.global.add.u32 %r1, [count], 1;
	ret;
}
.visible .entry viaCall(.param .u64 a, .param .u64 b)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [b];
	cvta.to.global.u64 %rd2, %rd1;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd2;
	call.uni store, (param0);
	}
	ret;
}
.visible .entry sharedOnly(.param .u64 a)
{
	.shared .align 4 .b8 s[64];
	.reg .b32 %r<3>;
	mov.u32 %r1, s;
	st.shared.u32 [%r1], 1;
	mov.u32 %r2, %tid.x;
	ret;
}
`
	lib2 := e.loadSrc("writes.ptx", src)
	for _, c := range []struct {
		kernel string
		want   writeSet
	}{
		{"viaLoad", writeSet{unknown: true}},
		{"viaVar", writeSet{vars: true}},
		{"viaCall", writeSet{slots: 1 << 1}},
		{"sharedOnly", writeSet{}},
	} {
		if got := e.d.kernelWrites(e.d.kernels[e.kernel(lib2, c.kernel)]); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.kernel, got, c.want)
		}
	}
}
