package rt

import (
	"fmt"
	"unsafe"
)

// Optional backend capabilities beyond Driver. Each is a small interface
// that rt and its callers type-assert a Driver to; a backend without one
// simply does not implement it, and rt's helpers then report ErrNotSupported
// or do without. rt/cgo implements all of them; rt/soft implements all but
// JITLogger, WarmUpper, LoadingModer and Linker (it compiles nothing).
//
// As in Driver, methods taking a CtxHandle run in that context and a stream
// handle of 0 is that context's NULL stream.

// ParamInfoer reports a kernel's parameter layout as the driver reads the
// parameter buffer (cuKernelGetParamInfo, CUDA 12.4+): each parameter's
// offset and size, in order. rt checks a Kernel's declared layout against it
// once per (kernel, driver), when it binds the kernel in that driver. An
// error means the driver cannot tell (too old, or no context to ask in);
// rt then launches with the declared layout unchecked, except for kernels
// with an over-aligned parameter (see ParamSpec), which it has placed.
type ParamInfoer interface {
	KernelParamInfo(k KernelHandle) ([]ParamSpec, error)
}

// ParamPlacer launches kernels whose parameter buffers are packed at a layout
// other than the one the compiled kernel reads (see ParamSpec): rt/cgo passes
// cuLaunchKernel kernelParams, one pointer per parameter into the packed
// buffer, and the driver places each parameter; rt/soft copies each to its
// PTX offset.
type ParamPlacer interface {
	// PlaceParams says that launches of k pass buffers packed at packed
	// (one entry per parameter, in order, within the buffer), and that the
	// backend is to pass each parameter to the kernel where the kernel
	// reads it. rt calls it once per (kernel, driver), when it binds the
	// kernel, before the kernel's first launch; a second call with other
	// offsets fails with ErrNotPermitted. Launches of a placed kernel still
	// allocate nothing.
	PlaceParams(k KernelHandle, packed []ParamSpec) error
}

// KernelAttributer gets and sets a kernel's attributes on one device
// (cuKernelGetAttribute, cuKernelSetAttribute). Attributes are per device: a
// kernel that needs more than 48 KiB of dynamic shared memory must have
// FuncMaxDynamicSharedSizeBytes set on every device it runs on.
type KernelAttributer interface {
	KernelAttribute(k KernelHandle, attr FuncAttr, dev int) (int, error)
	SetKernelAttribute(k KernelHandle, attr FuncAttr, value int, dev int) error
}

// JITLogger returns the PTX compiler's info log of a loaded library: what
// LoadOptions.JIT.Verbose asks for (registers, spills, stack per kernel).
// Library.JITLog is its rt-level form.
type JITLogger interface {
	LibraryJITLog(lib LibHandle) (string, error)
}

// WarmUpper forces every kernel of a library to load in a context now
// (cuLibraryGetModule and cuKernelGetFunction for each kernel), so that no
// later launch in that context pays for lazy loading. ctx 0 means the calling
// thread's current context.
type WarmUpper interface {
	WarmUp(lib LibHandle, ctx CtxHandle) error
}

// LoadingModer reports the driver's module loading mode: lazy (the default
// since CUDA 12.2, and what CUDA_MODULE_LOADING=LAZY asks for) loads a
// kernel's code into a context at its first use there, which can stall that
// first launch; eager loads everything at load time.
type LoadingModer interface {
	LoadingMode() (lazy bool, err error) // cuModuleGetLoadingMode
}

// Linker links relocatable device code into one image that LibraryLoad
// accepts (a cubin): cuLinkCreate, cuLinkAddData per LinkInput,
// cuLinkComplete and cuLinkDestroy. The linker's info log is returned with
// the image; on failure the error (an *Error) carries the error and info logs
// in its Detail.
type Linker interface {
	Link(inputs []LinkInput, opts LinkOptions) (image []byte, log string, err error)
}

// FuncAttr is a CUfunction_attribute value (KernelAttributer).
type FuncAttr int32

