//go:build cgo

package cgo

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/rttest"
)

// These tests need a GPU and libcuda.so.1; without them every test skips and
// says why. Build them here and run them on a GPU machine:
//
//	go test -c -o .gpu/cgo.test ./rt/cgo && ./.gpu/cgo.test -test.v
//
// (rt/cgo/gpu-test.sh runs every binary in .gpu/ and prints a table.)
//
// TestConformance checks the rt.Driver contract with rttest's suite, the
// one rt/soft runs too; the tests here cover what only the real driver has:
// its error details, allocation-free launches, kernel attributes, the JIT's
// options and log, the legacy module path's bookkeeping, linking, cluster
// geometry, sticky errors and several GPUs.

var (
	//go:embed testdata/kernels.ptx
	kernelsPTX []byte
	//go:embed testdata/cluster.ptx
	clusterPTX []byte
	//go:embed testdata/link_a.ptx
	linkAPTX []byte
	//go:embed testdata/link_b.ptx
	linkBPTX []byte
)

// childEnv makes the test binary run one scenario that must have a process
// of its own (it poisons its context) instead of the tests.
const childEnv = "CUGEN_CGO_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "poison" {
		poisonChild()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// gpu returns the driver or skips the test, saying why.
func gpu(t testing.TB) *Driver {
	t.Helper()
	d, err := New()
	if err != nil {
		t.Skipf("no GPU/driver present: %v", err)
	}
	n, err := d.DeviceCount()
	if err != nil || n == 0 {
		t.Skipf("no CUDA device (count %d, err %v)", n, err)
	}
	return d
}

