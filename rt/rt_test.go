package rt_test

import (
	"encoding/binary"
	"errors"
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

func TestLaunchPacksParamsAndConfig(t *testing.T) {
	f := newFake()
	ctx, err := rt.PrimaryOn(f, 0)
	if err != nil {
		t.Fatal(err)
	}
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
	ctx, _ := rt.PrimaryOn(f, 0)
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
	ctx2, _ := rt.PrimaryOn(g, 0)
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
	cf, _ := rt.PrimaryOn(f, 0)
	cg, _ := rt.PrimaryOn(g, 0)
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

// A zero component of a Config's Grid or Block counts as 1 (Dim3): the
// driver gets normalized shapes, on the fast path and the slow one.
func TestZeroDimensionsCountAsOne(t *testing.T) {
	f := newFake()
	ctx, _ := rt.PrimaryOn(f, 0)
	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // the first launch binds (slow path), the second is fast
		if err := saxpy(rt.Config{Block: rt.Dim3{X: 64}, Stream: s}, 1, 1, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	for i, l := range f.Launches {
		if l.Args.Grid != (rt.Dim3{1, 1, 1}) || l.Args.Block != (rt.Dim3{64, 1, 1}) {
			t.Errorf("launch %d: grid %v block %v, want 1x1x1 and 64x1x1", i, l.Args.Grid, l.Args.Block)
		}
	}
}

func TestLaunchRejectsWrongParamSize(t *testing.T) {
	f := newFake()
	ctx, _ := rt.PrimaryOn(f, 0)
	var p [20]byte
	err := kernSaxpy.Launch(rt.Config{Stream: ctx.NullStream()}, p[:])
	if !errors.Is(err, rt.ErrInvalidValue) {
		t.Fatalf("err = %v, want ErrInvalidValue", err)
	}
	if !strings.Contains(err.Error(), "20 parameter bytes, want 24") {
		t.Errorf("error %q does not say the sizes", err)
	}
}

func TestLoadVerifiesKernelsAndLayout(t *testing.T) {
	// A kernel the image lacks.
	l := rt.NewLibrary("stale.ptx", nil)
	l.Kernel("missing", rt.ParamSpec{Offset: 0, Size: 8})
	_, err := l.Load(newFake())
	if !errors.Is(err, rt.ErrNotFound) || !strings.Contains(err.Error(), "kernel missing is not in the image, which has 1: _Z5saxpyifPKfPf") {
		t.Errorf("missing kernel: err = %v", err)
	}
	// A layout the driver reports differently.
	f := newFake()
	f.ParamSpecs = map[string][]rt.ParamSpec{"_Z5saxpyifPKfPf": {{0, 4}, {4, 4}, {8, 8}, {24, 8}}}
	l2 := rt.NewLibrary("layout.ptx", nil)
	l2.Kernel("_Z5saxpyifPKfPf", rt.ParamSpec{Offset: 0, Size: 4}, rt.ParamSpec{Offset: 4, Size: 4},
		rt.ParamSpec{Offset: 8, Size: 8}, rt.ParamSpec{Offset: 16, Size: 8})
	_, err = l2.Load(f)
	if err == nil || !strings.Contains(err.Error(), "parameter 3 is at offset 24 size 8 in the image, at offset 16 size 8 in the generated code") {
		t.Errorf("layout mismatch: err = %v", err)
	}
	// Matching layout loads.
	f.ParamSpecs["_Z5saxpyifPKfPf"][3] = rt.ParamSpec{Offset: 16, Size: 8}
	if _, err := l2.Load(f); err != nil {
		t.Errorf("matching layout: %v", err)
	}
}

func TestGlobalsPerContextManagedShared(t *testing.T) {
	f := newFake()
	l := rt.NewLibrary("g.ptx", nil)
	g := rt.NewGlobal[int32](l, "g1", 1)
	m := rt.NewManaged[uint32](l, "m1", 1)
	a, _ := rt.PrimaryOn(f, 0)
	b, _ := rt.NewContextOn(f, 0, 0)
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
	ctx, _ := rt.PrimaryOn(newFake(), 0)
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
	ctx, _ := rt.PrimaryOn(f, 0)
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
	ctx, _ := rt.PrimaryOn(f, 0)
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

// A driver that can report the layout only once a context exists (CUDA's
// cuKernelGetParamInfo) is checked at the kernel's first launch.
func TestLayoutCheckedAtFirstLaunch(t *testing.T) {
	f := newFake()
	l := rt.NewLibrary("late.ptx", nil)
	k := l.Kernel("_Z5saxpyifPKfPf", rt.ParamSpec{Offset: 0, Size: 4})
	if _, err := l.Load(f); err != nil { // nothing to check against yet
		t.Fatal(err)
	}
	f.ParamSpecs = map[string][]rt.ParamSpec{"_Z5saxpyifPKfPf": {{0, 8}}}
	ctx, _ := rt.PrimaryOn(f, 0)
	var p [4]byte
	err := k.Launch(rt.Config{Stream: ctx.NullStream()}, p[:])
	if err == nil || !strings.Contains(err.Error(), "parameter 0 is at offset 0 size 8 in the image, at offset 0 size 4") {
		t.Fatalf("err = %v", err)
	}
	if f.LaunchCount() != 0 {
		t.Error("a kernel with a stale layout was launched")
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
	ctx, _ := rt.PrimaryOn(f, 0)
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