// Kernel attributes; the values are CUDA's (cuda.h). Only
// FuncMaxDynamicSharedSizeBytes, FuncPreferredSharedMemoryCarveout,
// FuncRequiredCluster*, FuncNonPortableClusterSizeAllowed and
// FuncClusterSchedulingPolicyPreference can be set.
const (
	FuncMaxThreadsPerBlock                FuncAttr = 0
	FuncSharedSizeBytes                   FuncAttr = 1
	FuncConstSizeBytes                    FuncAttr = 2
	FuncLocalSizeBytes                    FuncAttr = 3
	FuncNumRegs                           FuncAttr = 4
	FuncPTXVersion                        FuncAttr = 5
	FuncBinaryVersion                     FuncAttr = 6
	FuncCacheModeCA                       FuncAttr = 7
	FuncMaxDynamicSharedSizeBytes         FuncAttr = 8
	FuncPreferredSharedMemoryCarveout     FuncAttr = 9
	FuncClusterSizeMustBeSet              FuncAttr = 10
	FuncRequiredClusterWidth              FuncAttr = 11
	FuncRequiredClusterHeight             FuncAttr = 12
	FuncRequiredClusterDepth              FuncAttr = 13
	FuncNonPortableClusterSizeAllowed     FuncAttr = 14
	FuncClusterSchedulingPolicyPreference FuncAttr = 15
)

// Streamer adds stream dependencies, event queries and host functions to
// the streams and events of Driver.
type Streamer interface {
	// StreamWaitEvent is cuStreamWaitEvent: work queued on s after the call
	// waits for the event's most recent record (EventWaitExternal: a wait
	// node in a capture).
	StreamWaitEvent(ctx CtxHandle, s StreamHandle, e EventHandle, flags uint32) error
	// EventRecordWithFlags is cuEventRecordWithFlags (EventRecordExternal:
	// a record node in a capture).
	EventRecordWithFlags(ctx CtxHandle, e EventHandle, s StreamHandle, flags uint32) error
	// EventQuery is cuEventQuery: done is false, with no error, while the
	// recorded work is pending (CUDA_ERROR_NOT_READY).
	EventQuery(ctx CtxHandle, e EventHandle) (done bool, err error)
	// LaunchHostFunc is cuLaunchHostFunc: fn runs once the work queued on s
	// before it has completed, and work queued after it waits for fn. fn
	// runs on a thread of the backend's and must not call the Driver.
	// Captured, it becomes a host node that runs at every launch of the
	// graph; the backend keeps fn as long as a graph or instantiated graph
	// holds it.
	LaunchHostFunc(ctx CtxHandle, s StreamHandle, fn func()) error
	// StreamPriorityRange is cuCtxGetStreamPriorityRange: least is the
	// lowest priority (0), greatest the highest (a negative number).
	StreamPriorityRange(ctx CtxHandle) (least, greatest int, err error)
	// StreamPriority is cuStreamGetPriority.
	StreamPriority(ctx CtxHandle, s StreamHandle) (int, error)
}

// MemoryOps adds to Driver's memory calls what a program that overlaps
// copies with kernels needs: page-locked host memory, 16- and 32-bit
// memsets, 2-D copies and the device's free memory.
type MemoryOps interface {
	// MemHostAlloc is cuMemHostAlloc with CU_MEMHOSTALLOC_PORTABLE:
	// page-locked host memory that every context treats as pinned, so
	// that async copies to and from it really are asynchronous. The memory
	// is the backend's, never Go's: it stays put and holds no Go pointers.
	MemHostAlloc(ctx CtxHandle, size uint64) (unsafe.Pointer, error)
	MemHostFree(ctx CtxHandle, p unsafe.Pointer) error // cuMemFreeHost
	// MemsetD16 and MemsetD32 are cuMemsetD16/D32(Async): n values of 2 or
	// 4 bytes from dst, which must be aligned to the value's size.
	MemsetD16(ctx CtxHandle, dst DevPtr, v uint16, n uint64, s StreamHandle, async bool) error
	MemsetD32(ctx CtxHandle, dst DevPtr, v uint32, n uint64, s StreamHandle, async bool) error
	// Memcpy2D is cuMemcpy2D(Async) between host and device memory in any
	// direction.
	Memcpy2D(ctx CtxHandle, c *Copy2D, s StreamHandle, async bool) error
	// MemInfo is cuMemGetInfo: the free and total memory of ctx's device.
	MemInfo(ctx CtxHandle) (free, total uint64, err error)
}

// Copy2D is a 2-D copy (CUDA_MEMCPY2D): Height rows of WidthBytes bytes,
// from rows SrcPitch bytes apart to rows DstPitch bytes apart. Each side is
// host memory (Host set) or device memory (Device set, Host nil).
type Copy2D struct {
	SrcHost   unsafe.Pointer
	SrcDevice DevPtr
	SrcPitch  uint64
	DstHost   unsafe.Pointer
	DstDevice DevPtr
	DstPitch  uint64
	// WidthBytes is each row's length; Height the number of rows.
	WidthBytes, Height uint64
}

