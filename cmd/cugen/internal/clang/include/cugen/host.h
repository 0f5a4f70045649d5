// cugen/host.h: declarations of the CUDA runtime API for the host code of a
// .cu file. cugen compiles device code only (--cuda-device-only), but clang
// still checks the host functions beside the kernels: launches with <<<>>>,
// cudaMalloc, cudaMemcpy and the like must be declared. Nothing here is
// defined: the host side of a cugen program is Go.
#ifndef CUGEN_HOST_H
#define CUGEN_HOST_H
#pragma clang system_header

// The guards of the toolkit's driver_types.h and cuda_runtime.h, which
// helpers (cuda-samples' helper_cuda.h and the like) test for.
#define __DRIVER_TYPES_H__
#define __CUDA_RUNTIME_H__

typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorNotReady = 600,
  cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorAssert = 710,
  cudaErrorUnknown = 999,
} cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrGpuOverlap = 15,
  cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
};

enum cudaComputeMode {
  cudaComputeModeDefault = 0,
  cudaComputeModeExclusive = 1,
  cudaComputeModeProhibited = 2,
  cudaComputeModeExclusiveProcess = 3,
};

struct cudaDeviceProp {
  char name[256];
  unsigned long totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  unsigned long memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  unsigned long totalConstMem;
  int major, minor, multiProcessorCount, maxThreadsPerMultiProcessor;
  unsigned long sharedMemPerMultiprocessor, sharedMemPerBlockOptin;
  int l2CacheSize, concurrentKernels, integrated, canMapHostMemory;
  int asyncEngineCount, unifiedAddressing, managedMemory, pageableMemoryAccess, concurrentManagedAccess;
  int memoryClockRate, memoryBusWidth, computeMode, deviceOverlap, pciBusID, pciDeviceID, cooperativeLaunch;
  int persistingL2CacheMaxSize, accessPolicyMaxWindowSize;
};

enum cudaAccessProperty { cudaAccessPropertyNormal = 0, cudaAccessPropertyStreaming = 1, cudaAccessPropertyPersisting = 2 };
struct cudaAccessPolicyWindow {
  void *base_ptr;
  unsigned long num_bytes;
  float hitRatio;
  cudaAccessProperty hitProp, missProp;
};
enum cudaStreamAttrID { cudaStreamAttributeAccessPolicyWindow = 1, cudaStreamAttributeSynchronizationPolicy = 3 };
union cudaStreamAttrValue {
  cudaAccessPolicyWindow accessPolicyWindow;
  int syncPolicy;
};
enum cudaLimit { cudaLimitStackSize = 0, cudaLimitPrintfFifoSize = 1, cudaLimitMallocHeapSize = 2,
                 cudaLimitPersistingL2CacheSize = 6 };
typedef struct cudaIpcMemHandle_st {
  char reserved[64];
} cudaIpcMemHandle_t;
typedef struct cudaIpcEventHandle_st {
  char reserved[64];
} cudaIpcEventHandle_t;
#define CUDART_CB
typedef void(CUDART_CB *cudaStreamCallback_t)(cudaStream_t, cudaError_t, void *);
typedef void(CUDART_CB *cudaHostFn_t)(void *);

#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceMapHost 0x08
#define cudaEventBlockingSync 0x01
#define cudaEventInterprocess 0x04
#define cudaIpcMemLazyEnablePeerAccess 0x01
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaCpuDeviceId (-1)
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventDisableTiming 0x02

#define CUGEN_H extern "C" __host__
CUGEN_H cudaError_t cudaMalloc(void **p, unsigned long n);
CUGEN_H cudaError_t cudaMallocManaged(void **p, unsigned long n, unsigned int flags = 1);
CUGEN_H cudaError_t cudaMallocHost(void **p, unsigned long n);
CUGEN_H cudaError_t cudaHostAlloc(void **p, unsigned long n, unsigned int flags);
CUGEN_H cudaError_t cudaFree(void *p);
CUGEN_H cudaError_t cudaFreeHost(void *p);
CUGEN_H cudaError_t cudaMemcpy(void *d, const void *s, unsigned long n, cudaMemcpyKind k);
CUGEN_H cudaError_t cudaMemcpyAsync(void *d, const void *s, unsigned long n, cudaMemcpyKind k, cudaStream_t st = 0);
CUGEN_H cudaError_t cudaMemcpy2D(void *d, unsigned long dpitch, const void *s, unsigned long spitch, unsigned long w,
                                  unsigned long h, cudaMemcpyKind k);
