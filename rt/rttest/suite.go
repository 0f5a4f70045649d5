package rttest

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// The suite's device code: hand-written PTX for sm_70 and up, for sm_90
// (clusters, programmatic dependent launch), and kernels that fault.
var (
	//go:embed testdata/suite.ptx
	suitePTX []byte
	//go:embed testdata/suite_sm90.ptx
	suiteSM90PTX []byte
	//go:embed testdata/graph.ptx
	graphPTX []byte
	//go:embed testdata/suite_faults.ptx
	suiteFaultsPTX []byte
)

// suiteKernels is every kernel of suite.ptx.
var suiteKernels = []string{"addManaged", "empty", "gridSync", "mixed", "reverse", "scaleBy", "vecAdd"}

// Options say how a driver departs from the rt.Driver contract in ways the
// contract allows.
type Options struct {
	// PerContextModules is set for a driver that loads a library in each
	// context separately, as CUDA's legacy module path does (rt/cgo with
	// CUGEN_CUDA_LEGACY=1, or a driver older than CUDA 12.0): listing and
	// looking up kernels needs a current context there, and each context
	// has its own copy of a __managed__ variable.
	PerContextModules bool
	// LaunchBlocking is set for a driver whose launches wait for the kernel
	// (rt/soft with Options.LaunchBlocking, CUDA with
	// CUDA_LAUNCH_BLOCKING=1): the checks that queue a launch behind held
	// work skip.
	LaunchBlocking bool
}

// TestDriver checks that d keeps the rt.Driver contract, as seen through rt's
// API and d's own methods: devices and their attributes; primary and created
// contexts and the current context per OS thread; streams and events;
// memory, copies, memset and the errors of bad pointers; library load and
// unload, kernel lookup and the kernel list; per-context __device__ globals
// and shared __managed__ variables; error codes (invalid device, context,
// value and handle, not found, invalid PTX); launches on streams, on a
// context's NULL stream and in the current context, with every parameter
// layout rt packs, dynamic shared memory and normalized shapes; parameter
// layouts (rt.ParamInfoer) and parameters placed where the kernel reads
// them (rt.ParamPlacer); cooperative, cluster and programmatic launches;
// rt's synchronous copies waiting for every stream of their context. Then,
// where the driver has the optional capability, each of them: graphs
// (rt.Grapher: capture, replay, node updates, forks and joins, the capture
// rules, child graphs, event nodes, IF, WHILE and SWITCH nodes), stream
// dependencies and host functions (rt.Streamer), page-locked memory,
// memsets and 2-D copies (rt.MemoryOps), stream-ordered allocation and
// pools (rt.AsyncAllocator), kernel attributes and occupancy
// (rt.KernelAttributer, rt.OccupancyCalculator), peer access between
// the first two devices (rt.PeerAccessor), CUDA arrays, texture and
// surface objects (rt.Texturer), and contexts, streams, events and memory
// made outside rt adopted by it, with the driver's own handles of rt's
// objects (rt.Adopter, rt.NativeHandler); a check that needs what the
// driver lacks skips and says so. Sticky kernel faults leave the
// process unable to use CUDA: TestStickyFault checks them, on a driver of
// their own.
//
// Each area is a subtest of t. Checks that need sm_90 skip on older
// devices, saying so. The suite leaves no context current on any thread and
// releases what it made. Any driver runs it: rt/soft's tests and rt/cgo's
// GPU tests do,
//
//	rttest.TestDriver(t, soft.New(soft.Options{Devices: 2}), rttest.Options{})
func TestDriver(t *testing.T, d rt.Driver, opts Options) {
	s := newSuite(t, d, opts)
	defer s.close(t)
	t.Run("Devices", s.devices)
	t.Run("Contexts", s.contexts)
	t.Run("Memory", s.memory)
	t.Run("StreamsAndEvents", s.streamsAndEvents)
	t.Run("Library", s.library)
	t.Run("Globals", s.globals)
	t.Run("CurrentContextPerThread", s.currentPerThread)
	t.Run("Launch", s.launch)
	t.Run("ParamLayouts", s.paramLayouts)
	t.Run("PlacedParams", s.placedParams)
	t.Run("Cooperative", s.cooperative)
	t.Run("Cluster", s.cluster)
	t.Run("Programmatic", s.programmatic)
	t.Run("SafeCopies", s.safeCopies)
	t.Run("StreamDependencies", s.streamDeps)
	t.Run("MemoryOps", s.memoryOps)
	t.Run("AsyncAlloc", s.asyncAlloc)
	t.Run("KernelInfo", s.kernelInfo)
	t.Run("Graphs", s.graphs)
	t.Run("Peers", s.peers)
	t.Run("Textures", s.textures)
	t.Run("Adopt", s.adopt)
}

