// cugen_clang.h: the few CUDA declarations device code needs when clang
// compiles it without the CUDA toolkit (-nocudainc -nocudalib). cugen embeds
// this file and passes it with -include when run with -compiler clang; under
// nvcc (or clang with the CUDA headers) it expands to nothing.
#ifndef CUGEN_CLANG_H
#define CUGEN_CLANG_H
#if defined(__clang__) && defined(__CUDA__) && !defined(__NVCC__) && !defined(__CUDACC_RTC__) && !defined(__CUDA_ARCH_LIST__) && !defined(__CLANG_CUDA_RUNTIME_WRAPPER_H__)
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#include <__clang_cuda_builtin_vars.h>

static __device__ __forceinline__ int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicAdd(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v);
}
static __device__ __forceinline__ unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
static __device__ __forceinline__ float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
static __device__ __forceinline__ double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
static __device__ __forceinline__ int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
static __device__ __forceinline__ float __shfl_down_sync(unsigned mask, float v, unsigned d) {
  return __nvvm_shfl_sync_down_f32(mask, v, d, 0x1f);
}
static __device__ __forceinline__ int __shfl_down_sync(unsigned mask, int v, unsigned d) {
  return __nvvm_shfl_sync_down_i32(mask, v, d, 0x1f);
}
static __device__ __forceinline__ unsigned __ballot_sync(unsigned mask, int p) { return __nvvm_vote_ballot_sync(mask, p); }
#define warpSize 32
#endif
#endif
