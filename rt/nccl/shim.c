//go:build cgo

// shim.c resolves NCCL from libnccl.so.2 at run time and wraps each call
// so that Go crosses into C once per operation: the wrapper makes the
// rank's CUDA context current (cuCtxPushCurrent), calls NCCL, and restores
// the thread's previous context (cuCtxPopCurrent). NCCL works in the
// current device's primary context, which the pushed context is.
//
// The operations (cn_op), called thousands of times a second, switch less:
// see AT_CTX.
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

// ---- nccl.h, restated ----

typedef int ncclResult_t;
typedef struct ncclComm *ncclComm_t;
typedef struct { char internal[128]; } ncclUniqueId;
_Static_assert(sizeof(ncclUniqueId) == 128, "ncclUniqueId is 128 bytes");

#define NCCL_CONFIG_UNDEF_INT INT_MIN
#define NCCL_CONFIG_MAGIC 0xcafebeef
#define NCCL_CONFIG_VERSION 22800  // the layout below: ncclConfig_v22800
enum { ncclInProgress = 7, ncclScalarHostImmediate = 1 };

// ncclConfig_v22800. An older NCCL reads the prefix it knows (it copies
// min(size, its own sizeof)), so this layout serves every NCCL since 2.18.
typedef struct {
	size_t size;
	unsigned int magic;
	unsigned int version;
	int blocking;
	int cgaClusterSize;
	int minCTAs;
	int maxCTAs;
	const char *netName;
	int splitShare;
	int trafficClass;
	const char *commName;
	int collnetEnable;
	int CTAPolicy;
	int shrinkShare;
	int nvlsCTAs;
	int nChannelsPerNetPeer;
	int nvlinkCentricSched;
} ncclConfig_t;
_Static_assert(sizeof(ncclConfig_t) == 80, "ncclConfig_v22800 is 80 bytes");
_Static_assert(offsetof(ncclConfig_t, netName) == 32, "netName at 32");
_Static_assert(offsetof(ncclConfig_t, commName) == 48, "commName at 48");

// ncclDevCommRequirements and ncclDevComm as NCCL 2.28.3 lays them out
// (nccl_device/core.h, impl/comm__types.h); rt/nccl checks the version.
typedef struct {
	void *resourceRequirementsList;
	void *teamRequirementsList;
	bool lsaMultimem;
	int lsaBarrierCount;
} ncclDevCommRequirements_22803;
_Static_assert(sizeof(ncclDevCommRequirements_22803) == 24, "ncclDevCommRequirements is 24 bytes in 2.28.3");
typedef struct {
	char bytes[88];
	void *align_[0];
} ncclDevComm_22803;
#define DEVCOMM_SIZE 88

// The same two as NCCL 2.28.7 to 2.28.9 lay them out (GIN's fields added):
// rt/nccl's tests create a one-rank device communicator with these, which
// NCCL 2.28.7 first allows (it asks every pair of local ranks for CUDA peer
// access, and one rank has no pair); ncclDevComm's first 24 bytes, the
// description kernels read, are 2.28.3's.
typedef struct {
	void *resourceRequirementsList;
	void *teamRequirementsList;
	bool lsaMultimem;
	int barrierCount;
	int lsaBarrierCount;
	int railGinBarrierCount;
	int lsaLLA2ABlockCount, lsaLLA2ASlotCount;
	bool ginForceEnable;
	int ginContextCount;
	int ginSignalCount;
	int ginCounterCount;
} ncclDevCommRequirements_22807;
_Static_assert(sizeof(ncclDevCommRequirements_22807) == 56, "ncclDevCommRequirements is 56 bytes in 2.28.7");
_Static_assert(offsetof(ncclDevCommRequirements_22807, lsaBarrierCount) == 24, "lsaBarrierCount at 24 in 2.28.7");
typedef struct {
	int rank, nRanks;
	unsigned nRanks_rcp32;
	int lsaRank, lsaSize;
	unsigned lsaSize_rcp32;
	void *windowTable, *resourceWindow;
	struct {
		void *winHost;
		char *lsaFlatBase;
		int lsaRank, worldRank;
		unsigned stride4G, mcOffset4K, ginOffset4K;
		void *ginWins[4];
	} resourceWindow_inlined;
	void *lsaMultimem;
	struct { unsigned bufHandle; int nBarriers; } lsaBarrier;
	struct { unsigned signal0, bufHandle; } railGinBarrier;
	unsigned char ginContextCount, ginTypes[4];
	void *ginHandles[4];
	unsigned ginSignalBase;
	int ginSignalCount;
	unsigned ginCounterBase;
	int ginCounterCount;
	unsigned long long *ginSignalShadows;
} ncclDevComm_22807;
_Static_assert(sizeof(ncclDevComm_22807) == DEVCOMM_SIZE_22807, "ncclDevComm is 200 bytes in 2.28.7");