// primary retains device 0's primary context through rt.
func primary(t testing.TB, d *Driver) *rt.Context {
	t.Helper()
	devs, err := rt.DevicesOf(d)
	must(t, err)
	ctx, err := devs[0].Primary()
	must(t, err)
	return ctx
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// fixture is state the tests share: device 0's primary context (A), a second
// context on the same device (B), and one context-independent load of
// kernels.ptx made before either context existed.
type fixture struct {
	d    *Driver
	a, b rt.CtxHandle
	lib  rt.LibHandle
}

var (
	fixOnce sync.Once
	fix     fixture
	fixErr  error
)

func setup(t testing.TB) *fixture {
	d := gpu(t)
	fixOnce.Do(func() {
		fix.d = d
		// The load comes first, while the process has no context at all.
		if fix.lib, fixErr = d.LibraryLoad(kernelsPTX, rt.LoadOptions{}); fixErr != nil {
			return
		}
		if fix.a, fixErr = d.PrimaryCtxRetain(0); fixErr != nil {
			return
		}
		fix.b, fixErr = d.CtxCreate(0, 0)
	})
	if fixErr != nil {
		t.Fatalf("setup: %v", fixErr)
	}
	return &fix
}

func kernelOf(t testing.TB, d *Driver, lib rt.LibHandle, name string) rt.KernelHandle {
	t.Helper()
	k, err := d.LibraryKernel(lib, name)
	must(t, err)
	return k
}

func upload[T any](t testing.TB, d *Driver, ctx rt.CtxHandle, xs []T) rt.DevPtr {
	t.Helper()
	n := uint64(len(xs)) * uint64(unsafe.Sizeof(xs[0]))
	p, err := d.MemAlloc(ctx, n)
	must(t, err)
	must(t, d.MemcpyHtoD(ctx, p, unsafe.Pointer(&xs[0]), n, 0, false))
	return p
}

func download[T any](t testing.TB, d *Driver, ctx rt.CtxHandle, p rt.DevPtr, n int) []T {
	t.Helper()
	xs := make([]T, n)
	must(t, d.MemcpyDtoH(ctx, unsafe.Pointer(&xs[0]), p, uint64(n)*uint64(unsafe.Sizeof(xs[0])), 0, false))
	return xs
}

// packer builds a parameter buffer at the PTX offsets, as generated code does.
type packer struct{ b []byte }

func (p *packer) at(off int, n int) []byte {
	for len(p.b) < off+n {
		p.b = append(p.b, 0)
	}
	return p.b[off : off+n]
}
func (p *packer) u32(off int, v uint32) { binary.LittleEndian.PutUint32(p.at(off, 4), v) }
func (p *packer) u64(off int, v uint64) { binary.LittleEndian.PutUint64(p.at(off, 8), v) }

func launch(t testing.TB, d *Driver, k rt.KernelHandle, l rt.LaunchArgs, p *packer) {
	t.Helper()
	if p != nil && len(p.b) > 0 {
		l.Params, l.ParamSize = unsafe.Pointer(&p.b[0]), uintptr(len(p.b))
	}
	must(t, d.Launch(k, l))
}

func vecAddParams(a, b, c rt.DevPtr, n int) *packer {
	p := &packer{}
	p.u64(0, uint64(a))
	p.u64(8, uint64(b))
	p.u64(16, uint64(c))
	p.u32(24, uint32(n))
	return p
}

const nElems = 1000

func inputs() (a, b []float32) {
	a, b = make([]float32, nElems), make([]float32, nElems)
	for i := range a {
		a[i], b[i] = float32(i), float32(2*i)+0.5
	}
	return a, b
}

// runVecAdd runs vecAdd in ctx (Ctx set, NULL stream) and checks it exactly.
func runVecAdd(t *testing.T, d *Driver, ctx rt.CtxHandle, k rt.KernelHandle) {
	t.Helper()
	a, b := inputs()
	pa, pb := upload(t, d, ctx, a), upload(t, d, ctx, b)
	pc, err := d.MemAlloc(ctx, 4*nElems)
	must(t, err)
	defer func() { d.MemFree(ctx, pa); d.MemFree(ctx, pb); d.MemFree(ctx, pc) }()
	launch(t, d, k, rt.LaunchArgs{Ctx: ctx, Grid: rt.D1((nElems + 127) / 128), Block: rt.D1(128)}, vecAddParams(pa, pb, pc, nElems))
	must(t, d.CtxSynchronize(ctx))
	c := download[float32](t, d, ctx, pc, nElems)
	for i := range c {
		if c[i] != a[i]+b[i] {
			t.Fatalf("c[%d] = %v, want %v", i, c[i], a[i]+b[i])
		}
	}
}

// ---------------------------------------------------------------------------

// TestConformance runs rt's driver conformance suite on the GPU; with
// CUGEN_CUDA_LEGACY=1, on the legacy per-context module path.
func TestConformance(t *testing.T) {
	d := gpu(t)
	t.Logf("driver CUDA %s, context-independent loading: %v", versionString(), d.ContextIndependent())
	rttest.TestDriver(t, d, rttest.Options{PerContextModules: !d.ContextIndependent()})
}

// stickyEnv makes the test binary's TestStickyFaults run one fault of
// rttest.StickyFaultKinds, in the process it poisons, instead of starting
// children.
const stickyEnv = "CUGEN_CGO_STICKY_FAULT"

// TestStickyFaults runs rttest.TestStickyFault for each kind of fault, each
// in a child process: a fault leaves CUDA unusable in its process.
func TestStickyFaults(t *testing.T) {
	if kind := os.Getenv(stickyEnv); kind != "" {
		d := gpu(t)
		rttest.TestStickyFault(t, d, kind, rttest.Options{PerContextModules: !d.ContextIndependent()})
		return
	}
	gpu(t)
	for _, kind := range rttest.StickyFaultKinds {
		t.Run(kind, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestStickyFaults$", "-test.v")
			cmd.Env = append(os.Environ(), stickyEnv+"="+kind)
			out, err := cmd.CombinedOutput()
			// The child's lines are marked so that its "--- PASS" is not
			// counted as this binary's (rt/cgo/gpu-test.sh counts them).
			t.Logf("child process (%s=%s):\n%s", stickyEnv, kind, regexp.MustCompile(`(?m)^`).ReplaceAllString(strings.TrimRight(string(out), "\n"), "child| "))
			if err != nil {
				t.Fatalf("child: %v", err)
			}
			if !strings.Contains(string(out), "--- PASS: TestStickyFaults") {
				t.Fatal("the child did not report TestStickyFaults passing")
			}
		})
	}
}

// TestLoadingModeAndWarmUp: the driver's loading mode, and WarmUp loading
// every kernel of a library in a context (it succeeds in a fresh context,
// and the kernels launch there).
func TestLoadingModeAndWarmUp(t *testing.T) {
	f := setup(t)
	d := f.d
	lazy, err := d.LoadingMode()
	must(t, err)
	t.Logf("module loading mode: lazy=%v", lazy)
	c, err := d.CtxCreate(0, 0)
	must(t, err)
	defer d.CtxDestroy(c)
	must(t, d.WarmUp(f.lib, c))
	runVecAdd(t, d, c, kernelOf(t, d, f.lib, "vecAdd"))
}

