// cugen/math_float.h: the CUDA Math API in single precision, written for
// cugen (no libdevice). The common functions (exp, log, trig, hyperbolic,
// erf) are evaluated in float with fused multiply-adds and float-float
// corrections where the bound is tight; the rarer ones whose float
// implementations would need extended precision throughout (pow, cbrt,
// hypot, the gamma and inverse error functions) round the double result.
#ifndef CUGEN_MATH_FLOAT_H
#define CUGEN_MATH_FLOAT_H
#pragma clang system_header

namespace __cugen {

// ---- exponentials ----

// x = k ln2 + (rh + rl), for |x| < 2^8.
struct red_expf {
  float rh, rl;
  int k;
};
CUGEN_INL red_expf reduce_ln2f(float x) {
  float k = rintf_(x * CUGEN_LOG2EF_HI);
  float t = fmaf_(-k, CUGEN_LN2F_CW_1, x); // exact
  float rh = fmaf_(-k, CUGEN_LN2F_CW_2, t);
  float rl = fmaf_(-k, CUGEN_LN2F_CW_2, t - rh) - k * CUGEN_LN2F_CW_3;
  return {rh, rl, (int)k};
}

// e^x = 2^k (hi + lo) with about 2^-35 relative error, for |x| < 2^8.
struct expf_parts {
  ff m;
  int k;
};
CUGEN_INL expf_parts expf_kernel(float x) {
  red_expf r = reduce_ln2f(x);
  float q = r.rh * r.rh * __cugen_p_exp_f(r.rh);
  ff p = ffast_two_sum(r.rh, q);
  p.lo += r.rl + r.rl * p.hi;
  ff m = ffast_two_sum(1.0f, p.hi);
  m.lo += p.lo;
  return {m, r.k};
}

static __device__ __inline__ float expf(float x) {
  if (isnanf_(x)) return x + x;
  if (x > 88.72283935546875f) return __builtin_inff();
  if (x < -103.98f) return 0.0f;
  red_expf r = reduce_ln2f(x);
  float p = fmaf_(r.rh * r.rh, __cugen_p_exp_f(r.rh), r.rh + r.rl);
  return scale_f(1.0f + p, r.k);
}

static __device__ __inline__ float exp2f(float x) {
  if (isnanf_(x)) return x + x;
  if (x >= 128.0f) return __builtin_inff();
  if (x < -151.0f) return 0.0f;
  float k = rintf_(x);
  float r = x - k;
  return scale_f(fmaf_(r, __cugen_p_exp2_f(r), 1.0f), (int)k);
}

static __device__ __inline__ float exp10f(float x) {
  if (isnanf_(x)) return x + x;
  if (x > 38.5318394f) return __builtin_inff();
  if (x < -45.5f) return 0.0f;
  float k = rintf_(x * 3.32192809f);
  float r = fmaf_(-k, CUGEN_LOG10_2F_CW_1, x);
  r = fmaf_(-k, CUGEN_LOG10_2F_CW_2, r);
  r = fmaf_(-k, CUGEN_LOG10_2F_CW_3, r);
  return scale_f(fmaf_(r, __cugen_p_exp10_f(r), 1.0f), (int)k);
}

static __device__ __inline__ float expm1f(float x) {
  if (isnanf_(x)) return x + x;
  if (x > 88.72283935546875f) return __builtin_inff();
  if (x < -17.33f) return -1.0f;
  if (fabsf_(x) <= 0.3465735903f) {
    if (x == 0.0f) return x;
    return fmaf_(x * x, __cugen_p_exp_f(x), x);
  }
  red_expf r = reduce_ln2f(x);
  float q = r.rh * r.rh * __cugen_p_exp_f(r.rh);
  ff p = ftwo_sum(r.rh, q);
  float low = p.lo + r.rl * (1.0f + p.hi);
  // 2^k (1 + p) - 1 = 2^k p + (2^k - 1), summed exactly where it matters.
  if (r.k > 24) return scale_f(1.0f + (p.hi + low), r.k);
  float t = pow2f(r.k);
  ff s = ftwo_sum(t * p.hi, t - 1.0f);
  return s.hi + (s.lo + t * low);
}

// ---- logarithms ----

// log(x) = e ln2 + log1p(f) for x = xh + xl > 0 finite: returns the
// exponent e and f = m - 1 (exact) with the correction of xl.
struct logf_parts {
  float f, fl, e;
};
CUGEN_INL logf_parts logf_split(float xh, float xl) {
  float e0 = 0.0f;
  if (xh < 0x1p-126f) {
    xh *= 0x1p23f;
    xl *= 0x1p23f;
    e0 = -23.0f;
  }
  int ix = fbits(xh);
  int e = (ix - 0x3f2aaaab) >> 23; // m in [2/3, 4/3)
  float m = bitsf(ix - (e << 23));
  float ml = xl == 0.0f ? 0.0f : scale_f(xl, -e);
  return {m - 1.0f, ml, (float)e + e0};
}

// log(x) as ff, with e ln2 added.
CUGEN_INL ff logf_ff(float xh, float xl) {
  logf_parts s = logf_split(xh, xl);
  float f = s.f;
  // log(1 + f + fl) = log1p(f) + fl/(1+f)
  float q = f * f * __cugen_p_log_f(f);
  ff a = ftwo_sum(s.e * CUGEN_LN2F_CW_1, f);
  float lo = a.lo + fmaf_(s.e, CUGEN_LN2F_CW_2, q) + s.fl / (1.0f + f);
  return ffast_two_sum(a.hi, lo);
}

CUGEN_INL float logf_special(float x) {
  if (isnanf_(x)) return x + x;
  if (x < 0.0f) return nanf_();
  if (x == 0.0f) return -__builtin_inff();
  return x;
}

static __device__ __inline__ float logf(float x) {
  if (!(x > 0.0f) || isinff_(x)) return logf_special(x);
  ff l = logf_ff(x, 0.0f);
  return l.hi + l.lo;
}

// log_b(x) = e log_b(2) + log1p(f) c with c = 1/ln b as ff.
CUGEN_INL float logf_base(float x, float ch, float cl, float l2h, float l2l) {
  logf_parts s = logf_split(x, 0.0f);
  float f = s.f;
  float q = f * f * __cugen_p_log_f(f);
  ff p = ftwo_prod(f, ch);
  ff a = ftwo_sum(s.e * l2h, p.hi);
  float lo = a.lo + p.lo + fmaf_(f, cl, fmaf_(q, ch, s.e * l2l));
  return a.hi + lo;
}

static __device__ __inline__ float log2f(float x) {
  if (!(x > 0.0f) || isinff_(x)) return logf_special(x);
  return logf_base(x, CUGEN_LOG2EF_HI, CUGEN_LOG2EF_LO, 1.0f, 0.0f);
}

static __device__ __inline__ float log10f(float x) {
  if (!(x > 0.0f) || isinff_(x)) return logf_special(x);
  return logf_base(x, CUGEN_INV_LN10F_HI, CUGEN_INV_LN10F_LO, CUGEN_LOG10_2F_HI, CUGEN_LOG10_2F_LO);
}

// log(1 + a) as ff for an ff value a > -1.
CUGEN_INL ff log1pf_ff(float ah, float al) {
  if (fabsf_(ah) <= 0.3333f) {
    float q = ah * ah * __cugen_p_log_f(ah);
    return ffast_two_sum(ah, q + al / (1.0f + ah));
  }
  ff u = ftwo_sum(1.0f, ah);
  return logf_ff(u.hi, u.lo + al);
}

static __device__ __inline__ float log1pf(float x) {
  if (isnanf_(x)) return x + x;
  if (x < -1.0f) return nanf_();
  if (x == -1.0f) return -__builtin_inff();
  if (isinff_(x)) return x;
  if (fabsf_(x) <= 0.3333f) {
    if (x == 0.0f) return x;
    return fmaf_(x * x, __cugen_p_log_f(x), x);
  }
  ff l = log1pf_ff(x, 0.0f);
  return l.hi + l.lo;
}

// ---- trigonometric ----

struct red_pio2f {
  ff r;
  int q;
};

// x = q π/2 + r with r as ff.
CUGEN_INL red_pio2f reduce_pio2f(float x) {
  if (fabsf_(x) > 131072.0f) {
    red_pio2 d = reduce_pio2((double)x);
    float h = (float)d.r.hi;
    return {{h, (float)((d.r.hi - (double)h) + d.r.lo)}, d.q};
  }
  float j = rintf_(x * 0.636619772f);
  float t = fmaf_(-j, CUGEN_PIO2F_CW_1, x); // exact
  ff c = ftwo_prod(j, CUGEN_PIO2F_CW_2);
  c.lo = fmaf_(j, CUGEN_PIO2F_CW_3, c.lo);
  ff r = ftwo_sum(t, -c.hi);
  r.lo -= c.lo;
  return {ffast_two_sum(r.hi, r.lo), (int)j & 3};
}

CUGEN_INL float sinf_kernel(ff r) {
  float z = r.hi * r.hi;
  return r.hi + fmaf_(r.hi * z, __cugen_p_sin_f(z), r.lo);
}
CUGEN_INL float cosf_kernel(ff r) {
  float z = r.hi * r.hi;
  float hz = 0.5f * z, w = 1.0f - hz;
  return w + (((1.0f - w) - hz) + fmaf_(z * z, __cugen_p_cos_f(z), -r.hi * r.lo));
}

static __device__ __inline__ float sinf(float x) {
  if (fabsf_(x) < 0x1p-12f) return x;
  if (isinff_(x)) return nanf_();
  red_pio2f r = reduce_pio2f(x);
  float v = (r.q & 1) ? cosf_kernel(r.r) : sinf_kernel(r.r);
  return (r.q & 2) ? -v : v;
}

static __device__ __inline__ float cosf(float x) {
  if (fabsf_(x) < 0x1p-13f) return 1.0f;
  if (isinff_(x)) return nanf_();
  red_pio2f r = reduce_pio2f(x);
  float v = (r.q & 1) ? sinf_kernel(r.r) : cosf_kernel(r.r);
  return ((r.q + 1) & 2) ? -v : v;
}

static __device__ __inline__ void sincosf(float x, float *s, float *c) {
  if (isinff_(x) || isnanf_(x)) {
    *s = *c = x - x;
    return;
  }
  if (fabsf_(x) < 0x1p-13f) {
    *s = x;
    *c = 1.0f;
    return;
  }
  red_pio2f r = reduce_pio2f(x);
  float sv = sinf_kernel(r.r), cv = cosf_kernel(r.r);
  float sn = (r.q & 1) ? cv : sv, cs = (r.q & 1) ? sv : cv;
  *s = (r.q & 2) ? -sn : sn;
  *c = ((r.q + 1) & 2) ? -cs : cs;
}

static __device__ __inline__ float tanf(float x) {
  if (fabsf_(x) < 0x1p-12f) return x;
  if (isinff_(x)) return nanf_();
  red_pio2f r = reduce_pio2f(x);
  float z = r.r.hi * r.r.hi;
  float p = fmaf_(r.r.hi * z, __cugen_p_tan_f(z), r.r.lo);
  ff t = ffast_two_sum(r.r.hi, p);
  if (!(r.q & 1)) return t.hi;
  // -1/t with t as ff.
  float y = -1.0f / t.hi;
  float e = fmaf_(y, t.hi, 1.0f);
  e = fmaf_(y, t.lo, e);
  return fmaf_(y, e, y);
}

struct red_pif {
  ff r;
  int q;
  bool zero;
};
CUGEN_INL red_pif reduce_pif(float x) {
  if (fabsf_(x) >= 0x1p23f) { // an integer
    int n = fabsf_(x) < 0x1p24f ? (int)x : 0;
    return {{0.0f, 0.0f}, (n & 1) * 2, true};
  }
  float j = rintf_(2.0f * x);
  float r = fmaf_(j, -0.5f, x);
  ff p = ftwo_prod(r, CUGEN_PIF_HI);
  p.lo = fmaf_(r, CUGEN_PIF_LO, p.lo);
  return {ffast_two_sum(p.hi, p.lo), (int)j & 3, r == 0.0f};
}

static __device__ __inline__ float sinpif(float x) {
  if (isinff_(x) || isnanf_(x)) return x - x;
  red_pif r = reduce_pif(x);
  if (r.zero && !(r.q & 1)) return copysignf_(0.0f, x);
  float v = (r.q & 1) ? cosf_kernel(r.r) : sinf_kernel(r.r);
  return (r.q & 2) ? -v : v;
}

static __device__ __inline__ float cospif(float x) {
  if (isinff_(x) || isnanf_(x)) return x - x;
  red_pif r = reduce_pif(x);
  if (r.zero && (r.q & 1)) return 0.0f;
  float v = (r.q & 1) ? sinf_kernel(r.r) : cosf_kernel(r.r);
  return ((r.q + 1) & 2) ? -v : v;
}

static __device__ __inline__ void sincospif(float x, float *s, float *c) {
  *s = sinpif(x);
  *c = cospif(x);
}

// ---- inverse trigonometric ----

// atan(t) for 0 <= t <= 1 as (t, tail): t + tail.
CUGEN_INL float atanf_tail(float t, float tl) {
  float z = t * t;
  return fmaf_(t * z, __cugen_p_atan_f(z), tl);
}

static __device__ __inline__ float atanf(float x) {
  if (isnanf_(x)) return x + x;
  float a = fabsf_(x);
  if (a < 0x1p-12f) return x;
  if (a > 0x1p30f) return copysignf_(CUGEN_PIO2F_HI, x);
  float r;
  if (a <= 1.0f) {
    r = a + atanf_tail(a, 0.0f);
  } else {
    // π/2 - atan(1/a) with 1/a as ff.
    float t = 1.0f / a;
    float tl = fmaf_(-a, t, 1.0f) * t;
    float tail = atanf_tail(t, tl);
    ff s = ftwo_sum(CUGEN_PIO2F_HI, -t);
    r = s.hi + (s.lo + (CUGEN_PIO2F_LO - tail));
  }
  return copysignf_(r, x);
}

static __device__ __inline__ float atan2f(float y, float x) {
  if (isnanf_(x) || isnanf_(y)) return x + y;
  float ax = fabsf_(x), ay = fabsf_(y);
  bool xneg = __builtin_signbit(x);
  if (isinff_(ax) || isinff_(ay) || ay == 0.0f || ax == 0.0f) {
    // The special cases, in double (exact).
    return (float)atan2((double)y, (double)x);
  }
  // Scale both into [2^-60, 2^60] so that the quotient is an accurate ff.
  int e = (int)((fbits(ax > ay ? ax : ay) >> 23) & 0xff) - 127;
  if (e < -100 || e > 100) {
    float s = e > 0 ? 0x1p-100f : 0x1p100f;
    ax *= s;
    ay *= s;
  }
  ff r;
  if (ay <= ax) {
    float t = ay / ax;
    float tl = fmaf_(-t, ax, ay) / ax;
    r = ffast_two_sum(t, atanf_tail(t, tl));
  } else {
    float t = ax / ay;
    float tl = fmaf_(-t, ay, ax) / ay;
    float tail = atanf_tail(t, tl);
    ff s = ftwo_sum(CUGEN_PIO2F_HI, -t);
    r = ffast_two_sum(s.hi, s.lo + (CUGEN_PIO2F_LO - tail));
  }
  if (xneg) {
    ff s = ftwo_sum(CUGEN_PIF_HI, -r.hi);
    r = ffast_two_sum(s.hi, s.lo + (CUGEN_PIF_LO - r.lo));
  }
  return copysignf_(r.hi + r.lo, y);
}

CUGEN_INL float asinf_tail(float s, float sl) {
  float z = s * s;
  return fmaf_(s * z, __cugen_p_asin_f(z), sl);
}

static __device__ __inline__ float asinf(float x) {
  if (isnanf_(x)) return x + x;
  float a = fabsf_(x);
  if (a > 1.0f) return nanf_();
  if (a < 0x1p-12f) return x;
  if (a == 1.0f) return copysignf_(CUGEN_PIO2F_HI, x);
  float r;
  if (a <= 0.5f) {
    r = a + asinf_tail(a, 0.0f);
  } else {
    float w = (1.0f - a) * 0.5f;
    float s = sqrtf_(w);
    float sl = fmaf_(-s, s, w) / (2.0f * s);
    float tail = asinf_tail(s, sl);
    ff d = ftwo_sum(CUGEN_PIO2F_HI, -2.0f * s);
    r = d.hi + (d.lo + (CUGEN_PIO2F_LO - 2.0f * tail));
  }
  return copysignf_(r, x);
}

static __device__ __inline__ float acosf(float x) {
  if (isnanf_(x)) return x + x;
  float a = fabsf_(x);
  if (a > 1.0f) return nanf_();
  if (x == 1.0f) return 0.0f;
  if (x == -1.0f) return CUGEN_PIF_HI;
  if (a <= 0.5f) {
    float tail = asinf_tail(a, 0.0f);
    float sa = copysignf_(a, x), st = copysignf_(tail, x);
    ff d = ftwo_sum(CUGEN_PIO2F_HI, -sa);
    return d.hi + (d.lo + (CUGEN_PIO2F_LO - st));
  }
  float w = (1.0f - a) * 0.5f;
  float s = sqrtf_(w);
  float sl = fmaf_(-s, s, w) / (2.0f * s);
  float tail = asinf_tail(s, sl);
  if (x > 0.0f) return 2.0f * s + 2.0f * tail;
  ff d = ftwo_sum(CUGEN_PIF_HI, -2.0f * s);
  return d.hi + (d.lo + (CUGEN_PIF_LO - 2.0f * tail));
}

// ---- hyperbolic ----

static __device__ __inline__ float sinhf(float x) {
  if (isnanf_(x)) return x + x;
  float a = fabsf_(x);
  float r;
  if (a < 1.0f) {
    if (a < 0x1p-12f) return x;
    float z = a * a;
    r = fmaf_(a * z, __cugen_p_sinh_f(z), a);
  } else {
    if (a > 89.5f) return copysignf_(__builtin_inff(), x);
    expf_parts e = expf_kernel(a);
    if (a > 9.0f) {
      r = scale_f(e.m.hi + e.m.lo, e.k - 1);
    } else {
      float s = pow2f(e.k);
      ff E = {e.m.hi * s, e.m.lo * s};
      float inv = 1.0f / E.hi;
      r = 0.5f * (E.hi + (E.lo - inv));
    }
  }
  return copysignf_(r, x);
}

static __device__ __inline__ float coshf(float x) {
  if (isnanf_(x)) return x + x;
  float a = fabsf_(x);
  if (a > 89.5f) return __builtin_inff();
  expf_parts e = expf_kernel(a);
  if (a > 9.0f) return scale_f(e.m.hi + e.m.lo, e.k - 1);
  float s = pow2f(e.k);
  ff E = {e.m.hi * s, e.m.lo * s};
  float inv = 1.0f / E.hi;
  float invl = fmaf_(-inv, E.hi, 1.0f) - inv * E.lo;
  invl *= inv;
  ff c = ftwo_sum(E.hi, inv);
  return 0.5f * (c.hi + (c.lo + E.lo + invl));
}

static __device__ __inline__ float tanhf(float x) {
  if (isnanf_(x)) return x + x;
  float a = fabsf_(x);
  float r;
  if (a <= 0.5625f) {
    if (a < 0x1p-12f) return x;
    float z = a * a;
    r = fmaf_(a * z, __cugen_p_tanh_f(z), a);
  } else if (a >= 9.1f) {
    r = 1.0f;
  } else {
    // 1 - 2/(e^2a + 1) in ff.
    expf_parts e = expf_kernel(2.0f * a);
    float s = pow2f(e.k);
    ff d = ffast_two_sum(e.m.hi * s, 1.0f);
    d.lo += e.m.lo * s;
    float q = 2.0f / d.hi;
    float ql = (fmaf_(-q, d.hi, 2.0f) - q * d.lo) / d.hi;
    ff t = ftwo_sum(1.0f, -q);
    r = t.hi + (t.lo - ql);
  }
  return copysignf_(r, x);
}

static __device__ __inline__ float asinhf(float x) {
  if (isnanf_(x) || isinff_(x)) return x + x;
  float a = fabsf_(x);
  if (a < 0x1p-12f) return x;
  ff l;
  if (a > 0x1p12f) {
    l = logf_ff(a, 0.0f);
    l = ffast_two_sum(l.hi + CUGEN_LN2F_HI, l.lo + CUGEN_LN2F_LO);
  } else {
    float z = a * a;
    float w = z / (1.0f + sqrtf_(1.0f + z));
    ff u = ftwo_sum(a, w);
    l = log1pf_ff(u.hi, u.lo);
  }
  return copysignf_(l.hi + l.lo, x);
}

static __device__ __inline__ float acoshf(float x) {
  if (isnanf_(x)) return x + x;
  if (x < 1.0f) return nanf_();
  if (isinff_(x)) return x;
  ff l;
  if (x > 0x1p12f) {
    l = logf_ff(x, 0.0f);
    l = ffast_two_sum(l.hi + CUGEN_LN2F_HI, l.lo + CUGEN_LN2F_LO);
  } else {
    float a = x - 1.0f;
    ff t = ftwo_sum(a, sqrtf_(a * (a + 2.0f)));
    l = log1pf_ff(t.hi, t.lo);
  }
  return l.hi + l.lo;
}

static __device__ __inline__ float atanhf(float x) {
  if (isnanf_(x)) return x + x;
  float a = fabsf_(x);
  if (a > 1.0f) return nanf_();
  if (a == 1.0f) return copysignf_(__builtin_inff(), x);
  if (a < 0x1p-12f) return x;
  ff d = ftwo_sum(1.0f, -a);
  float q = 2.0f * a / d.hi;
  float ql = (fmaf_(-q, d.hi, 2.0f * a) - q * d.lo) / d.hi;
  ff l = log1pf_ff(q, ql);
  return copysignf_(0.5f * (l.hi + l.lo), x);
}

// ---- error function ----

// erfc(x) for 0.5 <= x: e^(-x²) (1+2x) erfcx(x) / (1+2x).
CUGEN_INL float erfcf_tail(float x) {
  if (x > 10.06f) return 0.0f;
  ff x2 = ftwo_prod(x, x);
  expf_parts e = expf_kernel(-x2.hi);
  float m = (e.m.hi + e.m.lo) * (1.0f - x2.lo);
  float t = (x - 2.0f) / (x + 2.0f);
  return scale_f(m * __cugen_p_erfcx_f(t) / fmaf_(2.0f, x, 1.0f), e.k);
}

static __device__ __inline__ float erff(float x) {
  if (isnanf_(x)) return x + x;
  float a = fabsf_(x);
  if (a < 0.84375f) return fmaf_(x, __cugen_p_erf_f(x * x), x);
  if (a >= 3.92f) return copysignf_(1.0f, x);
  return copysignf_(1.0f - erfcf_tail(a), x);
}

static __device__ __inline__ float erfcf(float x) {
  if (isnanf_(x)) return x + x;
  if (x < -3.92f) return 2.0f;
  float a = fabsf_(x);
  if (a < 0.5f) {
    ff e = ffast_two_sum(x, x * __cugen_p_erf_f(x * x));
    ff r = ftwo_sum(1.0f, -e.hi);
    return r.hi + (r.lo - e.lo);
  }
  // The tail through double: erfc's products and quotient round several
  // times, and its bound (4 ulp) leaves no room for float's.
  float c = (float)erfc_tail((double)a);
  return x > 0.0f ? c : 2.0f - c;
}

// ---- rounding and remainders ----

static __device__ __inline__ float floorf(float x) { return __builtin_floorf(x); }
static __device__ __inline__ float ceilf(float x) { return __builtin_ceilf(x); }
static __device__ __inline__ float truncf(float x) { return __builtin_truncf(x); }
static __device__ __inline__ float rintf(float x) { return rintf_(x); }
static __device__ __inline__ float nearbyintf(float x) { return rintf_(x); }
static __device__ __inline__ float roundf(float x) {
  float t = __builtin_truncf(x);
  if (fabsf_(x - t) >= 0.5f) t += copysignf_(1.0f, x);
  return t;
}
static __device__ __inline__ long long llrintf(float x) {
  long long r;
  asm("cvt.rni.s64.f32 %0, %1;" : "=l"(r) : "f"(x));
  return r;
}
static __device__ __inline__ long lrintf(float x) { return (long)llrintf(x); }
static __device__ __inline__ long long llroundf(float x) {
  long long r;
  asm("cvt.rzi.s64.f32 %0, %1;" : "=l"(r) : "f"(roundf(x)));
  return r;
}
static __device__ __inline__ long lroundf(float x) { return (long)llroundf(x); }

static __device__ __inline__ float fabsf(float x) { return fabsf_(x); }
static __device__ __inline__ float copysignf(float x, float y) { return copysignf_(x, y); }
static __device__ __inline__ float fminf(float x, float y) { return __builtin_fminf(x, y); }
static __device__ __inline__ float fmaxf(float x, float y) { return __builtin_fmaxf(x, y); }
static __device__ __inline__ float fdimf(float x, float y) {
  if (isnanf_(x) || isnanf_(y)) return x + y;
  return x > y ? x - y : 0.0f;
}
static __device__ __inline__ float fmaf(float x, float y, float z) { return fmaf_(x, y, z); }
static __device__ __inline__ float sqrtf(float x) { return sqrtf_(x); }
static __device__ __inline__ float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }

