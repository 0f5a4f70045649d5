package rt

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"
)

// Library is one embedded device image (PTX, cubin or fatbin). It is loaded
// lazily, exactly once per driver, on first use from any goroutine, with the
// context-independent cuLibraryLoadData: the one load serves every context
// and every device of that driver.
type Library struct {
	name  string
	image []byte

	mu      sync.Mutex
	opts    LoadOptions // for loads to come (Load sets Name to name)
	kernels []*Kernel
	first   atomic.Pointer[libBinding] // the first driver's binding: the fast path
	others  []*libBinding              // further drivers (tests that use two backends)
}

// libBinding is a Library loaded in one driver, with the kernels bound there
// so far (guarded by Library.mu).
type libBinding struct {
	drv     driverRef // weak: a dropped driver's binding is pruned (driverref.go)
	h       LibHandle
	kernels map[*Kernel]weak.Pointer[kernelBinding] // each kernel's bound last, k.bound, keeps it
}

// NewLibrary declares a library; nothing is loaded until first use. name is
// used in errors (the generated code passes the embedded file's name).
func NewLibrary(name string, image []byte) *Library {
	return &Library{name: name, image: image}
}

// Name is the library's name.
func (l *Library) Name() string {
	if l == nil {
		return ""
	}
	return l.name
}

// Image is the embedded image.
func (l *Library) Image() []byte {
	if l == nil {
		return nil
	}
	return l.image
}

