// cuda_fp16.h: cugen's __half and __half2 for the clang route: IEEE
// binary16 with CUDA's operators, intrinsics, conversions, math, shuffles
// and atomics. Arithmetic is the native f16 PTX instruction on sm_53 and
// later, float's rounded once before.
#ifndef CUGEN_CUDA_FP16_H
#define CUGEN_CUDA_FP16_H
#pragma clang system_header
#include "cugen_clang.h"
#include "cugen/f16.h"

CUGEN_HD float __cugen_h2f(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
#define CUGEN_H_CVT(name, mode)                                                                                        \
  CUGEN_HD unsigned short name(float f) {                                                                              \
    unsigned short h;                                                                                                  \
    asm("cvt." mode ".f16.f32 %0, %1;" : "=h"(h) : "f"(f));                                                            \
    return h;                                                                                                          \
  }
CUGEN_H_CVT(__cugen_f2h, "rn")
CUGEN_H_CVT(__cugen_f2h_rz, "rz")
CUGEN_H_CVT(__cugen_f2h_rd, "rm")
CUGEN_H_CVT(__cugen_f2h_ru, "rp")
#undef CUGEN_H_CVT

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
#define CUGEN_H_OP2(name, ptx)                                                                                         \
  CUGEN_HD unsigned short name(unsigned short a, unsigned short b) {                                                   \
    unsigned short r;                                                                                                  \
    asm(ptx " %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b));                                                                \
    return r;                                                                                                          \
  }
CUGEN_H_OP2(__cugen_hadd, "add.rn.f16")
CUGEN_H_OP2(__cugen_hsub, "sub.rn.f16")
CUGEN_H_OP2(__cugen_hmul, "mul.rn.f16")
#undef CUGEN_H_OP2
CUGEN_HD unsigned short __cugen_hfma(unsigned short a, unsigned short b, unsigned short c) {
  unsigned short r;
  asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c));
  return r;
}
#else
CUGEN_HD unsigned short __cugen_hadd(unsigned short a, unsigned short b) { return __cugen_f2h(__cugen_h2f(a) + __cugen_h2f(b)); }
CUGEN_HD unsigned short __cugen_hsub(unsigned short a, unsigned short b) { return __cugen_f2h(__cugen_h2f(a) - __cugen_h2f(b)); }
CUGEN_HD unsigned short __cugen_hmul(unsigned short a, unsigned short b) { return __cugen_f2h(__cugen_h2f(a) * __cugen_h2f(b)); }
CUGEN_HD unsigned short __cugen_hfma(unsigned short a, unsigned short b, unsigned short c) {
  return __cugen_f2h(__builtin_fmaf(__cugen_h2f(a), __cugen_h2f(b), __cugen_h2f(c)));
}
#endif

CUGEN_F16_TYPES(__half, __half2, __half_raw, __half2_raw, __cugen_h2f, __cugen_f2h)
CUGEN_F16_OPS(__half, __half2, __half_raw, __cugen_h2f, __cugen_f2h, __cugen_hadd, __cugen_hsub, __cugen_hmul, __cugen_hfma)
typedef __half half;
typedef __half2 half2;

CUGEN_HD __half __float2half(float f) { return __half_raw{__cugen_f2h(f)}; }
CUGEN_HD __half __float2half_rn(float f) { return __half_raw{__cugen_f2h(f)}; }
CUGEN_HD __half __float2half_rz(float f) { return __half_raw{__cugen_f2h_rz(f)}; }
CUGEN_HD __half __float2half_rd(float f) { return __half_raw{__cugen_f2h_rd(f)}; }
CUGEN_HD __half __float2half_ru(float f) { return __half_raw{__cugen_f2h_ru(f)}; }
CUGEN_HD __half __double2half(double d) {
  unsigned short h;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d));
  return __half_raw{h};
}
CUGEN_HD float __half2float(__half h) { return __cugen_h2f(h.__x); }
CUGEN_HD __half2 __float2half2_rn(float f) { return __half2(__float2half(f), __float2half(f)); }
CUGEN_HD __half2 __floats2half2_rn(float a, float b) { return __half2(__float2half(a), __float2half(b)); }
CUGEN_HD float2 __half22float2(__half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
CUGEN_HD __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }
CUGEN_HD float __low2float(__half2 h) { return __half2float(h.x); }
CUGEN_HD float __high2float(__half2 h) { return __half2float(h.y); }
CUGEN_HD __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
CUGEN_HD __half2 __half2half2(__half a) { return __half2(a, a); }
CUGEN_HD __half __low2half(__half2 h) { return h.x; }
CUGEN_HD __half __high2half(__half2 h) { return h.y; }
CUGEN_HD __half2 __low2half2(__half2 h) { return __half2(h.x, h.x); }
CUGEN_HD __half2 __high2half2(__half2 h) { return __half2(h.y, h.y); }
CUGEN_HD __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
CUGEN_HD __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
CUGEN_HD __half2 __lowhigh2highlow(__half2 h) { return __half2(h.y, h.x); }
CUGEN_HD __half2 make_half2(__half a, __half b) { return __half2(a, b); }
CUGEN_HD short __half_as_short(__half h) { return (short)h.__x; }
CUGEN_HD unsigned short __half_as_ushort(__half h) { return h.__x; }
CUGEN_HD __half __short_as_half(short s) { return __half_raw{(unsigned short)s}; }
CUGEN_HD __half __ushort_as_half(unsigned short s) { return __half_raw{s}; }

