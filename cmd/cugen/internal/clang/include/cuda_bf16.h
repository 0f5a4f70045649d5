// cuda_bf16.h: cugen's __nv_bfloat16 and __nv_bfloat162 for the clang
// route, with CUDA's operators, intrinsics, conversions, math, shuffles and
// atomics. Arithmetic is native on sm_90 (add/sub/mul.rn.bf16) and sm_80
// (fma.rn.bf16), float's rounded once before; conversion from float is
// cvt.rn.bf16.f32 on sm_80 and later, round-to-nearest-even in integers
// before.
#ifndef CUGEN_CUDA_BF16_H
#define CUGEN_CUDA_BF16_H
#pragma clang system_header
#include "cugen_clang.h"
#include "cugen/f16.h"

CUGEN_HD float __cugen_b2f(unsigned short b) { return __builtin_bit_cast(float, (unsigned int)b << 16); }
CUGEN_HD unsigned short __cugen_f2b_sw(float f, int mode) { // 0 rn, 1 rz, 2 rd, 3 ru
  unsigned int u = __builtin_bit_cast(unsigned int, f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40); // quiet NaN
  unsigned int lo = u & 0xffffu, hi = u >> 16;
  bool neg = u >> 31;
  switch (mode) {
  case 0:
    hi += (lo > 0x8000u || (lo == 0x8000u && (hi & 1))) ? 1 : 0;
    break;
  case 2:
    hi += (neg && lo) ? 1 : 0;
    break;
  case 3:
    hi += (!neg && lo) ? 1 : 0;
    break;
  }
  return (unsigned short)hi;
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define CUGEN_B_CVT(name, mode, sw)                                                                                    \
  CUGEN_HD unsigned short name(float f) {                                                                              \
    unsigned short h;                                                                                                  \
    asm("cvt." mode ".bf16.f32 %0, %1;" : "=h"(h) : "f"(f));                                                           \
    return h;                                                                                                          \
  }
#else
#define CUGEN_B_CVT(name, mode, sw)                                                                                    \
  CUGEN_HD unsigned short name(float f) { return __cugen_f2b_sw(f, sw); }
#endif
CUGEN_B_CVT(__cugen_f2b, "rn", 0)
#undef CUGEN_B_CVT
CUGEN_HD unsigned short __cugen_f2b_rz(float f) { return __cugen_f2b_sw(f, 1); }
CUGEN_HD unsigned short __cugen_f2b_rd(float f) { return __cugen_f2b_sw(f, 2); }
CUGEN_HD unsigned short __cugen_f2b_ru(float f) { return __cugen_f2b_sw(f, 3); }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
CUGEN_HD unsigned short __cugen_bfma(unsigned short a, unsigned short b, unsigned short c) {
  unsigned short r;
  asm("fma.rn.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c));
  return r;
}
#if __CUDA_ARCH__ >= 900
#define CUGEN_B_OP2(name, ptx)                                                                                         \
  CUGEN_HD unsigned short name(unsigned short a, unsigned short b) {                                                   \
    unsigned short r;                                                                                                  \
    asm(ptx " %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b));                                                                \
    return r;                                                                                                          \
  }
CUGEN_B_OP2(__cugen_badd, "add.rn.bf16")
CUGEN_B_OP2(__cugen_bsub, "sub.rn.bf16")
CUGEN_B_OP2(__cugen_bmul, "mul.rn.bf16")
#undef CUGEN_B_OP2
#else
// sm_80 has only fma.rn.bf16: a + b = a*1 + b, a - b = b*-1 + a, a*b = a*b + -0.
CUGEN_HD unsigned short __cugen_badd(unsigned short a, unsigned short b) { return __cugen_bfma(a, 0x3f80, b); }
CUGEN_HD unsigned short __cugen_bsub(unsigned short a, unsigned short b) { return __cugen_bfma(b, 0xbf80, a); }
CUGEN_HD unsigned short __cugen_bmul(unsigned short a, unsigned short b) { return __cugen_bfma(a, b, 0x8000); }
#endif
#else
CUGEN_HD unsigned short __cugen_badd(unsigned short a, unsigned short b) { return __cugen_f2b(__cugen_b2f(a) + __cugen_b2f(b)); }
CUGEN_HD unsigned short __cugen_bsub(unsigned short a, unsigned short b) { return __cugen_f2b(__cugen_b2f(a) - __cugen_b2f(b)); }
CUGEN_HD unsigned short __cugen_bmul(unsigned short a, unsigned short b) { return __cugen_f2b(__cugen_b2f(a) * __cugen_b2f(b)); }
CUGEN_HD unsigned short __cugen_bfma(unsigned short a, unsigned short b, unsigned short c) {
  return __cugen_f2b(__builtin_fmaf(__cugen_b2f(a), __cugen_b2f(b), __cugen_b2f(c)));
}
#endif

CUGEN_F16_TYPES(__nv_bfloat16, __nv_bfloat162, __nv_bfloat16_raw, __nv_bfloat162_raw, __cugen_b2f, __cugen_f2b)
CUGEN_F16_OPS(__nv_bfloat16, __nv_bfloat162, __nv_bfloat16_raw, __cugen_b2f, __cugen_f2b, __cugen_badd, __cugen_bsub, __cugen_bmul,
              __cugen_bfma)
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

CUGEN_HD __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16_raw{__cugen_f2b(f)}; }
CUGEN_HD __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16_raw{__cugen_f2b(f)}; }
CUGEN_HD __nv_bfloat16 __float2bfloat16_rz(float f) { return __nv_bfloat16_raw{__cugen_f2b_rz(f)}; }
CUGEN_HD __nv_bfloat16 __float2bfloat16_rd(float f) { return __nv_bfloat16_raw{__cugen_f2b_rd(f)}; }
CUGEN_HD __nv_bfloat16 __float2bfloat16_ru(float f) { return __nv_bfloat16_raw{__cugen_f2b_ru(f)}; }
CUGEN_HD __nv_bfloat16 __double2bfloat16(double d) {
  // Round to odd in float, then to nearest even in bfloat16: one rounding.
  float f = (float)d;
  unsigned int u = __builtin_bit_cast(unsigned int, f);
  if ((double)f != d && (u & 1) == 0 && f == f) u |= 1;
  return __nv_bfloat16_raw{__cugen_f2b(__builtin_bit_cast(float, u))};
}
CUGEN_HD float __bfloat162float(__nv_bfloat16 b) { return __cugen_b2f(b.__x); }
CUGEN_HD __nv_bfloat162 __float2bfloat162_rn(float f) { return __nv_bfloat162(__float2bfloat16(f), __float2bfloat16(f)); }
CUGEN_HD __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162(__float2bfloat16(a), __float2bfloat16(b)); }
CUGEN_HD float2 __bfloat1622float2(__nv_bfloat162 h) { return make_float2(__bfloat162float(h.x), __bfloat162float(h.y)); }
CUGEN_HD __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __floats2bfloat162_rn(f.x, f.y); }
CUGEN_HD float __low2float(__nv_bfloat162 h) { return __bfloat162float(h.x); }
CUGEN_HD float __high2float(__nv_bfloat162 h) { return __bfloat162float(h.y); }
CUGEN_HD __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
CUGEN_HD __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162(a, a); }
CUGEN_HD __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
CUGEN_HD __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
CUGEN_HD __nv_bfloat162 __low2bfloat162(__nv_bfloat162 h) { return __nv_bfloat162(h.x, h.x); }
CUGEN_HD __nv_bfloat162 __high2bfloat162(__nv_bfloat162 h) { return __nv_bfloat162(h.y, h.y); }
CUGEN_HD __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x, b.x); }
CUGEN_HD __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.y, b.y); }
CUGEN_HD __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 h) { return __nv_bfloat162(h.y, h.x); }
CUGEN_HD __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
CUGEN_HD short __bfloat16_as_short(__nv_bfloat16 h) { return (short)h.__x; }
CUGEN_HD unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
CUGEN_HD __nv_bfloat16 __short_as_bfloat16(short s) { return __nv_bfloat16_raw{(unsigned short)s}; }
CUGEN_HD __nv_bfloat16 __ushort_as_bfloat16(unsigned short s) { return __nv_bfloat16_raw{s}; }

