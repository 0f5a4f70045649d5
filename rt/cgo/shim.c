//go:build cgo

// shim.c resolves the CUDA driver API from libcuda.so.1 at run time and wraps
// each call so that Go crosses into C once per operation: the wrapper makes
// the caller's context current (cuCtxPushCurrent), does the work and restores
// the thread's previous context (cuCtxPopCurrent). Go code therefore never
// depends on which OS thread it runs on.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

// Values from cuda.h.
enum {
	CU_JIT_MAX_REGISTERS = 0,
	CU_JIT_INFO_LOG_BUFFER = 3,
	CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
	CU_JIT_ERROR_LOG_BUFFER = 5,
	CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
	CU_JIT_OPTIMIZATION_LEVEL = 7,
	CU_JIT_TARGET = 9,
	CU_JIT_GENERATE_DEBUG_INFO = 11,
	CU_JIT_LOG_VERBOSE = 12,
	CU_JIT_GENERATE_LINE_INFO = 13,
	CU_LIBRARY_BINARY_IS_PRESERVED = 1,
	CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
	CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
	CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
	CU_LAUNCH_ATTRIBUTE_PRIORITY = 8,
};
#define CU_LAUNCH_PARAM_END ((void *)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)

// CUlaunchAttribute and CUlaunchConfig as laid out in cuda.h (CUDA 12.0+).
// Only the union members rt uses are named; pad keeps the union at 64 bytes
// and the pointer member gives it cuda.h's 8-byte alignment.
typedef struct {
	unsigned int id;
	char pad[4];
	union {
		char pad[64];
		void *align_;
		struct {
			unsigned int x, y, z;
		} clusterDim;
		int cooperative;
		int programmaticStreamSerializationAllowed;
		int priority;
	} value;
} cg_launch_attr;
typedef struct {
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
	cg_launch_attr *attrs;
	unsigned int numAttrs;
} cg_launch_config;
_Static_assert(sizeof(cg_launch_attr) == 72, "CUlaunchAttribute is 72 bytes");
_Static_assert(offsetof(cg_launch_attr, value) == 8, "CUlaunchAttribute.value at 8");
_Static_assert(sizeof(cg_launch_config) == 56, "CUlaunchConfig is 56 bytes");
_Static_assert(offsetof(cg_launch_config, hStream) == 32, "CUlaunchConfig.hStream at 32");
_Static_assert(offsetof(cg_launch_config, attrs) == 40, "CUlaunchConfig.attrs at 40");
_Static_assert(offsetof(cg_launch_config, numAttrs) == 48, "CUlaunchConfig.numAttrs at 48");

