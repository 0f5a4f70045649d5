//go:build cgo

// shim_ext.c wraps the driver calls of rt's optional capabilities the way
// shim.c wraps the core ones: entry points resolved from libcuda.so.1 at
// run time (here lazily, once, by cgx_init), one Go→C crossing per
// operation, the caller's context pushed around the call. Structures are
// restated from cuda.h, the authority for every layout, with static asserts
// on their sizes and offsets.
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "shim_ext.h"

// Values from cuda.h.
enum {
	CU_MEMHOSTALLOC_PORTABLE = 1,
	CU_MEMORYTYPE_HOST = 1,
	CU_MEMORYTYPE_DEVICE = 2,
	CU_MEM_ALLOCATION_TYPE_PINNED = 1,
	CU_MEM_LOCATION_TYPE_DEVICE = 1,
	CU_GRAPH_NODE_TYPE_CONDITIONAL = 13,
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_INVALID_CONTEXT = 201,
};
#define CU_LAUNCH_PARAM_END ((void *)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)

// CUDA_MEMCPY2D.
typedef struct {
	size_t srcXInBytes, srcY;
	int srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	void *srcArray;
	size_t srcPitch;
	size_t dstXInBytes, dstY;
	int dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	void *dstArray;
	size_t dstPitch;
	size_t WidthInBytes, Height;
} cgx_memcpy2d;
_Static_assert(sizeof(cgx_memcpy2d) == 128, "CUDA_MEMCPY2D is 128 bytes");
_Static_assert(offsetof(cgx_memcpy2d, dstXInBytes) == 56, "CUDA_MEMCPY2D.dstXInBytes at 56");
_Static_assert(offsetof(cgx_memcpy2d, WidthInBytes) == 112, "CUDA_MEMCPY2D.WidthInBytes at 112");

// CUmemPoolProps (CUDA 12.6+; before, maxSize and usage were reserved bytes).
typedef struct {
	int allocType;
	int handleTypes;
	struct {
		int type, id;
	} location;
	void *win32SecurityAttributes;
	size_t maxSize;
	unsigned short usage;
	unsigned char reserved[54];
} cgx_pool_props;
_Static_assert(sizeof(cgx_pool_props) == 88, "CUmemPoolProps is 88 bytes");
_Static_assert(offsetof(cgx_pool_props, maxSize) == 24, "CUmemPoolProps.maxSize at 24");

// CUDA_KERNEL_NODE_PARAMS_v2.
typedef struct {
	CUfunction func;
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	void **kernelParams;
	void **extra;
	CUkernel kern;
	CUcontext ctx;
} cgx_kernel_params;
_Static_assert(sizeof(cgx_kernel_params) == 72, "CUDA_KERNEL_NODE_PARAMS_v2 is 72 bytes");
_Static_assert(offsetof(cgx_kernel_params, kernelParams) == 40, "kernelParams at 40");
_Static_assert(offsetof(cgx_kernel_params, kern) == 56, "kern at 56");

// CUgraphNodeParams (CUDA 12.2+) with its conditional member
// (CUDA_CONDITIONAL_NODE_PARAMS, 12.3+).
typedef struct {
	int type;
	int reserved0[3];
	union {
		long long reserved1[29];
		struct {
			CUgraphConditionalHandle handle;
			int type;
			unsigned int size;
			CUgraph *phGraph_out;
			CUcontext ctx;
		} conditional;
	} u;
	long long reserved2;
} cgx_node_params;
_Static_assert(sizeof(cgx_node_params) == 256, "CUgraphNodeParams is 256 bytes");
_Static_assert(offsetof(cgx_node_params, u) == 16, "CUgraphNodeParams's union at 16");

typedef void (*cgx_host_fn)(void *);

