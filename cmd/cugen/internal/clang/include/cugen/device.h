// cugen/device.h: CUDA's device intrinsics as PTX: integer and bit
// operations, conversions and arithmetic with explicit rounding,
// reinterpretations, min/max, barriers, fences, clocks, and loads and
// stores with cache hints.
#ifndef CUGEN_DEVICE_H
#define CUGEN_DEVICE_H
#pragma clang system_header

#define CUGEN_DI static __device__ __inline__ __attribute__((always_inline))

// ---- integer and bit intrinsics ----

CUGEN_DI int __popc(unsigned int x) { return __builtin_popcount(x); }
CUGEN_DI int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
CUGEN_DI int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
CUGEN_DI int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
CUGEN_DI int __ffs(int x) { return __builtin_ffs(x); }
CUGEN_DI int __ffsll(long long x) { return __builtin_ffsll(x); }
CUGEN_DI unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
CUGEN_DI unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
CUGEN_DI unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  unsigned int r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(s));
  return r;
}
#define CUGEN_SHF(name, op)                                                                                            \
  CUGEN_DI unsigned int name(unsigned int lo, unsigned int hi, unsigned int s) {                                       \
    unsigned int r;                                                                                                    \
    asm("shf." op ".b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(s));                                        \
    return r;                                                                                                          \
  }
CUGEN_SHF(__funnelshift_l, "l.wrap")
CUGEN_SHF(__funnelshift_lc, "l.clamp")
CUGEN_SHF(__funnelshift_r, "r.wrap")
CUGEN_SHF(__funnelshift_rc, "r.clamp")
#undef CUGEN_SHF
CUGEN_DI int __mul24(int x, int y) {
  int r;
  asm("mul24.lo.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
  return r;
}
CUGEN_DI unsigned int __umul24(unsigned int x, unsigned int y) {
  unsigned int r;
  asm("mul24.lo.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
  return r;
}
CUGEN_DI int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
CUGEN_DI unsigned int __umulhi(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x * y) >> 32);
}
CUGEN_DI long long __mul64hi(long long x, long long y) {
  long long r;
  asm("mul.hi.s64 %0, %1, %2;" : "=l"(r) : "l"(x), "l"(y));
  return r;
}
CUGEN_DI unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  unsigned long long r;
  asm("mul.hi.u64 %0, %1, %2;" : "=l"(r) : "l"(x), "l"(y));
  return r;
}
CUGEN_DI unsigned int __sad(int x, int y, unsigned int z) {
  return z + (unsigned int)(x > y ? (unsigned)x - (unsigned)y : (unsigned)y - (unsigned)x);
}
CUGEN_DI unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return z + (x > y ? x - y : y - x); }
CUGEN_DI int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
CUGEN_DI int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
CUGEN_DI unsigned int __uhadd(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x + y) >> 1);
}
CUGEN_DI unsigned int __urhadd(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x + y + 1) >> 1);
}
CUGEN_DI int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 32; i += 8) c += (int)(signed char)(a >> i) * (int)(signed char)(b >> i);
  return c;
}
CUGEN_DI unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
  for (int i = 0; i < 32; i += 8) c += ((a >> i) & 0xff) * ((b >> i) & 0xff);
  return c;
}
CUGEN_DI int __dp2a_lo(int a, int b, int c) {
  return c + (int)(short)a * (int)(signed char)b + (int)(short)(a >> 16) * (int)(signed char)(b >> 8);
}
CUGEN_DI int __dp2a_hi(int a, int b, int c) {
  return c + (int)(short)a * (int)(signed char)(b >> 16) + (int)(short)(a >> 16) * (int)(signed char)(b >> 24);
}
CUGEN_DI unsigned int __fns(unsigned int mask, unsigned int base, int offset) {
  // PTX fns.b32: the |offset|-th set bit of mask from bit base (inclusive),
  // upwards for offset > 0, downwards for offset < 0; 0xffffffff if none.
  if (offset == 0) return (mask >> base) & 1 ? base : 0xffffffffu;
  int inc = offset > 0 ? 1 : -1, count = (offset > 0 ? offset : -offset) - 1;
  for (int pos = (int)base; pos >= 0 && pos < 32; pos += inc) {
    if ((mask >> pos) & 1) {
      if (count == 0) return (unsigned)pos;
      count--;
    }
  }
  return 0xffffffffu;
}