// suite is what the checks share: the driver, device 0's primary context a,
// a context of its own b on the same device, and suite.ptx declared as
// generated code declares it.
type suite struct {
	d    rt.Driver
	opts Options
	devs []rt.Device
	a, b *rt.Context

	lib                                   *rt.Library
	vecAdd, scaleBy, addManaged, empty    *rt.Kernel
	mixed, reverse, gridSync              *rt.Kernel
	faults                                *rt.Library
	faultTrap, faultAssert                *rt.Kernel
	scale                                 *rt.Global[float32]
	total                                 *rt.Managed[uint32]
	sm90                                  *rt.Library
	clusterInfo, pdlProducer, pdlConsumer *rt.Kernel
	// graph.ptx, loaded by the checks that use it
	glib                      *rt.Library
	addTo, setCond, countDown *rt.Kernel
}

func newSuite(t *testing.T, d rt.Driver, opts Options) *suite {
	t.Helper()
	s := &suite{d: d, opts: opts}
	s.lib = rt.NewLibrary("suite.ptx", suitePTX)
	p := func(off, size uint32) rt.ParamSpec { return rt.ParamSpec{Offset: off, Size: size} }
	s.vecAdd = s.lib.Kernel("vecAdd", p(0, 8), p(8, 8), p(16, 8), p(24, 4))
	s.scaleBy = s.lib.Kernel("scaleBy", p(0, 8), p(8, 8), p(16, 4))
	s.addManaged = s.lib.Kernel("addManaged", p(0, 4))
	s.empty = s.lib.Kernel("empty")
	s.mixed = s.lib.Kernel("mixed", p(0, 1), p(8, 24), p(32, 8))
	s.reverse = s.lib.Kernel("reverse", p(0, 8), p(8, 8))
	s.gridSync = s.lib.Kernel("gridSync", p(0, 8), p(8, 8))
	s.scale = rt.NewGlobal[float32](s.lib, "scale", 1)
	s.total = rt.NewManaged[uint32](s.lib, "managedTotal", 1)
	s.sm90 = rt.NewLibrary("suite_sm90.ptx", suiteSM90PTX)
	s.clusterInfo = s.sm90.Kernel("clusterInfo", p(0, 8))
	s.pdlProducer = s.sm90.Kernel("pdlProducer", p(0, 8), p(8, 4))
	s.pdlConsumer = s.sm90.Kernel("pdlConsumer", p(0, 8), p(8, 8), p(16, 4))
	s.glib = rt.NewLibrary("graph.ptx", graphPTX)
	s.addTo = s.glib.Kernel("addTo", p(0, 8), p(8, 4))
	s.setCond = s.glib.Kernel("setCond", p(0, 8), p(8, 4))
	s.countDown = s.glib.Kernel("countDown", p(0, 8), p(8, 8))
	s.faults = rt.NewLibrary("suite_faults.ptx", suiteFaultsPTX)
	s.faultTrap = s.faults.Kernel("faultTrap")
	s.faultAssert = s.faults.Kernel("faultAssert")

	// The load comes first, before the suite has a context: the
	// context-independent API allows that.
	if _, err := s.lib.Load(d); err != nil {
		t.Fatalf("loading suite.ptx: %v", err)
	}
	var err error
	if s.devs, err = rt.DevicesOf(d); err != nil {
		t.Fatal(err)
	}
	if s.a, err = s.devs[0].Primary(); err != nil {
		t.Fatal(err)
	}
	if s.b, err = s.devs[0].NewContext(0); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *suite) close(t *testing.T) {
	for _, err := range []error{s.lib.Unload(s.d), s.sm90.Unload(s.d), s.glib.Unload(s.d), s.faults.Unload(s.d), s.b.Release(), s.a.Release()} {
		if err != nil {
			t.Errorf("cleaning up: %v", err)
		}
	}
}

