package exec

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

// The executor's own harness: kernels are loaded with LoadModule and run as
// Launches in one context (testHost) over a Memory of their own, without
// rt/soft's driver, which imports this package. env has the methods of
// rt/soft's test env that the tests here use; launches run synchronously.

// env is one context with the modules loaded in it.
type env struct {
	t       testing.TB
	cfg     Config
	mem     *Memory
	host    *testHost
	libs    map[rt.LibHandle]*Module
	kernels map[rt.KernelHandle]*Program
	next    uintptr // the last handle handed out
}

// newEnv is an env with cfg's settings, rt/soft's defaults where cfg
// leaves them 0.
func newEnv(t testing.TB, cfg Config) *env {
	t.Helper()
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.InstrBudget == 0 {
		cfg.InstrBudget = 100_000_000_000
	}
	if cfg.StackBytes == 0 {
		cfg.StackBytes = 256 << 10
	}
	if cfg.MallocHeapBytes == 0 {
		cfg.MallocHeapBytes = 8 << 20
	}
	if cfg.ComputeCapability == 0 {
		cfg.ComputeCapability = 90
	}
	e := &env{t: t, cfg: cfg, mem: NewMemory(), libs: map[rt.LibHandle]*Module{}, kernels: map[rt.KernelHandle]*Program{}}
	e.host = &testHost{mem: e.mem, next: GlobalBase + 0x1000_0000, live: map[*Alloc]bool{}, vars: map[*Module][]uint64{}}
	return e
}

func (e *env) handle() uintptr {
	e.next++
	return e.next
}

func (e *env) load(file string) rt.LibHandle {
	e.t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		e.t.Fatal(err)
	}
	h, err := e.loadNamed(src, file)
	if err != nil {
		e.t.Fatalf("load %s: %v", file, err)
	}
	return h
}

func (e *env) loadSrc(name, src string) rt.LibHandle {
	e.t.Helper()
	h, err := e.loadNamed([]byte(src), name)
	if err != nil {
		e.t.Fatalf("load %s: %v", name, err)
	}
	return h
}

// loadNamed is what cuLibraryLoadData does with PTX text.
func (e *env) loadNamed(src []byte, name string) (rt.LibHandle, error) {
	mod, err := ptx.Parse(name, bytes.TrimRight(src, "\x00"))
	if err != nil {
		return 0, rt.Errorf("cuLibraryLoadData", rt.ErrInvalidPTX, "%v", err)
	}
	m, err := LoadModule(name, mod, &e.cfg)
	if err != nil {
		return 0, err
	}
	h := rt.LibHandle(e.handle())
	e.libs[h] = m
	return h, nil
}

func (e *env) unload(h rt.LibHandle) { delete(e.libs, h) }

func (e *env) kernel(lib rt.LibHandle, name string) rt.KernelHandle {
	e.t.Helper()
	for _, p := range e.libs[lib].Kernels {
		if p.Name == name {
			k := rt.KernelHandle(e.handle())
			e.kernels[k] = p
			return k
		}
	}
	e.t.Fatalf("no kernel %q", name)
	return 0
}

// buf allocates device memory holding the bytes of a Go slice.
func (e *env) buf(data any) rt.DevPtr {
	e.t.Helper()
	b := raw(data)
	n := uint64(len(b))
	if n == 0 {
		n = 8
	}
	a, err := e.host.Alloc("cuMemAlloc", n, "cuMemAlloc")
	if err != nil {
		e.t.Fatal(err)
	}
	copy(a.Bytes(), b)
	return rt.DevPtr(a.Base)
}

// get copies device memory back into a Go slice.
func (e *env) get(p rt.DevPtr, into any) {
	e.t.Helper()
	b := raw(into)
	src, err := e.mem.Span("cuMemcpyDtoH", uint64(p), uint64(len(b)))
	if err != nil {
		e.t.Fatal(err)
	}
	copy(b, src)
}

// free frees what buf allocated.
func (e *env) free(p rt.DevPtr) {
	if a := e.mem.Lookup(uint64(p)); a != nil {
		e.host.Free(a)
	}
}

// launchErr runs kernel k to completion and returns its fault.
func (e *env) launchErr(k rt.KernelHandle, grid, block rt.Dim3, smem uint32, args ...any) error {
	_, err := e.run(k, grid, block, smem, args...)
	return err
}

