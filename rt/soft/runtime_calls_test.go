package soft

import (
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

const heapPTX = `
.version 8.0
.target sm_90
.address_size 64

.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.extern .func free(.param .b64 free_param_0);

// grab: each thread mallocs size bytes and writes the pointer to out.
.visible .entry grab(.param .u64 out, .param .u64 size)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [size];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 8;
	add.s64 %rd4, %rd1, %rd3;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd2;
	.param .b64 retval0;
	call.uni (retval0), malloc, (param0);
	ld.param.b64 %rd5, [retval0+0];
	}
	st.global.u64 [%rd4], %rd5;
	ret;
}

// release frees the pointers of out (one per thread).
.visible .entry release(.param .u64 out)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 8;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.u64 %rd5, [%rd4];
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd5;
	call.uni free, (param0);
	}
	ret;
}

// poke writes at byte off of the pointer out[0].
.visible .entry poke(.param .u64 out, .param .u64 off)
{
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [off];
	ld.global.u64 %rd3, [%rd1];
	add.s64 %rd4, %rd3, %rd2;
	st.global.u8 [%rd4], 1;
	ret;
}
`

// TestDeviceHeap: malloc's heap is bounded per context (NULL beyond it,
// room again after free), allocations outlive their launch, and a write
// past one, a free of something malloc did not return and a double free
// are errors naming them.
func TestDeviceHeap(t *testing.T) {
	e := newEnv(t, Options{MallocHeapBytes: 64 << 10})
	lib := e.loadSrc("heap.ptx", heapPTX)
	grab, release, poke := e.kernel(lib, "grab"), e.kernel(lib, "release"), e.kernel(lib, "poke")
	ptrs := e.buf(make([]uint64, 32))
	e.launch(grab, rt.D1(1), rt.D1(32), 0, ptrs, uint64(4000))
	got := make([]uint64, 32)
	e.get(ptrs, got)
	n := 0
	for _, p := range got {
		if p != 0 {
			n++
			if p%16 != 0 {
				t.Errorf("malloc returned %#x, not 16-byte aligned", p)
			}
		}
	}
	// 64 KiB holds 16 blocks of 4000 bytes (rounded to 4000).
	if n != 16 {
		t.Errorf("%d of 32 mallocs of 4000 bytes fit a 64 KiB heap, want 16", n)
	}
	e.launch(release, rt.D1(1), rt.D1(32), 0, ptrs)
	e.launch(grab, rt.D1(1), rt.D1(16), 0, ptrs, uint64(4000))
	e.get(ptrs, got)
	for i, p := range got[:16] {
		if p == 0 {
			t.Fatalf("malloc %d returned NULL after the heap was freed", i)
		}
	}
	e.launch(poke, rt.D1(1), rt.D1(1), 0, ptrs, uint64(3999))
	err := e.launchErr(poke, rt.D1(1), rt.D1(1), 0, ptrs, uint64(4000))
	if want := "0 bytes after the nearest allocation at"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	e.reset() // the fault is sticky: a fresh context, whose heap never returned ptrs
	err = e.launchErr(release, rt.D1(1), rt.D1(1), 0, e.buf([]uint64{uint64(ptrs)}))
	if want := "which malloc did not return"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	e2 := newEnv(t, Options{})
	lib = e2.loadSrc("heap.ptx", heapPTX)
	p := e2.buf(make([]uint64, 1))
	e2.launch(e2.kernel(lib, "grab"), rt.D1(1), rt.D1(1), 0, p, uint64(64))
	e2.get(p, got[:1])
	if err := e2.r.MemFree(e2.ctx, rt.DevPtr(got[0])); err == nil {
		t.Errorf("cuMemFree freed device-malloc memory")
	}
	e2.launch(e2.kernel(lib, "release"), rt.D1(1), rt.D1(1), 0, p)
	err = e2.launchErr(e2.kernel(lib, "release"), rt.D1(1), rt.D1(1), 0, p)
	if err == nil || !strings.Contains(err.Error(), "already freed") && !strings.Contains(err.Error(), "did not return") {
		t.Errorf("double free: %v", err)
	}
}

const indirectPTX = `
.version 8.0
.target sm_90
.address_size 64

.func (.param .b32 r) twice(.param .b32 a)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [a];
	add.s32 %r2, %r1, %r1;
	st.param.b32 [r], %r2;
	ret;
}

.func (.param .b64 r) wide(.param .b64 a)
{
	.reg .b64 %rd<3>;
	ld.param.b64 %rd1, [a];
	st.param.b64 [r], %rd1;
	ret;
}

.global .align 8 .u64 fns[2] = {twice, wide};

// call calls fns[which] (or the address target when which is 2) with 21.
.visible .entry call(.param .u64 out, .param .u32 which, .param .u64 target)
{
	.reg .pred %p1;
	.reg .b32 %r<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [which];
	ld.param.u64 %rd5, [target];
	mul.wide.u32 %rd2, %r1, 8;
	mov.u64 %rd3, fns;
	add.s64 %rd4, %rd3, %rd2;
	setp.eq.u32 %p1, %r1, 2;
	@!%p1 ld.global.u64 %rd5, [%rd4];
	{
	.reg .b32 temp;
	.param .b32 param0;
	st.param.b32 [param0+0], 21;
	.param .b32 retval0;
	prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
	call (retval0), %rd5, (param0), prototype_0;
	ld.param.b32 %r2, [retval0+0];
	}
	st.global.u32 [%rd1], %r2;
	ret;
}
`

// TestIndirectCallErrors: a call through a pointer to a function whose
// parameters differ from the prototype, or to something that is not a
// function, is an error naming the call.
func TestIndirectCallErrors(t *testing.T) {
	e := newEnv(t, Options{})
	k := e.kernel(e.loadSrc("ind.ptx", indirectPTX), "call")
	out := e.buf(u32s(1))
	e.launch(k, rt.D1(1), rt.D1(1), 0, out, uint32(0), uint64(0))
	got := u32s(1)
	e.get(out, got)
	if got[0] != 42 {
		t.Errorf("twice(21) through a pointer = %d", got[0])
	}
	for _, c := range []struct {
		which  uint32
		target uint64
		want   string
	}{
		{1, 0, "indirect call to wide, whose parameters do not match the call's .callprototype"},
		{2, uint64(out), "is not the address of a function"},
	} {
		err := e.launchErr(k, rt.D1(1), rt.D1(1), 0, out, c.which, c.target)
		e.reset() // the fault is sticky
		out = e.buf(u32s(1))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "ind.ptx:") {
			t.Errorf("which %d: error %v, want %q", c.which, err, c.want)
		}
	}
}
