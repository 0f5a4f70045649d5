// cugen/math_common.h: building blocks of cugen's CUDA math library: bit
// access, error-free transformations and double-double (dd) / float-float
// (ff) arithmetic, exact scaling by powers of two, and the argument
// reductions by π/2 (Cody–Waite, then Payne–Hanek with the bits of 2/π).
//
// Every operation here is IEEE round-to-nearest (fma.rn, add.rn, div.rn,
// sqrt.rn): results are the same on every GPU and in rt/soft.
#ifndef CUGEN_MATH_COMMON_H
#define CUGEN_MATH_COMMON_H
#pragma clang system_header

#define CUGEN_INL static __device__ __inline__ __attribute__((always_inline))
#define CUGEN_NOINL static __device__ __attribute__((noinline))

namespace __cugen {

CUGEN_INL int fbits(float x) { return __builtin_bit_cast(int, x); }
CUGEN_INL float bitsf(int i) { return __builtin_bit_cast(float, i); }
CUGEN_INL long long dbits(double x) { return __builtin_bit_cast(long long, x); }
CUGEN_INL double bitsd(long long i) { return __builtin_bit_cast(double, i); }
CUGEN_INL int hiword(double x) { return (int)(dbits(x) >> 32); }

CUGEN_INL float fmaf_(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
CUGEN_INL double fma_(double a, double b, double c) { return __builtin_fma(a, b, c); }
CUGEN_INL float fabsf_(float x) { return __builtin_fabsf(x); }
CUGEN_INL double fabs_(double x) { return __builtin_fabs(x); }
CUGEN_INL float rintf_(float x) { return __builtin_rintf(x); }
CUGEN_INL double rint_(double x) { return __builtin_rint(x); }
CUGEN_INL float copysignf_(float x, float y) { return __builtin_copysignf(x, y); }
CUGEN_INL double copysign_(double x, double y) { return __builtin_copysign(x, y); }
CUGEN_INL bool isnanf_(float x) { return x != x; }
CUGEN_INL bool isnan_(double x) { return x != x; }
CUGEN_INL bool isinff_(float x) { return fabsf_(x) == __builtin_inff(); }
CUGEN_INL bool isinf_(double x) { return fabs_(x) == __builtin_inf(); }
CUGEN_INL float sqrtf_(float x) { return __builtin_sqrtf(x); }
CUGEN_INL double sqrt_(double x) { return __builtin_sqrt(x); }
CUGEN_INL float nanf_() { return __builtin_nanf(""); }
CUGEN_INL double nan_() { return __builtin_nan(""); }

CUGEN_INL unsigned long long umulhi64(unsigned long long a, unsigned long long b) {
  unsigned long long r;
  asm("mul.hi.u64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b));
  return r;
}

// Double-double: hi + lo with |lo| <= ulp(hi)/2.
struct dd {
  double hi, lo;
};
struct ff {
  float hi, lo;
};

// The error-free transformations round each step as written: add.rn and
// mul.rn, which ptxas never fuses into an fma (a plain mul followed by an
// add may become one fma, and the low part would then describe a sum that
// was never formed). Inline PTX, because clang 16 turns __nvvm_mul_rn_d
// and friends into plain, contractible multiplies.
CUGEN_INL double add_rn(double a, double b) {
  double r;
  asm("add.rn.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
  return r;
}
CUGEN_INL double mul_rn(double a, double b) {
  double r;
  asm("mul.rn.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
  return r;
}
CUGEN_INL float addf_rn(float a, float b) {
  float r;
  asm("add.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
CUGEN_INL float mulf_rn(float a, float b) {
  float r;
  asm("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

CUGEN_INL dd two_sum(double a, double b) {
  double s = add_rn(a, b), bb = add_rn(s, -a);
  return {s, add_rn(add_rn(a, -add_rn(s, -bb)), add_rn(b, -bb))};
}
CUGEN_INL dd fast_two_sum(double a, double b) { // |a| >= |b|
  double s = add_rn(a, b);
  return {s, add_rn(b, -add_rn(s, -a))};
}
CUGEN_INL dd two_prod(double a, double b) {
  double p = mul_rn(a, b);
  return {p, fma_(a, b, -p)};
}
CUGEN_INL dd dd_add(dd a, dd b) {
  dd s = two_sum(a.hi, b.hi);
  return fast_two_sum(s.hi, s.lo + a.lo + b.lo);
}
CUGEN_INL dd dd_add_d(dd a, double b) {
  dd s = two_sum(a.hi, b);
  return fast_two_sum(s.hi, s.lo + a.lo);
}
CUGEN_INL dd dd_mul(dd a, dd b) {
  dd p = two_prod(a.hi, b.hi);
  return fast_two_sum(p.hi, p.lo + fma_(a.hi, b.lo, a.lo * b.hi));
}
CUGEN_INL dd dd_mul_d(dd a, double b) {
  dd p = two_prod(a.hi, b);
  return fast_two_sum(p.hi, fma_(a.lo, b, p.lo));
}
CUGEN_INL dd dd_div(dd a, dd b) {
  double q = a.hi / b.hi;
  // remainder a - q b, exactly to first order.
  double r = fma_(-q, b.hi, a.hi);
  r = fma_(-q, b.lo, r + a.lo);
  return fast_two_sum(q, r / b.hi);
}
CUGEN_INL dd dd_recip(dd b) {
  double q = 1.0 / b.hi;
  double r = fma_(-q, b.hi, 1.0);
  r = fma_(-q, b.lo, r);
  return fast_two_sum(q, r * q);
}
CUGEN_INL dd dd_sqrt(dd a) { // a >= 0
  if (a.hi == 0.0) return a;
  double s = sqrt_(a.hi);
  double r = fma_(-s, s, a.hi) + a.lo;
  return fast_two_sum(s, r / (2.0 * s));
}

CUGEN_INL ff ftwo_sum(float a, float b) {
  float s = addf_rn(a, b), bb = addf_rn(s, -a);
  return {s, addf_rn(addf_rn(a, -addf_rn(s, -bb)), addf_rn(b, -bb))};
}
CUGEN_INL ff ffast_two_sum(float a, float b) {
  float s = addf_rn(a, b);
  return {s, addf_rn(b, -addf_rn(s, -a))};
}
CUGEN_INL ff ftwo_prod(float a, float b) {
  float p = mulf_rn(a, b);
  return {p, fmaf_(a, b, -p)};
}

// 2^n as a double, for n in [-1022, 1023].
CUGEN_INL double pow2d(int n) { return bitsd((long long)(n + 1023) << 52); }
// 2^n as a float, for n in [-126, 127].
CUGEN_INL float pow2f(int n) { return bitsf((n + 127) << 23); }

// x 2^n for x near 1 and n in [-2200, 2200], rounded once: the first factor
// keeps the value normal, the second does the only rounding.
CUGEN_INL double scale_d(double x, int n) {
  n = n < -2200 ? -2200 : (n > 2200 ? 2200 : n);
  int a = n / 2, b = n - a;
  if (a < -1022 || a > 1023) { // only with n beyond the double range
    return x * pow2d(a < 0 ? -1022 : 1023) * pow2d(b < -1022 ? -1022 : (b > 1023 ? 1023 : b));
  }
  return x * pow2d(a) * pow2d(b < -1022 ? -1022 : (b > 1023 ? 1023 : b));
}
CUGEN_INL float scale_f(float x, int n) {
  n = n < -300 ? -300 : (n > 300 ? 300 : n);
  int a = n / 2, b = n - a;
  a = a < -126 ? -126 : (a > 127 ? 127 : a);
  b = b < -126 ? -126 : (b > 127 ? 127 : b);
  return x * pow2f(a) * pow2f(b);
}
// x 2^n for a dd value. A subnormal result is rounded twice (to 53 bits,
// then to the subnormal grid): at most one subnormal ulp off, and only at ties.
CUGEN_INL double scale_dd(dd x, int n) { return scale_d(x.hi + x.lo, n); }

} // namespace __cugen

#endif