// run runs kernel k to completion and returns the launch, for what it
// counted (Executed), and its fault.
func (e *env) run(k rt.KernelHandle, grid, block rt.Dim3, smem uint32, args ...any) (*Launch, error) {
	p := e.kernels[k]
	b := params(args...)
	pbuf := make([]uint64, len(b)/8+1)
	pb := unsafe.Slice((*byte)(unsafe.Pointer(&pbuf[0])), len(b))
	copy(pb, b)
	l := &Launch{Program: p, Host: e.host, Mem: e.mem, Config: &e.cfg, Grid: grid.Norm(), Block: block.Norm(),
		DynShared: smem, Params: pb}
	if p.UsesVars {
		vars, err := e.host.Vars(p.Module)
		if err != nil {
			return l, err
		}
		l.Vars = vars
	}
	return l, l.Run()
}

func (e *env) launch(k rt.KernelHandle, grid, block rt.Dim3, smem uint32, args ...any) {
	e.t.Helper()
	if err := e.launchErr(k, grid, block, smem, args...); err != nil {
		e.t.Fatal(err)
	}
}

// testHost is the one context of an env.
type testHost struct {
	mem  *Memory
	mu   sync.Mutex
	next uint64 // bump pointer: addresses are never reused
	live map[*Alloc]bool
	vars map[*Module][]uint64
	out  bytes.Buffer // printf output
	rt   Runtime
}

func (h *testHost) Reach(*Alloc) string { return "and peer access to it is not enabled" }

func (h *testHost) Alloc(op string, n uint64, what string) (*Alloc, error) {
	h.mu.Lock()
	base := h.next
	h.next += (n+AllocAlign-1)/AllocAlign*AllocAlign + AllocGuard
	h.next = (h.next + rt.TextureAlign - 1) / rt.TextureAlign * rt.TextureAlign
	a := NewAlloc(base, n)
	a.Owner, a.What = h, what
	h.live[a] = true
	h.mu.Unlock()
	h.mem.Insert(a)
	return a, nil
}

func (h *testHost) Free(a *Alloc) bool {
	h.mu.Lock()
	ok := h.live[a]
	delete(h.live, a)
	h.mu.Unlock()
	if ok {
		h.mem.Free(a)
	}
	return ok
}

// Vars places m's variables once, initialised from the PTX.
func (h *testHost) Vars(m *Module) ([]uint64, error) {
	h.mu.Lock()
	vars, ok := h.vars[m]
	h.mu.Unlock()
	if ok {
		return vars, nil
	}
	vars = make([]uint64, len(m.Vars))
	allocs := make([]*Alloc, len(m.Vars))
	for i, v := range m.Vars {
		a, err := h.Alloc("cuLibraryGetGlobal", uint64(max(VarSize(v), 1)), "variable "+v.Name)
		if err != nil {
			return nil, err
		}
		a.ReadOnly = v.Space == ptx.SpaceConst
		vars[i], allocs[i] = a.Base, a
	}
	addr := func(name string) (uint64, bool) {
		if j := m.VarIndex(name); j >= 0 {
			return vars[j], true
		}
		a, ok := m.FuncAddr[name]
		return a, ok
	}
	for i, v := range m.Vars {
		b, err := m.InitBytes(v, addr)
		if err != nil {
			return nil, err
		}
		copy(allocs[i].Bytes(), b)
	}
	h.mu.Lock()
	h.vars[m] = vars
	h.mu.Unlock()
	return vars, nil
}

func (h *testHost) CheckLaunch(op string, p *Program, la rt.LaunchArgs) error { return nil }

func (h *testHost) TexObject(uint64, bool) *TexObject { return nil }

func (h *testHost) Print(text string) {
	h.mu.Lock()
	h.out.WriteString(text)
	h.mu.Unlock()
}

func (h *testHost) Faulted() *rt.Error { return nil }

func (h *testHost) Runtime() *Runtime { return &h.rt }

func readTestdata(name string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", name)) }

const ptxHeader = softtest.PTXHeader

// What rt/soft's tests use too.
var (
	raw       = softtest.Raw
	params    = softtest.Params
	kernelSrc = softtest.KernelSrc
	wantErr   = softtest.WantErr
	cpuTime   = softtest.CPUTime
)