CUGEN_H cudaError_t cudaMemcpy2DAsync(void *d, unsigned long dpitch, const void *s, unsigned long spitch, unsigned long w,
                                       unsigned long h, cudaMemcpyKind k, cudaStream_t st = 0);
CUGEN_H cudaError_t cudaMemcpyPeer(void *d, int dd, const void *s, int sd, unsigned long n);
CUGEN_H cudaError_t cudaMemGetInfo(unsigned long *free, unsigned long *total);
CUGEN_H cudaError_t cudaMallocPitch(void **p, unsigned long *pitch, unsigned long w, unsigned long h);
CUGEN_H cudaError_t cudaHostRegister(void *p, unsigned long n, unsigned int flags);
CUGEN_H cudaError_t cudaHostUnregister(void *p);
CUGEN_H cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned int flags);
CUGEN_H cudaError_t cudaMemPrefetchAsync(const void *p, unsigned long n, int dev, cudaStream_t s = 0);
CUGEN_H cudaError_t cudaStreamAttachMemAsync(cudaStream_t s, void *p, unsigned long n = 0, unsigned int flags = 4);
CUGEN_H cudaError_t cudaSetDeviceFlags(unsigned int flags);
CUGEN_H cudaError_t cudaDeviceSetLimit(cudaLimit l, unsigned long v);
CUGEN_H cudaError_t cudaDeviceGetLimit(unsigned long *v, cudaLimit l);
CUGEN_H cudaError_t cudaDeviceCanAccessPeer(int *can, int dev, int peer);
CUGEN_H cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags);
CUGEN_H cudaError_t cudaDeviceDisablePeerAccess(int peer);
CUGEN_H cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags = 0);
CUGEN_H cudaError_t cudaStreamQuery(cudaStream_t s);
CUGEN_H cudaError_t cudaEventQuery(cudaEvent_t e);
CUGEN_H cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *data, unsigned int flags);
CUGEN_H cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *data);
CUGEN_H cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID a, const cudaStreamAttrValue *v);
CUGEN_H cudaError_t cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID a, cudaStreamAttrValue *v);
CUGEN_H cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p);
CUGEN_H cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned int flags);
CUGEN_H cudaError_t cudaIpcCloseMemHandle(void *p);
CUGEN_H cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *h, cudaEvent_t e);
CUGEN_H cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *e, cudaIpcEventHandle_t h);
CUGEN_H cudaError_t cudaProfilerStart(void);
CUGEN_H cudaError_t cudaProfilerStop(void);
CUGEN_H cudaError_t cudaMemset(void *d, int v, unsigned long n);
CUGEN_H cudaError_t cudaMemsetAsync(void *d, int v, unsigned long n, cudaStream_t st = 0);
CUGEN_H cudaError_t cudaMemcpyToSymbol(const void *sym, const void *s, unsigned long n, unsigned long off = 0,
                                       cudaMemcpyKind k = cudaMemcpyHostToDevice);
CUGEN_H cudaError_t cudaMemcpyFromSymbol(void *d, const void *sym, unsigned long n, unsigned long off = 0,
                                         cudaMemcpyKind k = cudaMemcpyDeviceToHost);
