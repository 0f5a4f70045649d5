//go:build cgo

package cgo

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// EnvLegacy, set to 1, makes every LibraryLoad take the legacy per-context
// module path, as LoadOptions.Legacy does for one load. It lets the whole rt
// stack be tested on that path with a CUDA 12+ driver.
const EnvLegacy = "CUGEN_CUDA_LEGACY"

// Driver is the CUDA driver backend. All methods are safe for concurrent use.
// There is one Driver per process (New returns it), since the driver library
// itself is process-wide.
type Driver struct {
	version     int  // cuDriverGetVersion, e.g. 13000
	hasLibrary  bool // cuLibrary* present (CUDA 12.0+)
	forceLegacy bool // EnvLegacy

	libs    table[library]
	kernels table[kernel]

	mu      sync.Mutex
	primary map[int]*primaryRef // retains of primary contexts made through this Driver
	live    map[C.CUcontext]int // contexts retained or created through this Driver
}

type primaryRef struct {
	ctx C.CUcontext
	n   int
}

var (
	openOnce sync.Once
	theDrv   *Driver
	openErr  error
)

func init() {
	rt.Register("cuda", 0, func() (rt.Driver, error) {
		d, err := New()
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return d, nil
	})
}

// New opens libcuda.so.1 and initializes the driver (cuInit) on first call,
// and returns the process's Driver. Without a driver it returns an error that
// says so; it never crashes.
func New() (*Driver, error) {
	openOnce.Do(func() { theDrv, openErr = open() })
	return theDrv, openErr
}

func open() (*Driver, error) {
	var msg [512]C.char
	if C.cg_open(&msg[0], C.size_t(len(msg))) != 0 {
		return nil, fmt.Errorf("rt/cgo: no CUDA driver (no GPU or no NVIDIA driver installed?): %s", C.GoString(&msg[0]))
	}
	if rc := C.cg_init(); rc != 0 {
		return nil, fmt.Errorf("rt/cgo: the CUDA driver failed to initialize: %w", check("cuInit", rc))
	}
	var v C.int
	if rc := C.cg_driver_version(&v); rc != 0 {
		return nil, check("cuDriverGetVersion", rc)
	}
	return &Driver{
		version:     int(v),
		hasLibrary:  C.cg_has(C.CG_SYM_LIBRARY) != 0,
		forceLegacy: os.Getenv(EnvLegacy) == "1",
		primary:     map[int]*primaryRef{},
		live:        map[C.CUcontext]int{},
	}, nil
}

// Name is "cuda".
func (d *Driver) Name() string { return "cuda" }

// Version is the driver's CUDA version as cuDriverGetVersion reports it
// (1000*major + 10*minor, e.g. 13000).
func (d *Driver) Version() int { return d.version }

// ContextIndependent reports whether library loads default to the
// context-independent cuLibrary API (CUDA 12.0+ and EnvLegacy unset).
func (d *Driver) ContextIndependent() bool { return d.hasLibrary && !d.forceLegacy }

// ---- errors ----

// asyncCodes are the sticky errors that a kernel's execution leaves behind:
// CUDA reports them at the next call (a synchronize, a launch, a copy),
// never at the call that caused them.
var asyncCodes = map[rt.Result]bool{
	rt.ErrIllegalAddress:      true,
	rt.ErrLaunchTimeout:       true,
	rt.ErrAssert:              true,
	rt.ErrHardwareStackError:  true,
	rt.ErrIllegalInstruction:  true,
	rt.ErrMisalignedAddress:   true,
	rt.ErrInvalidAddressSpace: true,
	rt.ErrInvalidPC:           true,
	rt.ErrLaunchFailed:        true,
}

var (
	namesMu sync.Mutex
	names   = map[rt.Result][2]string{}
)

// errorStrings asks the driver for code's name and text once per code.
func errorStrings(code rt.Result) (string, string) {
	namesMu.Lock()
	defer namesMu.Unlock()
	if n, ok := names[code]; ok {
		return n[0], n[1]
	}
	var name, text *C.char
	C.cg_error_strings(C.int(code), &name, &text)
	n := [2]string{code.Name(), code.Text()}
	if name != nil {
		n[0] = C.GoString(name)
	}
	if text != nil {
		n[1] = C.GoString(text)
	}
	names[code] = n
	return n[0], n[1]
}

