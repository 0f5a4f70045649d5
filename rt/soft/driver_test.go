package soft

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

const globalsPTX = ptxHeader + `
.global .align 4 .u32 counter = 5;
.global .align 8 .u64 ptr = generic(counter);
.global .attribute(.managed) .align 4 .u32 total = 7;
.const .align 4 .f32 scale = 0f40200000;
.global .align 4 .b8 bytes[8] = {1, 2, 3};

.visible .entry inc(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	.reg .f32 %f<2>;
	ld.global.u32 %r1, [counter];
	add.u32 %r1, %r1, 1;
	st.global.u32 [counter], %r1;
	ld.global.u64 %rd1, [ptr];
	ld.u32 %r2, [%rd1];
	atom.global.add.u32 %r3, [total], 1;
	ld.const.f32 %f1, [scale];
	ld.param.u64 %rd2, [out];
	st.global.u32 [%rd2], %r2;
	st.global.f32 [%rd2+4], %f1;
	ret;
}
`

// TestLibraryInstances checks what soft does beyond the driver contract
// (rttest.TestDriver checks that): a library is decoded once, whatever the
// contexts using it; each context's variables live in its device's address
// range, initialized from the PTX; unloading frees them.
func TestLibraryInstances(t *testing.T) {
	d := New(Options{Devices: 2})
	lib, err := d.LibraryLoad([]byte(globalsPTX), rt.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := d.LibraryKernel(lib, "inc")
	decoded := d.kernels[k]
	a, _ := d.PrimaryCtxRetain(0)
	b, err := d.CtxCreate(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := d.PrimaryCtxRetain(1)
	run := func(ctx rt.CtxHandle) (uint32, float32) {
		out, err := d.MemAlloc(ctx, 8)
		if err != nil {
			t.Fatal(err)
		}
		p := params(out)
		if err := d.Launch(k, rt.LaunchArgs{Ctx: ctx, Grid: rt.D1(1), Block: rt.D1(1), Params: unsafe.Pointer(&p[0]), ParamSize: 8}); err != nil {
			t.Fatal(err)
		}
		var res [2]uint32
		if err := d.MemcpyDtoH(ctx, unsafe.Pointer(&res[0]), out, 8, 0, false); err != nil {
			t.Fatal(err)
		}
		return res[0], *(*float32)(unsafe.Pointer(&res[1]))
	}
	// inc reads counter through ptr = generic(counter): the initializer
	// holds each context's own address.
	for _, ctx := range []rt.CtxHandle{a, a, b, c} {
		run(ctx)
	}
	if v, f := run(b); v != 7 || f != 2.5 {
		t.Fatalf("ctx B's second launch read counter %d and scale %v through its own ptr, want 7 and 2.5", v, f)
	}
	gc, _, _ := d.LibraryGlobal(c, lib, "counter")
	if uint64(gc)>>40 != devBase(1)>>40 {
		t.Fatalf("device 1 variable at %#x, outside device 1's range", gc)
	}
	gbytes, _, _ := d.LibraryGlobal(b, lib, "bytes")
	var bs [8]byte
	if err := d.MemcpyDtoH(b, unsafe.Pointer(&bs[0]), gbytes, 8, 0, false); err != nil || bs != [8]byte{1, 2, 3} {
		t.Fatalf("bytes = %v (%v)", bs, err)
	}
	if _, _, err := d.LibraryManaged(a, lib, "counter"); rt.CodeOf(err) != rt.ErrNotFound {
		t.Fatalf("LibraryManaged on a non-managed variable: %v", err)
	}
	if p := d.kernels[k]; p != decoded || d.libs[lib].Kernels[0] != decoded {
		t.Fatalf("kernel decoded again in new contexts")
	}
	// Unloading frees every context's variables and the handles.
	ga, _, _ := d.LibraryGlobal(a, lib, "counter")
	if err := d.LibraryUnload(lib); err != nil {
		t.Fatal(err)
	}
	var total uint32
	if err := d.MemcpyDtoH(a, unsafe.Pointer(&total), ga, 4, 0, false); rt.CodeOf(err) != rt.ErrInvalidValue {
		t.Fatalf("variable readable after unload: %v", err)
	}
}

// TestContextLifetime checks what the suite cannot on a real driver, which
// must not be handed stale handles: a primary context lives until its last
// release, and its memory with it.
func TestContextLifetime(t *testing.T) {
	d := New(Options{Devices: 2})
	c1, _ := d.PrimaryCtxRetain(1)
	c1b, _ := d.PrimaryCtxRetain(1)
	if c1 != c1b {
		t.Fatal("primary context retained twice gives different handles")
	}
	p, err := d.MemAlloc(c1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if uint64(p) < devBase(1) || uint64(p) >= devBase(2) {
		t.Fatalf("device 1 allocation at %#x", p)
	}
	if err := d.CtxDestroy(c1); rt.CodeOf(err) != rt.ErrInvalidContext {
		t.Fatalf("destroying a primary context: %v", err)
	}
	_ = d.PrimaryCtxRelease(1)
	if _, err := d.MemAlloc(c1, 8); err != nil {
		t.Fatalf("context gone after one of two releases: %v", err)
	}
	_ = d.PrimaryCtxRelease(1)
	if _, err := d.MemAlloc(c1, 8); rt.CodeOf(err) != rt.ErrInvalidContext {
		t.Fatalf("context alive after the last release: %v", err)
	}
	if err := d.PrimaryCtxRelease(1); rt.CodeOf(err) != rt.ErrInvalidContext {
		t.Fatalf("over-release: %v", err)
	}
	var x uint32
	if err := d.MemcpyHtoD(0, p, unsafe.Pointer(&x), 4, 0, false); err == nil {
		t.Fatal("memory of a released primary context still usable")
	}
	total, _ := d.DeviceTotalMem(0)
	c0, _ := d.PrimaryCtxRetain(0)
	if _, err := d.MemAlloc(c0, total+1); rt.CodeOf(err) != rt.ErrOutOfMemory {
		t.Fatalf("oversized alloc: %v", err)
	}
}

// TestStaleHandles: destroyed streams and events are refused, not used.
func TestStaleHandles(t *testing.T) {
	e := newEnv(t, Options{})
	s, _ := e.d.StreamCreate(e.ctx, 0, 0)
	ev, _ := e.d.EventCreate(e.ctx, 0)
	if err := e.d.StreamDestroy(e.ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := e.d.EventDestroy(e.ctx, ev); err != nil {
		t.Fatal(err)
	}
	if err := e.d.EventRecord(e.ctx, ev, 0); rt.CodeOf(err) != rt.ErrInvalidHandle {
		t.Fatalf("record of a destroyed event: %v", err)
	}
	if err := e.d.StreamSynchronize(e.ctx, s); rt.CodeOf(err) != rt.ErrInvalidHandle {
		t.Fatalf("sync of a destroyed stream: %v", err)
	}
}

// A zero launch dimension, which rt never sends, is outside the device's
// limits, as on CUDA.
func TestZeroDimensionRefused(t *testing.T) {
	e := newEnv(t, Options{})
	k := e.kernel(e.loadSrc("k.ptx", kernelSrc("", "ret;")), "k")
	wantErr(t, e.launchErr(k, rt.Dim3{X: 1, Y: 1}, rt.D1(1), 0), rt.ErrInvalidValue, "grid 1x1x0 is outside the device limits")
	wantErr(t, e.launchErr(k, rt.D1(1), rt.Dim3{}, 0), rt.ErrInvalidValue, "block 0x0x0 is outside the device limits")
}

func TestCrossContextAccess(t *testing.T) {
	d := New(Options{Devices: 2})
	c0, _ := d.PrimaryCtxRetain(0)
	c1, _ := d.PrimaryCtxRetain(1)
	lib, _ := d.LibraryLoad(mustRead(t, "typical_sm90.ptx"), rt.LoadOptions{})
	k, _ := d.LibraryKernel(lib, "_Z4vaddPKfS0_Pfi")
	p0, _ := d.MemAlloc(c0, 256)
	p1, _ := d.MemAlloc(c1, 256)
	pr := params(p1, p0, p1, 64)
	err := d.Launch(k, rt.LaunchArgs{Ctx: c1, Grid: rt.D1(1), Block: rt.D1(64), Params: unsafe.Pointer(&pr[0]), ParamSize: uintptr(len(pr))})
	if err == nil {
		err = d.CtxSynchronize(c1)
	}
	wantErr(t, err, rt.ErrIllegalAddress, "another context")
}

// TestConcurrentLaunches runs many goroutines launching on their own
// streams across two devices and several contexts; run it with -race.
func TestConcurrentLaunches(t *testing.T) {
	d := New(Options{Devices: 2, Deterministic: true})
	src := mustRead(t, "typical_sm90.ptx")
	lib, err := d.LibraryLoad(src, rt.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kv, _ := d.LibraryKernel(lib, "_Z4vaddPKfS0_Pfi")
	kw, _ := d.LibraryKernel(lib, "_Z4wredPKfPfi")
	var ctxs []rt.CtxHandle
	for dev := 0; dev < 2; dev++ {
		c, _ := d.PrimaryCtxRetain(dev)
		ctxs = append(ctxs, c)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			ctx := ctxs[g%2]
			if g >= 4 {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				var err error
				if ctx, err = d.CtxCreate(g%2, 0); err != nil {
					t.Error(err)
					return
				}
				defer d.CtxDestroy(ctx)
			}
			s, _ := d.StreamCreate(ctx, streamNonBlocking, 0)
			r := rand.New(rand.NewPCG(uint64(g), 7))
			n := 2000
			a, b := randF32(r, n, -1, 1), randF32(r, n, -1, 1)
			pa, _ := d.MemAlloc(ctx, uint64(4*n))
			pb, _ := d.MemAlloc(ctx, uint64(4*n))
			pc, _ := d.MemAlloc(ctx, uint64(4*n))
			ps, _ := d.MemAlloc(ctx, 4)
			_ = d.MemcpyHtoD(ctx, pa, unsafe.Pointer(&a[0]), uint64(4*n), s, true)
			_ = d.MemcpyHtoD(ctx, pb, unsafe.Pointer(&b[0]), uint64(4*n), s, true)
			for it := 0; it < 5; it++ {
				_ = d.MemsetD8(ctx, ps, 0, 4, s, true)
				p := params(pa, pb, pc, n)
				if err := d.Launch(kv, rt.LaunchArgs{Stream: s, Grid: rt.D1(8), Block: rt.D1(256), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}); err != nil {
					t.Error(err)
					return
				}
				q := params(pc, ps, n)
				if err := d.Launch(kw, rt.LaunchArgs{Stream: s, Grid: rt.D1(8), Block: rt.D1(256), Params: unsafe.Pointer(&q[0]), ParamSize: uintptr(len(q))}); err != nil {
					t.Error(err)
					return
				}
				var sum float32
				_ = d.MemcpyDtoH(ctx, unsafe.Pointer(&sum), ps, 4, s, true)
				if err := d.StreamSynchronize(ctx, s); err != nil {
					t.Error(err)
					return
				}
				want := wredRef(a, b, n)
				if sum != want {
					t.Errorf("goroutine %d iteration %d: sum %v, want %v", g, it, sum, want)
				}
			}
			_ = d.StreamDestroy(ctx, s)
		}(g)
	}
	wg.Wait()
}

// wredRef is the deterministic-mode result of vadd followed by wred.
func wredRef(a, b []float32, n int) float32 {
	var total float32
	for w := 0; w < 8*256/32; w++ {
		v := make([]float32, 32)
		for l := range v {
			if i := w*32 + l; i < n {
				v[l] = a[i] + b[i]
			}
		}
		for o := 16; o > 0; o >>= 1 {
			nv := make([]float32, 32)
			for l := range v {
				j := l + o
				if j > 31 {
					j = l
				}
				nv[l] = v[l] + v[j]
			}
			v = nv
		}
		total += v[0]
	}
	return total
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := readTestdata(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRegistered(t *testing.T) {
	d, err := rt.Open("soft")
	if err != nil {
		t.Fatal(err)
	}
	if d.Name() != "soft" {
		t.Fatal(d.Name())
	}
	if s := fmt.Sprint(rt.Backends()); s == "" {
		t.Fatal("no backends")
	}
}