typedef int CUresult;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;

// ---- entry points ----

static void *lib;
static CUresult (*p_cuCtxPushCurrent)(CUcontext);
static CUresult (*p_cuCtxPopCurrent)(CUcontext *);
static CUresult (*p_cuCtxGetCurrent)(CUcontext *);
static CUresult (*p_cuCtxSetCurrent)(CUcontext);

static ncclResult_t (*p_ncclGetVersion)(int *);
static const char *(*p_ncclGetErrorString)(ncclResult_t);
static const char *(*p_ncclGetLastError)(ncclComm_t);
static ncclResult_t (*p_ncclGetUniqueId)(ncclUniqueId *);
static ncclResult_t (*p_ncclCommInitRankConfig)(ncclComm_t *, int, ncclUniqueId, int, ncclConfig_t *);
static ncclResult_t (*p_ncclCommSplit)(ncclComm_t, int, int, ncclComm_t *, ncclConfig_t *);
static ncclResult_t (*p_ncclCommFinalize)(ncclComm_t);
static ncclResult_t (*p_ncclCommDestroy)(ncclComm_t);
static ncclResult_t (*p_ncclCommAbort)(ncclComm_t);
static ncclResult_t (*p_ncclCommGetAsyncError)(ncclComm_t, ncclResult_t *);
static ncclResult_t (*p_ncclCommCount)(ncclComm_t, int *);
static ncclResult_t (*p_ncclCommUserRank)(ncclComm_t, int *);
static ncclResult_t (*p_ncclCommCuDevice)(ncclComm_t, int *);
static ncclResult_t (*p_ncclAllReduce)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
static ncclResult_t (*p_ncclBroadcast)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
static ncclResult_t (*p_ncclReduce)(const void *, void *, size_t, int, int, int, ncclComm_t, CUstream);
static ncclResult_t (*p_ncclAllGather)(const void *, void *, size_t, int, ncclComm_t, CUstream);
static ncclResult_t (*p_ncclReduceScatter)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
static ncclResult_t (*p_ncclAlltoAll)(const void *, void *, size_t, int, ncclComm_t, CUstream);
static ncclResult_t (*p_ncclSend)(const void *, size_t, int, int, ncclComm_t, CUstream);
static ncclResult_t (*p_ncclRecv)(void *, size_t, int, int, ncclComm_t, CUstream);
static ncclResult_t (*p_ncclGroupStart)(void);
static ncclResult_t (*p_ncclGroupEnd)(void);
static ncclResult_t (*p_ncclRedOpCreatePreMulSum)(int *, void *, int, int, ncclComm_t);
static ncclResult_t (*p_ncclRedOpDestroy)(int, ncclComm_t);
static ncclResult_t (*p_ncclMemAlloc)(void **, size_t);
static ncclResult_t (*p_ncclMemFree)(void *);
static ncclResult_t (*p_ncclCommWindowRegister)(ncclComm_t, void *, size_t, void **, int);
static ncclResult_t (*p_ncclCommWindowDeregister)(ncclComm_t, void *);
static ncclResult_t (*p_ncclDevCommCreate)(ncclComm_t, const void *, void *);
static ncclResult_t (*p_ncclDevCommDestroy)(ncclComm_t, const void *);

#define LOAD(p, name) (*(void **)(&(p)) = dlsym(lib, name))