CUGEN_H cudaError_t cudaDeviceSynchronize(void);
CUGEN_H cudaError_t cudaDeviceReset(void);
CUGEN_H cudaError_t cudaGetLastError(void);
CUGEN_H cudaError_t cudaPeekAtLastError(void);
CUGEN_H const char *cudaGetErrorString(cudaError_t e);
CUGEN_H const char *cudaGetErrorName(cudaError_t e);
CUGEN_H cudaError_t cudaSetDevice(int d);
CUGEN_H cudaError_t cudaGetDevice(int *d);
CUGEN_H cudaError_t cudaGetDeviceCount(int *n);
CUGEN_H cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d);
CUGEN_H cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d);
CUGEN_H cudaError_t cudaStreamCreate(cudaStream_t *s);
CUGEN_H cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags);
CUGEN_H cudaError_t cudaStreamDestroy(cudaStream_t s);
CUGEN_H cudaError_t cudaStreamSynchronize(cudaStream_t s);
CUGEN_H cudaError_t cudaEventCreate(cudaEvent_t *e);
CUGEN_H cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags);
static __host__ cudaError_t cudaEventCreate(cudaEvent_t *e, unsigned int flags) { return cudaEventCreateWithFlags(e, flags); }
CUGEN_H cudaError_t cudaCtxResetPersistingL2Cache(void);
CUGEN_H cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
CUGEN_H cudaError_t cudaEventSynchronize(cudaEvent_t e);
CUGEN_H cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
CUGEN_H cudaError_t cudaEventDestroy(cudaEvent_t e);
CUGEN_H cudaError_t cudaFuncSetAttribute(const void *f, cudaFuncAttribute a, int v);
CUGEN_H cudaError_t cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **args, unsigned long shmem,
                                     cudaStream_t s);
CUGEN_H cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *f, int block,
                                                                  unsigned long shmem);
// The runtime's typed overloads: cudaMalloc(&floatPtr, n) and the like.
template <class T> static __host__ cudaError_t cudaMalloc(T **p, unsigned long n) { return cudaMalloc((void **)p, n); }
template <class T> static __host__ cudaError_t cudaMallocManaged(T **p, unsigned long n, unsigned int flags = 1) {
  return cudaMallocManaged((void **)p, n, flags);
}
template <class T> static __host__ cudaError_t cudaMallocHost(T **p, unsigned long n) {
  return cudaMallocHost((void **)p, n);
}
template <class T> static __host__ cudaError_t cudaHostAlloc(T **p, unsigned long n, unsigned int flags) {
  return cudaHostAlloc((void **)p, n, flags);
}
template <class T>
static __host__ cudaError_t cudaFuncSetAttribute(T *f, cudaFuncAttribute a, int v) {
  return cudaFuncSetAttribute((const void *)f, a, v);
}
template <class T>
static __host__ cudaError_t cudaMemcpyToSymbol(const T &sym, const void *s, unsigned long n, unsigned long off = 0,
                                               cudaMemcpyKind k = cudaMemcpyHostToDevice) {
  return cudaMemcpyToSymbol((const void *)&sym, s, n, off, k);
}
template <class T>
static __host__ cudaError_t cudaMemcpyFromSymbol(void *d, const T &sym, unsigned long n, unsigned long off = 0,
                                                 cudaMemcpyKind k = cudaMemcpyDeviceToHost) {
  return cudaMemcpyFromSymbol(d, (const void *)&sym, n, off, k);
}
template <class T>
static __host__ cudaError_t cudaOccupancyMaxPotentialBlockSize(int *grid, int *block, T f, unsigned long shmem = 0,
                                                               int limit = 0);
template <class T> static __host__ cudaError_t cudaMallocPitch(T **p, unsigned long *pitch, unsigned long w, unsigned long h) {
  return cudaMallocPitch((void **)p, pitch, w, h);
}
template <class T> static __host__ cudaError_t cudaHostGetDevicePointer(T **d, void *h, unsigned int flags) {
  return cudaHostGetDevicePointer((void **)d, h, flags);
}
template <class T>
static __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, T *f, int block, unsigned long shmem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, (const void *)f, block, shmem);
}

// What clang's <<<grid, block, shmem, stream>>> calls.
CUGEN_H unsigned __cudaPushCallConfiguration(dim3 g, dim3 b, unsigned long shmem = 0, void *s = 0);
CUGEN_H cudaError_t cudaConfigureCall(dim3 g, dim3 b, unsigned long shmem = 0, cudaStream_t s = 0);
#undef CUGEN_H

#endif