#define CUGEN_B2I(T, name, conv)                                                                                       \
  static __device__ __inline__ T name##_rn(__nv_bfloat16 h) { return (T)conv##_rn(__bfloat162float(h)); }              \
  static __device__ __inline__ T name##_rz(__nv_bfloat16 h) { return (T)conv##_rz(__bfloat162float(h)); }              \
  static __device__ __inline__ T name##_rd(__nv_bfloat16 h) { return (T)conv##_rd(__bfloat162float(h)); }              \
  static __device__ __inline__ T name##_ru(__nv_bfloat16 h) { return (T)conv##_ru(__bfloat162float(h)); }
CUGEN_B2I(int, __bfloat162int, __float2int)
CUGEN_B2I(unsigned int, __bfloat162uint, __float2uint)
CUGEN_B2I(short, __bfloat162short, __float2int)
CUGEN_B2I(unsigned short, __bfloat162ushort, __float2uint)
CUGEN_B2I(long long, __bfloat162ll, __float2ll)
CUGEN_B2I(unsigned long long, __bfloat162ull, __float2ull)
#undef CUGEN_B2I
#define CUGEN_I2B(T, name, conv)                                                                                       \
  static __device__ __inline__ __nv_bfloat16 name##_rn(T v) { return __float2bfloat16_rn(conv##_rn(v)); }              \
  static __device__ __inline__ __nv_bfloat16 name##_rz(T v) { return __float2bfloat16_rz(conv##_rz(v)); }              \
  static __device__ __inline__ __nv_bfloat16 name##_rd(T v) { return __float2bfloat16_rd(conv##_rd(v)); }              \
  static __device__ __inline__ __nv_bfloat16 name##_ru(T v) { return __float2bfloat16_ru(conv##_ru(v)); }