// MemPoolHandle is a stream-ordered memory pool (CUmemoryPool); 0 means the
// device's current pool.
type MemPoolHandle uintptr

// MemPoolAttr is a CUmemPool_attribute value.
type MemPoolAttr int32

// Memory pool attributes; the values are CUDA's. Every value is a byte
// count except the three reuse policies, which are 0 or 1.
const (
	PoolReuseFollowEventDependencies   MemPoolAttr = 1
	PoolReuseAllowOpportunistic        MemPoolAttr = 2
	PoolReuseAllowInternalDependencies MemPoolAttr = 3
	// PoolReleaseThreshold is how much memory the pool may keep reserved
	// after a synchronization before it returns the rest to the system.
	PoolReleaseThreshold   MemPoolAttr = 4
	PoolReservedMemCurrent MemPoolAttr = 5
	PoolReservedMemHigh    MemPoolAttr = 6
	PoolUsedMemCurrent     MemPoolAttr = 7
	PoolUsedMemHigh        MemPoolAttr = 8
)

// AsyncAllocator allocates and frees in stream order (cuMemAllocAsync,
// cuMemFreeAsync) from memory pools (cuMemPoolCreate & co, CUDA 11.2+).
type AsyncAllocator interface {
	// MemAllocAsync allocates size bytes on s, from pool or, for 0, from
	// the current pool of ctx's device: the memory may be used by work
	// queued on s after the call (and by other streams that wait for it).
	MemAllocAsync(ctx CtxHandle, size uint64, s StreamHandle, pool MemPoolHandle) (DevPtr, error)
	// MemFreeAsync frees p once the work queued on s before it is done.
	MemFreeAsync(ctx CtxHandle, p DevPtr, s StreamHandle) error
	// MemPoolCreate makes a pool of device memory on dev; maxSize 0 means
	// no limit beyond the device's memory (CUDA rounds a limit up to its
	// pools' granularity: 32 MiB on CUDA 13.0).
	MemPoolCreate(dev int, maxSize uint64) (MemPoolHandle, error)
	MemPoolDestroy(pool MemPoolHandle) error
	// DeviceMemPool is cuDeviceGetMemPool: the pool MemAllocAsync uses on dev.
	DeviceMemPool(dev int) (MemPoolHandle, error)
	MemPoolAttribute(pool MemPoolHandle, attr MemPoolAttr) (uint64, error)
	SetMemPoolAttribute(pool MemPoolHandle, attr MemPoolAttr, v uint64) error
	// MemPoolTrimTo releases reserved memory until at most keep bytes
	// remain reserved, never less than what is allocated.
	MemPoolTrimTo(pool MemPoolHandle, keep uint64) error
}

// P2PAttr is a CUdevice_P2PAttribute value.
type P2PAttr int32

// Peer-to-peer attributes; the values are CUDA's.
const (
	P2PPerformanceRank       P2PAttr = 1
	P2PAccessSupported       P2PAttr = 2
	P2PNativeAtomicSupported P2PAttr = 3
	P2PCudaArrayAccess       P2PAttr = 4
)

// PeerAccessor reads and enables access between devices.
type PeerAccessor interface {
	// DeviceCanAccessPeer is cuDeviceCanAccessPeer: can dev's contexts
	// access peer's memory once peer access is enabled?
	DeviceCanAccessPeer(dev, peer int) (bool, error)
	// CtxEnablePeerAccess is cuCtxEnablePeerAccess run in ctx: kernels in
	// ctx may then access memory allocated in peer (one direction).
	CtxEnablePeerAccess(ctx, peer CtxHandle) error
	CtxDisablePeerAccess(ctx, peer CtxHandle) error // cuCtxDisablePeerAccess
	// MemcpyPeer is cuMemcpyPeer(Async): n bytes from src in srcCtx to
	// dst in dstCtx; the async form is ordered on s, a created stream of
	// either (and runs in its context) or 0, dstCtx's NULL stream.
	MemcpyPeer(dstCtx CtxHandle, dst DevPtr, srcCtx CtxHandle, src DevPtr, n uint64, s StreamHandle, async bool) error
	// DeviceP2PAttribute is cuDeviceGetP2PAttribute from src to dst.
	DeviceP2PAttribute(attr P2PAttr, src, dst int) (int, error)
}