// ---- min and max ----
// (Host and device: host code beside the kernels calls them too.)
#undef CUGEN_DI
#define CUGEN_DI static __host__ __device__ __inline__ __attribute__((always_inline))

#define CUGEN_MINMAX(T)                                                                                                \
  CUGEN_DI T min(T a, T b) { return a < b ? a : b; }                                                                   \
  CUGEN_DI T max(T a, T b) { return a > b ? a : b; }
CUGEN_MINMAX(int)
CUGEN_MINMAX(unsigned int)
CUGEN_MINMAX(long)
CUGEN_MINMAX(unsigned long)
CUGEN_MINMAX(long long)
CUGEN_MINMAX(unsigned long long)
#undef CUGEN_MINMAX
CUGEN_DI unsigned int min(int a, unsigned int b) { return min((unsigned int)a, b); }
CUGEN_DI unsigned int min(unsigned int a, int b) { return min(a, (unsigned int)b); }
CUGEN_DI unsigned int max(int a, unsigned int b) { return max((unsigned int)a, b); }
CUGEN_DI unsigned int max(unsigned int a, int b) { return max(a, (unsigned int)b); }
CUGEN_DI unsigned long long min(long long a, unsigned long long b) { return min((unsigned long long)a, b); }
CUGEN_DI unsigned long long min(unsigned long long a, long long b) { return min(a, (unsigned long long)b); }
CUGEN_DI unsigned long long max(long long a, unsigned long long b) { return max((unsigned long long)a, b); }
CUGEN_DI unsigned long long max(unsigned long long a, long long b) { return max(a, (unsigned long long)b); }
CUGEN_DI float min(float a, float b) { return __builtin_fminf(a, b); }
CUGEN_DI float max(float a, float b) { return __builtin_fmaxf(a, b); }
CUGEN_DI double min(double a, double b) { return __builtin_fmin(a, b); }
CUGEN_DI double max(double a, double b) { return __builtin_fmax(a, b); }
CUGEN_DI double min(float a, double b) { return __builtin_fmin(a, b); }
CUGEN_DI double min(double a, float b) { return __builtin_fmin(a, b); }
CUGEN_DI double max(float a, double b) { return __builtin_fmax(a, b); }
CUGEN_DI double max(double a, float b) { return __builtin_fmax(a, b); }
CUGEN_DI unsigned int umin(unsigned int a, unsigned int b) { return min(a, b); }
CUGEN_DI unsigned int umax(unsigned int a, unsigned int b) { return max(a, b); }
CUGEN_DI long long llmin(long long a, long long b) { return min(a, b); }
CUGEN_DI long long llmax(long long a, long long b) { return max(a, b); }
CUGEN_DI unsigned long long ullmin(unsigned long long a, unsigned long long b) { return min(a, b); }
CUGEN_DI unsigned long long ullmax(unsigned long long a, unsigned long long b) { return max(a, b); }

#undef CUGEN_DI
#define CUGEN_DI static __device__ __inline__ __attribute__((always_inline))

// ---- reinterpretation and conversion ----