// noescape hides a pointer from escape analysis, as rt.Kernel.Launch does
// to keep generated code's parameter buffers on the stack across the
// rt.Driver interface.
//
//go:nosplit
func noescape(p unsafe.Pointer) unsafe.Pointer {
	x := uintptr(p)
	return *(*unsafe.Pointer)(unsafe.Pointer(&x))
}

// asDriver returns d as an rt.Driver the compiler cannot see through, as
// generated code holds it.
//
//go:noinline
func asDriver(d *Driver) rt.Driver { return d }

// TestLaunchAllocs counts the allocations of launches through the Driver:
// none on a stream, with a context, through cuLaunchKernelEx, and through
// the rt.Driver interface when the buffer is hidden from escape analysis as
// rt does. (TestLaunchCostVsC times launches.)
func TestLaunchAllocs(t *testing.T) {
	f := setup(t)
	d := f.d
	s, err := d.StreamCreate(f.a, 1, 0)
	must(t, err)
	defer d.StreamDestroy(f.a, s)
	buf, err := d.MemAlloc(f.a, 1024)
	must(t, err)
	defer d.MemFree(f.a, buf)
	vecAdd := kernelOf(t, d, f.lib, "vecAdd")
	empty := kernelOf(t, d, f.lib, "empty")
	iface := asDriver(d) // hides the concrete type: no devirtualization

	direct := func() {
		var p [28]byte
		binary.LittleEndian.PutUint64(p[0:], uint64(buf))
		binary.LittleEndian.PutUint64(p[8:], uint64(buf))
		binary.LittleEndian.PutUint64(p[16:], uint64(buf))
		binary.LittleEndian.PutUint32(p[24:], 0)
		if err := d.Launch(vecAdd, rt.LaunchArgs{Stream: s, Grid: rt.D1(1), Block: rt.D1(32), Params: unsafe.Pointer(&p), ParamSize: 28}); err != nil {
			panic(err)
		}
	}
	viaIfaceNoescape := func() {
		var p [28]byte
		binary.LittleEndian.PutUint64(p[0:], uint64(buf))
		if err := iface.Launch(vecAdd, rt.LaunchArgs{Stream: s, Grid: rt.D1(1), Block: rt.D1(32), Params: noescape(unsafe.Pointer(&p)), ParamSize: 28}); err != nil {
			panic(err)
		}
	}
	viaIfacePlain := func() {
		var p [28]byte
		binary.LittleEndian.PutUint64(p[0:], uint64(buf))
		if err := iface.Launch(vecAdd, rt.LaunchArgs{Stream: s, Grid: rt.D1(1), Block: rt.D1(32), Params: unsafe.Pointer(&p), ParamSize: 28}); err != nil {
			panic(err)
		}
	}
	withCtx := func() {
		var p [28]byte
		binary.LittleEndian.PutUint64(p[0:], uint64(buf))
		if err := d.Launch(vecAdd, rt.LaunchArgs{Ctx: f.a, Grid: rt.D1(1), Block: rt.D1(32), Params: unsafe.Pointer(&p), ParamSize: 28}); err != nil {
			panic(err)
		}
	}
	coop := func() {
		if err := d.Launch(empty, rt.LaunchArgs{Stream: s, Grid: rt.D1(2), Block: rt.D1(32), Cooperative: true}); err != nil {
			panic(err)
		}
	}
	for _, c := range []struct {
		name string
		fn   func()
		want float64 // -1: report only
	}{
		{"direct *Driver, stream", direct, 0},
		{"direct *Driver, Ctx pushed", withCtx, 0},
		{"direct *Driver, cuLaunchKernelEx (cooperative)", coop, 0},
		{"rt.Driver interface + noescape", viaIfaceNoescape, 0},
		{"rt.Driver interface, plain &buf", viaIfacePlain, -1},
	} {
		allocs := testing.AllocsPerRun(2000, c.fn)
		must(t, d.StreamSynchronize(f.a, s))
		must(t, d.CtxSynchronize(f.a))
		t.Logf("allocs/launch %-48s %.2f", c.name+":", allocs)
		if c.want >= 0 && allocs != c.want {
			t.Errorf("%s: %.2f allocations per launch, want %v", c.name, allocs, c.want)
		}
	}
}

