// cugen_clang.h: what nvcc's implicit cuda_runtime.h gives device code,
// for clang compiling a .cu without the CUDA toolkit (-nocudainc
// -nocudalib). cugen writes this directory to a temporary one, passes it with
// -isystem and this file with -include; the toolkit's header names
// (cuda_runtime.h, cuda_fp16.h, cuComplex.h, cooperative_groups.h,
// math_constants.h, ...) resolve to cugen's versions there. Under nvcc, or clang with the CUDA
// headers, it expands to nothing.
//
// Everything is cugen's own: the math library is in cugen/math_*.h (its
// polynomials derived by cmd/cugen/internal/clang/mathgen), the intrinsics
// map to PTX instructions. What it leaves out is declared unavailable
// (cugen/unsupported.h), so that a use names itself.
#ifndef CUGEN_CLANG_H
#define CUGEN_CLANG_H
#pragma clang system_header
// cugen defines __CUGEN_CLANG__ on clang's command line: the prelude keys on
// that alone, never on the absence of a macro some compiler predefines
// (clang 22 predefines nvcc's __CUDA_ARCH_LIST__).
#if defined(__CUGEN_CLANG__) && defined(__clang__) && defined(__CUDA__) && !defined(__NVCC__) && !defined(__CLANG_CUDA_RUNTIME_WRAPPER_H__)
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __builtin_align__(n) __align__(n)
#if __has_attribute(grid_constant)
#define __grid_constant__ __attribute__((grid_constant))
#else
#define __grid_constant__
#endif
// What nvcc defines and code tests for. The CUDA version is the API level
// cugen's headers follow.
#define __CUDACC__ 1
#define CUDART_VERSION 12000
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0

#include "cugen/math_decls.h"
#include "cugen/libc_decls.h"
#if __has_include(<cmath>)
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <cassert>
#include <cstdint>
#include <ctime>
#include <math.h>
#endif
// The device's printf (clang lowers it to PTX's vprintf), malloc and free,
// beside the host's.
extern "C" {
__device__ int vprintf(const char *, const char *);
__device__ int printf(const char *, ...);
__device__ void *malloc(unsigned long) __attribute__((nothrow)) __attribute__((malloc));
__device__ void free(void *) __attribute__((nothrow));
}
#include <__clang_cuda_builtin_vars.h>
#include "cugen/types.h"
#include "cugen/device.h"
#include "cugen/atomic.h"
#include "cugen/warp.h"
#include "cugen/math_api.h"
#include "cugen/host.h"
#include "cugen/unsupported.h"
#endif
#endif