// OccupancyCalculator answers occupancy questions about a kernel on ctx's
// device.
type OccupancyCalculator interface {
	// OccupancyMaxActiveBlocks is cuOccupancyMaxActiveBlocksPerMultiprocessor:
	// how many blocks of block threads with dynSmem bytes of dynamic shared
	// memory fit on one multiprocessor at once.
	OccupancyMaxActiveBlocks(ctx CtxHandle, k KernelHandle, block int, dynSmem uint64) (int, error)
	// OccupancyMaxPotentialBlockSize is cuOccupancyMaxPotentialBlockSize
	// with a dynamic shared memory size that does not depend on the block
	// size: the block size that maximizes occupancy (at most blockLimit, 0
	// for none) and the grid that fills the device at that occupancy.
	OccupancyMaxPotentialBlockSize(ctx CtxHandle, k KernelHandle, dynSmem uint64, blockLimit int) (minGrid, block int, err error)
}

// Graph handles: a graph (CUgraph), one of its nodes (CUgraphNode), an
// instantiated graph (CUgraphExec) and a conditional handle
// (CUgraphConditionalHandle, a 64-bit value kernels receive as a parameter).
type (
	GraphHandle       uintptr
	GraphNodeHandle   uintptr
	GraphExecHandle   uintptr
	ConditionalHandle uint64
)

// Grapher records work into graphs, by stream capture or node by node, and
// replays it (CUDA graphs). A graph belongs to the context it was created
// or captured in.
type Grapher interface {
	// StreamBeginCapture is cuStreamBeginCapture: work queued on s is
	// recorded into a new graph instead of run, until StreamEndCapture.
	// Other streams join the capture by waiting on an event recorded in it.
	StreamBeginCapture(ctx CtxHandle, s StreamHandle, mode CaptureMode) error
	// StreamBeginCaptureToGraph is cuStreamBeginCaptureToGraph (CUDA
	// 12.3+): like StreamBeginCapture, but into g after the nodes deps.
	StreamBeginCaptureToGraph(ctx CtxHandle, s StreamHandle, g GraphHandle, deps []GraphNodeHandle, mode CaptureMode) error
	// StreamEndCapture is cuStreamEndCapture: the captured graph (g itself
	// for a capture into g).
	StreamEndCapture(ctx CtxHandle, s StreamHandle) (GraphHandle, error)
	// StreamCaptureInfo is cuStreamGetCaptureInfo: whether s is capturing,
	// and the nodes the next captured work on s will depend on, written
	// into deps (as many as fit; n is how many there are).
	StreamCaptureInfo(ctx CtxHandle, s StreamHandle, deps []GraphNodeHandle) (status CaptureStatus, n int, err error)

	GraphCreate(ctx CtxHandle) (GraphHandle, error) // cuGraphCreate
	// GraphDestroy is cuGraphDestroy; graphs owned by a conditional node
	// go with their node's graph.
	GraphDestroy(g GraphHandle) error
	// GraphNodes is cuGraphGetNodes: every node of g, in the order they
	// were added.
	GraphNodes(g GraphHandle) ([]GraphNodeHandle, error)
	GraphNodeType(n GraphNodeHandle) (NodeType, error) // cuGraphNodeGetType
	GraphAddEmpty(g GraphHandle, deps []GraphNodeHandle) (GraphNodeHandle, error)
	// GraphAddChild is cuGraphAddChildGraphNode: a node that runs a copy
	// of child.
	GraphAddChild(g GraphHandle, deps []GraphNodeHandle, child GraphHandle) (GraphNodeHandle, error)
	// GraphConditionalCreate is cuGraphConditionalHandleCreate (CUDA
	// 12.3+): with CondAssignDefault in flags, each launch of the graph
	// starts the condition at defaultValue.
	GraphConditionalCreate(ctx CtxHandle, g GraphHandle, defaultValue uint32, flags uint32) (ConditionalHandle, error)
	// GraphAddConditional is cuGraphAddNode of a conditional node (IF and
	// WHILE: CUDA 12.3+; an IF with an else body, SWITCH: 12.8+) with
	// size bodies, which it returns: empty graphs owned by the node, to be
	// filled by node calls or StreamBeginCaptureToGraph.
	GraphAddConditional(ctx CtxHandle, g GraphHandle, deps []GraphNodeHandle, c ConditionalHandle, typ CondType, size int) (GraphNodeHandle, []GraphHandle, error)

	// GraphInstantiate is cuGraphInstantiateWithFlags, in ctx (the
	// driver instantiates for the current context).
	GraphInstantiate(ctx CtxHandle, g GraphHandle, flags uint64) (GraphExecHandle, error)
	GraphExecDestroy(ctx CtxHandle, x GraphExecHandle) error
	// GraphLaunch is cuGraphLaunch: the whole graph as one piece of s's
	// work. It allocates nothing. A capture cannot record it
	// (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED): a graph runs another as a
	// child node.
	GraphLaunch(ctx CtxHandle, x GraphExecHandle, s StreamHandle) error
	// GraphUpload is cuGraphUpload: prepares x's first launch on s.
	GraphUpload(ctx CtxHandle, x GraphExecHandle, s StreamHandle) error
	// GraphExecKernelNodeSetParams is cuGraphExecKernelNodeSetParams: the
	// kernel node n of x launches k with l's shape and parameter buffer
	// from x's next launch on, without capturing again. l follows
	// LaunchArgs' contract; Stream is ignored, Ctx is x's context, and the
	// node keeps the launch attributes it was made with (l must not ask
	// for any). It allocates nothing and does not retain l.Params.
	GraphExecKernelNodeSetParams(x GraphExecHandle, n GraphNodeHandle, k KernelHandle, l LaunchArgs) error
}