// TestErrors checks what the driver adds to an *rt.Error (the call, the
// driver's name for the code) and the checks of the launch path's hot half:
// a nil parameter buffer and a kernel whose library was unloaded are
// refused on a stream too, before the driver sees them.
func TestErrors(t *testing.T) {
	f := setup(t)
	d := f.d
	nk, err := d.LibraryKernel(f.lib, "noSuchKernel")
	var e *rt.Error
	wantOp := "cuLibraryGetKernel"
	if d.forceLegacy && err == nil {
		// With no context current the legacy path cannot look the name up
		// yet (documented): the first use in a context reports it.
		wantOp = "cuModuleGetFunction"
		err = d.Launch(nk, rt.LaunchArgs{Ctx: f.a, Grid: rt.D1(1), Block: rt.D1(1)})
	}
	if !errors.As(err, &e) || !errors.Is(err, rt.ErrNotFound) || e.Op != wantOp || e.Name != "CUDA_ERROR_NOT_FOUND" || e.Async {
		t.Fatalf("missing kernel: %#v", err)
	}
	t.Logf("missing kernel: %v", err)

	s, err := d.StreamCreate(f.a, 1, 0)
	must(t, err)
	defer d.StreamDestroy(f.a, s)
	vecAdd := kernelOf(t, d, f.lib, "vecAdd")
	for _, l := range []rt.LaunchArgs{{Stream: s}, {Ctx: f.a}} {
		l.Grid, l.Block, l.ParamSize = rt.D1(1), rt.D1(1), 28
		if err := d.Launch(vecAdd, l); !errors.Is(err, rt.ErrInvalidValue) {
			t.Errorf("28 parameter bytes at a nil buffer (stream %#x): %v, want CUDA_ERROR_INVALID_VALUE", l.Stream, err)
		}
	}

	// A kernel whose library is unloaded after it launched on a stream
	// is refused there, not launched through a freed handle.
	lib3, err := d.LibraryLoad(kernelsPTX, rt.LoadOptions{})
	must(t, err)
	v3 := kernelOf(t, d, lib3, "vecAdd")
	var q [28]byte
	must(t, d.Launch(v3, rt.LaunchArgs{Stream: s, Grid: rt.D1(1), Block: rt.D1(1), Params: unsafe.Pointer(&q), ParamSize: 28}))
	must(t, d.StreamSynchronize(f.a, s))
	must(t, d.LibraryUnload(lib3))
	if err := d.Launch(v3, rt.LaunchArgs{Stream: s, Grid: rt.D1(1), Block: rt.D1(1), Params: unsafe.Pointer(&q), ParamSize: 28}); !errors.Is(err, rt.ErrInvalidHandle) {
		t.Errorf("stream launch after unload: %v, want CUDA_ERROR_INVALID_HANDLE", err)
	}
}

func TestKernelAttributes(t *testing.T) {
	f := setup(t)
	d := f.d
	k := kernelOf(t, d, f.lib, "vecAdd")
	maxT, err := d.KernelAttribute(k, rt.FuncMaxThreadsPerBlock, 0)
	must(t, err)
	regs, err := d.KernelAttribute(k, rt.FuncNumRegs, 0)
	must(t, err)
	t.Logf("vecAdd: max threads/block %d, %d registers", maxT, regs)
	if maxT <= 0 {
		t.Errorf("max threads per block %d", maxT)
	}
	optin, err := d.DeviceAttribute(0, rt.AttrMaxSharedMemoryPerBlockOptin)
	must(t, err)
	must(t, d.SetKernelAttribute(k, rt.FuncMaxDynamicSharedSizeBytes, optin, 0))
	got, err := d.KernelAttribute(k, rt.FuncMaxDynamicSharedSizeBytes, 0)
	must(t, err)
	if got != optin {
		t.Errorf("max dynamic shared = %d after setting %d", got, optin)
	}
	// The raised limit lets a launch use more than 48 KiB dynamic shared memory.
	launch(t, d, k, rt.LaunchArgs{Ctx: f.a, Grid: rt.D1(1), Block: rt.D1(32), SharedMem: uint32(optin)}, vecAddParams(0, 0, 0, 0))
	must(t, d.CtxSynchronize(f.a))
}

