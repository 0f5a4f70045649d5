package soft

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
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

func TestGlobalsPerContext(t *testing.T) {
	d := New(Options{Devices: 2})
	lib, err := d.LibraryLoad([]byte(globalsPTX), rt.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	decoded := decodeCount.Load()
	k, _ := d.LibraryKernel(lib, "inc")
	a, _ := d.PrimaryCtxRetain(0)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
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
	if v, f := run(a); v != 6 || f != 2.5 {
		t.Fatalf("ctx A first launch: %d %v", v, f)
	}
	if v, _ := run(a); v != 7 {
		t.Fatalf("ctx A second launch: %d", v)
	}
	if v, _ := run(b); v != 6 {
		t.Fatalf("ctx B sees A's counter: %d", v)
	}
	if v, _ := run(c); v != 6 {
		t.Fatalf("device 1 sees A's counter: %d", v)
	}
	ga, _, _ := d.LibraryGlobal(a, lib, "counter")
	gb, size, _ := d.LibraryGlobal(b, lib, "counter")
	gc, _, _ := d.LibraryGlobal(c, lib, "counter")
	if ga == gb || ga == gc || size != 4 {
		t.Fatalf("per-context addresses %#x %#x %#x size %d", ga, gb, gc, size)
	}
	if uint64(gc)>>40 != devBase(1)>>40 {
		t.Fatalf("device 1 variable at %#x, outside device 1's range", gc)
	}
	ma, _, err := d.LibraryManaged(a, lib, "total")
	if err != nil {
		t.Fatal(err)
	}
	mb, _, _ := d.LibraryManaged(b, lib, "total")
	mc, _, _ := d.LibraryManaged(c, lib, "total")
	if ma != mb || ma != mc {
		t.Fatalf("managed addresses differ: %#x %#x %#x", ma, mb, mc)
	}
	var total uint32
	if err := d.MemcpyDtoH(a, unsafe.Pointer(&total), ma, 4, 0, false); err != nil || total != 11 {
		t.Fatalf("managed total = %d (%v), want 7+4", total, err)
	}
	gbytes, _, _ := d.LibraryGlobal(b, lib, "bytes")
	var bs [8]byte
	if err := d.MemcpyDtoH(b, unsafe.Pointer(&bs[0]), gbytes, 8, 0, false); err != nil || bs != [8]byte{1, 2, 3} {
		t.Fatalf("bytes = %v (%v)", bs, err)
	}
	if _, _, err := d.LibraryManaged(a, lib, "counter"); rt.CodeOf(err) != rt.ErrNotFound {
		t.Fatalf("LibraryManaged on a non-managed variable: %v", err)
	}
	if _, _, err := d.LibraryGlobal(a, lib, "nope"); rt.CodeOf(err) != rt.ErrNotFound {
		t.Fatalf("LibraryGlobal of a missing variable: %v", err)
	}
	if n := decodeCount.Load(); n != decoded {
		t.Fatalf("library decoded again in new contexts (%d → %d)", decoded, n)
	}
	// Unloading frees every context's variables and the handles.
	if err := d.LibraryUnload(lib); err != nil {
		t.Fatal(err)
	}
	if _, err := d.LibraryKernel(lib, "inc"); rt.CodeOf(err) != rt.ErrInvalidHandle {
		t.Fatalf("kernel lookup after unload: %v", err)
	}
	if err := d.MemcpyDtoH(a, unsafe.Pointer(&total), ga, 4, 0, false); rt.CodeOf(err) != rt.ErrInvalidValue {
		t.Fatalf("variable readable after unload: %v", err)
	}
}

func TestCurrentContextPerThread(t *testing.T) {
	d := New(Options{})
	lib, _ := d.LibraryLoad([]byte(kernelSrc("", "ret;")), rt.LoadOptions{})
	k, _ := d.LibraryKernel(lib, "k")
	ctx, _ := d.PrimaryCtxRetain(0)
	var wg sync.WaitGroup
	ready, checked := make(chan struct{}), make(chan struct{})
	wg.Add(2)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := d.CtxSetCurrent(ctx); err != nil {
			t.Error(err)
		}
		close(ready)
		if err := d.Launch(k, rt.LaunchArgs{Grid: rt.D1(1), Block: rt.D1(1)}); err != nil {
			t.Errorf("launch in the current context: %v", err)
		}
		if cur, _ := d.CtxGetCurrent(); cur != ctx {
			t.Errorf("current context %#x, want %#x", cur, ctx)
		}
		// Hold this thread until the other goroutine is done, so it
		// cannot be scheduled here (the binding outlives the goroutine).
		<-checked
		_ = d.CtxSetCurrent(0)
	}()
	go func() {
		defer wg.Done()
		<-ready
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if cur, _ := d.CtxGetCurrent(); cur != 0 {
			t.Errorf("another thread sees current context %#x", cur)
		}
		err := d.Launch(k, rt.LaunchArgs{Grid: rt.D1(1), Block: rt.D1(1)})
		if rt.CodeOf(err) != rt.ErrInvalidContext {
			t.Errorf("launch without a current context: %v", err)
		}
		if _, err := d.MemAlloc(0, 16); rt.CodeOf(err) != rt.ErrInvalidContext {
			t.Errorf("alloc without a current context: %v", err)
		}
		close(checked)
	}()
	wg.Wait()
}