// Integer conversions through float, which holds every half exactly.
#define CUGEN_H2I(T, name, conv)                                                                                       \
  static __device__ __inline__ T name##_rn(__half h) { return (T)conv##_rn(__half2float(h)); }                         \
  static __device__ __inline__ T name##_rz(__half h) { return (T)conv##_rz(__half2float(h)); }                         \
  static __device__ __inline__ T name##_rd(__half h) { return (T)conv##_rd(__half2float(h)); }                         \
  static __device__ __inline__ T name##_ru(__half h) { return (T)conv##_ru(__half2float(h)); }
CUGEN_H2I(int, __half2int, __float2int)
CUGEN_H2I(unsigned int, __half2uint, __float2uint)
CUGEN_H2I(short, __half2short, __float2int)
CUGEN_H2I(unsigned short, __half2ushort, __float2uint)
CUGEN_H2I(long long, __half2ll, __float2ll)
CUGEN_H2I(unsigned long long, __half2ull, __float2ull)
#undef CUGEN_H2I
#define CUGEN_I2H(T, name, conv)                                                                                       \
  static __device__ __inline__ __half name##_rn(T v) { return __float2half_rn(conv##_rn(v)); }                         \
  static __device__ __inline__ __half name##_rz(T v) { return __float2half_rz(conv##_rz(v)); }                         \
  static __device__ __inline__ __half name##_rd(T v) { return __float2half_rd(conv##_rd(v)); }                         \
  static __device__ __inline__ __half name##_ru(T v) { return __float2half_ru(conv##_ru(v)); }
CUGEN_I2H(int, __int2half, __int2float)
CUGEN_I2H(unsigned int, __uint2half, __uint2float)
CUGEN_I2H(short, __short2half, __int2float)
CUGEN_I2H(unsigned short, __ushort2half, __uint2float)
CUGEN_I2H(long long, __ll2half, __ll2float)
CUGEN_I2H(unsigned long long, __ull2half, __ull2float)
#undef CUGEN_I2H

static __device__ __inline__ __half2 atomicAdd(__half2 *p, __half2 v) {
  unsigned int r;
  asm volatile("atom.add.noftz.f16x2 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(__builtin_bit_cast(unsigned int, v)) : "memory");
  return __builtin_bit_cast(__half2, r);
}
static __device__ __inline__ __half atomicAdd(__half *p, __half v) {
  unsigned short r;
  asm volatile("atom.add.noftz.f16 %0, [%1], %2;" : "=h"(r) : "l"(p), "h"(v.__x) : "memory");
  return __half_raw{r};
}

#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7c00u)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7fffu)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001u)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7bffu)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3c00u)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000u)
#endif
