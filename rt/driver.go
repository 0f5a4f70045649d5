package rt

import "unsafe"

// Handles are opaque values a Driver hands out; 0 is never a valid handle
// except for StreamHandle, where 0 is the context's NULL stream.
type (
	CtxHandle    uintptr
	StreamHandle uintptr
	EventHandle  uintptr
	LibHandle    uintptr
	KernelHandle uintptr
)

// Driver is the backend interface: the subset of the CUDA driver API that cugen's
// generated code and the rt helpers need. Two implementations exist: rt/cgo, which
// dlopens libcuda.so.1, and rt/soft, which executes PTX in pure Go; rt/rttest's
// TestDriver checks an implementation against this contract.
//
// Methods mirror driver-API calls one to one and keep their semantics; the
// comments name the call. Every error is an *Error carrying the CUresult.
// Methods taking a CtxHandle run in that context (the backend makes it current
// for the call); a zero CtxHandle means the calling OS thread's current context.
// Where a method departs from its CUDA call, its comment says so.
//
// A kernel fault (an illegal or misaligned address, a trap, a failed assert,
// a launch failure or timeout, a hardware stack error) is sticky, as in CUDA:
// every later call of the process returns it; see Result.Sticky for which
// codes.
//
// A backend may implement optional capabilities beyond Driver, which rt
// finds by type assertion and reports as ErrNotSupported when missing:
// kernels' layouts and attributes (ParamInfoer, ParamPlacer,
// KernelAttributer, OccupancyCalculator), loading (JITLogger, WarmUpper,
// LoadingModer, Linker), streams and memory (Streamer, MemoryOps,
// AsyncAllocator, PeerAccessor), graphs (Grapher), arrays and textures
// (Texturer), tensor maps (rt/tensormap's Encoder) and interop (Adopter,
// NativeHandler). rt/cgo implements all of them; rt/soft all but
// JITLogger, WarmUpper, LoadingModer and Linker (it has no JIT to log, warm
// or link with).
type Driver interface {
	// Name is "cuda" or "soft".
	Name() string

	DeviceCount() (int, error)                             // cuDeviceGetCount
	DeviceName(dev int) (string, error)                    // cuDeviceGetName
	DeviceAttribute(dev int, attr DeviceAttr) (int, error) // cuDeviceGetAttribute
	DeviceTotalMem(dev int) (uint64, error)                // cuDeviceTotalMem

	PrimaryCtxRetain(dev int) (CtxHandle, error) // cuDevicePrimaryCtxRetain
	PrimaryCtxRelease(dev int) error             // cuDevicePrimaryCtxRelease
	// CtxCreate is cuCtxCreate, except that it leaves the calling thread's
	// current context as it was (cuCtxCreate makes the new one current):
	// a goroutine does not own its OS thread.
	CtxCreate(dev int, flags uint32) (CtxHandle, error)
	CtxDestroy(ctx CtxHandle) error
	CtxSetCurrent(ctx CtxHandle) error    // per OS thread, as in CUDA; 0 unbinds
	CtxGetCurrent() (CtxHandle, error)    // 0 and no error when none is current
	CtxDevice(ctx CtxHandle) (int, error) // cuCtxGetDevice
	CtxSynchronize(ctx CtxHandle) error   // cuCtxSynchronize

	StreamCreate(ctx CtxHandle, flags uint32, priority int) (StreamHandle, error) // cuStreamCreateWithPriority
	StreamDestroy(ctx CtxHandle, s StreamHandle) error
	StreamSynchronize(ctx CtxHandle, s StreamHandle) error
	// StreamQuery is cuStreamQuery: done is false, with no error, while
	// work is pending (CUDA_ERROR_NOT_READY).
	StreamQuery(ctx CtxHandle, s StreamHandle) (done bool, err error)

	EventCreate(ctx CtxHandle, flags uint32) (EventHandle, error)
	EventRecord(ctx CtxHandle, e EventHandle, s StreamHandle) error
	EventSynchronize(ctx CtxHandle, e EventHandle) error
	EventElapsed(ctx CtxHandle, start, end EventHandle) (ms float32, err error) // cuEventElapsedTime
	EventDestroy(ctx CtxHandle, e EventHandle) error

	MemAlloc(ctx CtxHandle, size uint64) (DevPtr, error)
	MemFree(ctx CtxHandle, p DevPtr) error
	// Copies and memset: s is the stream for async variants (async=true);
	// synchronous copies ignore it. Host pointers must stay valid until the
	// copy completes (the stream is synchronized) for async copies.
	MemcpyHtoD(ctx CtxHandle, dst DevPtr, src unsafe.Pointer, n uint64, s StreamHandle, async bool) error
	MemcpyDtoH(ctx CtxHandle, dst unsafe.Pointer, src DevPtr, n uint64, s StreamHandle, async bool) error
	MemcpyDtoD(ctx CtxHandle, dst, src DevPtr, n uint64, s StreamHandle, async bool) error
	MemsetD8(ctx CtxHandle, dst DevPtr, v byte, n uint64, s StreamHandle, async bool) error

	// LibraryLoad is cuLibraryLoadData: context-independent, may be called
	// before any context exists. The image is PTX text (NUL-terminated or not),
	// a cubin or a fatbin; the backend copies what it keeps.
	LibraryLoad(image []byte, opts LoadOptions) (LibHandle, error)
	LibraryUnload(lib LibHandle) error
	// LibraryKernel is cuLibraryGetKernel; the same name gives the same handle.
	LibraryKernel(lib LibHandle, name string) (KernelHandle, error)
	// LibraryKernelNames lists the image's kernels, in no particular order
	// (cuLibraryEnumerateKernels + cuKernelGetName).
	LibraryKernelNames(lib LibHandle) ([]string, error)
	// LibraryGlobal is cuLibraryGetGlobal: the variable's address in ctx (per context).
	LibraryGlobal(ctx CtxHandle, lib LibHandle, name string) (DevPtr, uint64, error)
	// LibraryManaged is cuLibraryGetManaged: one address for every context.
	LibraryManaged(ctx CtxHandle, lib LibHandle, name string) (DevPtr, uint64, error)

	// Launch is cuLaunchKernel (cuLaunchKernelEx when l asks for launch
	// attributes) with the CUkernel handle. l follows LaunchArgs' contract;
	// Launch must not retain l.Params after it returns (the buffer lives on
	// the caller's stack).
	Launch(k KernelHandle, l LaunchArgs) error
}