CUGEN_I2B(int, __int2bfloat16, __int2float)
CUGEN_I2B(unsigned int, __uint2bfloat16, __uint2float)
CUGEN_I2B(short, __short2bfloat16, __int2float)
CUGEN_I2B(unsigned short, __ushort2bfloat16, __uint2float)
CUGEN_I2B(long long, __ll2bfloat16, __ll2float)
CUGEN_I2B(unsigned long long, __ull2bfloat16, __ull2float)
#undef CUGEN_I2B

// atomicAdd on bfloat16: atom.add.noftz.bf16 on sm_90, a compare-and-swap
// loop on the containing word before.
static __device__ __inline__ __nv_bfloat162 atomicAdd(__nv_bfloat162 *p, __nv_bfloat162 v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned int r;
  asm volatile("atom.add.noftz.bf16x2 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(__builtin_bit_cast(unsigned int, v)) : "memory");
  return __builtin_bit_cast(__nv_bfloat162, r);
#else
  unsigned int *w = (unsigned int *)p, old = *w, seen;
  do {
    seen = old;
    __nv_bfloat162 s = __builtin_bit_cast(__nv_bfloat162, seen) + v;
    old = atomicCAS(w, seen, __builtin_bit_cast(unsigned int, s));
  } while (old != seen);
  return __builtin_bit_cast(__nv_bfloat162, old);
#endif
}
static __device__ __inline__ __nv_bfloat16 atomicAdd(__nv_bfloat16 *p, __nv_bfloat16 v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned short r;
  asm volatile("atom.add.noftz.bf16 %0, [%1], %2;" : "=h"(r) : "l"(p), "h"(v.__x) : "memory");
  return __nv_bfloat16_raw{r};
#else
  unsigned long long a = (unsigned long long)p;
  unsigned int *w = (unsigned int *)(a & ~3ull), sh = (unsigned int)(a & 2) * 8, old = *w, seen;
  do {
    seen = old;
    __nv_bfloat16 s = __nv_bfloat16(__nv_bfloat16_raw{(unsigned short)(seen >> sh)}) + v;
    old = atomicCAS(w, seen, (seen & ~(0xffffu << sh)) | ((unsigned int)s.__x << sh));
  } while (old != seen);
  return __nv_bfloat16_raw{(unsigned short)(old >> sh)};
#endif
}

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7f80u)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7fffu)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001u)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7f7fu)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3f80u)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000u)
#endif