// TestJITOptions loads a PTX image with a register cap and a verbose JIT
// log, on both load paths, and checks that every kernel obeys the cap (the
// same image without it needs more) and that the log reports registers.
func TestJITOptions(t *testing.T) {
	f := setup(t)
	d := f.d
	// 24 is ptxas's lower bound for sm_90a ("adjusting per thread register
	// count of 16 to lower bound of 24"); the image's _Z3dblPd takes 29.
	const capRegs = 24
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			regs := func(opts rt.LoadOptions) (map[string]int, string) {
				// A comment unique to this load keeps the driver's JIT cache
				// from answering instead of the compiler (no log then).
				img := append(append([]byte{}, morePTX...), fmt.Sprintf("\n// %s %d\n", t.Name(), time.Now().UnixNano())...)
				lib, err := d.LibraryLoad(img, opts)
				must(t, err)
				defer d.LibraryUnload(lib)
				must(t, d.WarmUp(lib, f.a))
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				must(t, d.CtxSetCurrent(f.a)) // the legacy path lists names in the current context
				defer d.CtxSetCurrent(0)
				names, err := d.LibraryKernelNames(lib)
				must(t, err)
				out := map[string]int{}
				for _, name := range names {
					n, err := d.KernelAttribute(kernelOf(t, d, lib, name), rt.FuncNumRegs, 0)
					must(t, err)
					out[name] = n
				}
				log, err := d.LibraryJITLog(lib)
				must(t, err)
				return out, log
			}
			free, _ := regs(rt.LoadOptions{Legacy: legacy})
			capped, log := regs(rt.LoadOptions{Legacy: legacy, JIT: rt.JITOptions{MaxRegisters: capRegs, Verbose: true}})
			most := 0
			for name, n := range free {
				most = max(most, n)
				if capped[name] > capRegs {
					t.Errorf("%s: %d registers with a cap of %d", name, capped[name], capRegs)
				}
			}
			if len(free) != 12 || len(capped) != 12 {
				t.Fatalf("kernels: %d without the cap, %d with it; want 12", len(free), len(capped))
			}
			if most <= capRegs {
				t.Fatalf("without a cap no kernel needs more than %d registers: the test shows nothing", most)
			}
			t.Logf("most registers: %d uncapped, cap %d; JIT log %d bytes", most, capRegs, len(log))
			if !strings.Contains(log, "Used ") || !strings.Contains(log, "maxrregcount") {
				t.Errorf("verbose JIT log reports neither registers nor the cap:\n%s", log)
			}
		})
	}
}

// TestLegacy checks the per-context module path's bookkeeping (the
// conformance suite checks its behaviour, with CUGEN_CUDA_LEGACY=1): a
// module per context, found through a launch's stream and dropped with its
// context; attributes, layouts and WarmUp on it.
func TestLegacy(t *testing.T) {
	f := setup(t)
	d := f.d
	lib, err := d.LibraryLoad(kernelsPTX, rt.LoadOptions{Legacy: true})
	must(t, err)
	defer d.LibraryUnload(lib)
	vecAdd := kernelOf(t, d, lib, "vecAdd")
	runVecAdd(t, d, f.a, vecAdd)
	s, err := d.StreamCreate(f.b, 1, 0)
	must(t, err)
	defer d.StreamDestroy(f.b, s)
	a, b := inputs()
	pa, pb := upload(t, d, f.b, a), upload(t, d, f.b, b)
	pc, err := d.MemAlloc(f.b, 4*nElems)
	must(t, err)
	launch(t, d, vecAdd, rt.LaunchArgs{Stream: s, Grid: rt.D1((nElems + 127) / 128), Block: rt.D1(128)}, vecAddParams(pa, pb, pc, nElems))
	must(t, d.StreamSynchronize(f.b, s))
	if c := download[float32](t, d, f.b, pc, nElems); c[nElems-1] != a[nElems-1]+b[nElems-1] {
		t.Errorf("legacy vecAdd on B's stream: c[%d] = %v", nElems-1, c[nElems-1])
	}
	l := d.libs.get(uintptr(lib))
	if l.mods[cctx(f.a)] == nil || l.mods[cctx(f.b)] == nil {
		t.Fatal("no module cached for A, or none for B (found through the stream)")
	}

	if d.hasParamInfo() {
		ps, err := d.KernelParamInfo(vecAdd)
		if err != nil || fmt.Sprint(ps) != "[{0 8 0} {8 8 0} {16 8 0} {24 4 0}]" {
			t.Errorf("legacy KernelParamInfo: %v, %v", ps, err)
		}
	}
	must(t, d.SetKernelAttribute(vecAdd, rt.FuncMaxDynamicSharedSizeBytes, 64<<10, 0))
	if v, err := d.KernelAttribute(vecAdd, rt.FuncMaxDynamicSharedSizeBytes, 0); err != nil || v != 64<<10 {
		t.Errorf("legacy attribute: %d, %v", v, err)
	}
	must(t, d.WarmUp(lib, f.a))

	// A context's modules go with it, and a new context gets the
	// attribute set before it existed.
	c, err := d.CtxCreate(0, 0)
	must(t, err)
	runVecAdd(t, d, c, vecAdd)
	if l.mods[cctx(c)] == nil {
		t.Fatal("no module cached for the new context")
	}
	launch(t, d, vecAdd, rt.LaunchArgs{Ctx: c, Grid: rt.D1(1), Block: rt.D1(32), SharedMem: 64 << 10}, vecAddParams(0, 0, 0, 0))
	must(t, d.CtxSynchronize(c))
	must(t, d.CtxDestroy(c))
	if l.mods[cctx(c)] != nil {
		t.Error("module of a destroyed context still cached")
	}

	// Allocations per legacy launch (map lookups under a mutex, no push).
	allocs := testing.AllocsPerRun(500, func() {
		var p [28]byte
		if err := d.Launch(vecAdd, rt.LaunchArgs{Stream: s, Grid: rt.D1(1), Block: rt.D1(32), Params: unsafe.Pointer(&p), ParamSize: 28}); err != nil {
			panic(err)
		}
	})
	must(t, d.StreamSynchronize(f.b, s))
	t.Logf("allocs/launch legacy path, stream: %.2f", allocs)
}