// LaunchArgs is everything one launch needs. A launch with a non-zero Stream runs
// in the stream's context; with Stream 0 it runs on Ctx's NULL stream, or, if Ctx
// is 0 too, on the NULL stream of the calling thread's current context.
//
// rt.Kernel.Launch is the one place that prepares a launch, and a backend
// takes what it is given:
//   - Grid and Block have no zero component. rt normalizes a Config's shapes
//     (a zero component counts as 1) and nothing else does: a backend neither
//     normalizes them again nor has a path of its own for zeros (called
//     directly with one, it fails as cuLaunchKernel does, with
//     CUDA_ERROR_INVALID_VALUE: no device limit starts at 0).
//   - Params holds ParamSize bytes, packed at the kernel's declared parameter
//     offsets: the kernel's own, or, where the loaded kernel reads them
//     elsewhere, the offsets rt gave the backend (ParamPlacer) when it bound
//     the kernel. rt checks the size on every launch, and the layout against
//     the driver's (ParamInfoer) once per kernel and driver, so a backend
//     need not check either (CUDA checks neither; rt/soft checks the size,
//     as it must not read past the buffer).
//
// Grid counts blocks, also for cluster launches, where each dimension must be
// a multiple of Cluster's (cuda.core counts clusters instead: not here).
// Cluster is zero (no cluster dimension) or, normalized like the other
// shapes, has no zero component.
type LaunchArgs struct {
	Ctx       CtxHandle
	Stream    StreamHandle
	Grid      Dim3 // blocks
	Block     Dim3
	SharedMem uint32
	Params    unsafe.Pointer
	ParamSize uintptr
	// Cluster, when non-zero, asks for cuLaunchKernelEx with a cluster dimension.
	Cluster     Dim3
	Cooperative bool
	// ProgrammaticSerialization and Priority: see Config.
	ProgrammaticSerialization bool
	Priority                  int32
}

// LoadOptions are the options of a library load.
type LoadOptions struct {
	// Name is the image's file name, for positions in errors ("kernels.ptx:12:5").
	Name string
	// Legacy forces the per-context cuModuleLoadData path even when the driver
	// has the context-independent API (backends without a legacy path ignore it).
	Legacy bool
	// JIT steers the compilation of the image's PTX, if the driver compiles
	// any (a cubin for the device needs none).
	JIT JITOptions
}

// JITOptions are the options of the driver's PTX compiler (CUjit_option).
// The zero value is the compiler's defaults.
type JITOptions struct {
	// MaxRegisters caps registers per thread (CU_JIT_MAX_REGISTERS); 0 = no cap.
	MaxRegisters int
	// OptLevel is the optimization level 1..4 (CU_JIT_OPTIMIZATION_LEVEL);
	// 0 means the compiler's default (4).
	OptLevel int
	// LineInfo, Debug and Verbose ask for line info, debug info and a
	// verbose info log (CU_JIT_GENERATE_LINE_INFO, _GENERATE_DEBUG_INFO,
	// _LOG_VERBOSE).
	LineInfo, Debug, Verbose bool
}

// DevPtr is a device address (CUdeviceptr).
type DevPtr uint64

// DeviceAttr is a CUdevice_attribute value.
type DeviceAttr int32

// Device attributes rt uses; the values are CUDA's.
const (
	AttrMaxThreadsPerBlock           DeviceAttr = 1
	AttrMaxBlockDimX                 DeviceAttr = 2
	AttrMaxGridDimX                  DeviceAttr = 5
	AttrMaxSharedMemoryPerBlock      DeviceAttr = 8
	AttrWarpSize                     DeviceAttr = 10
	AttrMultiprocessorCount          DeviceAttr = 16
	AttrComputeCapabilityMajor       DeviceAttr = 75
	AttrComputeCapabilityMinor       DeviceAttr = 76
	AttrMaxSharedMemoryPerBlockOptin DeviceAttr = 97
)

// Dim3 is a grid or block shape. A zero component counts as 1.
type Dim3 struct{ X, Y, Z uint32 }

// D1, D2 and D3 build Dim3 values.
func D1(x int) Dim3       { return Dim3{uint32(x), 1, 1} }
func D2(x, y int) Dim3    { return Dim3{uint32(x), uint32(y), 1} }
func D3(x, y, z int) Dim3 { return Dim3{uint32(x), uint32(y), uint32(z)} }

// Norm returns d with zero components replaced by 1.
func (d Dim3) Norm() Dim3 { return Dim3{max(d.X, 1), max(d.Y, 1), max(d.Z, 1)} }

// Count is X*Y*Z of the normalized shape.
func (d Dim3) Count() uint64 {
	d = d.Norm()
	return uint64(d.X) * uint64(d.Y) * uint64(d.Z)
}
