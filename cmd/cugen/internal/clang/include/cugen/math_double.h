// cugen/math_double.h: the CUDA Math API in double precision, written for
// cugen (no libdevice). Each function reduces its argument exactly or in
// double-double, evaluates a minimax polynomial from math_poly.h, and
// reconstructs in double-double, rounding once at the end; the README's
// table lists the error measured against correctly rounded results and
// against the GPU's libdevice.
#ifndef CUGEN_MATH_DOUBLE_H
#define CUGEN_MATH_DOUBLE_H
#pragma clang system_header

namespace __cugen {

// ---- exponentials ----

// e^(rh+rl) - 1 as dd for |rh| <= ln2/2.
CUGEN_INL dd expm1_core(double rh, double rl) {
  double q = rh * rh * __cugen_p_exp_d(rh);
  dd p = fast_two_sum(rh, q);
  p.lo += rl + rl * p.hi;
  return fast_two_sum(p.hi, p.lo);
}

// x = k ln2 + (rh + rl), |rh| <= ln2/2 (plus a rounding), for |x| < 2^11.
struct red_exp {
  double rh, rl;
  int k;
};
CUGEN_INL red_exp reduce_ln2(double xh, double xl) {
  double k = rint_(xh * CUGEN_LOG2E_HI);
  double t = fma_(-k, CUGEN_LN2_CW_1, xh); // exact: k has <= 11 bits
  dd p = two_prod(k, CUGEN_LN2_CW_2);
  dd r = two_sum(t, -p.hi);
  r.lo += xl - p.lo - k * CUGEN_LN2_CW_3;
  r = fast_two_sum(r.hi, r.lo);
  return {r.hi, r.lo, (int)k};
}

// e^x = 2^k (m.hi + m.lo) for x = xh + xl, |xh| < 746.
struct exp_parts {
  dd m;
  int k;
};
CUGEN_INL exp_parts exp_kernel(double xh, double xl) {
  red_exp r = reduce_ln2(xh, xl);
  dd p = expm1_core(r.rh, r.rl);
  dd m = fast_two_sum(1.0, p.hi);
  m.lo += p.lo;
  return {m, r.k};
}

CUGEN_INL double exp_dd_arg(double xh, double xl) {
  if (xh > 709.782712893384) return __builtin_inf();
  if (xh < -745.2) return 0.0;
  exp_parts e = exp_kernel(xh, xl);
  return scale_dd(e.m, e.k);
}

static __device__ __inline__ double exp(double x) {
  if (isnan_(x)) return x + x;
  return exp_dd_arg(x, 0.0);
}

static __device__ __inline__ double exp2(double x) {
  if (isnan_(x)) return x + x;
  if (x >= 1024.0) return __builtin_inf();
  if (x < -1080.0) return 0.0;
  double k = rint_(x);
  double r = x - k; // exact
  dd t = two_prod(r, CUGEN_LN2_HI);
  t.lo = fma_(r, CUGEN_LN2_LO, t.lo);
  dd p = expm1_core(t.hi, t.lo);
  dd m = fast_two_sum(1.0, p.hi);
  m.lo += p.lo;
  return scale_dd(m, (int)k);
}

static __device__ __inline__ double exp10(double x) {
  if (isnan_(x)) return x + x;
  if (x > 308.26) return __builtin_inf();
  if (x < -324.0) return 0.0;
  double k = rint_(x * CUGEN_LOG2_10);
  double t = fma_(-k, CUGEN_LOG10_2_CW_1, x);
  dd p = two_prod(k, CUGEN_LOG10_2_CW_2);
  dd r = two_sum(t, -p.hi);
  r.lo -= p.lo + k * CUGEN_LOG10_2_CW_3;
  r = fast_two_sum(r.hi, r.lo);
  dd s = dd_mul(r, dd{CUGEN_LN10_HI, CUGEN_LN10_LO});
  dd q = expm1_core(s.hi, s.lo);
  dd m = fast_two_sum(1.0, q.hi);
  m.lo += q.lo;
  return scale_dd(m, (int)k);
}

// e^x - 1 as dd for 0 <= x < 710 (tanh, sinh).
CUGEN_INL dd expm1_dd(double x) {
  if (x <= 0.34657359027997264) return expm1_core(x, 0.0);
  red_exp r = reduce_ln2(x, 0.0);
  dd p = expm1_core(r.rh, r.rl);
  dd m = fast_two_sum(1.0, p.hi);
  m.lo += p.lo;
  // 2^k (m - 2^-k), scaled exactly (k <= 1024 keeps 2^-k a double).
  m = dd_add_d(m, -pow2d(-r.k > -1022 ? -r.k : -1022) * (r.k > 1022 ? pow2d(1022 - r.k) : 1.0));
  double s = pow2d(r.k > 1023 ? 1023 : r.k);
  double s2 = r.k > 1023 ? pow2d(r.k - 1023) : 1.0;
  return {m.hi * s * s2, m.lo * s * s2};
}

static __device__ __inline__ double expm1(double x) {
  if (isnan_(x)) return x + x;
  if (x > 709.782712893384) return __builtin_inf();
  if (x < -37.5) return -1.0;
  if (fabs_(x) <= 0.34657359027997264) {
    if (x == 0.0) return x;
    dd p = expm1_core(x, 0.0);
    return p.hi + p.lo;
  }
  if (x > 0) {
    dd e = expm1_dd(x);
    return e.hi + e.lo;
  }
  red_exp r = reduce_ln2(x, 0.0);
  dd p = expm1_core(r.rh, r.rl);
  dd m = fast_two_sum(1.0, p.hi);
  m.lo += p.lo;
  double s = pow2d(r.k);
  dd u = dd_add_d(dd{m.hi * s, m.lo * s}, -1.0);
  return u.hi + u.lo;
}

// ---- logarithms ----

// log(1 + f) as dd for f = fh + fl in [√½-1, √2-1] (f exact or nearly).
CUGEN_INL dd log1p_core(double fh, double fl) {
  dd d = two_sum(2.0, fh);
  d.lo += fl;
  dd s = dd_div(dd{fh, fl}, d);
  double z = s.hi * s.hi;
  dd s2 = two_prod(s.hi, s.hi);
  s2.lo += 2.0 * s.hi * s.lo;
  dd s3 = dd_mul(s2, s);
  dd t3 = dd_mul(s3, dd{CUGEN_TWO_THIRDS_HI, CUGEN_TWO_THIRDS_LO});
  double s5 = s3.hi * z;
  double tail = s5 * fma_(z, __cugen_p_log_d(z), CUGEN_TWO_FIFTHS_HI);
  dd r = dd{2.0 * s.hi, 2.0 * s.lo};
  r = dd_add(r, t3);
  return dd_add_d(r, tail);
}

// log(x) as dd for x = xh + xl > 0 finite (xh normal or subnormal).
CUGEN_INL dd log_core(double xh, double xl) {
  int e0 = 0;
  if (xh < 0x1p-1022) {
    xh *= 0x1p54;
    xl *= 0x1p54;
    e0 = -54;
  }
  long long ix = dbits(xh);
  int e = (int)((ix - 0x3fe6a09e667f3bcdLL) >> 52);
  double m = bitsd(ix - ((long long)e << 52));
  double ml = xl == 0.0 ? 0.0 : scale_d(xl, -e);
  dd l = log1p_core(m - 1.0, ml);
  e += e0;
  if (e == 0) return l;
  double ef = (double)e;
  dd c = fast_two_sum(ef * CUGEN_LN2_CW_1, ef * CUGEN_LN2_CW_2);
  return dd_add(c, l);
}

CUGEN_INL double log_special(double x) {
  if (isnan_(x)) return x + x;
  if (x < 0.0) return nan_();
  if (x == 0.0) return -__builtin_inf();
  return x; // +inf
}

static __device__ __inline__ double log(double x) {
  if (!(x > 0.0) || isinf_(x)) return log_special(x);
  dd l = log_core(x, 0.0);
  return l.hi + l.lo;
}

static __device__ __inline__ double log2(double x) {
  if (!(x > 0.0) || isinf_(x)) return log_special(x);
  dd l = log_core(x, 0.0);
  dd r = dd_mul(l, dd{CUGEN_LOG2E_HI, CUGEN_LOG2E_LO});
  return r.hi + r.lo;
}

static __device__ __inline__ double log10(double x) {
  if (!(x > 0.0) || isinf_(x)) return log_special(x);
  dd l = log_core(x, 0.0);
  dd r = dd_mul(l, dd{CUGEN_INV_LN10_HI, CUGEN_INV_LN10_LO});
  return r.hi + r.lo;
}

// log(1 + a) as dd for a dd value a > -1.
CUGEN_INL dd log1p_dd(dd a) {
  if (a.hi >= -0.29289321881345248 && a.hi <= 0.41421356237309503) return log1p_core(a.hi, a.lo);
  dd u = two_sum(1.0, a.hi);
  u.lo += a.lo;
  u = fast_two_sum(u.hi, u.lo);
  return log_core(u.hi, u.lo);
}

static __device__ __inline__ double log1p(double x) {
  if (isnan_(x)) return x + x;
  if (x < -1.0) return nan_();
  if (x == -1.0) return -__builtin_inf();
  if (isinf_(x)) return x;
  if (fabs_(x) < 0x1p-54) return x;
  dd l = log1p_dd(dd{x, 0.0});
  return l.hi + l.lo;
}

// ---- power ----

CUGEN_INL bool is_int_d(double y) { return rint_(y) == y; }
CUGEN_INL bool is_odd_d(double y) { // y integer
  return fabs_(y) < 0x1p53 && is_int_d(y * 0.5) == false;
}

static __device__ __inline__ double pow(double x, double y) {
  if (y == 0.0 || x == 1.0) return 1.0;
  if (isnan_(x) || isnan_(y)) return x + y;
  double ax = fabs_(x);
  bool yint = is_int_d(y), yodd = yint && is_odd_d(y);
  if (isinf_(y)) {
    if (ax == 1.0) return 1.0;
    return (ax < 1.0) == (y < 0.0) ? __builtin_inf() : 0.0;
  }
  if (x == 0.0 || isinf_(x)) {
    // pow(±0, y) and pow(±inf, y): 1/x's behaviour for negative y.
    double r = (x == 0.0) == (y < 0.0) ? __builtin_inf() : 0.0;
    return yodd ? copysign_(r, x) : r;
  }
  if (x < 0.0 && !yint) return nan_();
  if (fabs_(y) > 0x1p62) { // y is an even integer; |y log x| overflows unless |x| is 1
    if (ax == 1.0) return 1.0;
    return (ax < 1.0) == (y > 0.0) ? 0.0 : __builtin_inf();
  }
  dd l = log_core(ax, 0.0);
  dd t = dd_mul_d(l, y);
  double r;
  if (t.hi > 709.8) {
    r = __builtin_inf();
  } else if (t.hi < -745.2) {
    r = 0.0;
  } else {
    exp_parts e = exp_kernel(t.hi, t.lo);
    r = scale_dd(e.m, e.k);
  }
  return (x < 0.0 && yodd) ? -r : r;
}

// ---- roots ----

static __device__ __inline__ double sqrt(double x) { return sqrt_(x); }

static __device__ __inline__ double rsqrt(double x) {
  if (isnan_(x)) return x + x;
  if (x < 0.0) return nan_();
  if (x == 0.0) return copysign_(__builtin_inf(), x);
  if (isinf_(x)) return 0.0;
  int e = 0;
  if (x < 0x1p-1000) {
    x *= 0x1p200;
    e = 100;
  } else if (x > 0x1p1000) {
    x *= 0x1p-200;
    e = -100;
  }
  dd s = dd_sqrt(dd{x, 0.0});
  dd r = dd_recip(s);
  return (r.hi + r.lo) * pow2d(e);
}

// cbrt as dd for a in [1, 8) (exactly scaled by callers).
CUGEN_INL dd cbrt_core(double a) {
  // Initial guess to about 6%, then Halley's iteration (cubic).
  double y = bitsd(0x3ff0000000000000LL + (dbits(a) - 0x3ff0000000000000LL) / 3);
  for (int i = 0; i < 3; i++) {
    double y3 = y * y * y;
    y = y * (y3 + 2.0 * a) / (2.0 * y3 + a);
  }
  // One Newton step with the exact residual a - y³.
  dd y2 = two_prod(y, y);
  dd y3 = dd_mul_d(y2, y);
  double r = (a - y3.hi) - y3.lo;
  return fast_two_sum(y, r / (3.0 * y2.hi));
}

struct cbrt_parts {
  dd m;
  int e;
};
CUGEN_INL cbrt_parts cbrt_split(double ax) {
  int e0 = 0;
  if (ax < 0x1p-1022) {
    ax *= 0x1p162;
    e0 = -54;
  }
  int e = (int)((dbits(ax) >> 52) & 0x7ff) - 1023;
  int q = e >= 0 ? e / 3 : -((-e + 2) / 3);
  double a = scale_d(ax, -3 * q); // in [1, 8), exact
  return {cbrt_core(a), q + e0};
}

static __device__ __inline__ double cbrt(double x) {
  if (x == 0.0 || isnan_(x) || isinf_(x)) return x + x;
  cbrt_parts c = cbrt_split(fabs_(x));
  return copysign_((c.m.hi + c.m.lo) * pow2d(c.e), x);
}

static __device__ __inline__ double rcbrt(double x) {
  if (isnan_(x)) return x + x;
  if (x == 0.0) return copysign_(__builtin_inf(), x);
  if (isinf_(x)) return copysign_(0.0, x);
  cbrt_parts c = cbrt_split(fabs_(x));
  dd r = dd_recip(c.m);
  return copysign_((r.hi + r.lo) * pow2d(-c.e), x);
}

// sqrt(Σ a_i²) as a scaled dd: the caller scales by 2^e.
CUGEN_INL int norm_scale(double m) { // 2^-e brings m near 1
  int e = (int)((dbits(m) >> 52) & 0x7ff) - 1023;
  return e < -1000 ? -1000 : (e > 1000 ? 1000 : e);
}

CUGEN_INL dd sumsq_dd(const double *a, int n, double s) {
  dd acc = {0.0, 0.0};
  for (int i = 0; i < n; i++) {
    double v = a[i] * s;
    acc = dd_add(acc, two_prod(v, v));
  }
  return acc;
}

// hypot-like: returns sqrt(Σ a²) (inv=false) or its reciprocal.
CUGEN_INL double norm_n(const double *a, int n, bool inv) {
  double m = 0.0;
  bool nan = false;
  for (int i = 0; i < n; i++) {
    double v = fabs_(a[i]);
    if (isinf_(v)) return inv ? 0.0 : __builtin_inf();
    if (isnan_(v)) nan = true;
    m = v > m ? v : m;
  }
  if (nan) return nan_();
  if (m == 0.0) return inv ? __builtin_inf() : 0.0;
  int e = norm_scale(m);
  dd s = dd_sqrt(sumsq_dd(a, n, pow2d(-e)));
  if (inv) {
    dd r = dd_recip(s);
    return scale_d(r.hi + r.lo, -e);
  }
  return scale_d(s.hi + s.lo, e);
}

static __device__ __inline__ double hypot(double x, double y) {
  double a[2] = {x, y};
  return norm_n(a, 2, false);
}
static __device__ __inline__ double rhypot(double x, double y) {
  double a[2] = {x, y};
  return norm_n(a, 2, true);
}
static __device__ __inline__ double norm3d(double x, double y, double z) {
  double a[3] = {x, y, z};
  return norm_n(a, 3, false);
}
static __device__ __inline__ double rnorm3d(double x, double y, double z) {
  double a[3] = {x, y, z};
  return norm_n(a, 3, true);
}
static __device__ __inline__ double norm4d(double x, double y, double z, double w) {
  double a[4] = {x, y, z, w};
  return norm_n(a, 4, false);
}
static __device__ __inline__ double rnorm4d(double x, double y, double z, double w) {
  double a[4] = {x, y, z, w};
  return norm_n(a, 4, true);
}
static __device__ __inline__ double norm(int n, const double *a) { return norm_n(a, n, false); }
static __device__ __inline__ double rnorm(int n, const double *a) { return norm_n(a, n, true); }

// ---- trigonometric ----

struct red_pio2 {
  dd r;
  int q;
};

// x = q π/2 + r for |x| >= 2^26 (Payne–Hanek): the bits of 2/π that
// matter to x, times x's mantissa, exactly in integers.
CUGEN_NOINL red_pio2 reduce_pio2_large(double x) {
  long long ix = dbits(x);
  int E = (int)((ix >> 52) & 0x7ff) - 1075; // x = M 2^E
  unsigned long long M = (ix & 0xfffffffffffffULL) | (1ULL << 52);
  int idx = E - 2 + 64; // bit of 2/π (0 = first after the zero word) at the window start
  int a = idx >> 6, sh = idx & 63;
  unsigned long long t0 = __cugen_2opi(a), t1 = __cugen_2opi(a + 1), t2 = __cugen_2opi(a + 2),
                     t3 = __cugen_2opi(a + 3);
  unsigned long long w2 = sh ? (t0 << sh) | (t1 >> (64 - sh)) : t0;
  unsigned long long w1 = sh ? (t1 << sh) | (t2 >> (64 - sh)) : t1;
  unsigned long long w0 = sh ? (t2 << sh) | (t3 >> (64 - sh)) : t2;
  // P = M (w2 w1 w0): bits 191:190 are the quadrant, below the fraction.
  unsigned long long p0 = M * w0, c0 = umulhi64(M, w0);
  unsigned long long l1 = M * w1, h1 = umulhi64(M, w1);
  unsigned long long l2 = M * w2;
  unsigned long long p1 = c0 + l1;
  unsigned long long k1 = p1 < c0;
  unsigned long long p2 = h1 + l2 + k1;
  int q = (int)(p2 >> 62);
  unsigned long long fh = (p2 << 2) | (p1 >> 62);
  unsigned long long fl = (p1 << 2) | (p0 >> 62);
  // fh as a signed number is the fraction minus 1 when it is >= 1/2:
  // round to the nearest quadrant.
  long long sf = (long long)fh;
  if (sf < 0) q++;
  double hi = (double)sf;
  double lo = (double)(sf - (long long)hi) + (double)fl * 0x1p-64;
  dd f = fast_two_sum(hi * 0x1p-64, lo * 0x1p-64);
  dd r = dd_mul(f, dd{CUGEN_PIO2_HI, CUGEN_PIO2_LO});
  if (x < 0) {
    r.hi = -r.hi;
    r.lo = -r.lo;
    q = -q;
  }
  return {r, q & 3};
}

// x = q π/2 + r, |r| <= π/4 (plus rounding), r as dd.
CUGEN_INL red_pio2 reduce_pio2(double x) {
  if (fabs_(x) >= 0x1p26) return reduce_pio2_large(x);
  double j = rint_(x * CUGEN_TWO_OVER_PI);
  double t = fma_(-j, CUGEN_PIO2_CW_1, x); // exact
  dd p = two_prod(j, CUGEN_PIO2_CW_2);
  dd r = two_sum(t, -p.hi);
  r.lo -= p.lo + j * CUGEN_PIO2_CW_3;
  return {fast_two_sum(r.hi, r.lo), (int)((long long)j & 3)};
}

CUGEN_INL dd sin_kernel(dd r) {
  double z = r.hi * r.hi;
  double tail = fma_(r.hi * z, __cugen_p_sin_d(z), r.lo * fma_(-0.5, z, 1.0));
  return fast_two_sum(r.hi, tail);
}
CUGEN_INL dd cos_kernel(dd r) {
  double z = r.hi * r.hi;
  double hz = 0.5 * z, w = 1.0 - hz;
  double tail = ((1.0 - w) - hz) + (z * z * __cugen_p_cos_d(z) - r.hi * r.lo);
  return fast_two_sum(w, tail);
}
CUGEN_INL dd dd_neg(dd a) { return {-a.hi, -a.lo}; }

static __device__ __inline__ double sin(double x) {
  if (fabs_(x) < 0x1p-26) return x;
  if (isinf_(x)) return nan_();
  red_pio2 r = reduce_pio2(x);
  dd v = (r.q & 1) ? cos_kernel(r.r) : sin_kernel(r.r);
  return (r.q & 2) ? -v.hi : v.hi;
}

static __device__ __inline__ double cos(double x) {
  if (fabs_(x) < 0x1p-27) return 1.0;
  if (isinf_(x)) return nan_();
  red_pio2 r = reduce_pio2(x);
  dd v = (r.q & 1) ? sin_kernel(r.r) : cos_kernel(r.r);
  return ((r.q + 1) & 2) ? -v.hi : v.hi;
}

static __device__ __inline__ void sincos(double x, double *s, double *c) {
  if (isinf_(x) || isnan_(x)) {
    *s = *c = x - x;
    return;
  }
  if (fabs_(x) < 0x1p-27) {
    *s = x;
    *c = 1.0;
    return;
  }
  red_pio2 r = reduce_pio2(x);
  dd sv = sin_kernel(r.r), cv = cos_kernel(r.r);
  double sn = (r.q & 1) ? cv.hi : sv.hi, cs = (r.q & 1) ? sv.hi : cv.hi;
  *s = (r.q & 2) ? -sn : sn;
  *c = ((r.q + 1) & 2) ? -cs : cs;
}

static __device__ __inline__ double tan(double x) {
  if (fabs_(x) < 0x1p-27) return x;
  if (isinf_(x)) return nan_();
  red_pio2 r = reduce_pio2(x);
  dd s = sin_kernel(r.r), c = cos_kernel(r.r);
  dd t = (r.q & 1) ? dd_neg(dd_div(c, s)) : dd_div(s, c);
  return t.hi + t.lo;
}

// sin(π x) and cos(π x) via r = x - j/2 (exact) and π r in dd.
struct red_pi {
  dd r;
  int q;
  bool zero;
};
CUGEN_INL red_pi reduce_pi(double x) {
  if (fabs_(x) >= 0x1p52) { // an integer
    long long n = fabs_(x) < 0x1p62 ? (long long)x : 0;
    return {{0.0, 0.0}, (int)((n & 1) * 2), true};
  }
  double j = rint_(2.0 * x);
  double r = fma_(j, -0.5, x);
  dd pr = two_prod(r, CUGEN_PI_HI);
  pr.lo = fma_(r, CUGEN_PI_LO, pr.lo);
  return {fast_two_sum(pr.hi, pr.lo), (int)((long long)j & 3), r == 0.0};
}

static __device__ __inline__ double sinpi(double x) {
  if (isinf_(x) || isnan_(x)) return x - x;
  red_pi r = reduce_pi(x);
  if (r.zero && !(r.q & 1)) return copysign_(0.0, x);
  dd v = (r.q & 1) ? cos_kernel(r.r) : sin_kernel(r.r);
  return (r.q & 2) ? -v.hi : v.hi;
}

static __device__ __inline__ double cospi(double x) {
  if (isinf_(x) || isnan_(x)) return x - x;
  red_pi r = reduce_pi(x);
  if (r.zero && (r.q & 1)) return 0.0;
  dd v = (r.q & 1) ? sin_kernel(r.r) : cos_kernel(r.r);
  return ((r.q + 1) & 2) ? -v.hi : v.hi;
}

static __device__ __inline__ void sincospi(double x, double *s, double *c) {
  *s = sinpi(x);
  *c = cospi(x);
}

// sin(π x) as dd (lgamma's reflection).
CUGEN_INL dd sinpi_dd(double x) {
  red_pi r = reduce_pi(x);
  dd v = (r.q & 1) ? cos_kernel(r.r) : sin_kernel(r.r);
  return (r.q & 2) ? dd_neg(v) : v;
}

// ---- inverse trigonometric ----

// atan(t) for a dd t >= 0, as dd.
CUGEN_INL dd atan_dd(dd t) {
  dd c = {0.0, 0.0}, u = t;
  double a = t.hi;
  if (a >= 0.4375) {
    if (a < 0.6875) { // c = 1/2: (2t-1)/(2+t)
      c = dd{CUGEN_ATAN_HALF_HI, CUGEN_ATAN_HALF_LO};
      dd num = fast_two_sum(2.0 * t.hi - 1.0, 2.0 * t.lo);
      u = dd_div(num, dd_add_d(t, 2.0));
    } else if (a < 1.1875) { // c = 1: (t-1)/(t+1)
      c = dd{CUGEN_PIO4_HI, CUGEN_PIO4_LO};
      u = dd_div(fast_two_sum(t.hi - 1.0, t.lo), dd_add_d(t, 1.0));
    } else if (a < 2.4375) { // c = 3/2: (t-3/2)/(1+3t/2)
      c = dd{CUGEN_ATAN_1P5_HI, CUGEN_ATAN_1P5_LO};
      u = dd_div(fast_two_sum(t.hi - 1.5, t.lo), dd_add_d(dd_mul_d(t, 1.5), 1.0));
    } else { // c = ∞: -1/t
      c = dd{CUGEN_PIO2_HI, CUGEN_PIO2_LO};
      u = dd_neg(dd_recip(t));
    }
  }
  double z = u.hi * u.hi;
  double tail = fma_(u.hi * z, __cugen_p_atan_d(z), u.lo);
  return dd_add(c, fast_two_sum(u.hi, tail));
}

static __device__ __inline__ double atan(double x) {
  if (isnan_(x)) return x + x;
  double a = fabs_(x);
  if (a < 0x1p-27) return x;
  if (a > 0x1p60) return copysign_(CUGEN_PIO2_HI, x);
  dd r = atan_dd(dd{a, 0.0});
  return copysign_(r.hi + r.lo, x);
}

static __device__ __inline__ double atan2(double y, double x) {
  if (isnan_(x) || isnan_(y)) return x + y;
  double ax = fabs_(x), ay = fabs_(y);
  bool xneg = __builtin_signbit(x);
  dd r;
  if (isinf_(ax) || isinf_(ay)) {
    if (isinf_(ax) && isinf_(ay)) {
      r = xneg ? dd{3.0 * CUGEN_PIO4_HI, 3.0 * CUGEN_PIO4_LO} : dd{CUGEN_PIO4_HI, CUGEN_PIO4_LO};
    } else if (isinf_(ay)) {
      r = dd{CUGEN_PIO2_HI, CUGEN_PIO2_LO};
    } else {
      r = xneg ? dd{CUGEN_PI_HI, CUGEN_PI_LO} : dd{0.0, 0.0};
    }
    return copysign_(r.hi + r.lo, y);
  }
  if (ay == 0.0) {
    return copysign_(xneg ? CUGEN_PI_HI : 0.0, y);
  }
  if (ax == 0.0) return copysign_(CUGEN_PIO2_HI, y);
  if (ay < ax * 0x1p-60) { // atan(t) rounds to t; π - t to π
    return copysign_(xneg ? CUGEN_PI_HI : ay / ax, y);
  }
  // Scale so that the quotient is formed without overflow or underflow.
  int e = norm_scale(ax > ay ? ax : ay);
  double sx = ax * pow2d(-e), sy = ay * pow2d(-e);
  if (ay <= ax) {
    r = atan_dd(dd_div(dd{sy, 0.0}, dd{sx, 0.0}));
  } else {
    r = dd_add(dd{CUGEN_PIO2_HI, CUGEN_PIO2_LO}, dd_neg(atan_dd(dd_div(dd{sx, 0.0}, dd{sy, 0.0}))));
  }
  if (xneg) r = dd_add(dd{CUGEN_PI_HI, CUGEN_PI_LO}, dd_neg(r));
  return copysign_(r.hi + r.lo, y);
}

// asin(s) as dd for 0 <= s <= 1/2 with s = sh + sl.
CUGEN_INL dd asin_small(double sh, double sl) {
  double z = sh * sh;
  double tail = fma_(sh * z, __cugen_p_asin_d(z), sl);
  return fast_two_sum(sh, tail);
}

// sqrt((1 - a)/2) as dd for 1/2 <= a <= 1.
CUGEN_INL dd half_cos_root(double a) {
  double w = (1.0 - a) * 0.5; // exact
  double s = sqrt_(w);
  return fast_two_sum(s, fma_(-s, s, w) / (2.0 * s));
}

static __device__ __inline__ double asin(double x) {
  if (isnan_(x)) return x + x;
  double a = fabs_(x);
  if (a > 1.0) return nan_();
  if (a < 0x1p-27) return x;
  if (a <= 0.5) {
    dd r = asin_small(a, 0.0);
    return copysign_(r.hi + r.lo, x);
  }
  if (a == 1.0) return copysign_(CUGEN_PIO2_HI, x);
  dd s = half_cos_root(a);
  dd t = asin_small(s.hi, s.lo);
  dd r = dd_add(dd{CUGEN_PIO2_HI, CUGEN_PIO2_LO}, dd{-2.0 * t.hi, -2.0 * t.lo});
  return copysign_(r.hi + r.lo, x);
}

static __device__ __inline__ double acos(double x) {
  if (isnan_(x)) return x + x;
  double a = fabs_(x);
  if (a > 1.0) return nan_();
  if (x == 1.0) return 0.0;
  if (x == -1.0) return CUGEN_PI_HI;
  dd r;
  if (a <= 0.5) {
    dd t = asin_small(a, 0.0);
    if (x < 0) t = dd_neg(t);
    r = dd_add(dd{CUGEN_PIO2_HI, CUGEN_PIO2_LO}, dd_neg(t));
  } else {
    dd s = half_cos_root(a);
    dd t = asin_small(s.hi, s.lo);
    t = dd{2.0 * t.hi, 2.0 * t.lo};
    r = x > 0 ? t : dd_add(dd{CUGEN_PI_HI, CUGEN_PI_LO}, dd_neg(t));
  }
  return r.hi + r.lo;
}

// ---- hyperbolic ----

static __device__ __inline__ double sinh(double x) {
  if (isnan_(x)) return x + x;
  double a = fabs_(x);
  if (a < 0x1p-27) return x;
  double r;
  if (a >= 22.0) {
    if (a > 710.5) return copysign_(__builtin_inf(), x);
    exp_parts e = exp_kernel(a, 0.0);
    r = scale_dd(e.m, e.k - 1);
  } else {
    dd em = expm1_dd(a);
    dd s = dd_add(em, dd_div(em, dd_add_d(em, 1.0)));
    r = (s.hi + s.lo) * 0.5;
  }
  return copysign_(r, x);
}

static __device__ __inline__ double cosh(double x) {
  if (isnan_(x)) return x + x;
  double a = fabs_(x);
  if (a < 0x1p-27) return 1.0;
  if (a >= 22.0) {
    if (a > 710.5) return __builtin_inf();
    exp_parts e = exp_kernel(a, 0.0);
    return scale_dd(e.m, e.k - 1);
  }
  exp_parts e = exp_kernel(a, 0.0);
  double s = pow2d(e.k);
  dd E = {e.m.hi * s, e.m.lo * s};
  dd c = dd_add(E, dd_recip(E));
  return (c.hi + c.lo) * 0.5;
}

static __device__ __inline__ double tanh(double x) {
  if (isnan_(x)) return x + x;
  double a = fabs_(x);
  if (a < 0x1p-27) return x;
  if (a > 22.0) return copysign_(1.0, x);
  dd em = expm1_dd(2.0 * a);
  dd t = dd_div(em, dd_add_d(em, 2.0));
  return copysign_(t.hi + t.lo, x);
}

static __device__ __inline__ double asinh(double x) {
  if (isnan_(x) || isinf_(x)) return x + x;
  double a = fabs_(x);
  if (a < 0x1p-27) return x;
  dd r;
  if (a > 0x1p28) {
    r = dd_add(log_core(a, 0.0), dd{CUGEN_LN2_HI, CUGEN_LN2_LO});
  } else {
    dd x2 = two_prod(a, a);
    dd h = dd_sqrt(dd_add_d(x2, 1.0));
    dd w = dd_div(x2, dd_add_d(h, 1.0));
    r = log1p_dd(dd_add_d(w, a));
  }
  return copysign_(r.hi + r.lo, x);
}

static __device__ __inline__ double acosh(double x) {
  if (isnan_(x)) return x + x;
  if (x < 1.0) return nan_();
  if (isinf_(x)) return x;
  dd r;
  if (x > 0x1p28) {
    r = dd_add(log_core(x, 0.0), dd{CUGEN_LN2_HI, CUGEN_LN2_LO});
  } else {
    double a = x - 1.0; // exact
    dd p = dd_mul_d(two_sum(a, 2.0), a);
    r = log1p_dd(dd_add_d(dd_sqrt(p), a));
  }
  return r.hi + r.lo;
}

static __device__ __inline__ double atanh(double x) {
  if (isnan_(x)) return x + x;
  double a = fabs_(x);
  if (a > 1.0) return nan_();
  if (a == 1.0) return copysign_(__builtin_inf(), x);
  if (a < 0x1p-27) return x;
  dd q = dd_div(dd{2.0 * a, 0.0}, two_sum(1.0, -a));
  dd r = log1p_dd(q);
  return copysign_((r.hi + r.lo) * 0.5, x);
}

// ---- error function ----

// erfc(x) for x >= 0.84375: e^(-x²) (1+2x) erfcx(x) / (1+2x).
CUGEN_INL double erfc_tail(double x) {
  if (x > 27.3) return 0.0;
  dd x2 = two_prod(x, x);
  exp_parts e = exp_kernel(-x2.hi, -x2.lo);
  double t = (x - 2.0) / (x + 2.0);
  // e^(-x²) q(t) / (1+2x), every step in dd but the polynomial.
  dd v = dd_div(dd_mul_d(e.m, __cugen_p_erfcx_d(t)), two_sum(1.0, 2.0 * x));
  return scale_dd(v, e.k);
}

static __device__ __inline__ double erf(double x) {
  if (isnan_(x)) return x + x;
  double a = fabs_(x);
  if (a < 0.84375) return fma_(x, __cugen_p_erf_d(x * x), x);
  if (a >= 6.0) return copysign_(1.0, x);
  return copysign_(1.0 - erfc_tail(a), x);
}

static __device__ __inline__ double erfc(double x) {
  if (isnan_(x)) return x + x;
  if (x < -6.0) return 2.0;
  double a = fabs_(x);
  if (a < 0.84375) {
    dd e = fast_two_sum(x, x * __cugen_p_erf_d(x * x));
    dd r = dd_add_d(dd_neg(e), 1.0);
    return r.hi + r.lo;
  }
  double c = erfc_tail(a);
  return x > 0 ? c : 2.0 - c;
}

static __device__ __inline__ double erfcx(double x) {
  if (isnan_(x)) return x + x;
  if (x >= 0.84375) {
    if (isinf_(x)) return 0.0;
    if (x > 0x1p60) return (0.5 * CUGEN_TWO_OVER_SQRTPI_HI) / x;
    double t = (x - 2.0) / (x + 2.0);
    dd v = dd_div(dd{__cugen_p_erfcx_d(t), 0.0}, two_sum(1.0, 2.0 * x));
    return v.hi + v.lo;
  }
  if (x < -26.7) return __builtin_inf();
  // e^(x²) erfc(x) with x² in dd.
  dd x2 = two_prod(x, x);
  exp_parts e = exp_kernel(x2.hi, x2.lo);
  double c = erfc(x);
  return scale_d((e.m.hi + e.m.lo) * c, e.k);
}

// y with erfc(y) = c, for 0 < c < 1/2 (y > 0.47), by Newton on erfc.
CUGEN_INL double erfcinv_tail(double c) {
  double w = -log_core(c, 0.0).hi - log1p_core(-c * 0.5, 0.0).hi - CUGEN_LN2_HI; // -log(c(2-c))
  double y;
  if (w < 5.0) {
    double x = 1.0 - c;
    y = x * __cugen_p_erfinv_c(w - 2.5);
  } else {
    double s = sqrt_(w) - 3.0;
    y = s < 3.1 ? __cugen_p_erfinv_t(s) : __cugen_p_erfinv_u(s);
  }
  if (c < 0x1p-900) {
    // erfc(y) is subnormal or nearly: Newton on log erfc(y) - log c, with
    // erfc(y) = 2^k v held apart so that nothing underflows.
    double lc = log_core(c, 0.0).hi;
    for (int i = 0; i < 3; i++) {
      dd y2 = two_prod(y, y);
      exp_parts e = exp_kernel(-y2.hi, -y2.lo);
      double cx = __cugen_p_erfcx_d((y - 2.0) / (y + 2.0)) / fma_(2.0, y, 1.0); // erfcx(y)
      double le = log_core((e.m.hi + e.m.lo) * cx, 0.0).hi + e.k * CUGEN_LN2_HI;
      y += (le - lc) * cx / CUGEN_TWO_OVER_SQRTPI_HI;
    }
    return y;
  }
  for (int i = 0; i < 2; i++) {
    double f = erfc(y) - c;
    dd y2 = two_prod(y, y);
    exp_parts e = exp_kernel(-y2.hi, -y2.lo);
    double d = scale_d((e.m.hi + e.m.lo) * CUGEN_TWO_OVER_SQRTPI_HI, e.k);
    y += f / d;
  }
  return y;
}

static __device__ __inline__ double erfinv(double x) {
  if (isnan_(x)) return x + x;
  double a = fabs_(x);
  if (a > 1.0) return nan_();
  if (a == 1.0) return copysign_(__builtin_inf(), x);
  if (a < 0x1p-27) return x / CUGEN_TWO_OVER_SQRTPI_HI;
  double y;
  if (a <= 0.75) {
    dd q = two_prod(1.0 - a, 1.0 + a);
    double w = -log_core(q.hi, q.lo).hi;
    y = a * __cugen_p_erfinv_c(w - 2.5);
    for (int i = 0; i < 2; i++) {
      // residual erf(y) - a in dd: erf(y) = y + y E(y²)
      dd e = fast_two_sum(y, y * __cugen_p_erf_d(y * y));
      dd f = dd_add_d(e, -a);
      dd y2 = two_prod(y, y);
      exp_parts ex = exp_kernel(-y2.hi, -y2.lo);
      double d = scale_d((ex.m.hi + ex.m.lo) * CUGEN_TWO_OVER_SQRTPI_HI, ex.k);
      y -= (f.hi + f.lo) / d;
    }
  } else {
    y = erfcinv_tail(1.0 - a);
  }
  return copysign_(y, x);
}

static __device__ __inline__ double erfcinv(double c) {
  if (isnan_(c)) return c + c;
  if (c <= 0.0) return c == 0.0 ? __builtin_inf() : nan_();
  if (c >= 2.0) return c == 2.0 ? -__builtin_inf() : nan_();
  if (c < 0.5) return erfcinv_tail(c);
  if (c > 1.5) return -erfcinv_tail(2.0 - c);
  return erfinv(1.0 - c);
}

static __device__ __inline__ double normcdf(double x) {
  if (isnan_(x)) return x + x;
  if (isinf_(x)) return x > 0 ? 1.0 : 0.0;
  // erfc(-x/√2)/2 with the argument in dd: erfc(t + dt) ≈ erfc(t) - 2/√π e^(-t²) dt.
  dd t = dd_mul_d(dd{CUGEN_INV_SQRT2_HI, CUGEN_INV_SQRT2_LO}, -x);
  double c = erfc(t.hi);
  if (t.hi > 0.84375 && t.hi < 27.3) {
    dd t2 = two_prod(t.hi, t.hi);
    exp_parts e = exp_kernel(-t2.hi, -t2.lo);
    c -= scale_d((e.m.hi + e.m.lo) * CUGEN_TWO_OVER_SQRTPI_HI * t.lo, e.k);
  } else {
    c -= CUGEN_TWO_OVER_SQRTPI_HI * exp(-t.hi * t.hi) * t.lo;
  }
  return c * 0.5;
}

static __device__ __inline__ double normcdfinv(double p) {
  if (isnan_(p)) return p + p;
  if (p <= 0.0) return p == 0.0 ? -__builtin_inf() : nan_();
  if (p >= 1.0) return p == 1.0 ? __builtin_inf() : nan_();
  return -CUGEN_SQRT2_HI * erfcinv(2.0 * p);
}

// ---- gamma ----

// lgamma(x) as dd for x > 0 finite.
CUGEN_INL dd lgamma_pos(double x) {
  if (x > 0x1p1000) { // x (log x - 1), the rest below its ulp; may overflow
    return {x * (log_core(x, 0.0).hi - 1.0), 0.0};
  }
  if (x >= 10.0) {
    dd l = log_core(x, 0.0);
    dd a = dd_mul_d(l, x - 0.5);
    a = dd_add_d(a, -x);
    a = dd_add(a, dd{CUGEN_LN_SQRT_2PI_HI, CUGEN_LN_SQRT_2PI_LO});
    double w = 1.0 / (x * x);
    return dd_add_d(a, __cugen_p_stirling_d(w) / x);
  }
  if (x < 0.5) { // lgamma(1+x) - log x
    dd g = two_prod(x, __cugen_p_lgamma1_d(x));
    return dd_add(g, dd_neg(log_core(x, 0.0)));
  }
  if (x < 1.25) return two_prod(x - 1.0, __cugen_p_lgamma1_d(x - 1.0));
  if (x < 2.5) return two_prod(x - 2.0, __cugen_p_lgamma2_d(x - 2.0));
  // x in [2.5, 10): lgamma(y) + log((y)(y+1)…(x-1)) with y in [1.5, 2.5)
  double y = x;
  dd p = {1.0, 0.0};
  while (y >= 2.5) {
    y -= 1.0;
    p = dd_mul_d(p, y);
  }
  dd g = two_prod(y - 2.0, __cugen_p_lgamma2_d(y - 2.0));
  return dd_add(g, log_core(p.hi, p.lo));
}

// lgamma(x) as dd and the sign of Γ(x), for finite x not a pole.
CUGEN_INL dd lgamma_dd(double x, int *sign) {
  *sign = 1;
  if (x > 0.0) return lgamma_pos(x);
  // Γ(x) Γ(-x) = -π/(x sin πx)
  dd s = sinpi_dd(x);
  dd xs = dd_mul_d(s, x);
  if (xs.hi < 0) xs = dd_neg(xs);
  *sign = s.hi < 0 ? -1 : 1;
  dd v = dd_div(dd{CUGEN_PI_HI, CUGEN_PI_LO}, xs);
  return dd_add(log_core(v.hi, v.lo), dd_neg(lgamma_pos(-x)));
}

static __device__ __inline__ double lgamma(double x) {
  if (isnan_(x)) return x + x;
  if (isinf_(x)) return __builtin_inf();
  if (x <= 0.0 && is_int_d(x)) return __builtin_inf();
  if (fabs_(x) < 0x1p-70) return -log(fabs_(x));
  int sg;
  dd r = lgamma_dd(x, &sg);
  return r.hi + r.lo;
}

static __device__ __inline__ double tgamma(double x) {
  if (isnan_(x)) return x + x;
  if (x == 0.0) return copysign_(__builtin_inf(), x);
  if (isinf_(x)) return x > 0 ? x : nan_();
  if (x < 0.0 && is_int_d(x)) return nan_();
  if (x > 171.62434887) return __builtin_inf();
  if (fabs_(x) < 0x1p-54) return 1.0 / x;
  if (x < -190.0) return copysign_(0.0, sinpi_dd(x).hi);
  int sg;
  dd l = lgamma_dd(x, &sg);
  double r = exp_dd_arg(l.hi, l.lo);
  return sg < 0 ? -r : r;
}

// ---- rounding and remainders ----

static __device__ __inline__ double floor(double x) { return __builtin_floor(x); }
static __device__ __inline__ double ceil(double x) { return __builtin_ceil(x); }
static __device__ __inline__ double trunc(double x) { return __builtin_trunc(x); }
static __device__ __inline__ double rint(double x) { return rint_(x); }
static __device__ __inline__ double nearbyint(double x) { return rint_(x); }
static __device__ __inline__ double round(double x) {
  double t = __builtin_trunc(x);
  if (fabs_(x - t) >= 0.5) t += copysign_(1.0, x);
  return t;
}
static __device__ __inline__ long long llrint(double x) {
  long long r;
  asm("cvt.rni.s64.f64 %0, %1;" : "=l"(r) : "d"(x));
  return r;
}
static __device__ __inline__ long lrint(double x) { return (long)llrint(x); }
static __device__ __inline__ long long llround(double x) {
  long long r;
  asm("cvt.rzi.s64.f64 %0, %1;" : "=l"(r) : "d"(round(x)));
  return r;
}
static __device__ __inline__ long lround(double x) { return (long)llround(x); }

static __device__ __inline__ double fabs(double x) { return fabs_(x); }
static __device__ __inline__ double copysign(double x, double y) { return copysign_(x, y); }
static __device__ __inline__ double fmin(double x, double y) { return __builtin_fmin(x, y); }
static __device__ __inline__ double fmax(double x, double y) { return __builtin_fmax(x, y); }
static __device__ __inline__ double fdim(double x, double y) {
  if (isnan_(x) || isnan_(y)) return x + y;
  return x > y ? x - y : 0.0;
}
static __device__ __inline__ double fma(double x, double y, double z) { return fma_(x, y, z); }

// x as m 2^e with m a 53-bit integer (x finite, nonzero).
CUGEN_INL unsigned long long mant_d(double x, int *e) {
  long long ix = dbits(x) & 0x7fffffffffffffffLL;
  int ex = (int)(ix >> 52);
  unsigned long long m = ix & 0xfffffffffffffULL;
  if (ex == 0) {
    int s = __builtin_clzll(m) - 11;
    m <<= s;
    ex = 1 - s;
  } else {
    m |= 1ULL << 52;
  }
  *e = ex - 1075;
  return m;
}

static __device__ __inline__ double ldexp(double x, int n) {
  if (x == 0.0 || isinf_(x) || isnan_(x)) return x + x;
  int e;
  unsigned long long m = mant_d(x, &e);
  // |x| = m 2^e, m in [2^52, 2^53): exponent of the result E = e + 52 + n.
  long long E = (long long)e + 52 + n;
  double mf = (double)m * 0x1p-52; // in [1, 2), exact
  double r;
  if (E > 1023) {
    r = __builtin_inf();
  } else if (E >= -1022) {
    r = mf * pow2d((int)E);
  } else if (E >= -1074) {
    r = mf * bitsd(1LL << (E + 1074)); // one rounding onto the subnormal grid
  } else {
    r = (mf * pow2d((int)(E < -1200 ? -126 : E + 1074))) * 0x1p-1074;
  }
  return copysign_(r, x);
}
static __device__ __inline__ double scalbn(double x, int n) { return ldexp(x, n); }
static __device__ __inline__ double scalbln(double x, long n) {
  return ldexp(x, n > 100000 ? 100000 : (n < -100000 ? -100000 : (int)n));
}

static __device__ __inline__ double frexp(double x, int *e) {
  if (x == 0.0 || isinf_(x) || isnan_(x)) {
    *e = 0;
    return x + x;
  }
  int ex;
  unsigned long long m = mant_d(x, &ex);
  *e = ex + 53;
  return copysign_((double)m * 0x1p-53, x);
}

static __device__ __inline__ int ilogb(double x) {
  if (x == 0.0 || isnan_(x)) return (int)0x80000000;
  if (isinf_(x)) return 0x7fffffff;
  int e;
  mant_d(x, &e);
  return e + 52;
}
static __device__ __inline__ double logb(double x) {
  if (isnan_(x)) return x + x;
  if (x == 0.0) return -__builtin_inf();
  if (isinf_(x)) return __builtin_inf();
  return (double)ilogb(x);
}

static __device__ __inline__ double modf(double x, double *ip) {
  double t = __builtin_trunc(x);
  *ip = t;
  if (isinf_(x)) return copysign_(0.0, x);
  return copysign_(x - t, x);
}

static __device__ __inline__ double nextafter(double x, double y) {
  if (isnan_(x) || isnan_(y)) return x + y;
  if (x == y) return y;
  if (x == 0.0) return copysign_(bitsd(1), y);
  long long ix = dbits(x);
  ix += ((x < y) == (x > 0.0)) ? 1 : -1;
  return bitsd(ix);
}

// |x| mod |y| by long division on the mantissas, with the low bits of the
// quotient: exact.
CUGEN_INL double rem_core(double ax, double ay, unsigned *quo) {
  int ex, ey;
  unsigned long long mx = mant_d(ax, &ex), my = mant_d(ay, &ey);
  unsigned q = 0;
  int n = ex - ey;
  if (n < 0) {
    *quo = 0;
    return ax;
  }
  if (mx >= my) {
    mx -= my;
    q = 1;
  }
  while (n > 0) {
    int s = n < 11 ? n : 11;
    mx <<= s;
    q = (q << s) + (unsigned)(mx / my);
    mx %= my;
    n -= s;
  }
  *quo = q;
  if (mx == 0) return 0.0;
  return ldexp((double)mx, ey);
}

static __device__ __inline__ double fmod(double x, double y) {
  if (isnan_(x) || isnan_(y) || isinf_(x) || y == 0.0) return nan_();
  if (isinf_(y) || x == 0.0) return x;
  unsigned q;
  return copysign_(rem_core(fabs_(x), fabs_(y), &q), x);
}

static __device__ __inline__ double remquo(double x, double y, int *quo) {
  *quo = 0;
  if (isnan_(x) || isnan_(y) || isinf_(x) || y == 0.0) return nan_();
  if (isinf_(y)) return x;
  double ay = fabs_(y);
  unsigned q;
  double r = rem_core(fabs_(x), ay, &q);
  double d = ay - r; // exact when r >= ay/2
  if (r > d || (r == d && (q & 1))) {
    r = -d;
    q++;
  }
  int qi = (int)(q & 0x7fffffff);
  *quo = (__builtin_signbit(x) != __builtin_signbit(y)) ? -qi : qi;
  return __builtin_signbit(x) ? -r : r;
}

static __device__ __inline__ double remainder(double x, double y) {
  int q;
  return remquo(x, y, &q);
}

static __device__ __inline__ double nan(const char *) { return nan_(); }

} // namespace __cugen

#endif