// SetLoadOptions sets the options of the library's loads (its first use in
// each driver): the PTX compiler's options, or the legacy path. o.Name is
// ignored; the library keeps its name. Options must be set before the
// library is loaded anywhere: once it is, SetLoadOptions fails with
// ErrNotPermitted (Unload it in every driver first).
func (l *Library) SetLoadOptions(o LoadOptions) error {
	if l == nil {
		return Errorf("rt.Library.SetLoadOptions", ErrInvalidHandle, "a nil rt.Library")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first.Load() != nil || len(l.others) > 0 {
		return Errorf("rt.Library.SetLoadOptions", ErrNotPermitted, "library %s is already loaded; its options apply to loads", l.name)
	}
	l.opts = o
	return nil
}

// JITLog is the PTX compiler's info log of the library's load in d (set
// LoadOptions.JIT.Verbose to have registers and spills in it). It loads the
// library if it is not loaded in d yet. With lazy loading the compiler may
// run at a kernel's first use in a context, so call it after a launch, or
// after WarmUp, to see every kernel. Drivers that compile no PTX have no log:
// ErrNotSupported.
func (l *Library) JITLog(d Driver) (string, error) {
	if err := checkDriver("rt.Library.JITLog", d); err != nil {
		return "", err
	}
	jl, ok := d.(JITLogger)
	if !ok {
		return "", Errorf("rt.Library.JITLog", ErrNotSupported, "backend %s keeps no JIT log", d.Name())
	}
	h, err := l.Load(d)
	if err != nil {
		return "", err
	}
	return jl.LibraryJITLog(h)
}

// Kernel declares a kernel of the library by its (mangled) name with its
// parameter layout, as computed by cugen at generate time.
// A layout over MaxParamBlock makes every Load of the library fail.
func (l *Library) Kernel(name string, params ...ParamSpec) *Kernel {
	if l == nil {
		return &Kernel{name: name, params: params, declErr: Errorf("rt.Library.Kernel", ErrInvalidHandle, "kernel %s of a nil rt.Library", name)}
	}
	size, err := paramBlock(l.name, name, params)
	k := &Kernel{lib: l, name: name, params: params, size: size, declErr: err}
	l.mu.Lock()
	l.kernels = append(l.kernels, k)
	l.mu.Unlock()
	return k
}

// Load loads the library in d if it is not loaded there yet, and returns its
// handle. Concurrent first calls load it once. The declared kernels are
// checked against the image's list of kernels where the driver can give one,
// so that a stale generated package fails here, naming the kernel and what
// the image has; each kernel's handle and parameter layout are bound at its
// first launch (Kernel.Handle).
func (l *Library) Load(d Driver) (LibHandle, error) {
	if err := l.check("rt.Library.Load", d); err != nil {
		return 0, err
	}
	if b := l.first.Load(); b != nil && b.drv.is(d) {
		return b.h, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b, err := l.load(d)
	if err != nil {
		return 0, err
	}
	return b.h, nil
}

// check refuses a nil Library or Driver.
func (l *Library) check(op string, d Driver) error {
	if l == nil {
		return Errorf(op, ErrInvalidHandle, "a nil rt.Library")
	}
	return checkDriver(op, d)
}

// load is Load with l.mu held.
func (l *Library) load(d Driver) (*libBinding, error) {
	if b := l.binding(d); b != nil {
		return b, nil
	}
	if err := l.declErrors(); err != nil {
		return nil, err
	}
	opts := l.opts
	opts.Name = l.name
	h, err := d.LibraryLoad(l.image, opts)
	if err != nil {
		return nil, fmt.Errorf("rt: loading library %s: %w", l.name, err)
	}
	if err := l.checkNames(d, h); err != nil {
		d.LibraryUnload(h)
		return nil, err
	}
	b := &libBinding{drv: refTo(d), h: h, kernels: map[*Kernel]weak.Pointer[kernelBinding]{}}
	if f := l.first.Load(); f != nil && !f.drv.alive() {
		l.first.Store(nil)
	}
	l.others = slices.DeleteFunc(l.others, func(o *libBinding) bool { return !o.drv.alive() })
	if l.first.Load() == nil {
		l.first.Store(b)
	} else {
		l.others = append(l.others, b)
	}
	return b, nil
}

// binding is l's binding in d, or nil; l.mu must be held.
func (l *Library) binding(d Driver) *libBinding {
	if b := l.first.Load(); b != nil && b.drv.is(d) {
		return b
	}
	for _, b := range l.others {
		if b.drv.is(d) {
			return b
		}
	}
	return nil
}

// checkNames checks the declared kernels against the image's list, where
// the driver can give one now (CUDA's legacy path needs a current context).
func (l *Library) checkNames(d Driver, h LibHandle) error {
	names, err := d.LibraryKernelNames(h)
	if err != nil {
		return nil // the kernels' first launches will tell
	}
	have := make(map[string]bool, len(names))
	for _, n := range names {
		have[n] = true
	}
	for _, k := range l.kernels {
		if !have[k.name] {
			list := slices.Sorted(slices.Values(names))
			if len(list) > 8 {
				list = append(list[:8:8], "…")
			}
			return Errorf("rt.Library.Load", ErrNotFound, "library %s: kernel %s is not in the image, which has %d: %s (regenerate with cugen)",
				l.name, k.name, len(names), strings.Join(list, ", "))
		}
	}
	return nil
}

// Unload unloads the library from d. Kernel handles from d become invalid;
// a later launch loads it again (and binds its kernels again).
func (l *Library) Unload(d Driver) error {
	if err := l.check("rt.Library.Unload", d); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.binding(d)
	if b == nil {
		return nil
	}
	if l.first.Load() == b {
		l.first.Store(nil)
		if len(l.others) > 0 {
			l.first.Store(l.others[0])
			l.others = l.others[1:]
		}
	} else {
		l.others = slices.DeleteFunc(l.others, func(o *libBinding) bool { return o == b })
	}
	for k, kb := range b.kernels {
		if kb := kb.Value(); kb != nil {
			k.bound.CompareAndSwap(kb, nil)
		}
	}
	return d.LibraryUnload(b.h)
}

// Kernel is one kernel of a Library: a context-independent CUkernel per driver.
type Kernel struct {
	lib     *Library
	name    string
	params  []ParamSpec
	size    uintptr
	declErr error                         // a layout no device takes (paramBlock)
	bound   atomic.Pointer[kernelBinding] // the binding launched through last: the fast path's
}

// kernelBinding is a Kernel in one driver: its handle there, made once per
// (kernel, driver) at the kernel's first use in that driver, which is also
// when its parameter layout is checked against the driver's. Whatever else
// rt learns about the kernel in that driver belongs here.
type kernelBinding struct {
	drv Driver
	h   KernelHandle
	// layout is the layout the driver reported, nil where it cannot tell
	// (ParamInfoer); placed says that the backend places the parameters,
	// because layout differs from the declared one in offsets or, with no
	// layout, because one is over-aligned (params.go).
	layout []ParamSpec
	placed bool
}

// Name is the kernel's mangled name.
func (k *Kernel) Name() string {
	if k == nil {
		return ""
	}
	return k.name
}

// Params is the parameter layout the generated code packs.
func (k *Kernel) Params() []ParamSpec {
	if k == nil {
		return nil
	}
	return k.params
}

// ParamSize is the size of the packed parameter buffer.
func (k *Kernel) ParamSize() int {
	if k == nil {
		return 0
	}
	return int(k.size)
}

// Handle returns the kernel's handle in d, loading the library and binding
// the kernel there if needed.
func (k *Kernel) Handle(d Driver) (KernelHandle, error) {
	b, err := k.binding(d)
	if err != nil {
		return 0, err
	}
	return b.h, nil
}

// binding returns k's binding in d, making it on first use.
func (k *Kernel) binding(d Driver) (*kernelBinding, error) {
	if k == nil {
		return nil, Errorf("rt.Kernel", ErrInvalidHandle, "a nil rt.Kernel")
	}
	if err := checkDriver("rt.Kernel", d); err != nil {
		return nil, err
	}
	if k.lib == nil {
		return nil, k.declErr
	}
	if b := k.bound.Load(); b != nil && b.drv == d {
		return b, nil
	}
	l := k.lib
	l.mu.Lock()
	defer l.mu.Unlock()
	lb, err := l.load(d)
	if err != nil {
		return nil, err
	}
	b := lb.kernels[k].Value()
	if b == nil {
		if b, err = k.bind(d, lb.h); err != nil {
			return nil, err
		}
		lb.kernels[k] = weak.Make(b)
	}
	k.bound.Store(b)
	return b, nil
}

// bind looks k up in the library loaded in d as lib and checks its
// parameter layout (bindLayout): the one place that does either.
func (k *Kernel) bind(d Driver, lib LibHandle) (*kernelBinding, error) {
	h, err := d.LibraryKernel(lib, k.name)
	if err != nil {
		return nil, fmt.Errorf("rt: library %s: kernel %s: %w", k.lib.name, k.name, err)
	}
	b := &kernelBinding{drv: d, h: h}
	if err := k.bindLayout(d, b); err != nil {
		return nil, err
	}
	return b, nil
}

// Config is a launch configuration. A launch with a Stream runs in the
// stream's context. With no Stream it runs on a NULL stream of the default
// driver, as CUDA's runtime API does: the calling OS thread's current
// context's, if one is current (hold runtime.LockOSThread around SetCurrent
// and such launches), else device 0's primary context's, which rt retains
// on that first use for the rest of the process (see implicit.go).
type Config struct {
	Grid      Dim3
	Block     Dim3
	SharedMem uint32 // dynamic shared memory bytes
	Stream    *Stream
	// Cluster, when non-zero, launches with thread-block clusters (sm_90+).
	Cluster Dim3
	// Cooperative asks for a cooperative launch (grid-wide sync).
	Cooperative bool
	// ProgrammaticSerialization lets the launch start before the previous
	// kernel in its stream has finished (programmatic dependent launch,
	// sm_90+): that kernel lets it start with griddepcontrol.launch_dependents
	// (cudaTriggerProgrammaticLaunchCompletion), and this one waits with
	// griddepcontrol.wait (cudaGridDependencySynchronize) before it reads
	// what the previous one wrote. A backend that runs kernels one after
	// another, as rt/soft does, meets that by doing nothing.
	ProgrammaticSerialization bool
	// Priority, when non-zero, is the launch's scheduling priority
	// (CU_LAUNCH_ATTRIBUTE_PRIORITY): as for streams, lower numbers are
	// higher priority, within the device's range (cuCtxGetStreamPriorityRange:
	// -5 to 0 on an H100); 0 keeps the stream's priority. Backends without
	// priorities ignore it.
	Priority int32
}

// Linear is a 1-D configuration covering n threads with blocks of block threads.
func Linear(n, block int) Config {
	if block <= 0 {
		block = 256
	}
	g := (n + block - 1) / block
	if g == 0 {
		g = 1
	}
	return Config{Grid: D1(g), Block: D1(block)}
}

// On returns c with its stream set to s.
func (c Config) On(s *Stream) Config { c.Stream = s; return c }

// Launch launches the kernel with a packed parameter buffer. Generated code
// calls it with a stack array; Launch and the backends never retain params.
func (k *Kernel) Launch(cfg Config, params []byte) error {
	// The common case, a launch on a stream of the driver the kernel is
	// already bound to, takes no calls besides the driver's: a launch's Go
	// code runs with cold caches after the driver's previous launch, so
	// every line of it shows in the launch cost.
	if k == nil {
		return Errorf("rt.Kernel.Launch", ErrInvalidHandle, "a nil rt.Kernel")
	}
	s, b := cfg.Stream, k.bound.Load()
	c := &cfg.Cluster
	if s == nil || b == nil || s.ctx == nil || s.gone.Load() || s.ctx.dead() || hostCalls.n.Load() != 0 || b.drv != s.ctx.drv || uintptr(len(params)) != k.size || c.X|c.Y|c.Z != 0 {
		return k.launchSlow(cfg, params)
	}
	return b.drv.Launch(b.h, launchArgs(s.ctx.h, s.h, &cfg, params))
}

// launchSlow is Launch for the first launch in a driver, launches without a
// stream, cluster launches and bad parameter buffers.
//
//go:noinline
func (k *Kernel) launchSlow(cfg Config, params []byte) error {
	var (
		drv Driver
		ctx CtxHandle
		sh  StreamHandle
	)
	if s := cfg.Stream; s != nil {
		if err := s.check("rt.Kernel.Launch"); err != nil {
			return err
		}
		drv, ctx, sh = s.ctx.drv, s.ctx.h, s.h
	} else {
		var err error
		if drv, err = defaultDriver(); err != nil {
			return err
		}
		if ctx, err = implicitContext(drv); err != nil {
			return err
		}
	}
	if uintptr(len(params)) != k.size {
		return Errorf("rt.Kernel.Launch", ErrInvalidValue, "kernel %s: %d parameter bytes, want %d", k.name, len(params), k.size)
	}
	if cfg.Cluster != (Dim3{}) {
		cfg.Cluster = cfg.Cluster.Norm()
	}
	b, err := k.binding(drv)
	if err != nil {
		return err
	}
	return drv.Launch(b.h, launchArgs(ctx, sh, &cfg, params))
}

// launchArgs is a launch of params with cfg's shape in ctx on stream sh.
// With launchSlow's handling of clusters, it is the one place launch shapes
// are normalized (see LaunchArgs). Its inlining cost is at the compiler's
// budget: anything added here costs the fast path a call.
func launchArgs(ctx CtxHandle, sh StreamHandle, cfg *Config, params []byte) LaunchArgs {
	return LaunchArgs{
		Ctx:         ctx,
		Stream:      sh,
		Grid:        cfg.Grid.Norm(),
		Block:       cfg.Block.Norm(),
		SharedMem:   cfg.SharedMem,
		Params:      noescape(unsafe.Pointer(unsafe.SliceData(params))),
		ParamSize:   uintptr(len(params)),
		Cluster:     cfg.Cluster,
		Cooperative: cfg.Cooperative,

		ProgrammaticSerialization: cfg.ProgrammaticSerialization,
		Priority:                  cfg.Priority,
	}
}

// noescape hides p from escape analysis so that a generated function's stack
// parameter buffer stays on the stack although it crosses the Driver
// interface. That is sound because Driver.Launch must not retain it; the
// value stays an unsafe.Pointer in every frame, so stack moves adjust it.
//
//go:nosplit
func noescape(p unsafe.Pointer) unsafe.Pointer {
	x := uintptr(p)
	return *(*unsafe.Pointer)(unsafe.Pointer(&x))
}

var defCache atomic.Pointer[Driver]

// defaultDriver is Default with a lock-free fast path for the launch path.
func defaultDriver() (Driver, error) {
	if d := defCache.Load(); d != nil {
		return *d, nil
	}
	d, err := Default()
	if err != nil {
		return nil, err
	}
	defCache.Store(&d)
	return d, nil
}
