// cugen/f16.h: what __half (cuda_fp16.h) and __nv_bfloat16 (cuda_bf16.h)
// have in common, written once as a macro over the type: the operators, the
// arithmetic, comparison and math functions of the scalar and its pair type,
// shuffles and loads. Each type supplies its conversions to and from float
// (exact one way, rounded to nearest even the other) and, where the arch has
// them, native PTX instructions; elsewhere the arithmetic is float's,
// rounded once to the type (exact for add, sub and mul, whose float results
// are exact or far from a tie).
#ifndef CUGEN_F16_H
#define CUGEN_F16_H
#pragma clang system_header

#define CUGEN_HD static __host__ __device__ __inline__ __attribute__((always_inline))
#define CUGEN_HDM __host__ __device__ __inline__ __attribute__((always_inline))

// CUGEN_F16_TYPES(T, T2, RAW, RAW2) declares the scalar and pair types, with
// the constructors and conversions every 16-bit float of CUDA has.
#define CUGEN_F16_TYPES(T, T2, RAW, RAW2, TOF, FROMF)                                                                  \
  struct RAW {                                                                                                         \
    unsigned short x;                                                                                                  \
  };                                                                                                                   \
  struct RAW2 {                                                                                                        \
    unsigned short x, y;                                                                                               \
  };                                                                                                                   \
  struct __attribute__((aligned(2))) T {                                                                               \
    unsigned short __x;                                                                                                \
    T() = default;                                                                                                     \
    CUGEN_HDM constexpr T(const RAW &r) : __x(r.x) {}                                                                  \
    CUGEN_HDM T(float f) : __x(FROMF(f)) {}                                                                            \
    CUGEN_HDM T(double f) : __x(FROMF((float)f)) {}                                                                    \
    CUGEN_HDM T(int v) : __x(FROMF((float)v)) {}                                                                       \
    CUGEN_HDM T(unsigned int v) : __x(FROMF((float)v)) {}                                                              \
    CUGEN_HDM T(short v) : __x(FROMF((float)v)) {}                                                                     \
    CUGEN_HDM T(unsigned short v) : __x(FROMF((float)v)) {}                                                            \
    CUGEN_HDM T(long long v) : __x(FROMF((float)v)) {}                                                                 \
    CUGEN_HDM T(unsigned long long v) : __x(FROMF((float)v)) {}                                                        \
    CUGEN_HDM T &operator=(const RAW &r) {                                                                             \
      __x = r.x;                                                                                                       \
      return *this;                                                                                                    \
    }                                                                                                                  \
    CUGEN_HDM T &operator=(float f) {                                                                                  \
      __x = FROMF(f);                                                                                                  \
      return *this;                                                                                                    \
    }                                                                                                                  \
    CUGEN_HDM T &operator=(double f) {                                                                                 \
      __x = FROMF((float)f);                                                                                           \
      return *this;                                                                                                    \
    }                                                                                                                  \
    CUGEN_HDM operator RAW() const { return RAW{__x}; }                                                                \
    CUGEN_HDM operator float() const { return TOF(__x); }                                                              \
    CUGEN_HDM explicit operator bool() const { return (__x & 0x7fff) != 0; }                                           \
    CUGEN_HDM explicit operator int() const { return (int)TOF(__x); }                                                  \
    CUGEN_HDM explicit operator unsigned int() const { return (unsigned int)TOF(__x); }                                \
    CUGEN_HDM explicit operator short() const { return (short)TOF(__x); }                                              \
    CUGEN_HDM explicit operator unsigned short() const { return (unsigned short)TOF(__x); }                            \
    CUGEN_HDM explicit operator long long() const { return (long long)TOF(__x); }                                      \
    CUGEN_HDM explicit operator unsigned long long() const { return (unsigned long long)TOF(__x); }                    \
  };                                                                                                                   \
  struct __attribute__((aligned(4))) T2 {                                                                              \
    T x, y;                                                                                                            \
    T2() = default;                                                                                                    \
    CUGEN_HDM constexpr T2(const T &a, const T &b) : x(a), y(b) {}                                                     \
    CUGEN_HDM constexpr T2(const RAW2 &r) : x(RAW{r.x}), y(RAW{r.y}) {}                                                \
    CUGEN_HDM T2 &operator=(const RAW2 &r) {                                                                           \
      x = RAW{r.x};                                                                                                    \
      y = RAW{r.y};                                                                                                    \
      return *this;                                                                                                    \
    }                                                                                                                  \
    CUGEN_HDM operator RAW2() const { return RAW2{x.__x, y.__x}; }                                                     \
  };

