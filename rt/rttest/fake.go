// Package rttest helps test rt.Driver implementations and the code above
// them. TestDriver is the conformance suite every backend runs; Fake is a
// driver that records what the runtime asks of it, for testing rt and
// generated packages' launch paths without a GPU and without executing
// anything (rt/soft executes; Fake only records).
package rttest

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// Launch is one recorded launch.
type Launch struct {
	Kernel string
	Args   rt.LaunchArgs
	Params []byte // a copy of the parameter buffer
}

// Fake is an rt.Driver with one device whose memory is a byte map. It loads
// any image, resolves every kernel name listed in Kernels, and records loads
// and launches.
type Fake struct {
	Kernels    []string                  // names LibraryKernel resolves
	ParamSpecs map[string][]rt.ParamSpec // reported by KernelParamInfo when set
	Placed     map[string][]rt.ParamSpec // the layouts PlaceParams was given
	Record     bool                      // copy each launch into Launches

	Loads      atomic.Int32
	Lookups    atomic.Int32     // LibraryKernel calls
	ParamInfos atomic.Int32     // KernelParamInfo calls
	LoadOpts   []rt.LoadOptions // the options of every load, in order
	launches   atomic.Int64

	mu       sync.Mutex
	Launches []Launch
	mem      map[rt.DevPtr][]byte
	next     rt.DevPtr
	globals  map[string]map[rt.CtxHandle]rt.DevPtr
	current  rt.CtxHandle
	ctxs     rt.CtxHandle
}

var (
	_ rt.Driver      = (*Fake)(nil)
	_ rt.ParamInfoer = (*Fake)(nil)
	_ rt.ParamPlacer = (*Fake)(nil)
)

func (f *Fake) Name() string { return "fake" }

// LaunchCount is the number of launches so far.
func (f *Fake) LaunchCount() int64 { return f.launches.Load() }

func (f *Fake) DeviceCount() (int, error)                       { return 1, nil }
func (f *Fake) DeviceName(int) (string, error)                  { return "fake device", nil }
func (f *Fake) DeviceAttribute(int, rt.DeviceAttr) (int, error) { return 1, nil }
func (f *Fake) DeviceTotalMem(int) (uint64, error)              { return 1 << 30, nil }

func (f *Fake) PrimaryCtxRetain(dev int) (rt.CtxHandle, error) { return 1, nil }
func (f *Fake) PrimaryCtxRelease(int) error                    { return nil }
func (f *Fake) CtxCreate(int, uint32) (rt.CtxHandle, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ctxs++
	return 100 + f.ctxs, nil
}
func (f *Fake) CtxDestroy(rt.CtxHandle) error { return nil }
func (f *Fake) CtxSetCurrent(c rt.CtxHandle) error {
	f.mu.Lock()
	f.current = c
	f.mu.Unlock()
	return nil
}
func (f *Fake) CtxGetCurrent() (rt.CtxHandle, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.current, nil
}
func (f *Fake) CtxDevice(rt.CtxHandle) (int, error) { return 0, nil }
func (f *Fake) CtxSynchronize(rt.CtxHandle) error   { return nil }

func (f *Fake) StreamCreate(rt.CtxHandle, uint32, int) (rt.StreamHandle, error) { return 7, nil }
func (f *Fake) StreamDestroy(rt.CtxHandle, rt.StreamHandle) error               { return nil }
func (f *Fake) StreamSynchronize(rt.CtxHandle, rt.StreamHandle) error           { return nil }
func (f *Fake) StreamQuery(rt.CtxHandle, rt.StreamHandle) (bool, error)         { return true, nil }

func (f *Fake) EventCreate(rt.CtxHandle, uint32) (rt.EventHandle, error)        { return 1, nil }
func (f *Fake) EventRecord(rt.CtxHandle, rt.EventHandle, rt.StreamHandle) error { return nil }
func (f *Fake) EventSynchronize(rt.CtxHandle, rt.EventHandle) error             { return nil }
func (f *Fake) EventElapsed(rt.CtxHandle, rt.EventHandle, rt.EventHandle) (float32, error) {
	return 0, nil
}
func (f *Fake) EventDestroy(rt.CtxHandle, rt.EventHandle) error { return nil }

func (f *Fake) MemAlloc(ctx rt.CtxHandle, size uint64) (rt.DevPtr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mem == nil {
		f.mem = map[rt.DevPtr][]byte{}
		f.next = 0x1000
	}
	p := f.next
	f.mem[p] = make([]byte, size)
	f.next += rt.DevPtr((size + 255) &^ 255)
	return p, nil
}

func (f *Fake) MemFree(ctx rt.CtxHandle, p rt.DevPtr) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.mem[p]; !ok {
		return &rt.Error{Op: "cuMemFree", Code: rt.ErrInvalidValue}
	}
	delete(f.mem, p)
	return nil
}

// find returns the allocation holding [p, p+n).
func (f *Fake) find(p rt.DevPtr, n uint64) ([]byte, error) {
	for base, b := range f.mem {
		if p >= base && uint64(p-base)+n <= uint64(len(b)) {
			return b[p-base : uint64(p-base)+n], nil
		}
	}
	return nil, &rt.Error{Op: "cuMemcpy", Code: rt.ErrInvalidValue}
}

