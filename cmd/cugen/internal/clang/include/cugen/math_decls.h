// cugen/math_decls.h: the device overloads of the C and C++ math functions,
// declared before the host's <cmath>. A constexpr function of the standard
// library that finds a __device__ function of its signature already
// declared stays host-only, so device code calling exp(x), expf(x) or
// std::exp(x) reaches cugen's definitions (cugen/math_api.h), never a
// __builtin_exp that NVPTX cannot lower.
#ifndef CUGEN_MATH_DECLS_H
#define CUGEN_MATH_DECLS_H
#pragma clang system_header

#define CUGEN_FN static __device__ __inline__

// Functions of one argument: name(double), name(float), namef(float) and
// integer overloads (double, as C++ promotes them).
#define CUGEN_MATH_UNARY(X)                                                                                            \
  X(acos) X(acosh) X(asin) X(asinh) X(atan) X(atanh) X(cbrt) X(ceil) X(cos) X(cosh) X(erf) X(erfc) X(exp) X(exp2)      \
  X(expm1) X(fabs) X(floor) X(lgamma) X(log) X(log10) X(log1p) X(log2) X(logb) X(nearbyint) X(rint) X(round) X(sin) \
  X(sinh) X(sqrt) X(tan) X(tanh) X(tgamma) X(trunc)
// CUDA's own, not in <cmath> (glibc declares some as extensions).
#define CUGEN_MATH_UNARY_CUDA(X)                                                                                       \
  X(exp10) X(rsqrt) X(rcbrt) X(sinpi) X(cospi) X(erfinv) X(erfcinv) X(erfcx) X(normcdf) X(normcdfinv)
#define CUGEN_MATH_BINARY(X)                                                                                           \
  X(atan2) X(copysign) X(fdim) X(fmax) X(fmin) X(fmod) X(hypot) X(nextafter) X(pow) X(remainder)
#define CUGEN_MATH_BINARY_CUDA(X) X(rhypot)

#define CUGEN_DECL_INT1(n)                                                                                             \
  CUGEN_FN double n(int);                                                                                              \
  CUGEN_FN double n(unsigned);                                                                                         \
  CUGEN_FN double n(long);                                                                                             \
  CUGEN_FN double n(unsigned long);                                                                                    \
  CUGEN_FN double n(long long);                                                                                        \
  CUGEN_FN double n(unsigned long long);
#define CUGEN_DECL_U(n)                                                                                                \
  CUGEN_FN double n(double);                                                                                           \
  CUGEN_FN float n(float);                                                                                             \
  CUGEN_FN float n##f(float);                                                                                          \
  CUGEN_DECL_INT1(n)
#define CUGEN_DECL_B(n)                                                                                                \
  CUGEN_FN double n(double, double);                                                                                   \
  CUGEN_FN float n(float, float);                                                                                      \
  CUGEN_FN float n##f(float, float);

CUGEN_MATH_UNARY(CUGEN_DECL_U)
CUGEN_MATH_UNARY_CUDA(CUGEN_DECL_U)
CUGEN_MATH_BINARY(CUGEN_DECL_B)
CUGEN_MATH_BINARY_CUDA(CUGEN_DECL_B)

CUGEN_FN int abs(int);
CUGEN_FN long abs(long);
CUGEN_FN long long abs(long long);
CUGEN_FN float abs(float);
CUGEN_FN double abs(double);
CUGEN_FN long labs(long);
CUGEN_FN long long llabs(long long);
CUGEN_FN double fma(double, double, double);
CUGEN_FN float fma(float, float, float);
CUGEN_FN float fmaf(float, float, float);
CUGEN_FN double frexp(double, int *);
CUGEN_FN float frexp(float, int *);
CUGEN_FN float frexpf(float, int *);
CUGEN_FN double ldexp(double, int);
CUGEN_FN float ldexp(float, int);
CUGEN_FN float ldexpf(float, int);
CUGEN_FN double scalbn(double, int);
CUGEN_FN float scalbn(float, int);
CUGEN_FN float scalbnf(float, int);
CUGEN_FN double scalbln(double, long);
CUGEN_FN float scalbln(float, long);
CUGEN_FN float scalblnf(float, long);
CUGEN_FN double modf(double, double *);
CUGEN_FN float modf(float, float *);
CUGEN_FN float modff(float, float *);
CUGEN_FN double remquo(double, double, int *);
CUGEN_FN float remquo(float, float, int *);
CUGEN_FN float remquof(float, float, int *);
CUGEN_FN int ilogb(double);
CUGEN_FN int ilogb(float);
CUGEN_FN int ilogbf(float);
CUGEN_FN long lrint(double);
CUGEN_FN long lrint(float);
CUGEN_FN long lrintf(float);
CUGEN_FN long long llrint(double);
CUGEN_FN long long llrint(float);
CUGEN_FN long long llrintf(float);
CUGEN_FN long lround(double);
CUGEN_FN long lround(float);
CUGEN_FN long lroundf(float);
CUGEN_FN long long llround(double);
CUGEN_FN long long llround(float);
CUGEN_FN long long llroundf(float);
CUGEN_FN double nan(const char *);
CUGEN_FN float nanf(const char *);
CUGEN_FN double pow(double, int);
CUGEN_FN float pow(float, int);
CUGEN_FN void sincos(double, double *, double *);
CUGEN_FN void sincos(float, float *, float *);
CUGEN_FN void sincosf(float, float *, float *);
CUGEN_FN void sincospi(double, double *, double *);
CUGEN_FN void sincospi(float, float *, float *);
CUGEN_FN void sincospif(float, float *, float *);
CUGEN_FN double norm3d(double, double, double);
CUGEN_FN float norm3df(float, float, float);
CUGEN_FN double rnorm3d(double, double, double);
CUGEN_FN float rnorm3df(float, float, float);
CUGEN_FN double norm4d(double, double, double, double);
CUGEN_FN float norm4df(float, float, float, float);
CUGEN_FN double rnorm4d(double, double, double, double);
CUGEN_FN float rnorm4df(float, float, float, float);
CUGEN_FN double norm(int, const double *);
CUGEN_FN float normf(int, const float *);
CUGEN_FN double rnorm(int, const double *);
CUGEN_FN float rnormf(int, const float *);

// isnan, isinf, isfinite, isnormal, signbit, fpclassify and the isless
// family are the standard library's: constexpr, so usable in host and
// device code alike (their builtins work on both).

// The same overloads in namespace std, before the standard library declares
// its own there.
#ifdef _LIBCPP_BEGIN_NAMESPACE_STD
_LIBCPP_BEGIN_NAMESPACE_STD
#else
namespace std {
#ifdef _GLIBCXX_BEGIN_NAMESPACE_VERSION
_GLIBCXX_BEGIN_NAMESPACE_VERSION
#endif
#endif
#define CUGEN_USING(n) using ::n;
CUGEN_MATH_UNARY(CUGEN_USING)
CUGEN_MATH_BINARY(CUGEN_USING)
using ::abs;
using ::labs;
using ::llabs;
using ::fma;
using ::frexp;
using ::ldexp;
using ::scalbn;
using ::scalbln;
using ::modf;
using ::remquo;
using ::ilogb;
using ::lrint;
using ::llrint;
using ::lround;
using ::llround;
using ::nan;
#undef CUGEN_USING
#ifdef _LIBCPP_END_NAMESPACE_STD
_LIBCPP_END_NAMESPACE_STD
#else
#ifdef _GLIBCXX_BEGIN_NAMESPACE_VERSION
_GLIBCXX_END_NAMESPACE_VERSION
#endif
} // namespace std
#endif

#endif