int cn_open(const char *path, char *err, size_t errlen) {
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cuda) {
		const char *e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "dlopen(libcuda.so.1) failed");
		return -1;
	}
	*(void **)(&p_cuCtxPushCurrent) = dlsym(cuda, "cuCtxPushCurrent_v2");
	*(void **)(&p_cuCtxPopCurrent) = dlsym(cuda, "cuCtxPopCurrent_v2");
	*(void **)(&p_cuCtxGetCurrent) = dlsym(cuda, "cuCtxGetCurrent");
	*(void **)(&p_cuCtxSetCurrent) = dlsym(cuda, "cuCtxSetCurrent");
	if (!p_cuCtxPushCurrent || !p_cuCtxPopCurrent || !p_cuCtxGetCurrent || !p_cuCtxSetCurrent) {
		snprintf(err, errlen, "libcuda.so.1 lacks cuCtxPushCurrent_v2, cuCtxPopCurrent_v2, cuCtxGetCurrent or cuCtxSetCurrent");
		return -1;
	}
	void *l = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!l) {
		const char *e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "dlopen failed");
		return -1;
	}
	lib = l;
	// Required: NCCL 2.18's API (ncclCommSplit, ncclConfig_t).
	struct {
		void **p;
		const char *name;
	} need[] = {
		{(void **)&p_ncclGetVersion, "ncclGetVersion"},
		{(void **)&p_ncclGetErrorString, "ncclGetErrorString"},
		{(void **)&p_ncclGetLastError, "ncclGetLastError"},
		{(void **)&p_ncclGetUniqueId, "ncclGetUniqueId"},
		{(void **)&p_ncclCommInitRankConfig, "ncclCommInitRankConfig"},
		{(void **)&p_ncclCommSplit, "ncclCommSplit"},
		{(void **)&p_ncclCommFinalize, "ncclCommFinalize"},
		{(void **)&p_ncclCommDestroy, "ncclCommDestroy"},
		{(void **)&p_ncclCommAbort, "ncclCommAbort"},
		{(void **)&p_ncclCommGetAsyncError, "ncclCommGetAsyncError"},
		{(void **)&p_ncclCommCount, "ncclCommCount"},
		{(void **)&p_ncclCommUserRank, "ncclCommUserRank"},
		{(void **)&p_ncclCommCuDevice, "ncclCommCuDevice"},
		{(void **)&p_ncclAllReduce, "ncclAllReduce"},
		{(void **)&p_ncclBroadcast, "ncclBroadcast"},
		{(void **)&p_ncclReduce, "ncclReduce"},
		{(void **)&p_ncclAllGather, "ncclAllGather"},
		{(void **)&p_ncclReduceScatter, "ncclReduceScatter"},
		{(void **)&p_ncclSend, "ncclSend"},
		{(void **)&p_ncclRecv, "ncclRecv"},
		{(void **)&p_ncclGroupStart, "ncclGroupStart"},
		{(void **)&p_ncclGroupEnd, "ncclGroupEnd"},
		{(void **)&p_ncclRedOpCreatePreMulSum, "ncclRedOpCreatePreMulSum"},
		{(void **)&p_ncclRedOpDestroy, "ncclRedOpDestroy"},
	};
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
		*need[i].p = dlsym(lib, need[i].name);
		if (!*need[i].p) {
			snprintf(err, errlen, "%s does not export %s (rt/nccl needs NCCL 2.18 or later)", path, need[i].name);
			lib = NULL;
			return -1;
		}
	}
	// Optional, by version.
	LOAD(p_ncclAlltoAll, "ncclAlltoAll");
	LOAD(p_ncclMemAlloc, "ncclMemAlloc");
	LOAD(p_ncclMemFree, "ncclMemFree");
	LOAD(p_ncclCommWindowRegister, "ncclCommWindowRegister");
	LOAD(p_ncclCommWindowDeregister, "ncclCommWindowDeregister");
	LOAD(p_ncclDevCommCreate, "ncclDevCommCreate");
	LOAD(p_ncclDevCommDestroy, "ncclDevCommDestroy");
	return 0;
}

int cn_version(int *v) { return p_ncclGetVersion(v); }

int cn_has(const char *sym) { return lib && dlsym(lib, sym) != NULL; }

const char *cn_error_string(int code) { return p_ncclGetErrorString(code); }

const char *cn_last_error(uintptr_t comm) { return p_ncclGetLastError((ncclComm_t)comm); }