// Entry points. NULL means the driver does not export the symbol.
static CUresult (*p_cuInit)(unsigned int);
static CUresult (*p_cuGetErrorName)(CUresult, const char **);
static CUresult (*p_cuGetErrorString)(CUresult, const char **);
static CUresult (*p_cuDriverGetVersion)(int *);
static CUresult (*p_cuDeviceGet)(CUdevice *, int);
static CUresult (*p_cuDeviceGetCount)(int *);
static CUresult (*p_cuDeviceGetName)(char *, int, CUdevice);
static CUresult (*p_cuDeviceGetAttribute)(int *, int, CUdevice);
static CUresult (*p_cuDeviceTotalMem)(size_t *, CUdevice);
static CUresult (*p_cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
static CUresult (*p_cuDevicePrimaryCtxRelease)(CUdevice);
static CUresult (*p_cuCtxCreate_v2)(CUcontext *, unsigned int, CUdevice);
static CUresult (*p_cuCtxCreate_v4)(CUcontext *, void *, unsigned int, CUdevice);
static CUresult (*p_cuCtxDestroy)(CUcontext);
static CUresult (*p_cuCtxPushCurrent)(CUcontext);
static CUresult (*p_cuCtxPopCurrent)(CUcontext *);
static CUresult (*p_cuCtxSetCurrent)(CUcontext);
static CUresult (*p_cuCtxGetCurrent)(CUcontext *);
static CUresult (*p_cuCtxGetDevice)(CUdevice *);
static CUresult (*p_cuCtxSynchronize)(void);
static CUresult (*p_cuStreamCreateWithPriority)(CUstream *, unsigned int, int);
static CUresult (*p_cuStreamDestroy)(CUstream);
static CUresult (*p_cuStreamSynchronize)(CUstream);
static CUresult (*p_cuStreamQuery)(CUstream);
static CUresult (*p_cuStreamGetCtx)(CUstream, CUcontext *);
static CUresult (*p_cuEventCreate)(CUevent *, unsigned int);
static CUresult (*p_cuEventRecord)(CUevent, CUstream);
static CUresult (*p_cuEventSynchronize)(CUevent);
static CUresult (*p_cuEventElapsedTime)(float *, CUevent, CUevent);
static CUresult (*p_cuEventDestroy)(CUevent);
static CUresult (*p_cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*p_cuMemGetInfo)(size_t *, size_t *);
static CUresult (*p_cuMemFree)(CUdeviceptr);
static CUresult (*p_cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
static CUresult (*p_cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
static CUresult (*p_cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
static CUresult (*p_cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
static CUresult (*p_cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
static CUresult (*p_cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
static CUresult (*p_cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
static CUresult (*p_cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
static CUresult (*p_cuLibraryLoadData)(CUlibrary *, const void *, int *, void **, unsigned int, int *, void **,
                                       unsigned int);
static CUresult (*p_cuLibraryUnload)(CUlibrary);
static CUresult (*p_cuLibraryGetKernel)(CUkernel *, CUlibrary, const char *);
static CUresult (*p_cuLibraryGetKernelCount)(unsigned int *, CUlibrary);
static CUresult (*p_cuLibraryEnumerateKernels)(CUkernel *, unsigned int, CUlibrary);
static CUresult (*p_cuLibraryGetGlobal)(CUdeviceptr *, size_t *, CUlibrary, const char *);
static CUresult (*p_cuLibraryGetManaged)(CUdeviceptr *, size_t *, CUlibrary, const char *);
static CUresult (*p_cuLibraryGetModule)(CUmodule *, CUlibrary);
static CUresult (*p_cuKernelGetFunction)(CUfunction *, CUkernel);
static CUresult (*p_cuKernelGetName)(const char **, CUkernel);
static CUresult (*p_cuKernelGetParamInfo)(CUkernel, size_t, size_t *, size_t *);
static CUresult (*p_cuKernelGetAttribute)(int *, int, CUkernel, CUdevice);
static CUresult (*p_cuKernelSetAttribute)(int, int, CUkernel, CUdevice);
static CUresult (*p_cuModuleLoadDataEx)(CUmodule *, const void *, unsigned int, int *, void **);
static CUresult (*p_cuModuleUnload)(CUmodule);
static CUresult (*p_cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
static CUresult (*p_cuModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *);
static CUresult (*p_cuModuleGetFunctionCount)(unsigned int *, CUmodule);
static CUresult (*p_cuModuleEnumerateFunctions)(CUfunction *, unsigned int, CUmodule);
static CUresult (*p_cuModuleGetLoadingMode)(int *);
static CUresult (*p_cuFuncGetName)(const char **, CUfunction);
static CUresult (*p_cuFuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *);
static CUresult (*p_cuFuncGetAttribute)(int *, int, CUfunction);
static CUresult (*p_cuFuncSetAttribute)(CUfunction, int, int);
static CUresult (*p_cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,
                                    unsigned int, unsigned int, unsigned int, CUstream, void **, void **);
static CUresult (*p_cuLaunchKernelEx)(const cg_launch_config *, CUfunction, void **, void **);
static CUresult (*p_cuLinkCreate)(unsigned int, int *, void **, CUlinkState *);
static CUresult (*p_cuLinkAddData)(CUlinkState, int, void *, size_t, const char *, unsigned int, int *, void **);
static CUresult (*p_cuLinkComplete)(CUlinkState, void **, size_t *);
static CUresult (*p_cuLinkDestroy)(CUlinkState);

static void *lib;

// sym resolves the first of the given names that the driver exports: the
// versioned name first (cuMemAlloc_v2 is the 64-bit ABI, the unversioned
// symbol is the 32-bit-era one), the older name as a fallback.
static void *sym(const char *a, const char *b) {
	void *p = dlsym(lib, a);
	if (!p && b) p = dlsym(lib, b);
	return p;
}

#define LOAD(var, a, b) (*(void **)(&(var)) = sym((a), (b)))

int cg_open(char *err, size_t errlen) {
	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "dlopen(libcuda.so.1) failed");
		return -1;
	}
	LOAD(p_cuInit, "cuInit", NULL);
	LOAD(p_cuGetErrorName, "cuGetErrorName", NULL);
	LOAD(p_cuGetErrorString, "cuGetErrorString", NULL);
	LOAD(p_cuDriverGetVersion, "cuDriverGetVersion", NULL);
	LOAD(p_cuDeviceGet, "cuDeviceGet", NULL);
	LOAD(p_cuDeviceGetCount, "cuDeviceGetCount", NULL);
	LOAD(p_cuDeviceGetName, "cuDeviceGetName", NULL);
	LOAD(p_cuDeviceGetAttribute, "cuDeviceGetAttribute", NULL);
	LOAD(p_cuDeviceTotalMem, "cuDeviceTotalMem_v2", NULL);
	LOAD(p_cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL);
	LOAD(p_cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
	LOAD(p_cuCtxCreate_v2, "cuCtxCreate_v2", NULL);
	LOAD(p_cuCtxCreate_v4, "cuCtxCreate_v4", NULL);
	LOAD(p_cuCtxDestroy, "cuCtxDestroy_v2", NULL);
	LOAD(p_cuCtxPushCurrent, "cuCtxPushCurrent_v2", NULL);
	LOAD(p_cuCtxPopCurrent, "cuCtxPopCurrent_v2", NULL);
	LOAD(p_cuCtxSetCurrent, "cuCtxSetCurrent", NULL);
	LOAD(p_cuCtxGetCurrent, "cuCtxGetCurrent", NULL);
	LOAD(p_cuCtxGetDevice, "cuCtxGetDevice", NULL);
	LOAD(p_cuCtxSynchronize, "cuCtxSynchronize", NULL);
	LOAD(p_cuStreamCreateWithPriority, "cuStreamCreateWithPriority", NULL);
	LOAD(p_cuStreamDestroy, "cuStreamDestroy_v2", NULL);
	LOAD(p_cuStreamSynchronize, "cuStreamSynchronize", NULL);
	LOAD(p_cuStreamQuery, "cuStreamQuery", NULL);
	LOAD(p_cuStreamGetCtx, "cuStreamGetCtx", NULL);
	LOAD(p_cuEventCreate, "cuEventCreate", NULL);
	LOAD(p_cuEventRecord, "cuEventRecord", NULL);
	LOAD(p_cuEventSynchronize, "cuEventSynchronize", NULL);
	// cuda.h maps cuEventElapsedTime to _v2 from CUDA 12.8; older drivers
	// (JetPack 6, say) export only the unversioned symbol.
	LOAD(p_cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
	LOAD(p_cuEventDestroy, "cuEventDestroy_v2", NULL);
	LOAD(p_cuMemAlloc, "cuMemAlloc_v2", NULL);
	LOAD(p_cuMemGetInfo, "cuMemGetInfo_v2", NULL);
	LOAD(p_cuMemFree, "cuMemFree_v2", NULL);
	LOAD(p_cuMemcpyHtoD, "cuMemcpyHtoD_v2", NULL);
	LOAD(p_cuMemcpyDtoH, "cuMemcpyDtoH_v2", NULL);
	LOAD(p_cuMemcpyDtoD, "cuMemcpyDtoD_v2", NULL);
	LOAD(p_cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL);
	LOAD(p_cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL);
	LOAD(p_cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL);
	LOAD(p_cuMemsetD8, "cuMemsetD8_v2", NULL);
	LOAD(p_cuMemsetD8Async, "cuMemsetD8Async", NULL);
	LOAD(p_cuLibraryLoadData, "cuLibraryLoadData", NULL);
	LOAD(p_cuLibraryUnload, "cuLibraryUnload", NULL);
	LOAD(p_cuLibraryGetKernel, "cuLibraryGetKernel", NULL);
	LOAD(p_cuLibraryGetKernelCount, "cuLibraryGetKernelCount", NULL);
	LOAD(p_cuLibraryEnumerateKernels, "cuLibraryEnumerateKernels", NULL);
	LOAD(p_cuLibraryGetGlobal, "cuLibraryGetGlobal", NULL);
	LOAD(p_cuLibraryGetManaged, "cuLibraryGetManaged", NULL);
	LOAD(p_cuLibraryGetModule, "cuLibraryGetModule", NULL);
	LOAD(p_cuKernelGetFunction, "cuKernelGetFunction", NULL);
	LOAD(p_cuKernelGetName, "cuKernelGetName", NULL);
	LOAD(p_cuKernelGetParamInfo, "cuKernelGetParamInfo", NULL);
	LOAD(p_cuKernelGetAttribute, "cuKernelGetAttribute", NULL);
	LOAD(p_cuKernelSetAttribute, "cuKernelSetAttribute", NULL);
	LOAD(p_cuModuleLoadDataEx, "cuModuleLoadDataEx", NULL);
	LOAD(p_cuModuleUnload, "cuModuleUnload", NULL);
	LOAD(p_cuModuleGetFunction, "cuModuleGetFunction", NULL);
	LOAD(p_cuModuleGetGlobal, "cuModuleGetGlobal_v2", NULL);
	LOAD(p_cuModuleGetFunctionCount, "cuModuleGetFunctionCount", NULL);
	LOAD(p_cuModuleEnumerateFunctions, "cuModuleEnumerateFunctions", NULL);
	LOAD(p_cuModuleGetLoadingMode, "cuModuleGetLoadingMode", NULL);
	LOAD(p_cuFuncGetName, "cuFuncGetName", NULL);
	LOAD(p_cuFuncGetParamInfo, "cuFuncGetParamInfo", NULL);
	LOAD(p_cuFuncGetAttribute, "cuFuncGetAttribute", NULL);
	LOAD(p_cuFuncSetAttribute, "cuFuncSetAttribute", NULL);
	LOAD(p_cuLaunchKernel, "cuLaunchKernel", NULL);
	LOAD(p_cuLaunchKernelEx, "cuLaunchKernelEx", NULL);
	LOAD(p_cuLinkCreate, "cuLinkCreate_v2", NULL);
	LOAD(p_cuLinkAddData, "cuLinkAddData_v2", NULL);
	LOAD(p_cuLinkComplete, "cuLinkComplete", NULL);
	LOAD(p_cuLinkDestroy, "cuLinkDestroy", NULL);

	// Without these nothing else can work or be reported.
	const char *missing = NULL;
	if (!p_cuInit) missing = "cuInit";
	else if (!p_cuGetErrorName) missing = "cuGetErrorName";
	else if (!p_cuGetErrorString) missing = "cuGetErrorString";
	else if (!p_cuDriverGetVersion) missing = "cuDriverGetVersion";
	else if (!p_cuCtxPushCurrent) missing = "cuCtxPushCurrent_v2";
	else if (!p_cuCtxPopCurrent) missing = "cuCtxPopCurrent_v2";
	else if (!p_cuLaunchKernel) missing = "cuLaunchKernel";
	if (missing) {
		snprintf(err, errlen, "libcuda.so.1 does not export %s (driver too old?)", missing);
		return -1;
	}
	return 0;
}

int cg_has(int s) {
	switch (s) {
	case CG_SYM_LIBRARY:
		return p_cuLibraryLoadData && p_cuLibraryUnload && p_cuLibraryGetKernel && p_cuLibraryGetGlobal &&
		       p_cuLibraryGetManaged && p_cuKernelGetFunction;
	case CG_SYM_KERNEL_NAME:
		return p_cuKernelGetName != NULL;
	case CG_SYM_KERNEL_PARAM_INFO:
		return p_cuKernelGetParamInfo != NULL;
	case CG_SYM_LAUNCH_EX:
		return p_cuLaunchKernelEx != NULL;
	case CG_SYM_FUNC_NAME:
		return p_cuFuncGetName != NULL;
	case CG_SYM_MODULE_ENUMERATE:
		return p_cuModuleGetFunctionCount && p_cuModuleEnumerateFunctions;
	case CG_SYM_LOADING_MODE:
		return p_cuModuleGetLoadingMode != NULL;
	case CG_SYM_LINK:
		return p_cuLinkCreate && p_cuLinkAddData && p_cuLinkComplete && p_cuLinkDestroy;
	case CG_SYM_FUNC_PARAM_INFO:
		return p_cuFuncGetParamInfo != NULL;
	}
	return 0;
}

void cg_error_strings(int code, const char **name, const char **text) {
	*name = NULL;
	*text = NULL;
	if (p_cuGetErrorName(code, name) != 0) *name = NULL;
	if (p_cuGetErrorString(code, text) != 0) *text = NULL;
}

#define NEED(p)                                                   \
	do {                                                          \
		if (!(p)) return CG_MISSING | CG_NOT_SUPPORTED;           \
	} while (0)

// IN_CTX evaluates call with ctx current (when ctx is not NULL) and returns
// its result. The pop restores whatever the thread had current before, so a
// caller that set a context with cg_ctx_set_current keeps it.
#define IN_CTX(ctx, call)                                                 \
	do {                                                                  \
		CUresult r_;                                                      \
		if (ctx) {                                                        \
			r_ = p_cuCtxPushCurrent(ctx);                                 \
			if (r_ != 0) return CG_PUSH_FAILED | r_;                      \
		}                                                                 \
		r_ = (call);                                                      \
		if (ctx) {                                                        \
			CUcontext o_;                                                 \
			CUresult q_ = p_cuCtxPopCurrent(&o_);                         \
			if (q_ != 0 && r_ == 0) return CG_POP_FAILED | q_;            \
		}                                                                 \
		return r_;                                                        \
	} while (0)

int cg_init(void) { return p_cuInit(0); }
int cg_driver_version(int *v) { return p_cuDriverGetVersion(v); }

int cg_device_count(int *n) {
	NEED(p_cuDeviceGetCount);
	return p_cuDeviceGetCount(n);
}

// Device calls take an ordinal; cuDeviceGet maps it to the CUdevice.
#define DEVICE(ord, dev)                          \
	CUdevice dev;                                 \
	do {                                          \
		NEED(p_cuDeviceGet);                      \
		CUresult r_ = p_cuDeviceGet(&dev, (ord)); \
		if (r_ != 0) return r_;                   \
	} while (0)

int cg_device_name(int ord, char *buf, int len) {
	NEED(p_cuDeviceGetName);
	DEVICE(ord, dev);
	return p_cuDeviceGetName(buf, len, dev);
}

int cg_device_attribute(int ord, int attr, int *v) {
	NEED(p_cuDeviceGetAttribute);
	DEVICE(ord, dev);
	return p_cuDeviceGetAttribute(v, attr, dev);
}

int cg_device_total_mem(int ord, size_t *bytes) {
	NEED(p_cuDeviceTotalMem);
	DEVICE(ord, dev);
	return p_cuDeviceTotalMem(bytes, dev);
}

int cg_primary_retain(int ord, CUcontext *ctx) {
	NEED(p_cuDevicePrimaryCtxRetain);
	DEVICE(ord, dev);
	return p_cuDevicePrimaryCtxRetain(ctx, dev);
}

int cg_primary_release(int ord) {
	NEED(p_cuDevicePrimaryCtxRelease);
	DEVICE(ord, dev);
	return p_cuDevicePrimaryCtxRelease(dev);
}

int cg_ctx_create(int ord, unsigned int flags, CUcontext *ctx) {
	DEVICE(ord, dev);
	CUresult r;
	if (p_cuCtxCreate_v2) {
		r = p_cuCtxCreate_v2(ctx, flags, dev);
	} else if (p_cuCtxCreate_v4) {
		r = p_cuCtxCreate_v4(ctx, NULL, flags, dev);
	} else {
		return CG_MISSING | CG_NOT_SUPPORTED;
	}
	if (r != 0) return r;
	// cuCtxCreate makes the new context current on this thread; undo that so
	// that creating a context has no effect on whichever thread Go ran it on.
	CUcontext o;
	p_cuCtxPopCurrent(&o);
	return 0;
}

int cg_ctx_destroy(CUcontext ctx) {
	NEED(p_cuCtxDestroy);
	return p_cuCtxDestroy(ctx);
}

int cg_ctx_set_current(CUcontext ctx) {
	NEED(p_cuCtxSetCurrent);
	return p_cuCtxSetCurrent(ctx);
}

int cg_ctx_get_current(CUcontext *ctx) {
	NEED(p_cuCtxGetCurrent);
	return p_cuCtxGetCurrent(ctx);
}

int cg_ctx_device(CUcontext ctx, int *ord) {
	NEED(p_cuCtxGetDevice);
	CUdevice dev = 0;
	CUresult r;
	if (ctx) {
		r = p_cuCtxPushCurrent(ctx);
		if (r != 0) return CG_PUSH_FAILED | r;
	}
	r = p_cuCtxGetDevice(&dev);
	if (ctx) {
		CUcontext o;
		p_cuCtxPopCurrent(&o);
	}
	*ord = dev;  // a CUdevice is the ordinal it was got with
	return r;
}

int cg_ctx_synchronize(CUcontext ctx) {
	NEED(p_cuCtxSynchronize);
	IN_CTX(ctx, p_cuCtxSynchronize());
}

int cg_stream_create(CUcontext ctx, unsigned int flags, int priority, CUstream *s) {
	NEED(p_cuStreamCreateWithPriority);
	IN_CTX(ctx, p_cuStreamCreateWithPriority(s, flags, priority));
}

int cg_stream_destroy(CUcontext ctx, CUstream s) {
	NEED(p_cuStreamDestroy);
	IN_CTX(ctx, p_cuStreamDestroy(s));
}

int cg_stream_synchronize(CUcontext ctx, CUstream s) {
	NEED(p_cuStreamSynchronize);
	IN_CTX(ctx, p_cuStreamSynchronize(s));
}

int cg_stream_query(CUcontext ctx, CUstream s) {
	NEED(p_cuStreamQuery);
	IN_CTX(ctx, p_cuStreamQuery(s));
}

int cg_stream_ctx(CUstream s, CUcontext *ctx) {
	NEED(p_cuStreamGetCtx);
	return p_cuStreamGetCtx(s, ctx);
}

int cg_event_create(CUcontext ctx, unsigned int flags, CUevent *e) {
	NEED(p_cuEventCreate);
	IN_CTX(ctx, p_cuEventCreate(e, flags));
}

int cg_event_record(CUcontext ctx, CUevent e, CUstream s) {
	NEED(p_cuEventRecord);
	IN_CTX(ctx, p_cuEventRecord(e, s));
}

int cg_event_synchronize(CUcontext ctx, CUevent e) {
	NEED(p_cuEventSynchronize);
	IN_CTX(ctx, p_cuEventSynchronize(e));
}

int cg_event_elapsed(CUcontext ctx, float *ms, CUevent start, CUevent end) {
	NEED(p_cuEventElapsedTime);
	IN_CTX(ctx, p_cuEventElapsedTime(ms, start, end));
}

int cg_event_destroy(CUcontext ctx, CUevent e) {
	NEED(p_cuEventDestroy);
	IN_CTX(ctx, p_cuEventDestroy(e));
}

int cg_mem_get_info(CUcontext ctx, size_t *free_, size_t *total) {
	NEED(p_cuMemGetInfo);
	IN_CTX(ctx, p_cuMemGetInfo(free_, total));
}

int cg_mem_alloc(CUcontext ctx, CUdeviceptr *p, size_t n) {
	NEED(p_cuMemAlloc);
	IN_CTX(ctx, p_cuMemAlloc(p, n));
}

int cg_mem_free(CUcontext ctx, CUdeviceptr p) {
	NEED(p_cuMemFree);
	IN_CTX(ctx, p_cuMemFree(p));
}

int cg_memcpy_htod(CUcontext ctx, CUdeviceptr dst, const void *src, size_t n, CUstream s, int async) {
	if (async) {
		NEED(p_cuMemcpyHtoDAsync);
		IN_CTX(ctx, p_cuMemcpyHtoDAsync(dst, src, n, s));
	}
	NEED(p_cuMemcpyHtoD);
	IN_CTX(ctx, p_cuMemcpyHtoD(dst, src, n));
}

int cg_memcpy_dtoh(CUcontext ctx, void *dst, CUdeviceptr src, size_t n, CUstream s, int async) {
	if (async) {
		NEED(p_cuMemcpyDtoHAsync);
		IN_CTX(ctx, p_cuMemcpyDtoHAsync(dst, src, n, s));
	}
	NEED(p_cuMemcpyDtoH);
	IN_CTX(ctx, p_cuMemcpyDtoH(dst, src, n));
}

int cg_memcpy_dtod(CUcontext ctx, CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s, int async) {
	if (async) {
		NEED(p_cuMemcpyDtoDAsync);
		IN_CTX(ctx, p_cuMemcpyDtoDAsync(dst, src, n, s));
	}
	NEED(p_cuMemcpyDtoD);
	IN_CTX(ctx, p_cuMemcpyDtoD(dst, src, n));
}

int cg_memset_d8(CUcontext ctx, CUdeviceptr dst, unsigned char v, size_t n, CUstream s, int async) {
	if (async) {
		NEED(p_cuMemsetD8Async);
		IN_CTX(ctx, p_cuMemsetD8Async(dst, v, n, s));
	}
	NEED(p_cuMemsetD8);
	IN_CTX(ctx, p_cuMemsetD8(dst, v, n));
}

// ---- context-independent loading ----

// jit_options fills opts/vals (room for JIT_MAX entries) from o and the log
// buffers, and returns how many it filled.
#define JIT_MAX 10
static unsigned int jit_options(const cg_jit_opts *o, char *info, char *err, size_t loglen, int *opts, void **vals) {
	unsigned int n = 0;
#define OPT(k, v)                            \
	do {                                     \
		opts[n] = (k);                       \
		vals[n] = (void *)(uintptr_t)(v);    \
		n++;                                 \
	} while (0)
	if (info) {
		OPT(CU_JIT_INFO_LOG_BUFFER, info);
		OPT(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, loglen);
	}
	if (err) {
		OPT(CU_JIT_ERROR_LOG_BUFFER, err);
		OPT(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, loglen);
	}
	if (o) {
		if (o->verbose) OPT(CU_JIT_LOG_VERBOSE, 1);
		if (o->target > 0) OPT(CU_JIT_TARGET, o->target);
		if (o->max_regs > 0) OPT(CU_JIT_MAX_REGISTERS, o->max_regs);
		if (o->opt_level >= 0) OPT(CU_JIT_OPTIMIZATION_LEVEL, o->opt_level);
		if (o->line_info) OPT(CU_JIT_GENERATE_LINE_INFO, 1);
		if (o->debug) OPT(CU_JIT_GENERATE_DEBUG_INFO, 1);
	}
#undef OPT
	return n;
}

int cg_library_load(CUlibrary *l, const void *image, int preserved, const cg_jit_opts *o, char *info, char *err,
                    size_t loglen) {
	NEED(p_cuLibraryLoadData);
	int jopt[JIT_MAX];
	void *jval[JIT_MAX];
	unsigned int n = jit_options(o, info, err, loglen, jopt, jval);
	// The option's value is documented as a flag; point it at a 1 so that it
	// reads as true however the driver looks at it.
	static int one = 1;
	int lopt[1] = {CU_LIBRARY_BINARY_IS_PRESERVED};
	void *lval[1] = {&one};
	return p_cuLibraryLoadData(l, image, jopt, jval, n, lopt, lval, preserved ? 1 : 0);
}

int cg_library_unload(CUlibrary l) {
	NEED(p_cuLibraryUnload);
	return p_cuLibraryUnload(l);
}

int cg_library_kernel(CUlibrary l, const char *name, CUkernel *k) {
	NEED(p_cuLibraryGetKernel);
	return p_cuLibraryGetKernel(k, l, name);
}

int cg_library_kernel_count(CUlibrary l, unsigned int *n) {
	NEED(p_cuLibraryGetKernelCount);
	return p_cuLibraryGetKernelCount(n, l);
}

int cg_library_kernels(CUlibrary l, CUkernel *ks, unsigned int n) {
	NEED(p_cuLibraryEnumerateKernels);
	return p_cuLibraryEnumerateKernels(ks, n, l);
}

int cg_kernel_name(CUkernel k, const char **name) {
	NEED(p_cuKernelGetName);
	return p_cuKernelGetName(name, k);
}

int cg_library_global(CUcontext ctx, CUlibrary l, const char *name, CUdeviceptr *p, size_t *bytes) {
	NEED(p_cuLibraryGetGlobal);
	IN_CTX(ctx, p_cuLibraryGetGlobal(p, bytes, l, name));
}

int cg_library_managed(CUcontext ctx, CUlibrary l, const char *name, CUdeviceptr *p, size_t *bytes) {
	NEED(p_cuLibraryGetManaged);
	IN_CTX(ctx, p_cuLibraryGetManaged(p, bytes, l, name));
}

static CUresult param_info(CUkernel k, CUfunction f, size_t i, size_t *off, size_t *size) {
	return k ? p_cuKernelGetParamInfo(k, i, off, size) : p_cuFuncGetParamInfo(f, i, off, size);
}

int cg_param_info(CUcontext ctx, CUkernel k, CUfunction f, size_t i, size_t *off, size_t *size) {
	if (k) NEED(p_cuKernelGetParamInfo);
	else NEED(p_cuFuncGetParamInfo);
	IN_CTX(ctx, param_info(k, f, i, off, size));
}

int cg_kernel_get_attribute(CUkernel k, int attr, int ord, int *v) {
	NEED(p_cuKernelGetAttribute);
	DEVICE(ord, dev);
	return p_cuKernelGetAttribute(v, attr, k, dev);
}

int cg_kernel_set_attribute(CUkernel k, int attr, int v, int ord) {
	NEED(p_cuKernelSetAttribute);
	DEVICE(ord, dev);
	return p_cuKernelSetAttribute(attr, v, k, dev);
}

static CUresult warmup(CUlibrary l, unsigned int *loaded) {
	CUresult r;
	*loaded = 0;
	if (p_cuLibraryGetModule) {
		// Loads the library's module into the current context (all of it,
		// whatever the lazy-loading mode).
		CUmodule m;
		r = p_cuLibraryGetModule(&m, l);
		if (r != 0) return r;
	}
	unsigned int n = 0;
	r = p_cuLibraryGetKernelCount(&n, l);
	if (r != 0 || n == 0) return r;
	CUkernel *ks = calloc(n, sizeof *ks);
	if (!ks) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
	r = p_cuLibraryEnumerateKernels(ks, n, l);
	for (unsigned int i = 0; r == 0 && i < n; i++) {
		CUfunction f;
		// Under lazy loading this is what loads the kernel's code.
		r = p_cuKernelGetFunction(&f, ks[i]);
		if (r == 0) (*loaded)++;
	}
	free(ks);
	return r;
}

int cg_library_warmup(CUcontext ctx, CUlibrary l, unsigned int *loaded) {
	NEED(p_cuLibraryGetKernelCount);
	NEED(p_cuLibraryEnumerateKernels);
	NEED(p_cuKernelGetFunction);
	IN_CTX(ctx, warmup(l, loaded));
}

// ---- legacy per-context modules ----

int cg_module_load(CUcontext ctx, CUmodule *mod, const void *image, const cg_jit_opts *o, char *info, char *err,
                   size_t loglen) {
	NEED(p_cuModuleLoadDataEx);
	int jopt[JIT_MAX];
	void *jval[JIT_MAX];
	unsigned int n = jit_options(o, info, err, loglen, jopt, jval);
	IN_CTX(ctx, p_cuModuleLoadDataEx(mod, image, n, jopt, jval));
}

int cg_module_unload(CUcontext ctx, CUmodule mod) {
	NEED(p_cuModuleUnload);
	IN_CTX(ctx, p_cuModuleUnload(mod));
}

int cg_module_function(CUcontext ctx, CUmodule mod, const char *name, CUfunction *f) {
	NEED(p_cuModuleGetFunction);
	IN_CTX(ctx, p_cuModuleGetFunction(f, mod, name));
}

int cg_module_global(CUcontext ctx, CUmodule mod, const char *name, CUdeviceptr *p, size_t *bytes) {
	NEED(p_cuModuleGetGlobal);
	IN_CTX(ctx, p_cuModuleGetGlobal(p, bytes, mod, name));
}

int cg_module_function_count(CUcontext ctx, CUmodule mod, unsigned int *n) {
	NEED(p_cuModuleGetFunctionCount);
	IN_CTX(ctx, p_cuModuleGetFunctionCount(n, mod));
}

int cg_module_functions(CUcontext ctx, CUmodule mod, CUfunction *fs, unsigned int n) {
	NEED(p_cuModuleEnumerateFunctions);
	IN_CTX(ctx, p_cuModuleEnumerateFunctions(fs, n, mod));
}

int cg_func_name(CUfunction f, const char **name) {
	NEED(p_cuFuncGetName);
	return p_cuFuncGetName(name, f);
}

int cg_func_get_attribute(CUcontext ctx, CUfunction f, int attr, int *v) {
	NEED(p_cuFuncGetAttribute);
	IN_CTX(ctx, p_cuFuncGetAttribute(v, attr, f));
}

int cg_func_set_attribute(CUcontext ctx, CUfunction f, int attr, int v) {
	NEED(p_cuFuncSetAttribute);
	IN_CTX(ctx, p_cuFuncSetAttribute(f, attr, v));
}

int cg_loading_mode(int *mode) {
	NEED(p_cuModuleGetLoadingMode);
	return p_cuModuleGetLoadingMode(mode);
}

// ---- launch ----

static CUresult launch(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                       unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void *params,
                       size_t size) {
	// The packed buffer goes through extra (CU_LAUNCH_PARAM_BUFFER_*): it is
	// one block of plain bytes, so no array of pointers into Go memory is
	// ever handed to C. The driver copies it before cuLaunchKernel returns.
	void *extra[5] = {CU_LAUNCH_PARAM_BUFFER_POINTER, params, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
	                  CU_LAUNCH_PARAM_END};
	if (size && !params) return 1;  // CUDA_ERROR_INVALID_VALUE, not a read of NULL in the driver
	return p_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, s, NULL, size ? extra : NULL);
}

int cg_launch(CUfunction f, CUcontext ctx, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
              unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void *params, size_t size) {
	IN_CTX(ctx, launch(f, gx, gy, gz, bx, by, bz, shmem, s, params, size));
}

// launch_ex is cuLaunchKernelEx with the parameters as kp (kernelParams)
// or extra.
static CUresult launch_ex(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                          unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void **kp,
                          void **extra, unsigned int cx, unsigned int cy, unsigned int cz, int flags,
                          int priority) {
	cg_launch_attr attrs[4];
	memset(attrs, 0, sizeof attrs);
	unsigned int n = 0;
	if (cx | cy | cz) {
		attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
		attrs[n].value.clusterDim.x = cx;
		attrs[n].value.clusterDim.y = cy;
		attrs[n].value.clusterDim.z = cz;
		n++;
	}
	if (flags & CG_LAUNCH_COOPERATIVE) {
		attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
		attrs[n].value.cooperative = 1;
		n++;
	}
	if (flags & CG_LAUNCH_PROGRAMMATIC) {
		attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
		attrs[n].value.programmaticStreamSerializationAllowed = 1;
		n++;
	}
	if (priority) {
		attrs[n].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
		attrs[n].value.priority = priority;
		n++;
	}
	cg_launch_config cfg = {gx, gy, gz, bx, by, bz, shmem, s, attrs, n};
	return p_cuLaunchKernelEx(&cfg, f, kp, extra);
}

static CUresult launch_ex_buffer(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                 unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void *params,
                                 size_t size, unsigned int cx, unsigned int cy, unsigned int cz, int flags,
                                 int priority) {
	void *extra[5] = {CU_LAUNCH_PARAM_BUFFER_POINTER, params, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
	                  CU_LAUNCH_PARAM_END};
	if (size && !params) return 1;  // CUDA_ERROR_INVALID_VALUE
	return launch_ex(f, gx, gy, gz, bx, by, bz, shmem, s, NULL, size ? extra : NULL, cx, cy, cz, flags, priority);
}

int cg_launch_ex(CUfunction f, CUcontext ctx, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                 unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void *params, size_t size,
                 unsigned int cx, unsigned int cy, unsigned int cz, int flags, int priority) {
	NEED(p_cuLaunchKernelEx);
	IN_CTX(ctx, launch_ex_buffer(f, gx, gy, gz, bx, by, bz, shmem, s, params, size, cx, cy, cz, flags, priority));
}

// launch_placed passes the driver kernelParams: one pointer per parameter,
// into the packed buffer at offs, for the driver to place each parameter
// where the compiled kernel reads it (an over-aligned parameter is not at
// its PTX offset). The pointers live in this frame, never in Go memory.
static CUresult launch_placed(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                              unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void *params,
                              const unsigned int *offs, unsigned int n, unsigned int cx, unsigned int cy,
                              unsigned int cz, int flags, int priority) {
	if (n && !params) return 1;  // CUDA_ERROR_INVALID_VALUE
	void *stack[64];
	void **kp = stack;
	if (n > 64 && !(kp = malloc(n * sizeof *kp))) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
	for (unsigned int i = 0; i < n; i++) kp[i] = (char *)params + offs[i];
	CUresult r;
	if (cx | cy | cz | flags | priority) {
		r = p_cuLaunchKernelEx ? launch_ex(f, gx, gy, gz, bx, by, bz, shmem, s, kp, NULL, cx, cy, cz, flags, priority)
		                       : CG_MISSING | CG_NOT_SUPPORTED;
	} else {
		r = p_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, s, kp, NULL);
	}
	if (kp != stack) free(kp);
	return r;
}

int cg_launch_placed(CUfunction f, CUcontext ctx, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                     unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void *params,
                     const unsigned int *offs, unsigned int n, unsigned int cx, unsigned int cy, unsigned int cz,
                     int flags, int priority) {
	IN_CTX(ctx, launch_placed(f, gx, gy, gz, bx, by, bz, shmem, s, params, offs, n, cx, cy, cz, flags, priority));
}

void *cg_sym(const char *name) { return lib ? dlsym(lib, name) : NULL; }

// ---- JIT linking ----

struct cg_link {
	CUlinkState st;
	int opts[JIT_MAX];
	void *vals[JIT_MAX];
	char *info;
	char *err;
};

int cg_link_create(CUcontext ctx, const cg_jit_opts *o, size_t loglen, cg_link **out) {
	NEED(p_cuLinkCreate);
	NEED(p_cuLinkAddData);
	NEED(p_cuLinkComplete);
	NEED(p_cuLinkDestroy);
	cg_link *l = calloc(1, sizeof *l);
	if (!l) return 2;
	l->info = calloc(1, loglen + 1);
	l->err = calloc(1, loglen + 1);
	if (!l->info || !l->err) {
		free(l->info);
		free(l->err);
		free(l);
		return 2;
	}
	unsigned int n = jit_options(o, l->info, l->err, loglen, l->opts, l->vals);
	CUresult r;
	if (ctx) {
		r = p_cuCtxPushCurrent(ctx);
		if (r != 0) {
			cg_link_destroy(l);
			return CG_PUSH_FAILED | r;
		}
	}
	r = p_cuLinkCreate(n, l->opts, l->vals, &l->st);
	if (ctx) {
		CUcontext o_;
		p_cuCtxPopCurrent(&o_);
	}
	if (r != 0) {
		l->st = NULL;
		cg_link_destroy(l);
		return r;
	}
	*out = l;
	return 0;
}

int cg_link_add(CUcontext ctx, cg_link *l, int kind, void *data, size_t size, const char *name) {
	IN_CTX(ctx, p_cuLinkAddData(l->st, kind, data, size, name, 0, NULL, NULL));
}

int cg_link_complete(CUcontext ctx, cg_link *l, void **cubin, size_t *size) {
	IN_CTX(ctx, p_cuLinkComplete(l->st, cubin, size));
}

const char *cg_link_info_log(cg_link *l) { return l->info; }
const char *cg_link_error_log(cg_link *l) { return l->err; }

void cg_link_destroy(cg_link *l) {
	if (!l) return;
	if (l->st) p_cuLinkDestroy(l->st);
	free(l->info);
	free(l->err);
	free(l);
}