// CaptureMode is a CUstreamCaptureMode: which calls a capture forbids
// (calls that would synchronize with work being captured).
type CaptureMode int32

const (
	// CaptureGlobal forbids them on every thread while the capture runs.
	CaptureGlobal CaptureMode = 0
	// CaptureThreadLocal forbids them on the capturing OS thread only.
	CaptureThreadLocal CaptureMode = 1
	// CaptureRelaxed forbids nothing (the caller keeps the rules).
	CaptureRelaxed CaptureMode = 2
)

// CaptureStatus is a CUstreamCaptureStatus.
type CaptureStatus int32

const (
	CaptureNone        CaptureStatus = 0
	CaptureActive      CaptureStatus = 1
	CaptureInvalidated CaptureStatus = 2 // an error ended it; StreamEndCapture reports it
)

// NodeType is a CUgraphNodeType.
type NodeType int32

// Graph node types; the values are CUDA's.
const (
	NodeKernel      NodeType = 0
	NodeMemcpy      NodeType = 1
	NodeMemset      NodeType = 2
	NodeHost        NodeType = 3
	NodeGraph       NodeType = 4 // a child graph
	NodeEmpty       NodeType = 5
	NodeWaitEvent   NodeType = 6
	NodeEventRecord NodeType = 7
	NodeMemAlloc    NodeType = 10
	NodeMemFree     NodeType = 11
	NodeConditional NodeType = 13
)

var nodeTypeNames = map[NodeType]string{NodeKernel: "kernel", NodeMemcpy: "memcpy", NodeMemset: "memset",
	NodeHost: "host", NodeGraph: "child graph", NodeEmpty: "empty", NodeWaitEvent: "event wait",
	NodeEventRecord: "event record", NodeMemAlloc: "mem alloc", NodeMemFree: "mem free", NodeConditional: "conditional"}

func (t NodeType) String() string {
	if s, ok := nodeTypeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("NodeType(%d)", int32(t))
}

// CondType is a CUgraphConditionalNodeType.
type CondType int32

const (
	CondIf     CondType = 0 // body 0 runs if the condition is non-zero, body 1 (if any) otherwise
	CondWhile  CondType = 1 // the body runs while the condition is non-zero
	CondSwitch CondType = 2 // body n runs for condition n; none if n ≥ the number of bodies
)

// CondAssignDefault is CU_GRAPH_COND_ASSIGN_DEFAULT: each launch of the graph
// sets the condition to its default value first.
const CondAssignDefault uint32 = 1

// Event flags (CUevent_flags) and record and wait flags.
const (
	EventDefault       uint32 = 0
	EventBlockingSync  uint32 = 1 // EventSynchronize blocks the thread instead of spinning
	EventDisableTiming uint32 = 2 // no timestamp: cheaper to record and wait for; no Elapsed
	EventInterprocess  uint32 = 4 // with EventDisableTiming: shareable between processes

	// EventRecordExternal makes a record during a capture a node of the
	// graph (an event record node) instead of a fork/join marker.
	EventRecordExternal uint32 = 1
	// EventWaitExternal makes a wait during a capture a node of the graph
	// (an event wait node) instead of a fork/join marker.
	EventWaitExternal uint32 = 1
)
