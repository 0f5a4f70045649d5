// cugen/host.h: declarations of the CUDA runtime API for the host code of a
// .cu file. cugen compiles device code only (--cuda-device-only), but clang
// still checks the host functions beside the kernels: launches with <<<>>>,
// cudaMalloc, cudaMemcpy and the like must be declared. Nothing here is
// defined: the host side of a cugen program is Go.
#ifndef CUGEN_HOST_H
#define CUGEN_HOST_H
#pragma clang system_header

typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorNotReady = 600,
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
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
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
};

#define cudaHostAllocDefault 0x00
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
static __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, T *f, int block, unsigned long shmem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, (const void *)f, block, shmem);
}

// What clang's <<<grid, block, shmem, stream>>> calls.
CUGEN_H unsigned __cudaPushCallConfiguration(dim3 g, dim3 b, unsigned long shmem = 0, void *s = 0);
CUGEN_H cudaError_t cudaConfigureCall(dim3 g, dim3 b, unsigned long shmem = 0, cudaStream_t s = 0);
#undef CUGEN_H

#endif