// IN_CTX evaluates call with ctx current and returns its result.
#define IN_CTX(ctx, call)                                        \
	do {                                                         \
		CUresult r_ = p_cuCtxPushCurrent((CUcontext)(ctx));      \
		if (r_ != 0) return CN_CUDA_FAILED | r_;                 \
		ncclResult_t n_ = (call);                                \
		CUcontext o_;                                            \
		r_ = p_cuCtxPopCurrent(&o_);                             \
		if (r_ != 0 && n_ == 0) return CN_CUDA_FAILED | r_;      \
		return n_;                                               \
	} while (0)

// AT_CTX is IN_CTX for the operations, with fewer context switches.
// C code calling NCCL has its device's context current (the CUDA runtime
// sets the primary context on a thread's first call and leaves it there),
// so NCCL's own cudaGetDevice finds it and switches nothing; a push and a
// pop around each call would cost two driver calls, and the CUDA runtime
// inside NCCL would see the thread's context change twice per call. So:
// the rank's context current already: call NCCL (one cuCtxGetCurrent);
// none current: make it current and leave it, as the CUDA runtime does
// (it is a primary context, which the CUDA runtime inside NCCL retains
// for the life of the process); another current (a caller's own, on a
// locked thread): push and pop, leaving the caller's context untouched.
#define AT_CTX(ctx, call)                                        \
	do {                                                         \
		CUcontext c_;                                            \
		CUresult r_ = p_cuCtxGetCurrent(&c_);                    \
		if (r_ != 0) return CN_CUDA_FAILED | r_;                 \
		if (c_ == (CUcontext)(ctx)) return (call);               \
		if (c_ == NULL) {                                        \
			r_ = p_cuCtxSetCurrent((CUcontext)(ctx));            \
			if (r_ != 0) return CN_CUDA_FAILED | r_;             \
			return (call);                                       \
		}                                                        \
		IN_CTX(ctx, call);                                       \
	} while (0)

#define NEED(p)                                  \
	do {                                         \
		if (!(p)) return CN_MISSING;             \
	} while (0)

static void fill_config(ncclConfig_t *c, const cn_config *in) {
	memset(c, 0, sizeof *c);
	c->size = sizeof *c;
	c->magic = NCCL_CONFIG_MAGIC;
	c->version = NCCL_CONFIG_VERSION;
	c->blocking = in->blocking;
	c->cgaClusterSize = NCCL_CONFIG_UNDEF_INT;
	c->minCTAs = in->min_ctas ? in->min_ctas : NCCL_CONFIG_UNDEF_INT;
	c->maxCTAs = in->max_ctas ? in->max_ctas : NCCL_CONFIG_UNDEF_INT;
	c->netName = in->net_name;
	c->splitShare = in->split_share ? 1 : NCCL_CONFIG_UNDEF_INT;
	c->trafficClass = NCCL_CONFIG_UNDEF_INT;
	c->commName = in->comm_name;
	c->collnetEnable = NCCL_CONFIG_UNDEF_INT;
	c->CTAPolicy = NCCL_CONFIG_UNDEF_INT;
	c->shrinkShare = NCCL_CONFIG_UNDEF_INT;
	c->nvlsCTAs = NCCL_CONFIG_UNDEF_INT;
	c->nChannelsPerNetPeer = NCCL_CONFIG_UNDEF_INT;
	c->nvlinkCentricSched = NCCL_CONFIG_UNDEF_INT;
}

int cn_get_unique_id(void *id128) { return p_ncclGetUniqueId((ncclUniqueId *)id128); }

// ncclUniqueId is passed by value: the C compiler puts its 128 bytes where
// the platform's ABI wants them (on the stack, for x86-64 System V).
int cn_init_rank(uintptr_t ctx, uintptr_t *slot, int nranks, const void *id128, int rank, const cn_config *cfg) {
	ncclUniqueId id;
	memcpy(&id, id128, sizeof id);
	ncclConfig_t c;
	fill_config(&c, cfg);
	IN_CTX(ctx, p_ncclCommInitRankConfig((ncclComm_t *)slot, nranks, id, rank, &c));
}