// CUGEN_F16_OPS defines the operations over T and T2. ADD, SUB, MUL and FMA
// are the type's binary and ternary operations on raw bits.
#define CUGEN_F16_OPS(T, T2, RAW, TOF, FROMF, ADD, SUB, MUL, FMA)                                                      \
  CUGEN_HD T __cugen_mk(T, unsigned short b) { return T(RAW{b}); }                                                     \
  CUGEN_HD float __cugen_tof(T a) { return TOF(a.__x); }                                                               \
  CUGEN_HD T __hadd(T a, T b) { return __cugen_mk(T(), ADD(a.__x, b.__x)); }                                           \
  CUGEN_HD T __hsub(T a, T b) { return __cugen_mk(T(), SUB(a.__x, b.__x)); }                                           \
  CUGEN_HD T __hmul(T a, T b) { return __cugen_mk(T(), MUL(a.__x, b.__x)); }                                           \
  CUGEN_HD T __hfma(T a, T b, T c) { return __cugen_mk(T(), FMA(a.__x, b.__x, c.__x)); }                               \
  CUGEN_HD T __hadd_rn(T a, T b) { return __hadd(a, b); }                                                              \
  CUGEN_HD T __hsub_rn(T a, T b) { return __hsub(a, b); }                                                              \
  CUGEN_HD T __hmul_rn(T a, T b) { return __hmul(a, b); }                                                              \
  CUGEN_HD T __hdiv(T a, T b) { return T(__cugen_tof(a) / __cugen_tof(b)); }                                           \
  CUGEN_HD T __hneg(T a) { return __cugen_mk(T(), a.__x ^ 0x8000); }                                                   \
  CUGEN_HD T __habs(T a) { return __cugen_mk(T(), a.__x & 0x7fff); }                                                   \
  CUGEN_HD T __cugen_sat(T a) { return T(__builtin_fminf(__builtin_fmaxf(__cugen_tof(a), 0.0f), 1.0f)); }             \
  CUGEN_HD T __hadd_sat(T a, T b) { return __cugen_sat(__hadd(a, b)); }                                                \
  CUGEN_HD T __hsub_sat(T a, T b) { return __cugen_sat(__hsub(a, b)); }                                                \
  CUGEN_HD T __hmul_sat(T a, T b) { return __cugen_sat(__hmul(a, b)); }                                                \
  CUGEN_HD T __hfma_sat(T a, T b, T c) { return __cugen_sat(__hfma(a, b, c)); }                                        \
  CUGEN_HD bool __hisnan(T a) { return __cugen_tof(a) != __cugen_tof(a); }                                             \
  CUGEN_HD int __hisinf(T a) {                                                                                         \
    float f = __cugen_tof(a);                                                                                          \
    return f == __builtin_inff() ? 1 : (f == -__builtin_inff() ? -1 : 0);                                              \
  }                                                                                                                    \
  CUGEN_HD bool __heq(T a, T b) { return __cugen_tof(a) == __cugen_tof(b); }                                           \
  CUGEN_HD bool __hne(T a, T b) { return __cugen_tof(a) != __cugen_tof(b) && !__hisnan(a) && !__hisnan(b); }           \
  CUGEN_HD bool __hlt(T a, T b) { return __cugen_tof(a) < __cugen_tof(b); }                                            \
  CUGEN_HD bool __hle(T a, T b) { return __cugen_tof(a) <= __cugen_tof(b); }                                           \
  CUGEN_HD bool __hgt(T a, T b) { return __cugen_tof(a) > __cugen_tof(b); }                                            \
  CUGEN_HD bool __hge(T a, T b) { return __cugen_tof(a) >= __cugen_tof(b); }                                           \
  CUGEN_HD bool __hequ(T a, T b) { return !(__cugen_tof(a) != __cugen_tof(b)); }                                      \
  CUGEN_HD bool __hneu(T a, T b) { return __cugen_tof(a) != __cugen_tof(b); }                                          \
  CUGEN_HD bool __hltu(T a, T b) { return !(__cugen_tof(a) >= __cugen_tof(b)); }                                       \
  CUGEN_HD bool __hleu(T a, T b) { return !(__cugen_tof(a) > __cugen_tof(b)); }                                        \
  CUGEN_HD bool __hgtu(T a, T b) { return !(__cugen_tof(a) <= __cugen_tof(b)); }                                       \
  CUGEN_HD bool __hgeu(T a, T b) { return !(__cugen_tof(a) < __cugen_tof(b)); }                                        \
  CUGEN_HD T __hmax(T a, T b) { return T(__builtin_fmaxf(__cugen_tof(a), __cugen_tof(b))); }                           \
  CUGEN_HD T __hmin(T a, T b) { return T(__builtin_fminf(__cugen_tof(a), __cugen_tof(b))); }                          \
  CUGEN_HD T __hmax_nan(T a, T b) { return __hisnan(a) ? a : (__hisnan(b) ? b : __hmax(a, b)); }                       \
  CUGEN_HD T __hmin_nan(T a, T b) { return __hisnan(a) ? a : (__hisnan(b) ? b : __hmin(a, b)); }                       \
  CUGEN_HD T operator+(const T &a, const T &b) { return __hadd(a, b); }                                                \
  CUGEN_HD T operator-(const T &a, const T &b) { return __hsub(a, b); }                                                \
  CUGEN_HD T operator*(const T &a, const T &b) { return __hmul(a, b); }                                                \
  CUGEN_HD T operator/(const T &a, const T &b) { return __hdiv(a, b); }                                                \
  CUGEN_HD T &operator+=(T &a, const T &b) { return a = __hadd(a, b); }                                                \
  CUGEN_HD T &operator-=(T &a, const T &b) { return a = __hsub(a, b); }                                                \
  CUGEN_HD T &operator*=(T &a, const T &b) { return a = __hmul(a, b); }                                                \
  CUGEN_HD T &operator/=(T &a, const T &b) { return a = __hdiv(a, b); }                                                \
  CUGEN_HD T operator-(const T &a) { return __hneg(a); }                                                               \
  CUGEN_HD T operator+(const T &a) { return a; }                                                                       \
  CUGEN_HD T &operator++(T &a) { return a = __hadd(a, T(1.0f)); }                                                      \
  CUGEN_HD T &operator--(T &a) { return a = __hsub(a, T(1.0f)); }                                                      \
  CUGEN_HD T operator++(T &a, int) {                                                                                   \
    T r = a;                                                                                                           \
    ++a;                                                                                                               \
    return r;                                                                                                          \
  }                                                                                                                    \
  CUGEN_HD T operator--(T &a, int) {                                                                                   \
    T r = a;                                                                                                           \
    --a;                                                                                                               \
    return r;                                                                                                          \
  }                                                                                                                    \
  CUGEN_HD bool operator==(const T &a, const T &b) { return __heq(a, b); }                                             \
  CUGEN_HD bool operator!=(const T &a, const T &b) { return __hneu(a, b); }                                            \
  CUGEN_HD bool operator<(const T &a, const T &b) { return __hlt(a, b); }                                              \
  CUGEN_HD bool operator<=(const T &a, const T &b) { return __hle(a, b); }                                             \
  CUGEN_HD bool operator>(const T &a, const T &b) { return __hgt(a, b); }                                              \
  CUGEN_HD bool operator>=(const T &a, const T &b) { return __hge(a, b); }                                             \
  /* math: float's accurate functions, rounded once */                                                                 \
  static __device__ __inline__ T hsqrt(T a) { return T(sqrtf(__cugen_tof(a))); }                                       \
  static __device__ __inline__ T hrsqrt(T a) { return T(1.0f / sqrtf(__cugen_tof(a))); }                               \
  static __device__ __inline__ T hrcp(T a) { return T(1.0f / __cugen_tof(a)); }                                        \
  static __device__ __inline__ T hexp(T a) { return T(expf(__cugen_tof(a))); }                                         \
  static __device__ __inline__ T hexp2(T a) { return T(exp2f(__cugen_tof(a))); }                                       \
  static __device__ __inline__ T hexp10(T a) { return T(exp10f(__cugen_tof(a))); }                                     \
  static __device__ __inline__ T hlog(T a) { return T(logf(__cugen_tof(a))); }                                         \
  static __device__ __inline__ T hlog2(T a) { return T(log2f(__cugen_tof(a))); }                                       \
  static __device__ __inline__ T hlog10(T a) { return T(log10f(__cugen_tof(a))); }                                     \
  static __device__ __inline__ T hsin(T a) { return T(sinf(__cugen_tof(a))); }                                         \
  static __device__ __inline__ T hcos(T a) { return T(cosf(__cugen_tof(a))); }                                         \
  static __device__ __inline__ T htanh(T a) { return T(tanhf(__cugen_tof(a))); }                                       \
  static __device__ __inline__ T htrunc(T a) { return T(__builtin_truncf(__cugen_tof(a))); }                           \
  static __device__ __inline__ T hceil(T a) { return T(__builtin_ceilf(__cugen_tof(a))); }                             \
  static __device__ __inline__ T hfloor(T a) { return T(__builtin_floorf(__cugen_tof(a))); }                           \
  static __device__ __inline__ T hrint(T a) { return T(__builtin_rintf(__cugen_tof(a))); }                             \
  /* pairs */                                                                                                          \
  static __device__ __inline__ T2 __cugen_map2(T2 a, T (*f)(T)) { return T2(f(a.x), f(a.y)); }                        \
  CUGEN_HD T2 __hadd2(T2 a, T2 b) { return T2(__hadd(a.x, b.x), __hadd(a.y, b.y)); }                                   \
  CUGEN_HD T2 __hsub2(T2 a, T2 b) { return T2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }                                   \
  CUGEN_HD T2 __hmul2(T2 a, T2 b) { return T2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }                                   \
  CUGEN_HD T2 __h2div(T2 a, T2 b) { return T2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }                                   \
  CUGEN_HD T2 __hfma2(T2 a, T2 b, T2 c) { return T2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }                   \
  CUGEN_HD T2 __hadd2_sat(T2 a, T2 b) { return T2(__hadd_sat(a.x, b.x), __hadd_sat(a.y, b.y)); }                       \
  CUGEN_HD T2 __hsub2_sat(T2 a, T2 b) { return T2(__hsub_sat(a.x, b.x), __hsub_sat(a.y, b.y)); }                       \
  CUGEN_HD T2 __hmul2_sat(T2 a, T2 b) { return T2(__hmul_sat(a.x, b.x), __hmul_sat(a.y, b.y)); }                       \
  CUGEN_HD T2 __hfma2_sat(T2 a, T2 b, T2 c) { return T2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y)); }       \
  CUGEN_HD T2 __hneg2(T2 a) { return T2(__hneg(a.x), __hneg(a.y)); }                                                   \
  CUGEN_HD T2 __habs2(T2 a) { return T2(__habs(a.x), __habs(a.y)); }                                                   \
  CUGEN_HD T2 __hmax2(T2 a, T2 b) { return T2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }                                   \
  CUGEN_HD T2 __hmin2(T2 a, T2 b) { return T2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }                                   \
  CUGEN_HD T2 __cugen_cmp2(T2, bool x, bool y) { return T2(T(x ? 1.0f : 0.0f), T(y ? 1.0f : 0.0f)); }                       \
  CUGEN_HD T2 __heq2(T2 a, T2 b) { return __cugen_cmp2(T2(), __heq(a.x, b.x), __heq(a.y, b.y)); }                            \
  CUGEN_HD T2 __hne2(T2 a, T2 b) { return __cugen_cmp2(T2(), __hne(a.x, b.x), __hne(a.y, b.y)); }                            \
  CUGEN_HD T2 __hlt2(T2 a, T2 b) { return __cugen_cmp2(T2(), __hlt(a.x, b.x), __hlt(a.y, b.y)); }                            \
  CUGEN_HD T2 __hle2(T2 a, T2 b) { return __cugen_cmp2(T2(), __hle(a.x, b.x), __hle(a.y, b.y)); }                            \
  CUGEN_HD T2 __hgt2(T2 a, T2 b) { return __cugen_cmp2(T2(), __hgt(a.x, b.x), __hgt(a.y, b.y)); }                            \
  CUGEN_HD T2 __hge2(T2 a, T2 b) { return __cugen_cmp2(T2(), __hge(a.x, b.x), __hge(a.y, b.y)); }                            \
  CUGEN_HD bool __hbeq2(T2 a, T2 b) { return __heq(a.x, b.x) && __heq(a.y, b.y); }                                     \
  CUGEN_HD bool __hbne2(T2 a, T2 b) { return __hne(a.x, b.x) && __hne(a.y, b.y); }                                     \
  CUGEN_HD bool __hblt2(T2 a, T2 b) { return __hlt(a.x, b.x) && __hlt(a.y, b.y); }                                     \
  CUGEN_HD bool __hble2(T2 a, T2 b) { return __hle(a.x, b.x) && __hle(a.y, b.y); }                                     \
  CUGEN_HD bool __hbgt2(T2 a, T2 b) { return __hgt(a.x, b.x) && __hgt(a.y, b.y); }                                     \
  CUGEN_HD bool __hbge2(T2 a, T2 b) { return __hge(a.x, b.x) && __hge(a.y, b.y); }                                     \
  CUGEN_HD T2 __hisnan2(T2 a) { return __cugen_cmp2(T2(), __hisnan(a.x), __hisnan(a.y)); }                                   \
  CUGEN_HD T2 operator+(const T2 &a, const T2 &b) { return __hadd2(a, b); }                                            \
  CUGEN_HD T2 operator-(const T2 &a, const T2 &b) { return __hsub2(a, b); }                                            \
  CUGEN_HD T2 operator*(const T2 &a, const T2 &b) { return __hmul2(a, b); }                                            \
  CUGEN_HD T2 operator/(const T2 &a, const T2 &b) { return __h2div(a, b); }                                            \
  CUGEN_HD T2 &operator+=(T2 &a, const T2 &b) { return a = __hadd2(a, b); }                                            \
  CUGEN_HD T2 &operator-=(T2 &a, const T2 &b) { return a = __hsub2(a, b); }                                            \
  CUGEN_HD T2 &operator*=(T2 &a, const T2 &b) { return a = __hmul2(a, b); }                                            \
  CUGEN_HD T2 &operator/=(T2 &a, const T2 &b) { return a = __h2div(a, b); }                                            \
  CUGEN_HD T2 operator-(const T2 &a) { return __hneg2(a); }                                                            \
  CUGEN_HD bool operator==(const T2 &a, const T2 &b) { return __hbeq2(a, b); }                                         \
  CUGEN_HD bool operator!=(const T2 &a, const T2 &b) { return !__hbeq2(a, b); }                                        \
  static __device__ __inline__ T2 h2sqrt(T2 a) { return __cugen_map2(a, hsqrt); }                                      \
  static __device__ __inline__ T2 h2rsqrt(T2 a) { return __cugen_map2(a, hrsqrt); }                                    \
  static __device__ __inline__ T2 h2rcp(T2 a) { return __cugen_map2(a, hrcp); }                                        \
  static __device__ __inline__ T2 h2exp(T2 a) { return __cugen_map2(a, hexp); }                                        \
  static __device__ __inline__ T2 h2exp2(T2 a) { return __cugen_map2(a, hexp2); }                                      \
  static __device__ __inline__ T2 h2exp10(T2 a) { return __cugen_map2(a, hexp10); }                                    \
  static __device__ __inline__ T2 h2log(T2 a) { return __cugen_map2(a, hlog); }                                        \
  static __device__ __inline__ T2 h2log2(T2 a) { return __cugen_map2(a, hlog2); }                                      \
  static __device__ __inline__ T2 h2log10(T2 a) { return __cugen_map2(a, hlog10); }                                    \
  static __device__ __inline__ T2 h2sin(T2 a) { return __cugen_map2(a, hsin); }                                        \
  static __device__ __inline__ T2 h2cos(T2 a) { return __cugen_map2(a, hcos); }                                        \
  static __device__ __inline__ T2 h2trunc(T2 a) { return __cugen_map2(a, htrunc); }                                    \
  static __device__ __inline__ T2 h2ceil(T2 a) { return __cugen_map2(a, hceil); }                                      \
  static __device__ __inline__ T2 h2floor(T2 a) { return __cugen_map2(a, hfloor); }                                    \
  static __device__ __inline__ T2 h2rint(T2 a) { return __cugen_map2(a, hrint); }                                     \
  /* warp shuffles, as 32-bit shuffles of the bits */                                                                  \
  static __device__ __inline__ T __shfl_sync(unsigned m, T v, int l, int w = 32) {                                     \
    return __cugen_mk(T(), (unsigned short)__shfl_sync(m, (int)v.__x, l, w));                                          \
  }                                                                                                                    \
  static __device__ __inline__ T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32) {                             \
    return __cugen_mk(T(), (unsigned short)__shfl_up_sync(m, (int)v.__x, d, w));                                       \
  }                                                                                                                    \
  static __device__ __inline__ T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32) {                           \
    return __cugen_mk(T(), (unsigned short)__shfl_down_sync(m, (int)v.__x, d, w));                                     \
  }                                                                                                                    \
  static __device__ __inline__ T __shfl_xor_sync(unsigned m, T v, int lm, int w = 32) {                                \
    return __cugen_mk(T(), (unsigned short)__shfl_xor_sync(m, (int)v.__x, lm, w));                                     \
  }                                                                                                                    \
  static __device__ __inline__ T2 __shfl_sync(unsigned m, T2 v, int l, int w = 32) {                                   \
    return __builtin_bit_cast(T2, __shfl_sync(m, __builtin_bit_cast(int, v), l, w));                                   \
  }                                                                                                                    \
  static __device__ __inline__ T2 __shfl_up_sync(unsigned m, T2 v, unsigned d, int w = 32) {                           \
    return __builtin_bit_cast(T2, __shfl_up_sync(m, __builtin_bit_cast(int, v), d, w));                                \
  }                                                                                                                    \
  static __device__ __inline__ T2 __shfl_down_sync(unsigned m, T2 v, unsigned d, int w = 32) {                         \
    return __builtin_bit_cast(T2, __shfl_down_sync(m, __builtin_bit_cast(int, v), d, w));                              \
  }                                                                                                                    \
  static __device__ __inline__ T2 __shfl_xor_sync(unsigned m, T2 v, int lm, int w = 32) {                              \
    return __builtin_bit_cast(T2, __shfl_xor_sync(m, __builtin_bit_cast(int, v), lm, w));                              \
  }

#endif