CUGEN_DI int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
CUGEN_DI unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
CUGEN_DI float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
CUGEN_DI float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
CUGEN_DI long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
CUGEN_DI double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
CUGEN_DI int __double2hiint(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 32); }
CUGEN_DI int __double2loint(double x) { return (int)__builtin_bit_cast(unsigned long long, x); }
CUGEN_DI double __hiloint2double(int hi, int lo) {
  return __builtin_bit_cast(double, ((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);
}

// cvt with every rounding: NAME_rn, _rz, _ru, _rd.
#define CUGEN_CVT(name, RT, AT, ptx, rc, ac)                                                                           \
  CUGEN_DI RT name(AT x) {                                                                                             \
    RT r;                                                                                                              \
    asm("cvt." ptx " %0, %1;" : "=" rc(r) : ac(x));                                                                    \
    return r;                                                                                                          \
  }
#define CUGEN_CVT_I(base, RT, AT, dst, src, rc, ac)                                                                    \
  CUGEN_CVT(base##_rn, RT, AT, "rni." dst "." src, rc, ac)                                                             \
  CUGEN_CVT(base##_rz, RT, AT, "rzi." dst "." src, rc, ac)                                                             \
  CUGEN_CVT(base##_ru, RT, AT, "rpi." dst "." src, rc, ac)                                                             \
  CUGEN_CVT(base##_rd, RT, AT, "rmi." dst "." src, rc, ac)
#define CUGEN_CVT_F(base, RT, AT, dst, src, rc, ac)                                                                    \
  CUGEN_CVT(base##_rn, RT, AT, "rn." dst "." src, rc, ac)                                                              \
  CUGEN_CVT(base##_rz, RT, AT, "rz." dst "." src, rc, ac)                                                              \
  CUGEN_CVT(base##_ru, RT, AT, "rp." dst "." src, rc, ac)                                                              \
  CUGEN_CVT(base##_rd, RT, AT, "rm." dst "." src, rc, ac)
CUGEN_CVT_I(__float2int, int, float, "s32", "f32", "r", "f")
CUGEN_CVT_I(__float2uint, unsigned int, float, "u32", "f32", "r", "f")
CUGEN_CVT_I(__float2ll, long long, float, "s64", "f32", "l", "f")
CUGEN_CVT_I(__float2ull, unsigned long long, float, "u64", "f32", "l", "f")
CUGEN_CVT_I(__double2int, int, double, "s32", "f64", "r", "d")
CUGEN_CVT_I(__double2uint, unsigned int, double, "u32", "f64", "r", "d")
CUGEN_CVT_I(__double2ll, long long, double, "s64", "f64", "l", "d")
CUGEN_CVT_I(__double2ull, unsigned long long, double, "u64", "f64", "l", "d")
CUGEN_CVT_F(__int2float, float, int, "f32", "s32", "f", "r")
CUGEN_CVT_F(__uint2float, float, unsigned int, "f32", "u32", "f", "r")
CUGEN_CVT_F(__ll2float, float, long long, "f32", "s64", "f", "l")
CUGEN_CVT_F(__ull2float, float, unsigned long long, "f32", "u64", "f", "l")
CUGEN_CVT_F(__ll2double, double, long long, "f64", "s64", "d", "l")
CUGEN_CVT_F(__ull2double, double, unsigned long long, "f64", "u64", "d", "l")
CUGEN_CVT_F(__double2float, float, double, "f32", "f64", "f", "d")
CUGEN_DI double __int2double_rn(int x) { return (double)x; }
CUGEN_DI double __uint2double_rn(unsigned int x) { return (double)x; }
CUGEN_DI float __float2float_rn(float x) { return x; }
#undef CUGEN_CVT_I
#undef CUGEN_CVT_F

// ---- arithmetic with explicit rounding (never contracted into fma) ----

#define CUGEN_OP2(name, T, ptx, c)                                                                                     \
  CUGEN_DI T name(T a, T b) {                                                                                          \
    T r;                                                                                                               \
    asm(ptx " %0, %1, %2;" : "=" c(r) : c(a), c(b));                                                                   \
    return r;                                                                                                          \
  }
#define CUGEN_OP1(name, T, ptx, c)                                                                                     \
  CUGEN_DI T name(T a) {                                                                                               \
    T r;                                                                                                               \
    asm(ptx " %0, %1;" : "=" c(r) : c(a));                                                                             \
    return r;                                                                                                          \
  }
#define CUGEN_OP3(name, T, ptx, c)                                                                                     \
  CUGEN_DI T name(T a, T b, T d) {                                                                                     \
    T r;                                                                                                               \
    asm(ptx " %0, %1, %2, %3;" : "=" c(r) : c(a), c(b), c(d));                                                         \
    return r;                                                                                                          \
  }
#define CUGEN_ROUNDINGS(M, name, T, op, ty, c)                                                                         \
  M(name##_rn, T, op ".rn." ty, c) M(name##_rz, T, op ".rz." ty, c) M(name##_ru, T, op ".rp." ty, c)                 \
      M(name##_rd, T, op ".rm." ty, c)
CUGEN_ROUNDINGS(CUGEN_OP2, __fadd, float, "add", "f32", "f")
CUGEN_ROUNDINGS(CUGEN_OP2, __fsub, float, "sub", "f32", "f")
CUGEN_ROUNDINGS(CUGEN_OP2, __fmul, float, "mul", "f32", "f")
CUGEN_ROUNDINGS(CUGEN_OP2, __fdiv, float, "div", "f32", "f")
CUGEN_ROUNDINGS(CUGEN_OP1, __frcp, float, "rcp", "f32", "f")
CUGEN_ROUNDINGS(CUGEN_OP1, __fsqrt, float, "sqrt", "f32", "f")
CUGEN_ROUNDINGS(CUGEN_OP3, __fmaf, float, "fma", "f32", "f")
CUGEN_ROUNDINGS(CUGEN_OP2, __dadd, double, "add", "f64", "d")
CUGEN_ROUNDINGS(CUGEN_OP2, __dsub, double, "sub", "f64", "d")
CUGEN_ROUNDINGS(CUGEN_OP2, __dmul, double, "mul", "f64", "d")
CUGEN_ROUNDINGS(CUGEN_OP2, __ddiv, double, "div", "f64", "d")
CUGEN_ROUNDINGS(CUGEN_OP1, __drcp, double, "rcp", "f64", "d")
CUGEN_ROUNDINGS(CUGEN_OP1, __dsqrt, double, "sqrt", "f64", "d")
CUGEN_ROUNDINGS(CUGEN_OP3, __fma, double, "fma", "f64", "d")
CUGEN_DI float __fmaf_ieee_rn(float a, float b, float c) { return __fmaf_rn(a, b, c); }
CUGEN_DI float __fmaf_ieee_rz(float a, float b, float c) { return __fmaf_rz(a, b, c); }
CUGEN_DI float __fmaf_ieee_ru(float a, float b, float c) { return __fmaf_ru(a, b, c); }
CUGEN_DI float __fmaf_ieee_rd(float a, float b, float c) { return __fmaf_rd(a, b, c); }
#undef CUGEN_ROUNDINGS

// ---- barriers, fences, clocks ----

CUGEN_DI int __syncthreads_count(int p) { return __nvvm_bar0_popc(p); }
CUGEN_DI int __syncthreads_and(int p) { return __nvvm_bar0_and(p); }
CUGEN_DI int __syncthreads_or(int p) { return __nvvm_bar0_or(p); }
CUGEN_DI void __syncwarp(unsigned int mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }
CUGEN_DI void __threadfence_block() { __nvvm_membar_cta(); }
CUGEN_DI void __threadfence() { __nvvm_membar_gl(); }
CUGEN_DI void __threadfence_system() { __nvvm_membar_sys(); }
static __device__ __inline__ long clock() { return (long)__nvvm_read_ptx_sreg_clock(); }
CUGEN_DI long long clock64() { return __nvvm_read_ptx_sreg_clock64(); }
CUGEN_DI unsigned long long __globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
CUGEN_DI void __nanosleep(unsigned int ns) { asm volatile("nanosleep.u32 %0;" ::"r"(ns)); }
CUGEN_DI void __trap() { asm volatile("trap;"); }
CUGEN_DI void __brkpt() { asm volatile("brkpt;"); }
CUGEN_DI unsigned int __activemask() {
  unsigned int m;
  asm volatile("activemask.b32 %0;" : "=r"(m));
  return m;
}
CUGEN_DI unsigned int __lanemask_lt() {
  unsigned int m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

// ---- loads and stores with cache operators ----
//
// __ldg(p) and the others take any type of 1, 2, 4, 8 or 16 bytes (CUDA
// declares them for the scalar and vector types, all of those sizes).

namespace __cugen {
template <int N> struct bits_of;
template <> struct bits_of<1> { typedef unsigned char type; };
template <> struct bits_of<2> { typedef unsigned short type; };
template <> struct bits_of<4> { typedef unsigned int type; };
template <> struct bits_of<8> { typedef unsigned long long type; };
struct __attribute__((aligned(16))) b128 {
  unsigned long long lo, hi;
};
template <> struct bits_of<16> { typedef b128 type; };
} // namespace __cugen

#define CUGEN_LD(name, op)                                                                                             \
  template <class T> static __device__ __inline__ __attribute__((always_inline)) T name(const T *p) {                 \
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,            \
                  #name " loads values of 1, 2, 4, 8 or 16 bytes");                                                    \
    typename __cugen::bits_of<sizeof(T)>::type v;                                                                      \
    if constexpr (sizeof(T) == 1) {                                                                                    \
      unsigned short w;                                                                                                \
      asm volatile("ld." op ".u8 %0, [%1];" : "=h"(w) : "l"(p));                                                       \
      v = (unsigned char)w;                                                                                            \
    } else if constexpr (sizeof(T) == 2) {                                                                             \
      asm volatile("ld." op ".u16 %0, [%1];" : "=h"(v) : "l"(p));                                                      \
    } else if constexpr (sizeof(T) == 4) {                                                                             \
      asm volatile("ld." op ".u32 %0, [%1];" : "=r"(v) : "l"(p));                                                      \
    } else if constexpr (sizeof(T) == 8) {                                                                             \
      asm volatile("ld." op ".u64 %0, [%1];" : "=l"(v) : "l"(p));                                                      \
    } else {                                                                                                           \
      asm volatile("ld." op ".v2.u64 {%0, %1}, [%2];" : "=l"(v.lo), "=l"(v.hi) : "l"(p));                              \
    }                                                                                                                  \
    return __builtin_bit_cast(T, v);                                                                                   \
  }
CUGEN_LD(__ldg, "global.nc")
CUGEN_LD(__ldcg, "global.cg")
CUGEN_LD(__ldca, "global.ca")
CUGEN_LD(__ldcs, "global.cs")
CUGEN_LD(__ldlu, "global.lu")
CUGEN_LD(__ldcv, "global.cv")
#undef CUGEN_LD

#define CUGEN_ST(name, op)                                                                                             \
  template <class T> static __device__ __inline__ __attribute__((always_inline)) void name(T *p, T x) {               \
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,            \
                  #name " stores values of 1, 2, 4, 8 or 16 bytes");                                                   \
    auto v = __builtin_bit_cast(typename __cugen::bits_of<sizeof(T)>::type, x);                                        \
    if constexpr (sizeof(T) == 1) {                                                                                    \
      asm volatile("st." op ".u8 [%0], %1;" ::"l"(p), "h"((unsigned short)v) : "memory");                              \
    } else if constexpr (sizeof(T) == 2) {                                                                             \
      asm volatile("st." op ".u16 [%0], %1;" ::"l"(p), "h"(v) : "memory");                                             \
    } else if constexpr (sizeof(T) == 4) {                                                                             \
      asm volatile("st." op ".u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");                                             \
    } else if constexpr (sizeof(T) == 8) {                                                                             \
      asm volatile("st." op ".u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");                                             \
    } else {                                                                                                           \
      asm volatile("st." op ".v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(v.lo), "l"(v.hi) : "memory");                      \
    }                                                                                                                  \
  }
CUGEN_ST(__stwb, "global.wb")
CUGEN_ST(__stcg, "global.cg")
CUGEN_ST(__stcs, "global.cs")
CUGEN_ST(__stwt, "global.wt")
#undef CUGEN_ST

#endif