func TestContextLifetime(t *testing.T) {
	d := New(Options{Devices: 2})
	if n, _ := d.DeviceCount(); n != 2 {
		t.Fatalf("DeviceCount = %d", n)
	}
	if _, err := d.PrimaryCtxRetain(2); rt.CodeOf(err) != rt.ErrInvalidDevice {
		t.Fatalf("retain on device 2: %v", err)
	}
	c1, _ := d.PrimaryCtxRetain(1)
	c1b, _ := d.PrimaryCtxRetain(1)
	if c1 != c1b {
		t.Fatal("primary context retained twice gives different handles")
	}
	if dev, _ := d.CtxDevice(c1); dev != 1 {
		t.Fatalf("CtxDevice = %d", dev)
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
	if _, err := d.MemAlloc(c1, 0); err == nil {
		t.Fatal("zero-size alloc")
	}
	total, _ := d.DeviceTotalMem(0)
	c0, _ := d.PrimaryCtxRetain(0)
	if _, err := d.MemAlloc(c0, total+1); rt.CodeOf(err) != rt.ErrOutOfMemory {
		t.Fatalf("oversized alloc: %v", err)
	}
	if v, _ := d.DeviceAttribute(0, rt.AttrComputeCapabilityMajor); v != 9 {
		t.Fatalf("CC major %d", v)
	}
	if v, _ := d.DeviceAttribute(0, rt.AttrWarpSize); v != 32 {
		t.Fatalf("warp size %d", v)
	}
}

func TestStreamsAndEvents(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.load("typical_sm90.ptx")
	k := e.kernel(lib, "_Z5saxpyifPKfPf")
	n := 4096
	x := make([]float32, n)
	y := make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), 1
	}
	px, err := e.d.MemAlloc(e.ctx, uint64(4*n))
	if err != nil {
		t.Fatal(err)
	}
	py, _ := e.d.MemAlloc(e.ctx, uint64(4*n))
	s, _ := e.d.StreamCreate(e.ctx, 0, 0)
	ev0, _ := e.d.EventCreate(e.ctx, 0)
	ev1, _ := e.d.EventCreate(e.ctx, 0)
	if _, err := e.d.EventElapsed(e.ctx, ev0, ev1); rt.CodeOf(err) != rt.ErrInvalidHandle {
		t.Fatalf("elapsed of unrecorded events: %v", err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.d.EventRecord(e.ctx, ev0, s))
	must(e.d.MemcpyHtoD(e.ctx, px, unsafe.Pointer(&x[0]), uint64(4*n), s, true))
	must(e.d.MemcpyHtoD(e.ctx, py, unsafe.Pointer(&y[0]), uint64(4*n), s, true))
	out := make([]float32, n)
	for rep := 0; rep < 3; rep++ {
		p := params(n, float32(2), px, py)
		must(e.d.Launch(k, rt.LaunchArgs{Stream: s, Grid: rt.D1(n / 256), Block: rt.D1(256), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}))
	}
	must(e.d.MemcpyDtoH(e.ctx, unsafe.Pointer(&out[0]), py, uint64(4*n), s, true))
	must(e.d.EventRecord(e.ctx, ev1, s))
	must(e.d.EventSynchronize(e.ctx, ev1))
	if done, err := e.d.StreamQuery(e.ctx, s); !done || err != nil {
		t.Fatalf("StreamQuery after the last event: %v %v", done, err)
	}
	for i := range out {
		if want := 1 + 3*2*float32(i); out[i] != want {
			t.Fatalf("y[%d] = %v, want %v", i, out[i], want)
		}
	}
	ms, err := e.d.EventElapsed(e.ctx, ev0, ev1)
	if err != nil || ms < 0 {
		t.Fatalf("elapsed %v %v", ms, err)
	}
	// The legacy NULL stream waits for blocking streams: a synchronous
	// copy after async work sees its result.
	p := params(n, float32(1), px, py)
	must(e.d.Launch(k, rt.LaunchArgs{Stream: s, Grid: rt.D1(n / 256), Block: rt.D1(256), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}))
	must(e.d.MemcpyDtoH(e.ctx, unsafe.Pointer(&out[0]), py, uint64(4*n), 0, false))
	if out[10] != 1+7*10 {
		t.Fatalf("NULL-stream copy did not wait: %v", out[10])
	}
	must(e.d.StreamDestroy(e.ctx, s))
	must(e.d.EventDestroy(e.ctx, ev0))
	if err := e.d.EventRecord(e.ctx, ev0, 0); rt.CodeOf(err) != rt.ErrInvalidHandle {
		t.Fatalf("record of a destroyed event: %v", err)
	}
	if err := e.d.StreamSynchronize(e.ctx, s); rt.CodeOf(err) != rt.ErrInvalidHandle {
		t.Fatalf("sync of a destroyed stream: %v", err)
	}
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

// TestCooperativeLaunch: a grid-wide flag handshake between CTAs only
// completes when every CTA is resident at once, as cooperative launches
// guarantee.
func TestCooperativeLaunch(t *testing.T) {
	src := ptxHeader + `
.visible .entry k(.param .u64 flag, .param .u64 out)
{
	.reg .b64 %f, %o, %t;
	.reg .b32 %c, %v, %n;
	.reg .pred %p;
	ld.param.u64 %f, [flag];
	ld.param.u64 %o, [out];
	mov.u32 %c, %ctaid.x;
	mov.u32 %n, %nctaid.x;
	mov.u32 %v, %ntid.x;
	mul.lo.u32 %n, %n, %v;
	atom.global.add.u32 %v, [%f], 1;
SPIN:
	ld.volatile.global.u32 %v, [%f];
	setp.lt.u32 %p, %v, %n;
	@%p bra SPIN;
	mul.wide.u32 %t, %c, 4;
	add.s64 %o, %o, %t;
	st.global.u32 [%o], %v;
	ret;
}
`
	e := newEnv(t, Options{Workers: 1})
	lib := e.loadSrc("coop.ptx", src)
	k := e.kernel(lib, "k")
	flag, out := e.buf(make([]uint32, 1)), e.buf(make([]uint32, 8))
	p := params(flag, out)
	la := rt.LaunchArgs{Ctx: e.ctx, Grid: rt.D1(8), Block: rt.D1(32), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p)), Cooperative: true}
	if err := e.d.Launch(k, la); err != nil {
		t.Fatal(err)
	}
	if err := e.d.CtxSynchronize(e.ctx); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, 8)
	e.get(out, got)
	for i, v := range got {
		if v != 8*32 {
			t.Fatalf("CTA %d saw %d arrivals", i, v)
		}
	}
	la.Grid = rt.D1(100000)
	wantErr(t, e.d.Launch(k, la), rt.ErrCooperativeLaunchTooLarge)
}