// check turns a cg_* result into nil or an *rt.Error for the driver call op.
func check(op string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	return checkd(op, rc, "")
}

// checkd is check with a detail (kernel, variable, JIT log…).
func checkd(op string, rc C.int, detail string) error {
	if rc == 0 {
		return nil
	}
	code := rt.Result(rc & 0xffff)
	switch {
	case rc&C.CG_MISSING != 0:
		return &rt.Error{Op: op, Code: rt.ErrNotSupported, Detail: join(detail,
			fmt.Sprintf("the installed driver (CUDA %s) does not export %s", versionString(), op))}
	case rc&C.CG_PUSH_FAILED != 0:
		detail = join("making the context current failed (cuCtxPushCurrent); is the CtxHandle valid?", detail)
	case rc&C.CG_POP_FAILED != 0:
		detail = join("restoring the previous context failed (cuCtxPopCurrent)", detail)
	}
	name, text := errorStrings(code)
	return &rt.Error{Op: op, Code: code, Name: name, Text: text, Detail: detail, Async: asyncCodes[code]}
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func versionString() string {
	if theDrv == nil {
		return "?"
	}
	v := theDrv.version
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}

// ---- handle conversions ----
//
// Handles are the driver's pointers as integers. Converting through memory
// rather than unsafe.Pointer(uintptr(h)) keeps vet's unsafeptr check quiet;
// the values point into the driver's memory, never Go's, so the garbage
// collector has nothing to track.

func cctx(h rt.CtxHandle) C.CUcontext      { return *(*C.CUcontext)(unsafe.Pointer(&h)) }
func cstream(h rt.StreamHandle) C.CUstream { return *(*C.CUstream)(unsafe.Pointer(&h)) }
func cevent(h rt.EventHandle) C.CUevent    { return *(*C.CUevent)(unsafe.Pointer(&h)) }
func ctxh(c C.CUcontext) rt.CtxHandle      { return rt.CtxHandle(uintptr(unsafe.Pointer(c))) }

// ---- devices ----

// DeviceCount is cuDeviceGetCount.
func (d *Driver) DeviceCount() (int, error) {
	var n C.int
	if rc := C.cg_device_count(&n); rc != 0 {
		return 0, check("cuDeviceGetCount", rc)
	}
	return int(n), nil
}

// DeviceName is cuDeviceGetName.
func (d *Driver) DeviceName(dev int) (string, error) {
	var buf [256]C.char
	if rc := C.cg_device_name(C.int(dev), &buf[0], C.int(len(buf))); rc != 0 {
		return "", checkd("cuDeviceGetName", rc, fmt.Sprintf("device %d", dev))
	}
	return C.GoString(&buf[0]), nil
}

// DeviceAttribute is cuDeviceGetAttribute.
func (d *Driver) DeviceAttribute(dev int, attr rt.DeviceAttr) (int, error) {
	var v C.int
	if rc := C.cg_device_attribute(C.int(dev), C.int(attr), &v); rc != 0 {
		return 0, checkd("cuDeviceGetAttribute", rc, fmt.Sprintf("device %d, attribute %d", dev, attr))
	}
	return int(v), nil
}

// DeviceTotalMem is cuDeviceTotalMem.
func (d *Driver) DeviceTotalMem(dev int) (uint64, error) {
	var n C.size_t
	if rc := C.cg_device_total_mem(C.int(dev), &n); rc != 0 {
		return 0, checkd("cuDeviceTotalMem", rc, fmt.Sprintf("device %d", dev))
	}
	return uint64(n), nil
}

// MemInfo is cuMemGetInfo in ctx: free and total device memory in bytes.
func (d *Driver) MemInfo(ctx rt.CtxHandle) (free, total uint64, err error) {
	var f, t C.size_t
	if rc := C.cg_mem_get_info(cctx(ctx), &f, &t); rc != 0 {
		return 0, 0, check("cuMemGetInfo", rc)
	}
	return uint64(f), uint64(t), nil
}

// ---- contexts ----

// PrimaryCtxRetain is cuDevicePrimaryCtxRetain.
func (d *Driver) PrimaryCtxRetain(dev int) (rt.CtxHandle, error) {
	var c C.CUcontext
	if rc := C.cg_primary_retain(C.int(dev), &c); rc != 0 {
		return 0, checkd("cuDevicePrimaryCtxRetain", rc, fmt.Sprintf("device %d", dev))
	}
	d.mu.Lock()
	r := d.primary[dev]
	if r == nil || r.ctx != c {
		r = &primaryRef{ctx: c}
		d.primary[dev] = r
	}
	r.n++
	d.live[c]++
	d.mu.Unlock()
	return ctxh(c), nil
}

// PrimaryCtxRelease is cuDevicePrimaryCtxRelease. When this Driver's last
// retain goes, the legacy modules it loaded there are unloaded first: the
// release may destroy the context, and a later retain may return a new
// context at the same address.
func (d *Driver) PrimaryCtxRelease(dev int) error {
	d.mu.Lock()
	r := d.primary[dev]
	var last C.CUcontext
	if r != nil {
		if r.n--; r.n <= 0 {
			last = r.ctx
			delete(d.primary, dev)
		}
		if d.live[r.ctx]--; d.live[r.ctx] <= 0 {
			delete(d.live, r.ctx)
		}
	}
	d.mu.Unlock()
	if last != nil {
		d.dropContext(last, true)
	}
	if rc := C.cg_primary_release(C.int(dev)); rc != 0 {
		return checkd("cuDevicePrimaryCtxRelease", rc, fmt.Sprintf("device %d", dev))
	}
	return nil
}

// CtxCreate is cuCtxCreate. Unlike cuCtxCreate it leaves the calling
// thread's current context as it was.
func (d *Driver) CtxCreate(dev int, flags uint32) (rt.CtxHandle, error) {
	var c C.CUcontext
	if rc := C.cg_ctx_create(C.int(dev), C.uint(flags), &c); rc != 0 {
		return 0, checkd("cuCtxCreate", rc, fmt.Sprintf("device %d", dev))
	}
	d.mu.Lock()
	d.live[c] = 1
	d.mu.Unlock()
	return ctxh(c), nil
}

// CtxDestroy is cuCtxDestroy; it also drops the backend's legacy modules of
// the context (the driver frees them with it).
func (d *Driver) CtxDestroy(ctx rt.CtxHandle) error {
	if ctx == 0 {
		return rt.Errorf("cuCtxDestroy", rt.ErrInvalidContext, "zero CtxHandle")
	}
	if rc := C.cg_ctx_destroy(cctx(ctx)); rc != 0 {
		return check("cuCtxDestroy", rc)
	}
	d.mu.Lock()
	delete(d.live, cctx(ctx))
	d.mu.Unlock()
	d.dropContext(cctx(ctx), false)
	return nil
}

// someCtx is a context to run a query in that needs one but belongs to none
// (cuKernelGetParamInfo): the calling thread's current context, else any
// context this Driver retained or created, else nil.
func (d *Driver) someCtx() C.CUcontext {
	var c C.CUcontext
	if C.cg_ctx_get_current(&c) == 0 && c != nil {
		return c
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for c := range d.live {
		return c
	}
	return nil
}

// CtxSetCurrent is cuCtxSetCurrent: per OS thread, so the caller must hold
// runtime.LockOSThread for it to mean anything.
func (d *Driver) CtxSetCurrent(ctx rt.CtxHandle) error {
	return check("cuCtxSetCurrent", C.cg_ctx_set_current(cctx(ctx)))
}

// CtxGetCurrent is cuCtxGetCurrent; 0 when no context is current.
func (d *Driver) CtxGetCurrent() (rt.CtxHandle, error) {
	var c C.CUcontext
	if rc := C.cg_ctx_get_current(&c); rc != 0 {
		return 0, check("cuCtxGetCurrent", rc)
	}
	return ctxh(c), nil
}

// CtxDevice is cuCtxGetDevice run in ctx.
func (d *Driver) CtxDevice(ctx rt.CtxHandle) (int, error) {
	var dev C.int
	if rc := C.cg_ctx_device(cctx(ctx), &dev); rc != 0 {
		return 0, check("cuCtxGetDevice", rc)
	}
	return int(dev), nil
}

// CtxSynchronize is cuCtxSynchronize run in ctx.
func (d *Driver) CtxSynchronize(ctx rt.CtxHandle) error {
	return check("cuCtxSynchronize", C.cg_ctx_synchronize(cctx(ctx)))
}

// ---- streams and events ----

// StreamCreate is cuStreamCreateWithPriority.
func (d *Driver) StreamCreate(ctx rt.CtxHandle, flags uint32, priority int) (rt.StreamHandle, error) {
	var s C.CUstream
	if rc := C.cg_stream_create(cctx(ctx), C.uint(flags), C.int(priority), &s); rc != 0 {
		return 0, check("cuStreamCreateWithPriority", rc)
	}
	return rt.StreamHandle(uintptr(unsafe.Pointer(s))), nil
}

// StreamDestroy is cuStreamDestroy.
func (d *Driver) StreamDestroy(ctx rt.CtxHandle, s rt.StreamHandle) error {
	return check("cuStreamDestroy", C.cg_stream_destroy(cctx(ctx), cstream(s)))
}

// StreamSynchronize is cuStreamSynchronize.
func (d *Driver) StreamSynchronize(ctx rt.CtxHandle, s rt.StreamHandle) error {
	return check("cuStreamSynchronize", C.cg_stream_synchronize(cctx(ctx), cstream(s)))
}

// StreamQuery is cuStreamQuery: done is false while work is pending
// (CUDA_ERROR_NOT_READY is not an error here).
func (d *Driver) StreamQuery(ctx rt.CtxHandle, s rt.StreamHandle) (bool, error) {
	switch rc := C.cg_stream_query(cctx(ctx), cstream(s)); rc {
	case 0:
		return true, nil
	case C.int(rt.ErrNotReady):
		return false, nil
	default:
		return false, check("cuStreamQuery", rc)
	}
}

// EventCreate is cuEventCreate.
func (d *Driver) EventCreate(ctx rt.CtxHandle, flags uint32) (rt.EventHandle, error) {
	var e C.CUevent
	if rc := C.cg_event_create(cctx(ctx), C.uint(flags), &e); rc != 0 {
		return 0, check("cuEventCreate", rc)
	}
	return rt.EventHandle(uintptr(unsafe.Pointer(e))), nil
}

// EventRecord is cuEventRecord.
func (d *Driver) EventRecord(ctx rt.CtxHandle, e rt.EventHandle, s rt.StreamHandle) error {
	return check("cuEventRecord", C.cg_event_record(cctx(ctx), cevent(e), cstream(s)))
}

// EventSynchronize is cuEventSynchronize.
func (d *Driver) EventSynchronize(ctx rt.CtxHandle, e rt.EventHandle) error {
	return check("cuEventSynchronize", C.cg_event_synchronize(cctx(ctx), cevent(e)))
}

// EventElapsed is cuEventElapsedTime (the _v2 entry point where the driver
// has it).
func (d *Driver) EventElapsed(ctx rt.CtxHandle, start, end rt.EventHandle) (float32, error) {
	var ms C.float
	if rc := C.cg_event_elapsed(cctx(ctx), &ms, cevent(start), cevent(end)); rc != 0 {
		return 0, check("cuEventElapsedTime", rc)
	}
	return float32(ms), nil
}

// EventDestroy is cuEventDestroy.
func (d *Driver) EventDestroy(ctx rt.CtxHandle, e rt.EventHandle) error {
	return check("cuEventDestroy", C.cg_event_destroy(cctx(ctx), cevent(e)))
}

// ---- memory ----

// MemAlloc is cuMemAlloc.
func (d *Driver) MemAlloc(ctx rt.CtxHandle, size uint64) (rt.DevPtr, error) {
	var p C.CUdeviceptr
	if rc := C.cg_mem_alloc(cctx(ctx), &p, C.size_t(size)); rc != 0 {
		return 0, checkd("cuMemAlloc", rc, fmt.Sprintf("%d bytes", size))
	}
	return rt.DevPtr(p), nil
}

// MemFree is cuMemFree.
func (d *Driver) MemFree(ctx rt.CtxHandle, p rt.DevPtr) error {
	return check("cuMemFree", C.cg_mem_free(cctx(ctx), C.CUdeviceptr(p)))
}

func b2i(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// MemcpyHtoD is cuMemcpyHtoD, or cuMemcpyHtoDAsync on s when async. For
// pageable (Go) memory CUDA stages the source before the async call returns,
// so src is not used after MemcpyHtoD returns, as cgo requires.
func (d *Driver) MemcpyHtoD(ctx rt.CtxHandle, dst rt.DevPtr, src unsafe.Pointer, n uint64, s rt.StreamHandle, async bool) error {
	op := "cuMemcpyHtoD"
	if async {
		op = "cuMemcpyHtoDAsync"
	}
	return check(op, C.cg_memcpy_htod(cctx(ctx), C.CUdeviceptr(dst), src, C.size_t(n), cstream(s), b2i(async)))
}

// MemcpyDtoH is cuMemcpyDtoH, or cuMemcpyDtoHAsync on s when async. Into
// pageable (Go) memory the async copy has completed when the call returns.
func (d *Driver) MemcpyDtoH(ctx rt.CtxHandle, dst unsafe.Pointer, src rt.DevPtr, n uint64, s rt.StreamHandle, async bool) error {
	op := "cuMemcpyDtoH"
	if async {
		op = "cuMemcpyDtoHAsync"
	}
	return check(op, C.cg_memcpy_dtoh(cctx(ctx), dst, C.CUdeviceptr(src), C.size_t(n), cstream(s), b2i(async)))
}

// MemcpyDtoD is cuMemcpyDtoD, or cuMemcpyDtoDAsync on s when async.
func (d *Driver) MemcpyDtoD(ctx rt.CtxHandle, dst, src rt.DevPtr, n uint64, s rt.StreamHandle, async bool) error {
	op := "cuMemcpyDtoD"
	if async {
		op = "cuMemcpyDtoDAsync"
	}
	return check(op, C.cg_memcpy_dtod(cctx(ctx), C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(n), cstream(s), b2i(async)))
}

// MemsetD8 is cuMemsetD8, or cuMemsetD8Async on s when async.
func (d *Driver) MemsetD8(ctx rt.CtxHandle, dst rt.DevPtr, v byte, n uint64, s rt.StreamHandle, async bool) error {
	op := "cuMemsetD8"
	if async {
		op = "cuMemsetD8Async"
	}
	return check(op, C.cg_memset_d8(cctx(ctx), C.CUdeviceptr(dst), C.uchar(v), C.size_t(n), cstream(s), b2i(async)))
}

// ---- handle tables ----

// table maps handles (index+1) to backend objects. Lookups are lock-free, as
// Launch does one per call; entries are never reused, so a stale handle finds
// its old (dead) entry instead of someone else's object.
type table[T any] struct {
	mu   sync.Mutex
	snap atomic.Pointer[[]*T]
}

func (t *table[T]) add(v *T) uintptr {
	t.mu.Lock()
	defer t.mu.Unlock()
	var s []*T
	if p := t.snap.Load(); p != nil {
		s = *p
	}
	// Appending in place is safe: readers of an older snapshot never look
	// past their own length.
	s = append(s, v)
	t.snap.Store(&s)
	return uintptr(len(s))
}

func (t *table[T]) get(h uintptr) *T {
	p := t.snap.Load()
	if p == nil || h == 0 || h > uintptr(len(*p)) {
		return nil
	}
	return (*p)[h-1]
}

func (t *table[T]) all() []*T {
	if p := t.snap.Load(); p != nil {
		return *p
	}
	return nil
}
