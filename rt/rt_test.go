package rt_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/rttest"
)

// saxpy mirrors what cugen generates for saxpy(int, float, const float*, float*).
var (
	lib       = rt.NewLibrary("test.ptx", []byte(".version 9.0\n"))
	kernSaxpy = lib.Kernel("_Z5saxpyifPKfPf",
		rt.ParamSpec{Offset: 0, Size: 4},
		rt.ParamSpec{Offset: 4, Size: 4},
		rt.ParamSpec{Offset: 8, Size: 8},
		rt.ParamSpec{Offset: 16, Size: 8},
	)
)

func saxpy(cfg rt.Config, n int32, a float32, x rt.Ptr[float32], y rt.Ptr[float32]) error {
	var args [24]byte
	binary.LittleEndian.PutUint32(args[0:], uint32(n))
	binary.LittleEndian.PutUint32(args[4:], math.Float32bits(a))
	binary.LittleEndian.PutUint64(args[8:], uint64(x))
	binary.LittleEndian.PutUint64(args[16:], uint64(y))
	return kernSaxpy.Launch(cfg, args[:])
}

func newFake() *rttest.Fake {
	return &rttest.Fake{Kernels: []string{"_Z5saxpyifPKfPf"}, Record: true}
}

// primary is device 0's primary context of d.
func primary(t testing.TB, d rt.Driver) *rt.Context {
	t.Helper()
	devs, err := rt.DevicesOf(d)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

func TestLaunchPacksParamsAndConfig(t *testing.T) {
	f := newFake()
	ctx := primary(t, f)
	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	cfg := rt.Config{Grid: rt.D1(4), Block: rt.D2(32, 2), SharedMem: 128, Stream: s}
	if err := saxpy(cfg, -3, 2.5, 0x1000, 0x2000); err != nil {
		t.Fatal(err)
	}
	if len(f.Launches) != 1 {
		t.Fatalf("%d launches recorded, want 1", len(f.Launches))
	}
	l := f.Launches[0]
	want := make([]byte, 24)
	binary.LittleEndian.PutUint32(want[0:], uint32(0xfffffffd))
	binary.LittleEndian.PutUint32(want[4:], 0x40200000)
	binary.LittleEndian.PutUint64(want[8:], 0x1000)
	binary.LittleEndian.PutUint64(want[16:], 0x2000)
	if string(l.Params) != string(want) {
		t.Errorf("params % x, want % x", l.Params, want)
	}
	if l.Args.Grid != (rt.Dim3{4, 1, 1}) || l.Args.Block != (rt.Dim3{32, 2, 1}) || l.Args.SharedMem != 128 {
		t.Errorf("launch shape %+v", l.Args)
	}
	if l.Args.Stream != s.Handle() || l.Args.Ctx != ctx.Handle() {
		t.Errorf("launch ran on stream %v ctx %v, want %v %v", l.Args.Stream, l.Args.Ctx, s.Handle(), ctx.Handle())
	}
	// The launch attributes reach the driver.
	cfg.Cluster, cfg.Cooperative, cfg.ProgrammaticSerialization, cfg.Priority = rt.D1(2), true, true, -2
	if err := saxpy(cfg, 1, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	if a := f.Launches[1].Args; a.Cluster != rt.D1(2) || !a.Cooperative || !a.ProgrammaticSerialization || a.Priority != -2 {
		t.Errorf("launch attributes %+v, want cluster 2, cooperative, programmatic serialization, priority -2", a)
	}
}

func TestLibraryLoadsOnceUnderConcurrentFirstUse(t *testing.T) {
	f := newFake()
	f.Record = false
	l := rt.NewLibrary("once.ptx", nil)
	k := l.Kernel("_Z5saxpyifPKfPf", rt.ParamSpec{Offset: 0, Size: 4})
	ctx := primary(t, f)
	cfg := rt.Config{Stream: ctx.NullStream()}
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p [4]byte
			if err := k.Launch(cfg, p[:]); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := f.Loads.Load(); n != 1 {
		t.Errorf("library loaded %d times, want exactly once", n)
	}
	if n := f.LaunchCount(); n != 64 {
		t.Errorf("%d launches, want 64", n)
	}
	// A second driver gets its own load; the first is untouched.
	g := newFake()
	ctx2 := primary(t, g)
	var p [4]byte
	if err := k.Launch(rt.Config{Stream: ctx2.NullStream()}, p[:]); err != nil {
		t.Fatal(err)
	}
	if f.Loads.Load() != 1 || g.Loads.Load() != 1 {
		t.Errorf("loads: first driver %d, second %d; want 1 and 1", f.Loads.Load(), g.Loads.Load())
	}
}

// A kernel bound to one driver must not take the fast path for a stream of
// another: each launch reaches its own stream's driver.
func TestLaunchFollowsTheStreamsDriver(t *testing.T) {
	f, g := newFake(), newFake()
	cf := primary(t, f)
	cg := primary(t, g)
	sf, err := cf.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	sg, err := cg.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		s := sf
		if i%2 == 1 {
			s = sg
		}
		if err := saxpy(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: s}, int32(i), 0, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	for name, d := range map[string]*rttest.Fake{"first": f, "second": g} {
		if len(d.Launches) != 3 {
			t.Fatalf("%s driver got %d launches, want 3", name, len(d.Launches))
		}
		for _, l := range d.Launches {
			if want := map[*rttest.Fake]rt.StreamHandle{f: sf.Handle(), g: sg.Handle()}[d]; l.Args.Stream != want {
				t.Errorf("%s driver: launch on stream %v, want %v", name, l.Args.Stream, want)
			}
		}
	}
	if f.Loads.Load() != 1 || g.Loads.Load() != 1 {
		t.Errorf("loads %d and %d, want one per driver", f.Loads.Load(), g.Loads.Load())
	}
	// A wrong size is caught on the fast path's driver too.
	var p [20]byte
	if err := kernSaxpy.Launch(rt.Config{Stream: sf}, p[:]); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("short buffer on a bound kernel: err = %v, want ErrInvalidValue", err)
	}
}

// Load options set on a Library reach the driver's load; once the library
// is loaded they can no longer change until it is unloaded.
func TestLibraryLoadOptions(t *testing.T) {
	f := newFake()
	l := rt.NewLibrary("opts.ptx", nil)
	l.Kernel("_Z5saxpyifPKfPf", rt.ParamSpec{Offset: 0, Size: 4})
	want := rt.LoadOptions{Name: "ignored", Legacy: true, JIT: rt.JITOptions{MaxRegisters: 32, OptLevel: 2, LineInfo: true, Verbose: true}}
	if err := l.SetLoadOptions(want); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Load(f); err != nil {
		t.Fatal(err)
	}
	want.Name = "opts.ptx"
	if len(f.LoadOpts) != 1 || f.LoadOpts[0] != want {
		t.Fatalf("driver loaded with %+v, want %+v", f.LoadOpts, want)
	}
	err := l.SetLoadOptions(rt.LoadOptions{})
	if !errors.Is(err, rt.ErrNotPermitted) || !strings.Contains(err.Error(), "opts.ptx is already loaded") {
		t.Errorf("SetLoadOptions after a load: %v, want ErrNotPermitted naming the library", err)
	}
	if err := l.Unload(f); err != nil {
		t.Fatal(err)
	}
	if err := l.SetLoadOptions(rt.LoadOptions{}); err != nil {
		t.Errorf("SetLoadOptions after Unload: %v", err)
	}
	if _, err := l.Load(f); err != nil {
		t.Fatal(err)
	}
	if got := f.LoadOpts[1]; got != (rt.LoadOptions{Name: "opts.ptx"}) {
		t.Errorf("second load with %+v, want the defaults", got)
	}
	// The fake compiles no PTX: no JIT log.
	if _, err := l.JITLog(f); !errors.Is(err, rt.ErrNotSupported) {
		t.Errorf("JITLog on the fake: %v, want ErrNotSupported", err)
	}
}

// A zero component of a Config's Grid or Block counts as 1 (Dim3), and of a
// non-zero Cluster too: the driver gets normalized shapes, on the fast path
// and the slow one, and a zero Cluster stays zero (no cluster).
func TestZeroDimensionsCountAsOne(t *testing.T) {
	f := newFake()
	ctx := primary(t, f)
	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // the first launch binds (slow path), the second is fast
		if err := saxpy(rt.Config{Block: rt.Dim3{X: 64}, Stream: s}, 1, 1, 0, 0); err != nil {
			t.Fatal(err)
		}
		if err := saxpy(rt.Config{Grid: rt.Dim3{X: 4}, Block: rt.Dim3{Y: 8}, Cluster: rt.Dim3{X: 2}, Stream: s}, 1, 1, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	for i, l := range f.Launches {
		want := [3]rt.Dim3{{1, 1, 1}, {64, 1, 1}, {}}
		if i%2 == 1 {
			want = [3]rt.Dim3{{4, 1, 1}, {1, 8, 1}, {2, 1, 1}}
		}
		if got := [3]rt.Dim3{l.Args.Grid, l.Args.Block, l.Args.Cluster}; got != want {
			t.Errorf("launch %d: grid, block, cluster %v, want %v", i, got, want)
		}
	}
}

func TestLaunchRejectsWrongParamSize(t *testing.T) {
	f := newFake()
	ctx := primary(t, f)
	var p [20]byte
	err := kernSaxpy.Launch(rt.Config{Stream: ctx.NullStream()}, p[:])
	if !errors.Is(err, rt.ErrInvalidValue) {
		t.Fatalf("err = %v, want ErrInvalidValue", err)
	}
	if !strings.Contains(err.Error(), "20 parameter bytes, want 24") {
		t.Errorf("error %q does not say the sizes", err)
	}
}

func TestLoadVerifiesKernelNames(t *testing.T) {
	l := rt.NewLibrary("stale.ptx", nil)
	l.Kernel("missing", rt.ParamSpec{Offset: 0, Size: 8})
	f := newFake()
	_, err := l.Load(f)
	if !errors.Is(err, rt.ErrNotFound) || !strings.Contains(err.Error(), "kernel missing is not in the image, which has 1: _Z5saxpyifPKfPf") {
		t.Errorf("missing kernel: err = %v", err)
	}
	if f.Lookups.Load() != 0 || f.ParamInfos.Load() != 0 {
		t.Errorf("Load looked kernels up (%d) or asked for layouts (%d): that is the first launch's job", f.Lookups.Load(), f.ParamInfos.Load())
	}
}

// A kernel is bound in a driver once: at its first launch there, which looks
// it up and checks its layout against the driver's. A stale layout is
// refused before anything is launched, and only that kernel is refused.
func TestLayoutCheckedOncePerKernelAndDriver(t *testing.T) {
	f, g := newFake(), newFake()
	f.ParamSpecs = map[string][]rt.ParamSpec{"_Z5saxpyifPKfPf": saxpyLayout}
	g.ParamSpecs = map[string][]rt.ParamSpec{"_Z5saxpyifPKfPf": saxpyLayout}
	l := rt.NewLibrary("once.ptx", nil)
	k := l.Kernel("_Z5saxpyifPKfPf", rt.ParamSpec{Offset: 0, Size: 4}, rt.ParamSpec{Offset: 4, Size: 4},
		rt.ParamSpec{Offset: 8, Size: 8}, rt.ParamSpec{Offset: 16, Size: 8})
	sf, err := primary(t, f).NewStream()
	if err != nil {
		t.Fatal(err)
	}
	sg, err := primary(t, g).NewStream()
	if err != nil {
		t.Fatal(err)
	}
	var p [24]byte
	for i := 0; i < 10; i++ { // alternating drivers: each launch misses the fast path
		s := sf
		if i%2 == 1 {
			s = sg
		}
		if err := k.Launch(rt.Config{Stream: s}, p[:]); err != nil {
			t.Fatal(err)
		}
	}
	for name, d := range map[string]*rttest.Fake{"first": f, "second": g} {
		if d.Lookups.Load() != 1 || d.ParamInfos.Load() != 1 || d.LaunchCount() != 5 {
			t.Errorf("%s driver: %d lookups, %d layout queries, %d launches; want 1, 1, 5",
				name, d.Lookups.Load(), d.ParamInfos.Load(), d.LaunchCount())
		}
	}
	// After an unload the kernel is bound afresh.
	if err := l.Unload(f); err != nil {
		t.Fatal(err)
	}
	if err := k.Launch(rt.Config{Stream: sf}, p[:]); err != nil {
		t.Fatal(err)
	}
	if f.Loads.Load() != 2 || f.Lookups.Load() != 2 || f.ParamInfos.Load() != 2 {
		t.Errorf("after Unload: %d loads, %d lookups, %d layout queries; want 2 each", f.Loads.Load(), f.Lookups.Load(), f.ParamInfos.Load())
	}

	// A stale layout: refused at the first launch, nothing launched.
	h := newFake()
	h.Kernels = append(h.Kernels, "other")
	h.ParamSpecs = map[string][]rt.ParamSpec{"_Z5saxpyifPKfPf": {{Offset: 0, Size: 4}, {Offset: 4, Size: 4}, {Offset: 8, Size: 8}, {Offset: 16, Size: 4}}, "other": {}}
	l2 := rt.NewLibrary("layout.ptx", nil)
	stale := l2.Kernel("_Z5saxpyifPKfPf", rt.ParamSpec{Offset: 0, Size: 4}, rt.ParamSpec{Offset: 4, Size: 4},
		rt.ParamSpec{Offset: 8, Size: 8}, rt.ParamSpec{Offset: 16, Size: 8})
	other := l2.Kernel("other")
	if _, err := l2.Load(h); err != nil {
		t.Fatalf("a stale layout failed the load: %v", err)
	}
	ctx := primary(t, h)
	err = stale.Launch(rt.Config{Stream: ctx.NullStream()}, p[:])
	if !errors.Is(err, rt.ErrInvalidValue) || !strings.Contains(err.Error(), "parameter 3 is at offset 16 size 4 in the image, at offset 16 size 8 in the generated code") {
		t.Errorf("layout mismatch: err = %v", err)
	}
	if _, err := stale.Handle(h); err == nil {
		t.Error("Handle of a kernel with a stale layout succeeded")
	}
	if h.LaunchCount() != 0 {
		t.Error("a kernel with a stale layout was launched")
	}
	if err := other.Launch(rt.Config{Stream: ctx.NullStream()}, nil); err != nil {
		t.Errorf("the library's other kernel: %v", err)
	}
}

func TestGlobalsPerContextManagedShared(t *testing.T) {
	f := newFake()
	l := rt.NewLibrary("g.ptx", nil)
	g := rt.NewGlobal[int32](l, "g1", 1)
	m := rt.NewManaged[uint32](l, "m1", 1)
	a := primary(t, f)
	b, _ := a.Device().NewContext(0)
	pa, err := g.Ptr(a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := g.Ptr(b)
	if err != nil {
		t.Fatal(err)
	}
	if pa == pb {
		t.Errorf("global has one address %v in two contexts", pa)
	}
	if err := g.Set(a, -7); err != nil {
		t.Fatal(err)
	}
	if err := g.Set(b, 9); err != nil {
		t.Fatal(err)
	}
	va, _ := g.Get(a)
	vb, _ := g.Get(b)
	if va != -7 || vb != 9 {
		t.Errorf("per-context values %d %d, want -7 9", va, vb)
	}
	ma, _ := m.Ptr(a)
	mb, _ := m.Ptr(b)
	if ma != mb {
		t.Errorf("managed addresses differ: %v %v", ma, mb)
	}
	wrong := rt.NewGlobal[int64](l, "g1", 1)
	if _, err := wrong.Ptr(a); err == nil || !strings.Contains(err.Error(), "is 4 bytes in the image, 8 in the generated code") {
		t.Errorf("size mismatch: err = %v", err)
	}
}

func TestBufferRoundTrip(t *testing.T) {
	ctx := primary(t, newFake())
	src := []float64{1, -2, math.Pi}
	b, err := rt.AllocFrom(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.ToHost()
	if err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if got[i] != src[i] {
			t.Fatalf("round trip %v, want %v", got, src)
		}
	}
	if b.Ptr.Add(2) != b.Ptr+16 {
		t.Errorf("Ptr.Add(2) = %v, want base+16", b.Ptr.Add(2))
	}
	if err := b.CopyFrom(make([]float64, 4)); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("overlong copy: %v", err)
	}
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
}

func TestErrorsKeepCode(t *testing.T) {
	err := error(&rt.Error{Op: "cuCtxSynchronize", Code: rt.ErrIllegalAddress, Async: true, Detail: "kernel k"})
	if !errors.Is(err, rt.ErrIllegalAddress) || errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("errors.Is does not follow the code")
	}
	want := "cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered) [from earlier asynchronous work]: kernel k"
	if err.Error() != want {
		t.Errorf("Error() = %q\nwant      %q", err.Error(), want)
	}
	if rt.CodeOf(err) != rt.ErrIllegalAddress || rt.CodeOf(nil) != rt.Success {
		t.Errorf("CodeOf")
	}
}

func TestLaunchPathDoesNotAllocate(t *testing.T) {
	f := newFake()
	f.Record = false
	ctx := primary(t, f)
	cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: ctx.NullStream()}
	if err := saxpy(cfg, 1, 1, 0, 0); err != nil { // first use loads
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(1000, func() { saxpy(cfg, 1, 2, 3, 4) }); n != 0 {
		t.Errorf("a launch allocates %v times, want 0", n)
	}
}

func BenchmarkLaunchFake(b *testing.B) {
	f := newFake()
	f.Record = false
	ctx := primary(b, f)
	cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: ctx.NullStream()}
	b.ReportAllocs()
	for b.Loop() {
		saxpy(cfg, 1, 2, 3, 4)
	}
}