static __device__ __inline__ float ldexpf(float x, int n) {
  if (x == 0.0f || isinff_(x) || isnanf_(x)) return x + x;
  return (float)ldexp((double)x, n < -2000 ? -2000 : (n > 2000 ? 2000 : n));
}
static __device__ __inline__ float scalbnf(float x, int n) { return ldexpf(x, n); }
static __device__ __inline__ float scalblnf(float x, long n) {
  return ldexpf(x, n > 100000 ? 100000 : (n < -100000 ? -100000 : (int)n));
}
static __device__ __inline__ float frexpf(float x, int *e) {
  if (x == 0.0f || isinff_(x) || isnanf_(x)) {
    *e = 0;
    return x + x;
  }
  return (float)frexp((double)x, e);
}
static __device__ __inline__ int ilogbf(float x) {
  if (x == 0.0f || isnanf_(x)) return (int)0x80000000;
  if (isinff_(x)) return 0x7fffffff;
  return ilogb((double)x);
}
static __device__ __inline__ float logbf(float x) {
  if (isnanf_(x)) return x + x;
  if (x == 0.0f) return -__builtin_inff();
  if (isinff_(x)) return __builtin_inff();
  return (float)ilogbf(x);
}
static __device__ __inline__ float modff(float x, float *ip) {
  float t = __builtin_truncf(x);
  *ip = t;
  if (isinff_(x)) return copysignf_(0.0f, x);
  return copysignf_(x - t, x);
}
static __device__ __inline__ float nextafterf(float x, float y) {
  if (isnanf_(x) || isnanf_(y)) return x + y;
  if (x == y) return y;
  if (x == 0.0f) return copysignf_(bitsf(1), y);
  int ix = fbits(x);
  ix += ((x < y) == (x > 0.0f)) ? 1 : -1;
  return bitsf(ix);
}
// The remainders of floats are exact in double: |x| mod |y| of two floats
// is a float, and the double long division finds it.
static __device__ __inline__ float fmodf(float x, float y) { return (float)fmod((double)x, (double)y); }
static __device__ __inline__ float remquof(float x, float y, int *q) { return (float)remquo((double)x, (double)y, q); }
static __device__ __inline__ float remainderf(float x, float y) { return (float)remainder((double)x, (double)y); }
static __device__ __inline__ float nanf(const char *) { return nanf_(); }