func TestLink(t *testing.T) {
	f := setup(t)
	d := f.d
	image, log, err := d.Link([]rt.LinkInput{
		{Kind: rt.LinkPTX, Name: "link_a.ptx", Data: linkAPTX},
		{Kind: rt.LinkPTX, Name: "link_b.ptx", Data: linkBPTX},
	}, rt.LinkOptions{Ctx: f.a})
	must(t, err)
	t.Logf("linked %d-byte cubin; info log: %q", len(image), strings.TrimSpace(log))
	if len(image) < 4 || string(image[:4]) != "\x7fELF" {
		t.Fatalf("link result is not an ELF cubin: % x", image[:min(len(image), 8)])
	}
	if got := callTwice(t, f, image, 21); got != 42 {
		t.Fatalf("callTwice(21) = %d, want 42", got)
	}

	// An unresolved reference fails with the linker's log in the error.
	_, _, err = d.Link([]rt.LinkInput{{Kind: rt.LinkPTX, Name: "link_a.ptx", Data: linkAPTX}}, rt.LinkOptions{Ctx: f.a})
	if err == nil {
		t.Fatal("linking link_a.ptx alone succeeded")
	}
	t.Logf("unresolved link: %v", err)
	if !strings.Contains(err.Error(), "twice") {
		t.Errorf("link error does not name the missing symbol: %v", err)
	}
}

// callTwice loads a linked image of link_a.ptx's callTwice and returns
// what it writes for v.
func callTwice(t *testing.T, f *fixture, image []byte, v uint32) uint32 {
	t.Helper()
	lib, err := f.d.LibraryLoad(image, rt.LoadOptions{})
	must(t, err)
	defer f.d.LibraryUnload(lib)
	out, err := f.d.MemAlloc(f.a, 4)
	must(t, err)
	defer f.d.MemFree(f.a, out)
	p := &packer{}
	p.u64(0, uint64(out))
	p.u32(8, v)
	launch(t, f.d, kernelOf(t, f.d, lib, "callTwice"), rt.LaunchArgs{Ctx: f.a, Grid: rt.D1(1), Block: rt.D1(1)}, p)
	must(t, f.d.CtxSynchronize(f.a))
	return download[uint32](t, f.d, f.a, out, 1)[0]
}

