// cugen/math_api.h: the CUDA Math API's names — C (expf), C++ (exp(float),
// std::exp) and CUDA's own (rsqrtf, sinpif, __expf, ...) — over cugen's
// implementations in namespace __cugen, and the fast intrinsics as the PTX
// .approx instructions nvcc uses for them.
#ifndef CUGEN_MATH_API_H
#define CUGEN_MATH_API_H
#pragma clang system_header

#include "math_poly.h"
#include "math_common.h"
#include "math_double.h"
#include "math_float.h"

#define CUGEN_DEF_U(n)                                                                                                 \
  CUGEN_FN double n(double x) { return __cugen::n(x); }                                                                \
  CUGEN_FN float n(float x) { return __cugen::n##f(x); }                                                               \
  CUGEN_FN float n##f(float x) { return __cugen::n##f(x); }                                                            \
  CUGEN_FN double n(int x) { return __cugen::n((double)x); }                                                           \
  CUGEN_FN double n(unsigned x) { return __cugen::n((double)x); }                                                      \
  CUGEN_FN double n(long x) { return __cugen::n((double)x); }                                                          \
  CUGEN_FN double n(unsigned long x) { return __cugen::n((double)x); }                                                 \
  CUGEN_FN double n(long long x) { return __cugen::n((double)x); }                                                     \
  CUGEN_FN double n(unsigned long long x) { return __cugen::n((double)x); }
#define CUGEN_DEF_B(n)                                                                                                 \
  CUGEN_FN double n(double x, double y) { return __cugen::n(x, y); }                                                   \
  CUGEN_FN float n(float x, float y) { return __cugen::n##f(x, y); }                                                   \
  CUGEN_FN float n##f(float x, float y) { return __cugen::n##f(x, y); }
CUGEN_MATH_UNARY(CUGEN_DEF_U)
CUGEN_MATH_UNARY_CUDA(CUGEN_DEF_U)
CUGEN_MATH_BINARY(CUGEN_DEF_B)
CUGEN_MATH_BINARY_CUDA(CUGEN_DEF_B)
#undef CUGEN_DEF_U
#undef CUGEN_DEF_B

CUGEN_FN int abs(int x) { return x < 0 ? -x : x; }
CUGEN_FN long abs(long x) { return x < 0 ? -x : x; }
CUGEN_FN long long abs(long long x) { return x < 0 ? -x : x; }
CUGEN_FN float abs(float x) { return __builtin_fabsf(x); }
CUGEN_FN double abs(double x) { return __builtin_fabs(x); }
CUGEN_FN long labs(long x) { return x < 0 ? -x : x; }
CUGEN_FN long long llabs(long long x) { return x < 0 ? -x : x; }
CUGEN_FN double fma(double x, double y, double z) { return __builtin_fma(x, y, z); }
CUGEN_FN float fma(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
CUGEN_FN float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
CUGEN_FN double frexp(double x, int *e) { return __cugen::frexp(x, e); }
CUGEN_FN float frexp(float x, int *e) { return __cugen::frexpf(x, e); }
CUGEN_FN float frexpf(float x, int *e) { return __cugen::frexpf(x, e); }
CUGEN_FN double ldexp(double x, int n) { return __cugen::ldexp(x, n); }
CUGEN_FN float ldexp(float x, int n) { return __cugen::ldexpf(x, n); }
CUGEN_FN float ldexpf(float x, int n) { return __cugen::ldexpf(x, n); }
CUGEN_FN double scalbn(double x, int n) { return __cugen::ldexp(x, n); }
CUGEN_FN float scalbn(float x, int n) { return __cugen::ldexpf(x, n); }
CUGEN_FN float scalbnf(float x, int n) { return __cugen::ldexpf(x, n); }
CUGEN_FN double scalbln(double x, long n) { return __cugen::scalbln(x, n); }
CUGEN_FN float scalbln(float x, long n) { return __cugen::scalblnf(x, n); }
CUGEN_FN float scalblnf(float x, long n) { return __cugen::scalblnf(x, n); }
CUGEN_FN double modf(double x, double *i) { return __cugen::modf(x, i); }
CUGEN_FN float modf(float x, float *i) { return __cugen::modff(x, i); }
CUGEN_FN float modff(float x, float *i) { return __cugen::modff(x, i); }
CUGEN_FN double remquo(double x, double y, int *q) { return __cugen::remquo(x, y, q); }
CUGEN_FN float remquo(float x, float y, int *q) { return __cugen::remquof(x, y, q); }
CUGEN_FN float remquof(float x, float y, int *q) { return __cugen::remquof(x, y, q); }
CUGEN_FN int ilogb(double x) { return __cugen::ilogb(x); }
CUGEN_FN int ilogb(float x) { return __cugen::ilogbf(x); }
CUGEN_FN int ilogbf(float x) { return __cugen::ilogbf(x); }
CUGEN_FN long lrint(double x) { return __cugen::lrint(x); }
CUGEN_FN long lrint(float x) { return __cugen::lrintf(x); }
CUGEN_FN long lrintf(float x) { return __cugen::lrintf(x); }
CUGEN_FN long long llrint(double x) { return __cugen::llrint(x); }
CUGEN_FN long long llrint(float x) { return __cugen::llrintf(x); }
CUGEN_FN long long llrintf(float x) { return __cugen::llrintf(x); }
CUGEN_FN long lround(double x) { return __cugen::lround(x); }
CUGEN_FN long lround(float x) { return __cugen::lroundf(x); }
CUGEN_FN long lroundf(float x) { return __cugen::lroundf(x); }
CUGEN_FN long long llround(double x) { return __cugen::llround(x); }
CUGEN_FN long long llround(float x) { return __cugen::llroundf(x); }
CUGEN_FN long long llroundf(float x) { return __cugen::llroundf(x); }
CUGEN_FN double nan(const char *s) { return __cugen::nan(s); }
CUGEN_FN float nanf(const char *s) { return __cugen::nanf(s); }
CUGEN_FN double pow(double x, int n) { return __cugen::pow(x, (double)n); }
CUGEN_FN float pow(float x, int n) { return __cugen::powf(x, (float)n); }
CUGEN_FN void sincos(double x, double *s, double *c) { __cugen::sincos(x, s, c); }
CUGEN_FN void sincos(float x, float *s, float *c) { __cugen::sincosf(x, s, c); }
CUGEN_FN void sincosf(float x, float *s, float *c) { __cugen::sincosf(x, s, c); }
CUGEN_FN void sincospi(double x, double *s, double *c) { __cugen::sincospi(x, s, c); }
CUGEN_FN void sincospi(float x, float *s, float *c) { __cugen::sincospif(x, s, c); }
CUGEN_FN void sincospif(float x, float *s, float *c) { __cugen::sincospif(x, s, c); }
CUGEN_FN double norm3d(double x, double y, double z) { return __cugen::norm3d(x, y, z); }
CUGEN_FN float norm3df(float x, float y, float z) { return __cugen::norm3df(x, y, z); }
CUGEN_FN double rnorm3d(double x, double y, double z) { return __cugen::rnorm3d(x, y, z); }
CUGEN_FN float rnorm3df(float x, float y, float z) { return __cugen::rnorm3df(x, y, z); }
CUGEN_FN double norm4d(double x, double y, double z, double w) { return __cugen::norm4d(x, y, z, w); }
CUGEN_FN float norm4df(float x, float y, float z, float w) { return __cugen::norm4df(x, y, z, w); }
CUGEN_FN double rnorm4d(double x, double y, double z, double w) { return __cugen::rnorm4d(x, y, z, w); }
CUGEN_FN float rnorm4df(float x, float y, float z, float w) { return __cugen::rnorm4df(x, y, z, w); }
CUGEN_FN double norm(int n, const double *a) { return __cugen::norm(n, a); }
CUGEN_FN float normf(int n, const float *a) { return __cugen::normf(n, a); }
CUGEN_FN double rnorm(int n, const double *a) { return __cugen::rnorm(n, a); }
CUGEN_FN float rnormf(int n, const float *a) { return __cugen::rnormf(n, a); }

#if !__has_include(<cmath>)
// Without a C++ standard library, the classification functions here.
#define CUGEN_CLASS(n, b)                                                                                              \
  static __host__ __device__ __inline__ bool n(float x) { return b(x); }                                               \
  static __host__ __device__ __inline__ bool n(double x) { return b(x); }
CUGEN_CLASS(isnan, __builtin_isnan)
CUGEN_CLASS(isinf, __builtin_isinf)
CUGEN_CLASS(isfinite, __builtin_isfinite)
CUGEN_CLASS(isnormal, __builtin_isnormal)
CUGEN_CLASS(signbit, __builtin_signbit)
#undef CUGEN_CLASS
#endif
CUGEN_FN int __isnanf(float x) { return __builtin_isnan(x); }
CUGEN_FN int __isnan(double x) { return __builtin_isnan(x); }
CUGEN_FN int __isnand(double x) { return __builtin_isnan(x); }
CUGEN_FN int __isinff(float x) { return __builtin_isinf(x); }
CUGEN_FN int __isinf(double x) { return __builtin_isinf(x); }
CUGEN_FN int __isinfd(double x) { return __builtin_isinf(x); }
CUGEN_FN int __finitef(float x) { return __builtin_isfinite(x); }
CUGEN_FN int __finite(double x) { return __builtin_isfinite(x); }
CUGEN_FN int __isfinited(double x) { return __builtin_isfinite(x); }
CUGEN_FN int __signbitf(float x) { return __builtin_signbit(x); }
CUGEN_FN int __signbit(double x) { return __builtin_signbit(x); }
CUGEN_FN int __signbitd(double x) { return __builtin_signbit(x); }

// ---- fast intrinsics: the PTX approximations nvcc maps them to ----

CUGEN_FN float __fdividef(float x, float y) { return __nvvm_div_approx_f(x, y); }
CUGEN_FN float __saturatef(float x) { return __nvvm_saturate_f(x); }
CUGEN_FN float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
CUGEN_FN float __exp10f(float x) { return __nvvm_ex2_approx_f(x * 3.3219280948873623f); }
CUGEN_FN float __log2f(float x) { return __nvvm_lg2_approx_f(x); }
CUGEN_FN float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
CUGEN_FN float __log10f(float x) { return __nvvm_lg2_approx_f(x) * 0.3010299956639812f; }
CUGEN_FN float __powf(float x, float y) { return __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x)); }
CUGEN_FN float __sinf(float x) { return __nvvm_sin_approx_f(x); }
CUGEN_FN float __cosf(float x) { return __nvvm_cos_approx_f(x); }
CUGEN_FN void __sincosf(float x, float *s, float *c) {
  *s = __sinf(x);
  *c = __cosf(x);
}
CUGEN_FN float __tanf(float x) { return __fdividef(__sinf(x), __cosf(x)); }
CUGEN_FN float __frsqrt_rn(float x) { return (float)__cugen::rsqrt((double)x); }

#endif