func TestLinear(t *testing.T) {
	c := rt.Linear(1000, 256)
	if c.Grid.X != 4 || c.Block.X != 256 {
		t.Errorf("Linear(1000,256) = %+v", c)
	}
	if c := rt.Linear(0, 128); c.Grid.X != 1 {
		t.Errorf("Linear(0) grid %d, want 1", c.Grid.X)
	}
}

func TestGlobalView(t *testing.T) {
	f := newFake()
	l := rt.NewLibrary("v.ptx", nil)
	g := rt.NewGlobal[uint8](l, "g1", 4) // the fake's globals are 4 bytes
	v, err := rt.View[uint32](g)
	if err != nil {
		t.Fatal(err)
	}
	ctx := primary(t, f)
	if err := v.Set(ctx, 0x04030201); err != nil {
		t.Fatal(err)
	}
	b := make([]uint8, 4)
	if err := g.Read(ctx, b); err != nil {
		t.Fatal(err)
	}
	if b[0] != 1 || b[3] != 4 || v.Len() != 1 {
		t.Errorf("bytes %v through a uint32 view, len %d", b, v.Len())
	}
	if _, err := rt.View[[3]byte](g); err == nil {
		t.Error("a 4-byte variable viewed as 3-byte elements")
	}
}

func TestBufferCopyFromBuffer(t *testing.T) {
	ctx := primary(t, newFake())
	a, err := rt.AllocFrom(ctx, []int32{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rt.AllocFrom(ctx, []int32{9, 9, 9, 9})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CopyFromBuffer(a); err != nil {
		t.Fatal(err)
	}
	got, err := b.ToHost()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[1 2 3 9]" {
		t.Errorf("after CopyFromBuffer: %v, want [1 2 3 9]", got)
	}
	if err := a.CopyFromBuffer(b); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("4 elements into 3: %v, want ErrInvalidValue", err)
	}
}

// noDevices is a driver that sees no device.
type noDevices struct{ *rttest.Fake }

func (noDevices) DeviceCount() (int, error) { return 0, nil }

func TestDevicesOfNone(t *testing.T) {
	if devs, err := rt.DevicesOf(noDevices{newFake()}); !errors.Is(err, rt.ErrNoDevice) || devs != nil {
		t.Errorf("DevicesOf a driver without devices: %v, %v; want ErrNoDevice", devs, err)
	}
}
