// cuComplex.h: CUDA's complex numbers for the clang route. cuFloatComplex
// is a float2 and cuDoubleComplex a double2 (their layout is the vector
// types'), with CUDA's functions on them: parts, conjugate, the four
// operations (division scaled by |re|+|im| of the divisor, so that it
// neither overflows nor underflows early), absolute value (scaled by the
// larger part), fused multiply-add and the conversions.
#ifndef CUGEN_CUCOMPLEX_H
#define CUGEN_CUCOMPLEX_H
#pragma clang system_header
#include "cugen_clang.h"

#define CUGEN_CX static __host__ __device__ __inline__

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

#define CUGEN_CX_OPS(T, R, F, ABS, SQRT, MAXV)                                                                        \
  CUGEN_CX R cuCreal##F(T x) { return x.x; }                                                                         \
  CUGEN_CX R cuCimag##F(T x) { return x.y; }                                                                         \
  CUGEN_CX T cuConj##F(T x) { return T{x.x, -x.y}; }                                                                 \
  CUGEN_CX T cuCadd##F(T x, T y) { return T{x.x + y.x, x.y + y.y}; }                                                 \
  CUGEN_CX T cuCsub##F(T x, T y) { return T{x.x - y.x, x.y - y.y}; }                                                 \
  CUGEN_CX T cuCmul##F(T x, T y) { return T{x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x}; }                         \
  CUGEN_CX T cuCdiv##F(T x, T y) {                                                                                   \
    R s = ABS(y.x) + ABS(y.y), inv = (R)1 / s;                                                                         \
    R xr = x.x * inv, xi = x.y * inv, yr = y.x * inv, yi = y.y * inv;                                                  \
    R n = (R)1 / (yr * yr + yi * yi);                                                                                  \
    return T{(xr * yr + xi * yi) * n, (xi * yr - xr * yi) * n};                                                        \
  }                                                                                                                    \
  CUGEN_CX R cuCabs##F(T x) {                                                                                        \
    R a = ABS(x.x), b = ABS(x.y);                                                                                      \
    R big = a > b ? a : b, small = a > b ? b : a;                                                                      \
    R q = small / big;                                                                                                 \
    R r = big * SQRT((R)1 + q * q);                                                                                    \
    if (big == 0 || big > MAXV || small > MAXV)                                                                        \
      r = big + small; /* zero, infinity or NaN */                                                                     \
    return r;                                                                                                          \
  }                                                                                                                    \
  CUGEN_CX T cuCfma##F(T x, T y, T d) {                                                                              \
    return T{-(x.y * y.y) + (x.x * y.x + d.x), x.y * y.x + (x.x * y.y + d.y)};                                         \
  }
CUGEN_CX_OPS(cuFloatComplex, float, f, fabsf, sqrtf, 3.40282347e+38f)
CUGEN_CX_OPS(cuDoubleComplex, double, , fabs, sqrt, 1.7976931348623157e+308)
#undef CUGEN_CX_OPS

CUGEN_CX cuFloatComplex make_cuFloatComplex(float r, float i) { return cuFloatComplex{r, i}; }
CUGEN_CX cuDoubleComplex make_cuDoubleComplex(double r, double i) { return cuDoubleComplex{r, i}; }
CUGEN_CX cuComplex make_cuComplex(float r, float i) { return cuComplex{r, i}; }
CUGEN_CX cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) { return cuDoubleComplex{(double)c.x, (double)c.y}; }
CUGEN_CX cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) { return cuFloatComplex{(float)c.x, (float)c.y}; }
#undef CUGEN_CX

#endif