// ---- through double ----

static __device__ __inline__ float powf(float x, float y) {
  if (y == 0.0f || x == 1.0f) return 1.0f;
  if (isnanf_(x) || isnanf_(y)) return x + y;
  double ax = fabs_((double)x), dy = (double)y;
  bool yint = rintf_(y) == y, yodd = yint && fabsf_(y) < 0x1p24f && rintf_(y * 0.5f) != y * 0.5f;
  if (isinff_(y)) {
    if (ax == 1.0) return 1.0f;
    return (ax < 1.0) == (y < 0.0f) ? __builtin_inff() : 0.0f;
  }
  if (x == 0.0f || isinff_(x)) {
    float r = (x == 0.0f) == (y < 0.0f) ? __builtin_inff() : 0.0f;
    return yodd ? copysignf_(r, x) : r;
  }
  if (x < 0.0f && !yint) return nanf_();
  // |x|^y = e^(y log|x|): y log|x| < 2^8, so double log and exp give a
  // result within 2^-44 of it.
  dd l = log_core(ax, 0.0);
  double t = l.hi * dy;
  float r = t > 89.0 ? __builtin_inff() : (t < -104.0 ? 0.0f : (float)exp_dd_arg(t, fma_(l.hi, dy, -t) + l.lo * dy));
  return (x < 0.0f && yodd) ? -r : r;
}