func (f *Fake) MemcpyHtoD(ctx rt.CtxHandle, dst rt.DevPtr, src unsafe.Pointer, n uint64, s rt.StreamHandle, async bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, err := f.find(dst, n)
	if err != nil {
		return err
	}
	copy(b, unsafe.Slice((*byte)(src), n))
	return nil
}

func (f *Fake) MemcpyDtoH(ctx rt.CtxHandle, dst unsafe.Pointer, src rt.DevPtr, n uint64, s rt.StreamHandle, async bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, err := f.find(src, n)
	if err != nil {
		return err
	}
	copy(unsafe.Slice((*byte)(dst), n), b)
	return nil
}

func (f *Fake) MemcpyDtoD(ctx rt.CtxHandle, dst, src rt.DevPtr, n uint64, s rt.StreamHandle, async bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, err := f.find(dst, n)
	if err != nil {
		return err
	}
	sb, err := f.find(src, n)
	if err != nil {
		return err
	}
	copy(d, sb)
	return nil
}

func (f *Fake) MemsetD8(ctx rt.CtxHandle, dst rt.DevPtr, v byte, n uint64, s rt.StreamHandle, async bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, err := f.find(dst, n)
	if err != nil {
		return err
	}
	for i := range b {
		b[i] = v
	}
	return nil
}

func (f *Fake) LibraryLoad(image []byte, opts rt.LoadOptions) (rt.LibHandle, error) {
	f.Loads.Add(1)
	f.mu.Lock()
	f.LoadOpts = append(f.LoadOpts, opts)
	f.mu.Unlock()
	return 1, nil
}
func (f *Fake) LibraryUnload(rt.LibHandle) error { return nil }

func (f *Fake) LibraryKernel(lib rt.LibHandle, name string) (rt.KernelHandle, error) {
	f.Lookups.Add(1)
	for i, k := range f.Kernels {
		if k == name {
			return rt.KernelHandle(i + 1), nil
		}
	}
	return 0, &rt.Error{Op: "cuLibraryGetKernel", Code: rt.ErrNotFound, Detail: name}
}

func (f *Fake) LibraryKernelNames(rt.LibHandle) ([]string, error) { return f.Kernels, nil }

// LibraryGlobal gives each (variable, context) its own 64-byte allocation.
func (f *Fake) LibraryGlobal(ctx rt.CtxHandle, lib rt.LibHandle, name string) (rt.DevPtr, uint64, error) {
	f.mu.Lock()
	if f.globals == nil {
		f.globals = map[string]map[rt.CtxHandle]rt.DevPtr{}
	}
	if f.globals[name] == nil {
		f.globals[name] = map[rt.CtxHandle]rt.DevPtr{}
	}
	p, ok := f.globals[name][ctx]
	f.mu.Unlock()
	if !ok {
		var err error
		if p, err = f.MemAlloc(ctx, 4); err != nil {
			return 0, 0, err
		}
		f.mu.Lock()
		f.globals[name][ctx] = p
		f.mu.Unlock()
	}
	return p, 4, nil
}

// LibraryManaged gives each variable one allocation for every context.
func (f *Fake) LibraryManaged(ctx rt.CtxHandle, lib rt.LibHandle, name string) (rt.DevPtr, uint64, error) {
	return f.LibraryGlobal(0, lib, "managed:"+name)
}

// KernelParamInfo reports ParamSpecs[name] (the driver's view of the layout).
func (f *Fake) KernelParamInfo(k rt.KernelHandle) ([]rt.ParamSpec, error) {
	f.ParamInfos.Add(1)
	if f.ParamSpecs == nil {
		return nil, &rt.Error{Op: "cuKernelGetParamInfo", Code: rt.ErrNotSupported}
	}
	return f.ParamSpecs[f.Kernels[k-1]], nil
}

// KernelParamSpecs is KernelParamInfo, its name before 16f6621.
//
// Deprecated: use KernelParamInfo.
func (f *Fake) KernelParamSpecs(k rt.KernelHandle) ([]rt.ParamSpec, error) {
	return f.KernelParamInfo(k)
}

// PlaceParams records the layout in Placed; launches still record the
// buffer as packed.
func (f *Fake) PlaceParams(k rt.KernelHandle, packed []rt.ParamSpec) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Placed == nil {
		f.Placed = map[string][]rt.ParamSpec{}
	}
	f.Placed[f.Kernels[k-1]] = append([]rt.ParamSpec(nil), packed...)
	return nil
}

func (f *Fake) Launch(k rt.KernelHandle, l rt.LaunchArgs) error {
	f.launches.Add(1)
	if f.Record {
		p := append([]byte(nil), unsafe.Slice((*byte)(l.Params), l.ParamSize)...)
		f.mu.Lock()
		f.Launches = append(f.Launches, Launch{Kernel: f.Kernels[k-1], Args: l, Params: p})
		f.mu.Unlock()
	}
	return nil
}