int cn_init_all(int n, const uintptr_t *ctxs, uintptr_t *comms, const void *id128, const cn_config *cfg) {
	ncclUniqueId id;
	memcpy(&id, id128, sizeof id);
	ncclConfig_t c;
	fill_config(&c, cfg);
	ncclResult_t r = p_ncclGroupStart();
	if (r != 0) return r;
	for (int i = 0; i < n; i++) {
		CUresult q = p_cuCtxPushCurrent((CUcontext)ctxs[i]);
		if (q != 0) {
			p_ncclGroupEnd();
			return CN_CUDA_FAILED | q;
		}
		r = p_ncclCommInitRankConfig((ncclComm_t *)&comms[i], n, id, i, &c);
		CUcontext o;
		p_cuCtxPopCurrent(&o);
		if (r != 0 && r != ncclInProgress) {
			p_ncclGroupEnd();
			return r;
		}
	}
	return p_ncclGroupEnd();
}

int cn_split(uintptr_t ctx, uintptr_t comm, int color, int key, uintptr_t *slot, const cn_config *cfg) {
	ncclConfig_t c, *cp = NULL;
	if (cfg) {
		fill_config(&c, cfg);
		cp = &c;
	}
	IN_CTX(ctx, p_ncclCommSplit((ncclComm_t)comm, color, key, (ncclComm_t *)slot, cp));
}

int cn_finalize(uintptr_t ctx, uintptr_t comm) { IN_CTX(ctx, p_ncclCommFinalize((ncclComm_t)comm)); }
int cn_destroy(uintptr_t ctx, uintptr_t comm) { IN_CTX(ctx, p_ncclCommDestroy((ncclComm_t)comm)); }
int cn_abort(uintptr_t ctx, uintptr_t comm) { IN_CTX(ctx, p_ncclCommAbort((ncclComm_t)comm)); }

int cn_async_error(uintptr_t comm, int *result) { return p_ncclCommGetAsyncError((ncclComm_t)comm, result); }

int cn_comm_info(uintptr_t comm, int *rank, int *count, int *device) {
	ncclComm_t c = (ncclComm_t)comm;
	ncclResult_t r = p_ncclCommUserRank(c, rank);
	if (r == 0) r = p_ncclCommCount(c, count);
	if (r == 0) r = p_ncclCommCuDevice(c, device);
	return r;
}

static ncclResult_t dispatch(int kind, uintptr_t send, uintptr_t recv, size_t count, int dtype, int op, int peer,
                             ncclComm_t comm, CUstream s) {
	const void *sp = (const void *)send;
	void *rp = (void *)recv;
	switch (kind) {
	case 0: return p_ncclAllReduce(sp, rp, count, dtype, op, comm, s);
	case 1: return p_ncclBroadcast(sp, rp, count, dtype, peer, comm, s);
	case 2: return p_ncclReduce(sp, rp, count, dtype, op, peer, comm, s);
	case 3: return p_ncclAllGather(sp, rp, count, dtype, comm, s);
	case 4: return p_ncclReduceScatter(sp, rp, count, dtype, op, comm, s);
	case 5: return p_ncclAlltoAll ? p_ncclAlltoAll(sp, rp, count, dtype, comm, s) : CN_MISSING;
	case 6: return p_ncclSend(sp, count, dtype, peer, comm, s);
	case 7: return p_ncclRecv(rp, count, dtype, peer, comm, s);
	}
	return 4;  // ncclInvalidArgument
}

int cn_op(uintptr_t ctx, int kind, uintptr_t send, uintptr_t recv, size_t count, int dtype, int op, int peer,
          uintptr_t comm, uintptr_t stream) {
	AT_CTX(ctx, dispatch(kind, send, recv, count, dtype, op, peer, (ncclComm_t)comm, (CUstream)stream));
}

int cn_set_current(uintptr_t ctx) { return p_cuCtxSetCurrent((CUcontext)ctx); }

int cn_group_start(void) { return p_ncclGroupStart(); }
int cn_group_end(void) { return p_ncclGroupEnd(); }

int cn_premulsum(uintptr_t ctx, int *op, const void *scalar, int dtype, uintptr_t comm) {
	IN_CTX(ctx, p_ncclRedOpCreatePreMulSum(op, (void *)scalar, dtype, ncclScalarHostImmediate, (ncclComm_t)comm));
}