// ---- helpers ----

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantCode fails t unless err carries code.
func wantCode(t testing.TB, what string, err error, code rt.Result) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Errorf("%s: %v, want %s", what, err, code.Name())
	}
}

// onThread runs fn on a goroutine locked to an OS thread of its own, with
// ctx current there (none if ctx is nil), and waits for it. The goroutine
// exits still locked, so the runtime ends the thread and no context stays
// current on a thread another test may be given.
func onThread(t *testing.T, d rt.Driver, ctx *rt.Context, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		var h rt.CtxHandle
		if ctx != nil {
			h = ctx.Handle()
		}
		if err := d.CtxSetCurrent(h); err != nil {
			t.Errorf("CtxSetCurrent(%#x): %v", h, err)
			return
		}
		fn()
	}()
	<-done
}

// withLookups runs fn where kernel lookups work: anywhere, or with a
// context current where the driver loads per context.
func (s *suite) withLookups(t *testing.T, fn func()) {
	if !s.opts.PerContextModules {
		fn()
		return
	}
	onThread(t, s.d, s.a, fn)
}

var le = binary.LittleEndian

// iota32 is 0, 1, … n-1 as float32.
func iota32(n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i)
	}
	return x
}

// The launch functions below are what cugen generates for the suite's
// kernels: the parameters packed at their offsets into a stack array.

func (s *suite) runVecAdd(cfg rt.Config, a, b rt.ConstPtr[float32], c rt.Ptr[float32], n uint32) error {
	var p [28]byte
	le.PutUint64(p[0:], uint64(a))
	le.PutUint64(p[8:], uint64(b))
	le.PutUint64(p[16:], uint64(c))
	le.PutUint32(p[24:], n)
	return s.vecAdd.Launch(cfg, p[:])
}

func (s *suite) runScaleBy(cfg rt.Config, out rt.Ptr[float32], in rt.ConstPtr[float32], n uint32) error {
	var p [20]byte
	le.PutUint64(p[0:], uint64(out))
	le.PutUint64(p[8:], uint64(in))
	le.PutUint32(p[16:], n)
	return s.scaleBy.Launch(cfg, p[:])
}

func (s *suite) runAddManaged(cfg rt.Config, v uint32) error {
	var p [4]byte
	le.PutUint32(p[0:], v)
	return s.addManaged.Launch(cfg, p[:])
}

// vecAddNode is what cugen generates to update a vecAdd node of a graph:
// the launch function's signature with the node in front.
func (s *suite) vecAddNode(node rt.KernelNode, cfg rt.Config, a, b rt.ConstPtr[float32], c rt.Ptr[float32], n uint32) error {
	var p [28]byte
	le.PutUint64(p[0:], uint64(a))
	le.PutUint64(p[8:], uint64(b))
	le.PutUint64(p[16:], uint64(c))
	le.PutUint32(p[24:], n)
	return s.vecAdd.SetNode(node, cfg, p[:])
}

func (s *suite) runAddTo(cfg rt.Config, p rt.Ptr[uint32], v uint32) error {
	var b [12]byte
	le.PutUint64(b[0:], uint64(p))
	le.PutUint32(b[8:], v)
	return s.addTo.Launch(cfg, b[:])
}