static CUresult (*p_push)(CUcontext);
static CUresult (*p_pop)(CUcontext *);
static CUresult (*p_cuDeviceGet)(CUdevice *, int);
static CUresult (*p_cuStreamWaitEvent)(CUstream, CUevent, unsigned int);
static CUresult (*p_cuEventRecordWithFlags)(CUevent, CUstream, unsigned int);
static CUresult (*p_cuEventQuery)(CUevent);
static CUresult (*p_cuLaunchHostFunc)(CUstream, cgx_host_fn, void *);
static CUresult (*p_cuCtxGetStreamPriorityRange)(int *, int *);
static CUresult (*p_cuStreamGetPriority)(CUstream, int *);
static CUresult (*p_cuMemHostAlloc)(void **, size_t, unsigned int);
static CUresult (*p_cuMemFreeHost)(void *);
static CUresult (*p_cuMemsetD16)(CUdeviceptr, unsigned short, size_t);
static CUresult (*p_cuMemsetD32)(CUdeviceptr, unsigned int, size_t);
static CUresult (*p_cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
static CUresult (*p_cuMemsetD32Async)(CUdeviceptr, unsigned int, size_t, CUstream);
static CUresult (*p_cuMemcpy2D)(const cgx_memcpy2d *);
static CUresult (*p_cuMemcpy2DAsync)(const cgx_memcpy2d *, CUstream);
static CUresult (*p_cuMemAllocAsync)(CUdeviceptr *, size_t, CUstream);
static CUresult (*p_cuMemAllocFromPoolAsync)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
static CUresult (*p_cuMemFreeAsync)(CUdeviceptr, CUstream);
static CUresult (*p_cuMemPoolCreate)(CUmemoryPool *, const cgx_pool_props *);
static CUresult (*p_cuMemPoolDestroy)(CUmemoryPool);
static CUresult (*p_cuDeviceGetMemPool)(CUmemoryPool *, CUdevice);
static CUresult (*p_cuMemPoolGetAttribute)(CUmemoryPool, int, void *);
static CUresult (*p_cuMemPoolSetAttribute)(CUmemoryPool, int, void *);
static CUresult (*p_cuMemPoolTrimTo)(CUmemoryPool, size_t);
static CUresult (*p_cuDeviceCanAccessPeer)(int *, CUdevice, CUdevice);
static CUresult (*p_cuCtxEnablePeerAccess)(CUcontext, unsigned int);
static CUresult (*p_cuCtxDisablePeerAccess)(CUcontext);
static CUresult (*p_cuMemcpyPeer)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t);
static CUresult (*p_cuMemcpyPeerAsync)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
static CUresult (*p_cuDeviceGetP2PAttribute)(int *, int, CUdevice, CUdevice);
static CUresult (*p_cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
static CUresult (*p_cuOccupancyMaxPotentialBlockSize)(int *, int *, CUfunction, void *, size_t, int);
static CUresult (*p_cuStreamBeginCapture)(CUstream, int);
static CUresult (*p_cuStreamBeginCaptureToGraph)(CUstream, CUgraph, const CUgraphNode *, const void *, size_t, int);
static CUresult (*p_cuStreamEndCapture)(CUstream, CUgraph *);
static CUresult (*p_cuStreamGetCaptureInfo_v3)(CUstream, int *, unsigned long long *, CUgraph *, const CUgraphNode **,
                                               const void **, size_t *);
static CUresult (*p_cuStreamGetCaptureInfo_v2)(CUstream, int *, unsigned long long *, CUgraph *, const CUgraphNode **,
                                               size_t *);
static CUresult (*p_cuGraphCreate)(CUgraph *, unsigned int);
static CUresult (*p_cuGraphDestroy)(CUgraph);
static CUresult (*p_cuGraphGetNodes)(CUgraph, CUgraphNode *, size_t *);
static CUresult (*p_cuGraphNodeGetType)(CUgraphNode, int *);
static CUresult (*p_cuGraphAddEmptyNode)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t);
static CUresult (*p_cuGraphAddChildGraphNode)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t, CUgraph);
static CUresult (*p_cuGraphConditionalHandleCreate)(CUgraphConditionalHandle *, CUgraph, CUcontext, unsigned int,
                                                    unsigned int);
static CUresult (*p_cuGraphAddNode_v2)(CUgraphNode *, CUgraph, const CUgraphNode *, const void *, size_t,
                                       cgx_node_params *);