static __device__ __inline__ float cbrtf(float x) { return (float)cbrt((double)x); }
static __device__ __inline__ float rcbrtf(float x) { return (float)rcbrt((double)x); }
static __device__ __inline__ float hypotf(float x, float y) {
  if (isinff_(x) || isinff_(y)) return __builtin_inff();
  double a = x, b = y;
  return (float)sqrt_(a * a + b * b);
}
static __device__ __inline__ float rhypotf(float x, float y) {
  if (isinff_(x) || isinff_(y)) return 0.0f;
  double a = x, b = y;
  return (float)rsqrt(a * a + b * b);
}
static __device__ __inline__ float norm3df(float x, float y, float z) {
  if (isinff_(x) || isinff_(y) || isinff_(z)) return __builtin_inff();
  double a = x, b = y, c = z;
  return (float)sqrt_(a * a + b * b + c * c);
}
static __device__ __inline__ float rnorm3df(float x, float y, float z) {
  if (isinff_(x) || isinff_(y) || isinff_(z)) return 0.0f;
  double a = x, b = y, c = z;
  return (float)rsqrt(a * a + b * b + c * c);
}
static __device__ __inline__ float norm4df(float x, float y, float z, float w) {
  if (isinff_(x) || isinff_(y) || isinff_(z) || isinff_(w)) return __builtin_inff();
  double a = x, b = y, c = z, d = w;
  return (float)sqrt_(a * a + b * b + c * c + d * d);
}
static __device__ __inline__ float rnorm4df(float x, float y, float z, float w) {
  if (isinff_(x) || isinff_(y) || isinff_(z) || isinff_(w)) return 0.0f;
  double a = x, b = y, c = z, d = w;
  return (float)rsqrt(a * a + b * b + c * c + d * d);
}
static __device__ __inline__ float normf(int n, const float *a) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    if (isinff_(a[i])) return __builtin_inff();
    s = fma_((double)a[i], (double)a[i], s);
  }
  return (float)sqrt_(s);
}
static __device__ __inline__ float rnormf(int n, const float *a) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    if (isinff_(a[i])) return 0.0f;
    s = fma_((double)a[i], (double)a[i], s);
  }
  return (float)rsqrt(s);
}
static __device__ __inline__ float lgammaf(float x) { return (float)lgamma((double)x); }
static __device__ __inline__ float tgammaf(float x) { return (float)tgamma((double)x); }
static __device__ __inline__ float erfinvf(float x) { return (float)erfinv((double)x); }
static __device__ __inline__ float erfcinvf(float x) { return (float)erfcinv((double)x); }
static __device__ __inline__ float erfcxf(float x) { return (float)erfcx((double)x); }
static __device__ __inline__ float normcdff(float x) { return (float)normcdf((double)x); }
static __device__ __inline__ float normcdfinvf(float x) { return (float)normcdfinv((double)x); }

} // namespace __cugen

#endif