// A consumer launched with ProgrammaticSerialization reads what the
// producer before it stored: soft runs kernels in stream order, which meets
// the attribute, and griddepcontrol is a no-op.
func TestProgrammaticSerialization(t *testing.T) {
	pdlPTX, err := os.ReadFile("testdata/pdl.ptx")
	if err != nil {
		t.Fatal(err)
	}
	d := New(Options{})
	ctx, err := rt.PrimaryOn(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	lib := rt.NewLibrary("pdl.ptx", pdlPTX)
	producer := lib.Kernel("pdlProducer", rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 4})
	consumer := lib.Kernel("pdlConsumer", rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 8}, rt.ParamSpec{Offset: 16, Size: 4})
	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	cell, err := rt.Alloc[uint32](ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	const pairs = 16
	out, err := rt.Alloc[uint32](ctx, pairs)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: s}
	pdl := cfg
	pdl.ProgrammaticSerialization = true
	for i := 0; i < pairs; i++ {
		var pp [12]byte
		binary.LittleEndian.PutUint64(pp[0:], uint64(cell.Ptr))
		binary.LittleEndian.PutUint32(pp[8:], uint32(i*7))
		if err := producer.Launch(cfg, pp[:]); err != nil {
			t.Fatal(err)
		}
		var cp [20]byte
		binary.LittleEndian.PutUint64(cp[0:], uint64(cell.Ptr))
		binary.LittleEndian.PutUint64(cp[8:], uint64(out.Ptr))
		binary.LittleEndian.PutUint32(cp[16:], uint32(i))
		if err := consumer.Launch(pdl, cp[:]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, pairs)
	if err := out.CopyTo(got); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != uint32(i*7+1) {
			t.Fatalf("pair %d: consumer stored %d, want %d", i, v, i*7+1)
		}
	}
}