// TestCluster checks the hardware's cluster geometry exactly (the
// conformance suite checks that cluster launches run), with the shape from
// the launch and from .reqnctapercluster.
func TestCluster(t *testing.T) {
	f := setup(t)
	d := f.d
	major, err := d.DeviceAttribute(0, rt.AttrComputeCapabilityMajor)
	must(t, err)
	if major < 9 {
		t.Skipf("thread-block clusters need sm_90, device 0 is sm_%d", major)
	}
	lib, err := d.LibraryLoad(clusterPTX, rt.LoadOptions{})
	must(t, err)
	defer d.LibraryUnload(lib)
	const blocks = 8
	out, err := d.MemAlloc(f.a, 12*blocks)
	must(t, err)
	defer d.MemFree(f.a, out)
	check := func(what string) {
		t.Helper()
		must(t, d.CtxSynchronize(f.a))
		got := download[uint32](t, d, f.a, out, 3*blocks)
		for b := 0; b < blocks; b++ {
			rank, n, id := got[3*b], got[3*b+1], got[3*b+2]
			if rank != uint32(b%2) || n != 2 || id != uint32(b/2) {
				t.Fatalf("%s: block %d: cluster rank %d of %d in cluster %d, want %d of 2 in %d", what, b, rank, n, id, b%2, b/2)
			}
		}
	}
	p := &packer{}
	p.u64(0, uint64(out))
	must(t, d.MemsetD8(f.a, out, 0xff, 12*blocks, 0, false))
	launch(t, d, kernelOf(t, d, lib, "clusterInfo"), rt.LaunchArgs{Ctx: f.a, Grid: rt.D1(blocks), Block: rt.D1(32), Cluster: rt.D1(2)}, p)
	check("cuLaunchKernelEx with CLUSTER_DIMENSION 2x1x1")

	fixed := kernelOf(t, d, lib, "clusterFixed")
	must(t, d.MemsetD8(f.a, out, 0xff, 12*blocks, 0, false))
	launch(t, d, fixed, rt.LaunchArgs{Ctx: f.a, Grid: rt.D1(blocks), Block: rt.D1(32)}, p)
	check(".reqnctapercluster 2,1,1 with cuLaunchKernel")
	w, err := d.KernelAttribute(fixed, rt.FuncRequiredClusterWidth, 0)
	must(t, err)
	if w != 2 {
		t.Errorf("clusterFixed required cluster width %d, want 2", w)
	}
}

// TestAsyncError runs a kernel that stores to an unmapped address, in a
// child process since the fault poisons the context for good.
func TestAsyncError(t *testing.T) {
	gpu(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=poison")
	out, err := cmd.CombinedOutput()
	t.Logf("child output:\n%s", out)
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	s := string(out)
	for _, want := range []string{
		"SYNC op=cuStreamSynchronize code=700 name=CUDA_ERROR_ILLEGAL_ADDRESS async=true",
		"NEXT code=700 async=true",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("child output lacks %q", want)
		}
	}
}

func poisonChild() {
	d, err := New()
	if err != nil {
		fmt.Println("CHILD no driver:", err)
		return
	}
	fail := func(what string, err error) {
		fmt.Printf("CHILD %s: %v\n", what, err)
		os.Exit(1)
	}
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		fail("retain", err)
	}
	lib, err := d.LibraryLoad(kernelsPTX, rt.LoadOptions{})
	if err != nil {
		fail("load", err)
	}
	poison, err := d.LibraryKernel(lib, "poison")
	if err != nil {
		fail("kernel", err)
	}
	empty, err := d.LibraryKernel(lib, "empty")
	if err != nil {
		fail("kernel", err)
	}
	s, err := d.StreamCreate(ctx, 1, 0)
	if err != nil {
		fail("stream", err)
	}
	var p [8]byte
	binary.LittleEndian.PutUint64(p[:], 0x10) // never mapped
	err = d.Launch(poison, rt.LaunchArgs{Stream: s, Grid: rt.D1(1), Block: rt.D1(1), Params: unsafe.Pointer(&p), ParamSize: 8})
	fmt.Printf("LAUNCH err=%v\n", err)
	err = d.StreamSynchronize(ctx, s)
	var e *rt.Error
	if !errors.As(err, &e) {
		fail("sync returned", err)
	}
	fmt.Printf("SYNC op=%s code=%d name=%s async=%v\n  %v\n", e.Op, e.Code, e.Name, e.Async, err)
	err = d.Launch(empty, rt.LaunchArgs{Stream: s, Grid: rt.D1(1), Block: rt.D1(1)})
	if !errors.As(err, &e) {
		fail("next launch returned", err)
	}
	fmt.Printf("NEXT code=%d async=%v\n  %v\n", e.Code, e.Async, err)
}

