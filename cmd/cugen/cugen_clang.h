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

// CUDA's vector types, with vector_types.h's alignments, so that kernels
// taking float4 and friends mangle and lay out as under nvcc.
#define CUGEN_V1(T, N, A) struct __attribute__((aligned(A))) N { T x; };
#define CUGEN_V2(T, N, A) struct __attribute__((aligned(A))) N { T x, y; };
#define CUGEN_V3(T, N, A) struct __attribute__((aligned(A))) N { T x, y, z; };
#define CUGEN_V4(T, N, A) struct __attribute__((aligned(A))) N { T x, y, z, w; };
CUGEN_V1(signed char, char1, 1) CUGEN_V2(signed char, char2, 2) CUGEN_V3(signed char, char3, 1) CUGEN_V4(signed char, char4, 4)
CUGEN_V1(unsigned char, uchar1, 1) CUGEN_V2(unsigned char, uchar2, 2) CUGEN_V3(unsigned char, uchar3, 1) CUGEN_V4(unsigned char, uchar4, 4)
CUGEN_V1(short, short1, 2) CUGEN_V2(short, short2, 4) CUGEN_V3(short, short3, 2) CUGEN_V4(short, short4, 8)
CUGEN_V1(unsigned short, ushort1, 2) CUGEN_V2(unsigned short, ushort2, 4) CUGEN_V3(unsigned short, ushort3, 2) CUGEN_V4(unsigned short, ushort4, 8)
CUGEN_V1(int, int1, 4) CUGEN_V2(int, int2, 8) CUGEN_V3(int, int3, 4) CUGEN_V4(int, int4, 16)
CUGEN_V1(unsigned, uint1, 4) CUGEN_V2(unsigned, uint2, 8) CUGEN_V3(unsigned, uint3, 4) CUGEN_V4(unsigned, uint4, 16)
CUGEN_V1(long long, longlong1, 8) CUGEN_V2(long long, longlong2, 16) CUGEN_V3(long long, longlong3, 8)
CUGEN_V1(float, float1, 4) CUGEN_V2(float, float2, 8) CUGEN_V3(float, float3, 4) CUGEN_V4(float, float4, 16)
CUGEN_V1(double, double1, 8) CUGEN_V2(double, double2, 16) CUGEN_V3(double, double3, 8)
#undef CUGEN_V1
#undef CUGEN_V2
#undef CUGEN_V3
#undef CUGEN_V4
#define warpSize 32
#endif
#endif