static CUresult (*p_cuGraphAddNode)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t, cgx_node_params *);
static CUresult (*p_cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
static CUresult (*p_cuGraphExecDestroy)(CUgraphExec);
static CUresult (*p_cuGraphLaunch)(CUgraphExec, CUstream);
static CUresult (*p_cuGraphUpload)(CUgraphExec, CUstream);
static CUresult (*p_cuGraphExecKernelNodeSetParams)(CUgraphExec, CUgraphNode, const cgx_kernel_params *);

static void *xsym(void *lib, const char *a, const char *b) {
	void *p = dlsym(lib, a);
	if (!p && b) p = dlsym(lib, b);
	return p;
}

#define XLOAD(var, a, b) (*(void **)(&(var)) = xsym(lib, (a), (b)))

void cgx_init(void) {
	static int done;
	if (done) return;  // Go calls it under a sync.Once
	done = 1;
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!lib) return;
	XLOAD(p_push, "cuCtxPushCurrent_v2", NULL);
	XLOAD(p_pop, "cuCtxPopCurrent_v2", NULL);
	XLOAD(p_cuDeviceGet, "cuDeviceGet", NULL);
	XLOAD(p_cuStreamWaitEvent, "cuStreamWaitEvent", NULL);
	XLOAD(p_cuEventRecordWithFlags, "cuEventRecordWithFlags", NULL);
	XLOAD(p_cuEventQuery, "cuEventQuery", NULL);
	XLOAD(p_cuLaunchHostFunc, "cuLaunchHostFunc", NULL);
	XLOAD(p_cuCtxGetStreamPriorityRange, "cuCtxGetStreamPriorityRange", NULL);
	XLOAD(p_cuStreamGetPriority, "cuStreamGetPriority", NULL);
	XLOAD(p_cuMemHostAlloc, "cuMemHostAlloc", NULL);
	XLOAD(p_cuMemFreeHost, "cuMemFreeHost", NULL);
	XLOAD(p_cuMemsetD16, "cuMemsetD16_v2", NULL);
	XLOAD(p_cuMemsetD32, "cuMemsetD32_v2", NULL);
	XLOAD(p_cuMemsetD16Async, "cuMemsetD16Async", NULL);
	XLOAD(p_cuMemsetD32Async, "cuMemsetD32Async", NULL);
	XLOAD(p_cuMemcpy2D, "cuMemcpy2D_v2", NULL);
	XLOAD(p_cuMemcpy2DAsync, "cuMemcpy2DAsync_v2", NULL);
	XLOAD(p_cuMemAllocAsync, "cuMemAllocAsync", NULL);
	XLOAD(p_cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", NULL);
	XLOAD(p_cuMemFreeAsync, "cuMemFreeAsync", NULL);
	XLOAD(p_cuMemPoolCreate, "cuMemPoolCreate", NULL);
	XLOAD(p_cuMemPoolDestroy, "cuMemPoolDestroy", NULL);
	XLOAD(p_cuDeviceGetMemPool, "cuDeviceGetMemPool", NULL);
	XLOAD(p_cuMemPoolGetAttribute, "cuMemPoolGetAttribute", NULL);
	XLOAD(p_cuMemPoolSetAttribute, "cuMemPoolSetAttribute", NULL);
	XLOAD(p_cuMemPoolTrimTo, "cuMemPoolTrimTo", NULL);
	XLOAD(p_cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", NULL);
	XLOAD(p_cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", NULL);
	XLOAD(p_cuCtxDisablePeerAccess, "cuCtxDisablePeerAccess", NULL);
	XLOAD(p_cuMemcpyPeer, "cuMemcpyPeer", NULL);
	XLOAD(p_cuMemcpyPeerAsync, "cuMemcpyPeerAsync", NULL);
	XLOAD(p_cuDeviceGetP2PAttribute, "cuDeviceGetP2PAttribute", NULL);
	XLOAD(p_cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL);
	XLOAD(p_cuOccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize", NULL);
	XLOAD(p_cuStreamBeginCapture, "cuStreamBeginCapture_v2", "cuStreamBeginCapture");
	XLOAD(p_cuStreamBeginCaptureToGraph, "cuStreamBeginCaptureToGraph", NULL);
	XLOAD(p_cuStreamEndCapture, "cuStreamEndCapture", NULL);
	XLOAD(p_cuStreamGetCaptureInfo_v3, "cuStreamGetCaptureInfo_v3", NULL);
	XLOAD(p_cuStreamGetCaptureInfo_v2, "cuStreamGetCaptureInfo_v2", NULL);
	XLOAD(p_cuGraphCreate, "cuGraphCreate", NULL);
	XLOAD(p_cuGraphDestroy, "cuGraphDestroy", NULL);
	XLOAD(p_cuGraphGetNodes, "cuGraphGetNodes", NULL);
	XLOAD(p_cuGraphNodeGetType, "cuGraphNodeGetType", NULL);
	XLOAD(p_cuGraphAddEmptyNode, "cuGraphAddEmptyNode", NULL);
	XLOAD(p_cuGraphAddChildGraphNode, "cuGraphAddChildGraphNode", NULL);
	XLOAD(p_cuGraphConditionalHandleCreate, "cuGraphConditionalHandleCreate", NULL);
	XLOAD(p_cuGraphAddNode_v2, "cuGraphAddNode_v2", NULL);
	XLOAD(p_cuGraphAddNode, "cuGraphAddNode", NULL);
	XLOAD(p_cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", NULL);
	XLOAD(p_cuGraphExecDestroy, "cuGraphExecDestroy", NULL);
	XLOAD(p_cuGraphLaunch, "cuGraphLaunch", NULL);
	XLOAD(p_cuGraphUpload, "cuGraphUpload", NULL);
	XLOAD(p_cuGraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams_v2", "cuGraphExecKernelNodeSetParams");
}

int cgx_has(int s) {
	switch (s) {
	case CGX_SYM_CAPTURE_TO_GRAPH:
		return p_cuStreamBeginCaptureToGraph != NULL;
	case CGX_SYM_CONDITIONAL:
		return p_cuGraphConditionalHandleCreate && (p_cuGraphAddNode_v2 || p_cuGraphAddNode);
	}
	return 0;
}

#define XNEED(p)                                                  \
	do {                                                          \
		if (!(p) || !p_push || !p_pop) return CG_MISSING | CG_NOT_SUPPORTED; \
	} while (0)

// X_IN_CTX is shim.c's IN_CTX over this file's entry points.
#define X_IN_CTX(ctx, call)                                               \
	do {                                                                  \
		CUresult r_;                                                      \
		if (ctx) {                                                        \
			r_ = p_push(ctx);                                             \
			if (r_ != 0) return CG_PUSH_FAILED | r_;                      \
		}                                                                 \
		r_ = (call);                                                      \
		if (ctx) {                                                        \
			CUcontext o_;                                                 \
			CUresult q_ = p_pop(&o_);                                     \
			if (q_ != 0 && r_ == 0) return CG_POP_FAILED | q_;            \
		}                                                                 \
		return r_;                                                        \
	} while (0)

#define XDEVICE(ord, dev)                         \
	CUdevice dev;                                 \
	do {                                          \
		XNEED(p_cuDeviceGet);                     \
		CUresult r_ = p_cuDeviceGet(&dev, (ord)); \
		if (r_ != 0) return r_;                   \
	} while (0)

// ---- streams and events ----

int cgx_stream_wait_event(CUcontext ctx, CUstream s, CUevent e, unsigned int flags) {
	XNEED(p_cuStreamWaitEvent);
	X_IN_CTX(ctx, p_cuStreamWaitEvent(s, e, flags));
}

int cgx_event_record_flags(CUcontext ctx, CUevent e, CUstream s, unsigned int flags) {
	XNEED(p_cuEventRecordWithFlags);
	X_IN_CTX(ctx, p_cuEventRecordWithFlags(e, s, flags));
}

int cgx_event_query(CUcontext ctx, CUevent e) {
	XNEED(p_cuEventQuery);
	X_IN_CTX(ctx, p_cuEventQuery(e));
}

// host_tramp runs on a driver thread and calls into Go, which finds the
// function by its handle: no Go pointer is ever given to the driver.
static void host_tramp(void *ud) { cugenHostFunc((uintptr_t)ud); }

int cgx_launch_host_func(CUcontext ctx, CUstream s, uintptr_t handle) {
	XNEED(p_cuLaunchHostFunc);
	X_IN_CTX(ctx, p_cuLaunchHostFunc(s, host_tramp, (void *)handle));
}

int cgx_priority_range(CUcontext ctx, int *least, int *greatest) {
	XNEED(p_cuCtxGetStreamPriorityRange);
	X_IN_CTX(ctx, p_cuCtxGetStreamPriorityRange(least, greatest));
}

int cgx_stream_priority(CUcontext ctx, CUstream s, int *p) {
	XNEED(p_cuStreamGetPriority);
	X_IN_CTX(ctx, p_cuStreamGetPriority(s, p));
}

// ---- memory ----

int cgx_mem_host_alloc(CUcontext ctx, void **p, size_t size) {
	XNEED(p_cuMemHostAlloc);
	X_IN_CTX(ctx, p_cuMemHostAlloc(p, size, CU_MEMHOSTALLOC_PORTABLE));
}

int cgx_mem_free_host(CUcontext ctx, void *p) {
	XNEED(p_cuMemFreeHost);
	X_IN_CTX(ctx, p_cuMemFreeHost(p));
}

int cgx_memset_d16(CUcontext ctx, CUdeviceptr dst, unsigned short v, size_t n, CUstream s, int async) {
	if (async) {
		XNEED(p_cuMemsetD16Async);
		X_IN_CTX(ctx, p_cuMemsetD16Async(dst, v, n, s));
	}
	XNEED(p_cuMemsetD16);
	X_IN_CTX(ctx, p_cuMemsetD16(dst, v, n));
}

int cgx_memset_d32(CUcontext ctx, CUdeviceptr dst, unsigned int v, size_t n, CUstream s, int async) {
	if (async) {
		XNEED(p_cuMemsetD32Async);
		X_IN_CTX(ctx, p_cuMemsetD32Async(dst, v, n, s));
	}
	XNEED(p_cuMemsetD32);
	X_IN_CTX(ctx, p_cuMemsetD32(dst, v, n));
}

int cgx_memcpy_2d(CUcontext ctx, const void *src_host, CUdeviceptr src_dev, size_t src_pitch, void *dst_host,
                  CUdeviceptr dst_dev, size_t dst_pitch, size_t width, size_t height, CUstream s, int async) {
	cgx_memcpy2d c;
	memset(&c, 0, sizeof c);
	c.srcMemoryType = src_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
	c.srcHost = src_host;
	c.srcDevice = src_dev;
	c.srcPitch = src_pitch;
	c.dstMemoryType = dst_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
	c.dstHost = dst_host;
	c.dstDevice = dst_dev;
	c.dstPitch = dst_pitch;
	c.WidthInBytes = width;
	c.Height = height;
	if (async) {
		XNEED(p_cuMemcpy2DAsync);
		X_IN_CTX(ctx, p_cuMemcpy2DAsync(&c, s));
	}
	XNEED(p_cuMemcpy2D);
	X_IN_CTX(ctx, p_cuMemcpy2D(&c));
}

// ---- stream-ordered allocation and pools ----

int cgx_mem_alloc_async(CUcontext ctx, CUdeviceptr *p, size_t size, CUstream s, CUmemoryPool pool) {
	if (pool) {
		XNEED(p_cuMemAllocFromPoolAsync);
		X_IN_CTX(ctx, p_cuMemAllocFromPoolAsync(p, size, pool, s));
	}
	XNEED(p_cuMemAllocAsync);
	X_IN_CTX(ctx, p_cuMemAllocAsync(p, size, s));
}

int cgx_mem_free_async(CUcontext ctx, CUdeviceptr p, CUstream s) {
	XNEED(p_cuMemFreeAsync);
	X_IN_CTX(ctx, p_cuMemFreeAsync(p, s));
}

int cgx_mem_pool_create(int ord, size_t max_size, CUmemoryPool *pool) {
	XNEED(p_cuMemPoolCreate);
	cgx_pool_props props;
	memset(&props, 0, sizeof props);
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = ord;
	props.maxSize = max_size;
	return p_cuMemPoolCreate(pool, &props);
}

int cgx_mem_pool_destroy(CUmemoryPool pool) {
	XNEED(p_cuMemPoolDestroy);
	return p_cuMemPoolDestroy(pool);
}

int cgx_device_mem_pool(int ord, CUmemoryPool *pool) {
	XNEED(p_cuDeviceGetMemPool);
	XDEVICE(ord, dev);
	return p_cuDeviceGetMemPool(pool, dev);
}

// The reuse policies (attributes 1 to 3) are ints; the rest cuuint64_t.
int cgx_mem_pool_get(CUmemoryPool pool, int attr, unsigned long long *v) {
	XNEED(p_cuMemPoolGetAttribute);
	if (attr >= 1 && attr <= 3) {
		int i = 0;
		CUresult r = p_cuMemPoolGetAttribute(pool, attr, &i);
		*v = (unsigned long long)i;
		return r;
	}
	return p_cuMemPoolGetAttribute(pool, attr, v);
}

int cgx_mem_pool_set(CUmemoryPool pool, int attr, unsigned long long v) {
	XNEED(p_cuMemPoolSetAttribute);
	if (attr >= 1 && attr <= 3) {
		int i = (int)v;
		return p_cuMemPoolSetAttribute(pool, attr, &i);
	}
	return p_cuMemPoolSetAttribute(pool, attr, &v);
}

int cgx_mem_pool_trim(CUmemoryPool pool, size_t keep) {
	XNEED(p_cuMemPoolTrimTo);
	return p_cuMemPoolTrimTo(pool, keep);
}

// ---- peers ----

int cgx_can_access_peer(int ord, int peer, int *can) {
	XNEED(p_cuDeviceCanAccessPeer);
	XDEVICE(ord, dev);
	XDEVICE(peer, pdev);
	return p_cuDeviceCanAccessPeer(can, dev, pdev);
}

int cgx_enable_peer(CUcontext ctx, CUcontext peer) {
	XNEED(p_cuCtxEnablePeerAccess);
	X_IN_CTX(ctx, p_cuCtxEnablePeerAccess(peer, 0));
}

int cgx_disable_peer(CUcontext ctx, CUcontext peer) {
	XNEED(p_cuCtxDisablePeerAccess);
	X_IN_CTX(ctx, p_cuCtxDisablePeerAccess(peer));
}

int cgx_memcpy_peer(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t n, CUstream s,
                    int async) {
	if (async) {
		XNEED(p_cuMemcpyPeerAsync);
		// The copy is queued in its stream's context, which for a stream of
		// the source's context is not the destination's; a NULL stream (or
		// a stream the driver cannot place) is the destination's.
		CUcontext run = dst_ctx;
		if (s && cg_stream_ctx(s, &run) != 0) run = dst_ctx;
		X_IN_CTX(run, p_cuMemcpyPeerAsync(dst, dst_ctx, src, src_ctx, n, s));
	}
	XNEED(p_cuMemcpyPeer);
	X_IN_CTX(dst_ctx, p_cuMemcpyPeer(dst, dst_ctx, src, src_ctx, n));
}

int cgx_p2p_attribute(int attr, int src, int dst, int *v) {
	XNEED(p_cuDeviceGetP2PAttribute);
	XDEVICE(src, sdev);
	XDEVICE(dst, ddev);
	return p_cuDeviceGetP2PAttribute(v, attr, sdev, ddev);
}

// ---- occupancy ----

int cgx_occupancy(CUcontext ctx, CUfunction f, int block, size_t smem, int *n) {
	XNEED(p_cuOccupancyMaxActiveBlocksPerMultiprocessor);
	X_IN_CTX(ctx, p_cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, smem));
}

int cgx_potential_block(CUcontext ctx, CUfunction f, size_t smem, int limit, int *min_grid, int *block) {
	XNEED(p_cuOccupancyMaxPotentialBlockSize);
	// No block-size-to-shared-memory callback: a C function pointer into Go
	// is what cgo rules out; rt.Kernel.SuggestBlockSizeFunc searches in Go.
	X_IN_CTX(ctx, p_cuOccupancyMaxPotentialBlockSize(min_grid, block, f, NULL, smem, limit));
}

// ---- graphs ----

int cgx_begin_capture(CUcontext ctx, CUstream s, int mode) {
	XNEED(p_cuStreamBeginCapture);
	X_IN_CTX(ctx, p_cuStreamBeginCapture(s, mode));
}

int cgx_begin_capture_to_graph(CUcontext ctx, CUstream s, CUgraph g, const CUgraphNode *deps, size_t n, int mode) {
	XNEED(p_cuStreamBeginCaptureToGraph);
	X_IN_CTX(ctx, p_cuStreamBeginCaptureToGraph(s, g, n ? deps : NULL, NULL, n, mode));
}

int cgx_end_capture(CUcontext ctx, CUstream s, CUgraph *g) {
	XNEED(p_cuStreamEndCapture);
	X_IN_CTX(ctx, p_cuStreamEndCapture(s, g));
}

static CUresult capture_info(CUstream s, int *status, unsigned long long *id, CUgraphNode *deps, size_t cap,
                             size_t *n) {
	const CUgraphNode *d = NULL;
	const void *edges = NULL;
	size_t count = 0;
	CUresult r;
	if (p_cuStreamGetCaptureInfo_v3) {
		r = p_cuStreamGetCaptureInfo_v3(s, status, id, NULL, &d, &edges, &count);
	} else {
		r = p_cuStreamGetCaptureInfo_v2(s, status, id, NULL, &d, &count);
	}
	if (r != 0) return r;
	*n = count;
	for (size_t i = 0; i < count && i < cap; i++) deps[i] = d[i];
	return 0;
}

int cgx_capture_info(CUcontext ctx, CUstream s, int *status, unsigned long long *id, CUgraphNode *deps, size_t cap,
                     size_t *n) {
	if (!p_cuStreamGetCaptureInfo_v3) XNEED(p_cuStreamGetCaptureInfo_v2);
	XNEED(p_push);
	*n = 0;
	X_IN_CTX(ctx, capture_info(s, status, id, deps, cap, n));
}

int cgx_graph_create(CUcontext ctx, CUgraph *g) {
	XNEED(p_cuGraphCreate);
	X_IN_CTX(ctx, p_cuGraphCreate(g, 0));
}

int cgx_graph_destroy(CUgraph g) {
	XNEED(p_cuGraphDestroy);
	return p_cuGraphDestroy(g);
}

int cgx_graph_nodes(CUgraph g, CUgraphNode *nodes, size_t *n) {
	XNEED(p_cuGraphGetNodes);
	return p_cuGraphGetNodes(g, nodes, n);
}

int cgx_node_type(CUgraphNode node, int *type) {
	XNEED(p_cuGraphNodeGetType);
	return p_cuGraphNodeGetType(node, type);
}

int cgx_add_empty(CUgraph g, const CUgraphNode *deps, size_t n, CUgraphNode *node) {
	XNEED(p_cuGraphAddEmptyNode);
	return p_cuGraphAddEmptyNode(node, g, n ? deps : NULL, n);
}

int cgx_add_child(CUgraph g, const CUgraphNode *deps, size_t n, CUgraph child, CUgraphNode *node) {
	XNEED(p_cuGraphAddChildGraphNode);
	return p_cuGraphAddChildGraphNode(node, g, n ? deps : NULL, n, child);
}

int cgx_cond_create(CUcontext ctx, CUgraph g, unsigned int def, unsigned int flags, CUgraphConditionalHandle *h) {
	XNEED(p_cuGraphConditionalHandleCreate);
	X_IN_CTX(ctx, p_cuGraphConditionalHandleCreate(h, g, ctx, def, flags));
}

static CUresult add_conditional(CUcontext ctx, CUgraph g, const CUgraphNode *deps, size_t n,
                                CUgraphConditionalHandle h, int type, unsigned int size, CUgraphNode *node,
                                CUgraph **bodies) {
	cgx_node_params p;
	memset(&p, 0, sizeof p);
	p.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
	p.u.conditional.handle = h;
	p.u.conditional.type = type;
	p.u.conditional.size = size;
	p.u.conditional.ctx = ctx;
	CUresult r = p_cuGraphAddNode_v2 ? p_cuGraphAddNode_v2(node, g, n ? deps : NULL, NULL, n, &p)
	                                 : p_cuGraphAddNode(node, g, n ? deps : NULL, n, &p);
	*bodies = p.u.conditional.phGraph_out;
	return r;
}

int cgx_add_conditional(CUcontext ctx, CUgraph g, const CUgraphNode *deps, size_t n, CUgraphConditionalHandle h,
                        int type, unsigned int size, CUgraphNode *node, CUgraph **bodies) {
	if (!p_cuGraphAddNode_v2) XNEED(p_cuGraphAddNode);
	XNEED(p_push);
	X_IN_CTX(ctx, add_conditional(ctx, g, deps, n, h, type, size, node, bodies));
}

int cgx_instantiate(CUcontext ctx, CUgraph g, unsigned long long flags, CUgraphExec *x) {
	XNEED(p_cuGraphInstantiateWithFlags);
	X_IN_CTX(ctx, p_cuGraphInstantiateWithFlags(x, g, flags));
}

int cgx_exec_destroy(CUcontext ctx, CUgraphExec x) {
	XNEED(p_cuGraphExecDestroy);
	X_IN_CTX(ctx, p_cuGraphExecDestroy(x));
}

// launch_in_ctx and set_in_ctx are set once the driver has refused a
// graph launch on a stream, or a node update, with no context current
// (CUDA_ERROR_INVALID_CONTEXT): from then on the context is made current
// for them.
static int launch_in_ctx, set_in_ctx;

int cgx_graph_launch(CUcontext ctx, CUgraphExec x, CUstream s) {
	XNEED(p_cuGraphLaunch);
	if (s && !launch_in_ctx) {
		CUresult r = p_cuGraphLaunch(x, s);
		if (r != CUDA_ERROR_INVALID_CONTEXT || !ctx) return r;
		launch_in_ctx = 1;
	}
	X_IN_CTX(ctx, p_cuGraphLaunch(x, s));
}

int cgx_graph_upload(CUcontext ctx, CUgraphExec x, CUstream s) {
	XNEED(p_cuGraphUpload);
	X_IN_CTX(ctx, p_cuGraphUpload(x, s));
}

// by_func is set once a driver has refused a node update that names its
// kernel by CUkernel (kern and ctx), to name it by the CUkernel cast to a
// CUfunction from then on, as the launch does.
static int by_func;

static CUresult set_in(CUcontext ctx, CUgraphExec x, CUgraphNode node, const cgx_kernel_params *p) {
	// An update naming a CUfunction runs in the current context: a driver
	// (580, CUDA 13.0) crashed on one with no context current.
	X_IN_CTX(ctx, p_cuGraphExecKernelNodeSetParams(x, node, p));
}

// exec_kernel_set passes the packed buffer, or with kp (a placed kernel's
// kernelParams, pointers into it) the pointers.
static CUresult exec_kernel_set(CUgraphExec x, CUgraphNode node, CUkernel k, CUfunction f, CUcontext ctx,
                                unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                                unsigned int bz, unsigned int shmem, void *params, size_t size, void **kp) {
	if (size && !params) return CUDA_ERROR_INVALID_VALUE;
	// The packed buffer goes through extra, as for a launch: no array of
	// pointers into Go memory. The driver copies it before returning.
	void *extra[5] = {CU_LAUNCH_PARAM_BUFFER_POINTER, params, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
	                  CU_LAUNCH_PARAM_END};
	cgx_kernel_params p = {f, gx, gy, gz, bx, by, bz, shmem, kp, kp || !size ? NULL : extra, NULL, NULL};
	if (k && !by_func) {
		p.func = NULL;
		p.kern = k;
		p.ctx = ctx;
		CUresult r = p_cuGraphExecKernelNodeSetParams(x, node, &p);
		if (r != CUDA_ERROR_INVALID_VALUE) return r;
	}
	if (k) {
		p.func = (CUfunction)k;
		p.kern = NULL;
		p.ctx = NULL;
	}
	CUresult r = set_in(ctx, x, node, &p);
	if (r == 0 && k) by_func = 1;
	return r;
}

int cgx_exec_kernel_set(CUgraphExec x, CUgraphNode node, CUkernel k, CUfunction f, CUcontext ctx, unsigned int gx,
                        unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz,
                        unsigned int shmem, void *params, size_t size) {
	XNEED(p_cuGraphExecKernelNodeSetParams);
	if (!ctx) return CUDA_ERROR_INVALID_CONTEXT;
	if (!set_in_ctx) {
		CUresult r = exec_kernel_set(x, node, k, f, ctx, gx, gy, gz, bx, by, bz, shmem, params, size, NULL);
		if (r != CUDA_ERROR_INVALID_CONTEXT) return r;
		set_in_ctx = 1;
	}
	X_IN_CTX(ctx, exec_kernel_set(x, node, k, f, ctx, gx, gy, gz, bx, by, bz, shmem, params, size, NULL));
}

static CUresult exec_kernel_set_kp(CUgraphExec x, CUgraphNode node, CUkernel k, CUfunction f, CUcontext ctx,
                                   unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                   unsigned int by, unsigned int bz, unsigned int shmem, void *params, size_t size,
                                   void **kp) {
	if (!set_in_ctx) {
		CUresult r = exec_kernel_set(x, node, k, f, ctx, gx, gy, gz, bx, by, bz, shmem, params, size, kp);
		if (r != CUDA_ERROR_INVALID_CONTEXT) return r;
		set_in_ctx = 1;
	}
	X_IN_CTX(ctx, exec_kernel_set(x, node, k, f, ctx, gx, gy, gz, bx, by, bz, shmem, params, size, kp));
}

int cgx_exec_kernel_set_placed(CUgraphExec x, CUgraphNode node, CUkernel k, CUfunction f, CUcontext ctx,
                               unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                               unsigned int bz, unsigned int shmem, void *params, size_t size,
                               const unsigned int *offs, unsigned int n) {
	XNEED(p_cuGraphExecKernelNodeSetParams);
	if (!ctx) return CUDA_ERROR_INVALID_CONTEXT;
	if (n && !params) return CUDA_ERROR_INVALID_VALUE;
	void *stack[64];
	void **kp = stack;
	if (n > 64 && !(kp = malloc(n * sizeof *kp))) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
	for (unsigned int i = 0; i < n; i++) kp[i] = (char *)params + offs[i];
	CUresult r = exec_kernel_set_kp(x, node, k, f, ctx, gx, gy, gz, bx, by, bz, shmem, params, size, kp);
	if (kp != stack) free(kp);
	return r;
}