func (s *suite) addToNode(node rt.KernelNode, cfg rt.Config, p rt.Ptr[uint32], v uint32) error {
	var b [12]byte
	le.PutUint64(b[0:], uint64(p))
	le.PutUint32(b[8:], v)
	return s.addTo.SetNode(node, cfg, b[:])
}

func (s *suite) runSetCond(cfg rt.Config, handle uint64, v uint32) error {
	var b [12]byte
	le.PutUint64(b[0:], handle)
	le.PutUint32(b[8:], v)
	return s.setCond.Launch(cfg, b[:])
}

func (s *suite) setCondNode(node rt.KernelNode, cfg rt.Config, handle uint64, v uint32) error {
	var b [12]byte
	le.PutUint64(b[0:], handle)
	le.PutUint32(b[8:], v)
	return s.setCond.SetNode(node, cfg, b[:])
}

func (s *suite) runCountDown(cfg rt.Config, counter rt.Ptr[uint32], handle uint64) error {
	var b [16]byte
	le.PutUint64(b[0:], uint64(counter))
	le.PutUint64(b[8:], handle)
	return s.countDown.Launch(cfg, b[:])
}

// one is a launch of one block of 32 threads on s.
func one(s *rt.Stream) rt.Config { return rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: s} }

// vecAddArgs is vecAdd's parameter buffer, for launches through the Driver.
func vecAddArgs(a, b, c rt.DevPtr, n uint32) []byte {
	p := make([]byte, 28)
	le.PutUint64(p[0:], uint64(a))
	le.PutUint64(p[8:], uint64(b))
	le.PutUint64(p[16:], uint64(c))
	le.PutUint32(p[24:], n)
	return p
}

// raw is a launch through the Driver itself, with params as the buffer.
func raw(l rt.LaunchArgs, params []byte) rt.LaunchArgs {
	l.Params, l.ParamSize = unsafe.Pointer(unsafe.SliceData(params)), uintptr(len(params))
	return l
}

// vecAddIn sets up a vecAdd of n elements in ctx: inputs a and b, output c,
// and the sums to expect.
type vecAddIn struct {
	a, b, c rt.Buffer[float32]
	want    []float32
}

func newVecAdd(t *testing.T, ctx *rt.Context, n int) *vecAddIn {
	t.Helper()
	x, y := iota32(n), make([]float32, n)
	v := &vecAddIn{want: make([]float32, n)}
	for i := range y {
		y[i] = float32(2*i) + 0.5
		v.want[i] = x[i] + y[i]
	}
	var err error
	v.a, err = rt.AllocFrom(ctx, x)
	must(t, err)
	v.b, err = rt.AllocFrom(ctx, y)
	must(t, err)
	v.c, err = rt.Alloc[float32](ctx, n)
	must(t, err)
	must(t, v.c.Zero())
	t.Cleanup(func() { v.a.Free(); v.b.Free(); v.c.Free() })
	return v
}

func (v *vecAddIn) run(s *suite, cfg rt.Config) error {
	return s.runVecAdd(cfg, v.a.Const(), v.b.Const(), v.c.Ptr, uint32(len(v.want)))
}

func (v *vecAddIn) args() []byte {
	return vecAddArgs(v.a.Ptr.Addr(), v.b.Ptr.Addr(), v.c.Ptr.Addr(), uint32(len(v.want)))
}

// check reads c (a synchronous copy, after syncing the context) and compares.
func (v *vecAddIn) check(t *testing.T, what string) {
	t.Helper()
	must(t, v.c.Context().Synchronize())
	got, err := v.c.ToHost()
	must(t, err)
	if i := firstDiff(got, v.want); i >= 0 {
		t.Errorf("%s: c[%d] = %v, want %v", what, i, got[i], v.want[i])
	}
	must(t, v.c.Zero())
}

func firstDiff[T comparable](got, want []T) int {
	if len(got) != len(want) {
		return min(len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return i
		}
	}
	return -1
}

func sorted(names []string) []string { return slices.Sorted(slices.Values(names)) }
