// cugen/types.h: CUDA's vector types with vector_types.h's sizes and
// alignments (so kernels taking float4 and friends mangle and lay out as
// under nvcc), their make_<type> functions, dim3, and the conversions of
// threadIdx, blockIdx, blockDim and gridDim.
#ifndef CUGEN_TYPES_H
#define CUGEN_TYPES_H
#pragma clang system_header

#ifndef NULL
#define NULL __null
#endif
// The C library's constants, for the rare host without them.
#ifndef INFINITY
#define INFINITY __builtin_inff()
#endif
#ifndef NAN
#define NAN __builtin_nanf("")
#endif
#ifndef HUGE_VALF
#define HUGE_VALF __builtin_huge_valf()
#endif
#ifndef M_PI
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif

#define CUGEN_V1(T, N, A)                                                                                              \
  struct __attribute__((aligned(A))) N {                                                                               \
    T x;                                                                                                               \
  };                                                                                                                   \
  static __host__ __device__ __inline__ constexpr N make_##N(T x) { return N{x}; }
#define CUGEN_V2(T, N, A)                                                                                              \
  struct __attribute__((aligned(A))) N {                                                                               \
    T x, y;                                                                                                            \
  };                                                                                                                   \
  static __host__ __device__ __inline__ constexpr N make_##N(T x, T y) { return N{x, y}; }
#define CUGEN_V3(T, N, A)                                                                                              \
  struct __attribute__((aligned(A))) N {                                                                               \
    T x, y, z;                                                                                                         \
  };                                                                                                                   \
  static __host__ __device__ __inline__ constexpr N make_##N(T x, T y, T z) { return N{x, y, z}; }
#define CUGEN_V4(T, N, A)                                                                                              \
  struct __attribute__((aligned(A))) N {                                                                               \
    T x, y, z, w;                                                                                                      \
  };                                                                                                                   \
  static __host__ __device__ __inline__ constexpr N make_##N(T x, T y, T z, T w) { return N{x, y, z, w}; }
#define CUGEN_VALL(T, N, A1, A2, A3, A4) CUGEN_V1(T, N##1, A1) CUGEN_V2(T, N##2, A2) CUGEN_V3(T, N##3, A3) CUGEN_V4(T, N##4, A4)

CUGEN_VALL(signed char, char, 1, 2, 1, 4)
CUGEN_VALL(unsigned char, uchar, 1, 2, 1, 4)
CUGEN_VALL(short, short, 2, 4, 2, 8)
CUGEN_VALL(unsigned short, ushort, 2, 4, 2, 8)
CUGEN_VALL(int, int, 4, 8, 4, 16)
CUGEN_VALL(unsigned int, uint, 4, 8, 4, 16)
CUGEN_VALL(long, long, sizeof(long), 2 * sizeof(long), sizeof(long), 16)
CUGEN_VALL(unsigned long, ulong, sizeof(long), 2 * sizeof(long), sizeof(long), 16)
CUGEN_VALL(long long, longlong, 8, 16, 8, 16)
CUGEN_VALL(unsigned long long, ulonglong, 8, 16, 8, 16)
CUGEN_VALL(float, float, 4, 8, 4, 16)
CUGEN_VALL(double, double, 8, 16, 8, 16)
#undef CUGEN_V1
#undef CUGEN_V2
#undef CUGEN_V3
#undef CUGEN_V4
#undef CUGEN_VALL

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

#define CUGEN_BUILTIN_CONV(T)                                                                                          \
  __device__ inline T::operator dim3() const { return dim3(x, y, z); }                                                 \
  __device__ inline T::operator uint3() const { return uint3{x, y, z}; }
CUGEN_BUILTIN_CONV(__cuda_builtin_threadIdx_t)
CUGEN_BUILTIN_CONV(__cuda_builtin_blockIdx_t)
CUGEN_BUILTIN_CONV(__cuda_builtin_blockDim_t)
CUGEN_BUILTIN_CONV(__cuda_builtin_gridDim_t)
#undef CUGEN_BUILTIN_CONV

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

#endif