// TestMultiGPU runs one library load on every device's primary context from
// a goroutine per device, with per-device globals and attributes.
func TestMultiGPU(t *testing.T) {
	d := gpu(t)
	n, err := d.DeviceCount()
	must(t, err)
	if n < 2 {
		t.Skipf("needs 2 or more devices, have %d", n)
	}
	lib, err := d.LibraryLoad(kernelsPTX, rt.LoadOptions{})
	must(t, err)
	defer d.LibraryUnload(lib)
	vecAdd := kernelOf(t, d, lib, "vecAdd")
	scaleBy := kernelOf(t, d, lib, "scaleBy")
	var wg sync.WaitGroup
	errs := make([]error, n)
	for dev := 0; dev < n; dev++ {
		wg.Add(1)
		go func(dev int) {
			defer wg.Done()
			errs[dev] = func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("%v", r)
					}
				}()
				ctx, err := d.PrimaryCtxRetain(dev)
				if err != nil {
					return err
				}
				defer d.PrimaryCtxRelease(dev)
				return multiDevice(d, dev, ctx, lib, vecAdd, scaleBy)
			}()
		}(dev)
	}
	wg.Wait()
	for dev, err := range errs {
		if err != nil {
			t.Errorf("device %d: %v", dev, err)
		}
	}
}

func multiDevice(d *Driver, dev int, ctx rt.CtxHandle, lib rt.LibHandle, vecAdd, scaleBy rt.KernelHandle) error {
	s, err := d.StreamCreate(ctx, 1, 0)
	if err != nil {
		return err
	}
	defer d.StreamDestroy(ctx, s)
	// Per-device global: scale = 2 + dev.
	scale := float32(2 + dev)
	g, _, err := d.LibraryGlobal(ctx, lib, "scale")
	if err != nil {
		return err
	}
	if err := d.MemcpyHtoD(ctx, g, unsafe.Pointer(&scale), 4, 0, false); err != nil {
		return err
	}
	// Per-device attribute: a different dynamic shared memory limit each.
	limit := (64 + 8*dev) << 10
	if err := d.SetKernelAttribute(scaleBy, rt.FuncMaxDynamicSharedSizeBytes, limit, dev); err != nil {
		return err
	}
	in := make([]float32, nElems)
	for i := range in {
		in[i] = float32(i)
	}
	pin, err := d.MemAlloc(ctx, 4*nElems)
	if err != nil {
		return err
	}
	pout, err := d.MemAlloc(ctx, 4*nElems)
	if err != nil {
		return err
	}
	defer func() { d.MemFree(ctx, pin); d.MemFree(ctx, pout) }()
	if err := d.MemcpyHtoD(ctx, pin, unsafe.Pointer(&in[0]), 4*nElems, 0, false); err != nil {
		return err
	}
	for rep := 0; rep < 50; rep++ {
		var p [24]byte
		binary.LittleEndian.PutUint64(p[0:], uint64(pout))
		binary.LittleEndian.PutUint64(p[8:], uint64(pin))
		binary.LittleEndian.PutUint32(p[16:], nElems)
		if err := d.Launch(scaleBy, rt.LaunchArgs{Stream: s, Grid: rt.D1(4), Block: rt.D1(256), SharedMem: uint32(limit), Params: unsafe.Pointer(&p), ParamSize: 20}); err != nil {
			return err
		}
		var q [28]byte
		binary.LittleEndian.PutUint64(q[0:], uint64(pin))
		binary.LittleEndian.PutUint64(q[8:], uint64(pin))
		binary.LittleEndian.PutUint64(q[16:], uint64(pin))
		binary.LittleEndian.PutUint32(q[24:], 0) // n = 0: launches, touches nothing
		if err := d.Launch(vecAdd, rt.LaunchArgs{Stream: s, Grid: rt.D1(1), Block: rt.D1(32), Params: unsafe.Pointer(&q), ParamSize: 28}); err != nil {
			return err
		}
	}
	if err := d.StreamSynchronize(ctx, s); err != nil {
		return err
	}
	out := make([]float32, nElems)
	if err := d.MemcpyDtoH(ctx, unsafe.Pointer(&out[0]), pout, 4*nElems, 0, false); err != nil {
		return err
	}
	for i, v := range out {
		if want := float32(i) * scale; v != want {
			return fmt.Errorf("out[%d] = %v, want %v", i, v, want)
		}
	}
	got, err := d.KernelAttribute(scaleBy, rt.FuncMaxDynamicSharedSizeBytes, dev)
	if err != nil {
		return err
	}
	if got != limit {
		return fmt.Errorf("max dynamic shared %d, want %d", got, limit)
	}
	return nil
}