int cn_redop_destroy(uintptr_t ctx, int op, uintptr_t comm) { IN_CTX(ctx, p_ncclRedOpDestroy(op, (ncclComm_t)comm)); }

int cn_mem_alloc(uintptr_t ctx, uintptr_t *p, size_t size) {
	NEED(p_ncclMemAlloc);
	IN_CTX(ctx, p_ncclMemAlloc((void **)p, size));
}

int cn_mem_free(uintptr_t ctx, uintptr_t p) {
	NEED(p_ncclMemFree);
	IN_CTX(ctx, p_ncclMemFree((void *)p));
}

int cn_window_register(uintptr_t ctx, uintptr_t comm, uintptr_t buf, size_t size, uintptr_t *slot, int flags) {
	NEED(p_ncclCommWindowRegister);
	IN_CTX(ctx, p_ncclCommWindowRegister((ncclComm_t)comm, (void *)buf, size, (void **)slot, flags));
}

int cn_window_deregister(uintptr_t ctx, uintptr_t comm, uintptr_t win) {
	NEED(p_ncclCommWindowDeregister);
	IN_CTX(ctx, p_ncclCommWindowDeregister((ncclComm_t)comm, (void *)win));
}

int cn_devcomm_create_all(int n, const uintptr_t *ctxs, const uintptr_t *comms, int lsa_barriers, void *out) {
	NEED(p_ncclDevCommCreate);
	ncclDevCommRequirements_22803 req;
	memset(&req, 0, sizeof req);
	req.lsaBarrierCount = lsa_barriers;
	// NCCL writes each ncclDevComm when the group completes: into C memory.
	ncclDevComm_22803 *dc = calloc(n ? n : 1, sizeof *dc);
	if (!dc) return 2;  // ncclSystemError
	ncclResult_t r = p_ncclGroupStart();
	for (int i = 0; r == 0 && i < n; i++) {
		CUresult q = p_cuCtxPushCurrent((CUcontext)ctxs[i]);
		if (q != 0) {
			p_ncclGroupEnd();
			free(dc);
			return CN_CUDA_FAILED | q;
		}
		r = p_ncclDevCommCreate((ncclComm_t)comms[i], &req, &dc[i]);
		CUcontext o;
		p_cuCtxPopCurrent(&o);
	}
	ncclResult_t e = p_ncclGroupEnd();
	if (r == 0) r = e;
	if (r == 0) memcpy(out, dc, (size_t)n * DEVCOMM_SIZE);
	free(dc);
	return r;
}

int cn_devcomm_create_22807(uintptr_t ctx, uintptr_t comm, int lsa_barriers, void *out) {
	NEED(p_ncclDevCommCreate);
	ncclDevCommRequirements_22807 req;
	memset(&req, 0, sizeof req);
	req.lsaBarrierCount = lsa_barriers;
	ncclDevComm_22807 *dc = calloc(1, sizeof *dc);
	if (!dc) return 2;  // ncclSystemError
	CUresult q = p_cuCtxPushCurrent((CUcontext)ctx);
	if (q != 0) {
		free(dc);
		return CN_CUDA_FAILED | q;
	}
	ncclResult_t r = p_ncclDevCommCreate((ncclComm_t)comm, &req, dc);
	CUcontext o;
	p_cuCtxPopCurrent(&o);
	if (r == 0) memcpy(out, dc, sizeof *dc);
	free(dc);
	return r;
}

int cn_devcomm_destroy_22807(uintptr_t ctx, uintptr_t comm, const void *devcomm) {
	NEED(p_ncclDevCommDestroy);
	ncclDevComm_22807 dc;
	memcpy(&dc, devcomm, sizeof dc);
	IN_CTX(ctx, p_ncclDevCommDestroy((ncclComm_t)comm, &dc));
}

int cn_devcomm_destroy(uintptr_t ctx, uintptr_t comm, const void *devcomm) {
	NEED(p_ncclDevCommDestroy);
	// ncclDevCommDestroy takes the structure ncclDevCommCreate filled.
	ncclDevComm_22803 dc;
	memcpy(&dc, devcomm, DEVCOMM_SIZE);
	IN_CTX(ctx, p_ncclDevCommDestroy((ncclComm_t)comm, &dc));
}
