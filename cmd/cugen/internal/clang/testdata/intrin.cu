// Kernels exercising cugen's device intrinsics under the clang route; the
// Go test (clang_intrin_test.go) checks every output against Go.
#include <cuda_runtime.h>
#include <math_constants.h>
#include <cmath>

#define OUT(v) o[(k++) * n + i] = (v)

// 32-bit integer and bit intrinsics: o[k*n+i] for each op k.
extern "C" __global__ void ints(const unsigned *a, const unsigned *b, const unsigned *c, unsigned *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i], z = c[i];
  int sx = (int)x, sy = (int)y, sz = (int)z, k = 0;
  OUT((unsigned)__popc(x));
  OUT((unsigned)__clz(sx));
  OUT((unsigned)__ffs(sx));
  OUT(__brev(x));
  OUT(__byte_perm(x, y, z));
  OUT(__funnelshift_l(x, y, z));
  OUT(__funnelshift_lc(x, y, z));
  OUT(__funnelshift_r(x, y, z));
  OUT(__funnelshift_rc(x, y, z));
  OUT((unsigned)__mul24(sx, sy));
  OUT(__umul24(x, y));
  OUT((unsigned)__mulhi(sx, sy));
  OUT(__umulhi(x, y));
  OUT(__sad(sx, sy, z));
  OUT(__usad(x, y, z));
  OUT((unsigned)__hadd(sx, sy));
  OUT((unsigned)__rhadd(sx, sy));
  OUT(__uhadd(x, y));
  OUT(__urhadd(x, y));
  OUT((unsigned)__dp4a(sx, sy, sz));
  OUT(__dp4a(x, y, z));
  OUT((unsigned)__dp2a_lo(sx, sy, sz));
  OUT((unsigned)__dp2a_hi(sx, sy, sz));
  OUT((unsigned)min(sx, sy));
  OUT((unsigned)max(sx, sy));
  OUT(min(x, y));
  OUT(max(x, y));
  OUT(__fns(x, z & 31, (int)(y % 9) - 4));
  OUT((unsigned)abs(sx));
}

// 64-bit integer intrinsics.
extern "C" __global__ void ints64(const unsigned long long *a, const unsigned long long *b, unsigned long long *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = a[i], y = b[i];
  long long sx = (long long)x, sy = (long long)y;
  int k = 0;
  OUT((unsigned long long)__popcll(x));
  OUT((unsigned long long)__clzll(sx));
  OUT((unsigned long long)__ffsll(sx));
  OUT(__brevll(x));
  OUT((unsigned long long)__mul64hi(sx, sy));
  OUT(__umul64hi(x, y));
  OUT((unsigned long long)llmin(sx, sy));
  OUT((unsigned long long)llmax(sx, sy));
  OUT(ullmin(x, y));
  OUT(ullmax(x, y));
  OUT((unsigned long long)llabs(sx));
}

// Conversions and arithmetic with explicit rounding, and the float
// functions that return integers or two results. Everything is written as
// the bits of a 64-bit word.
extern "C" __global__ void conv(const float *fa, const float *fb, const float *fc, const double *da, const double *db,
                                unsigned long long *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = fa[i], y = fb[i], z = fc[i];
  double u = da[i], v = db[i];
  int k = 0;
#define F(e) OUT((unsigned long long)__float_as_uint(e))
#define D(e) OUT((unsigned long long)__double_as_longlong(e))
#define I(e) OUT((unsigned long long)(long long)(e))
  I(__float2int_rn(x)); I(__float2int_rz(x)); I(__float2int_ru(x)); I(__float2int_rd(x));
  I(__float2uint_rn(x)); I(__float2uint_rz(x)); I(__float2ll_rn(x)); I(__float2ll_rd(x)); I(__float2ull_ru(x));
  I(__double2int_rn(u)); I(__double2int_rz(u)); I(__double2uint_ru(u)); I(__double2ll_rd(u)); I(__double2ull_rn(u));
  // integers of every size from v in (0, 1) (rounded as written: no fma)
#define LIN(a, b) __dadd_rn(__dmul_rn(v, a), b)
  F(__int2float_rn((int)LIN(2e9, -1e9))); F(__int2float_rz((int)LIN(2e9, -1e9))); F(__uint2float_ru((unsigned)(v * 4e9)));
  F(__ll2float_rd((long long)LIN(1e18, -5e17))); F(__ull2float_rn((unsigned long long)(v * 1e19)));
  D(__ll2double_rz((long long)LIN(9e18, -4.5e18))); D(__ull2double_ru((unsigned long long)(v * 1.8e19)));
  F(__double2float_rn(u)); F(__double2float_rz(u)); F(__double2float_ru(u)); F(__double2float_rd(u));
  F(__fadd_rn(x, y)); F(__fadd_rz(x, y)); F(__fadd_ru(x, y)); F(__fadd_rd(x, y));
  F(__fsub_rn(x, y)); F(__fmul_rn(x, y)); F(__fmul_rz(x, y)); F(__fdiv_rn(x, y)); F(__fdiv_ru(x, y));
  F(__fmaf_rn(x, y, z)); F(__fmaf_rz(x, y, z)); F(__frcp_rn(x)); F(__frcp_rd(x)); F(__fsqrt_rn(fabsf(x))); F(__fsqrt_ru(fabsf(x)));
  D(__dadd_rn(u, v)); D(__dadd_rz(u, v)); D(__dmul_rn(u, v)); D(__dmul_ru(u, v)); D(__ddiv_rn(u, v)); D(__ddiv_rd(u, v));
  D(__fma_rn(u, v, u)); D(__fma_rz(u, v, u)); D(__drcp_rn(u)); D(__dsqrt_rn(fabs(u)));
  I(__double2hiint(u)); I(__double2loint(u)); D(__hiloint2double(__double2hiint(v), __double2loint(u)));
  I(__float_as_int(x)); F(__int_as_float(__float_as_int(y)));
  I(ilogbf(x)); I(ilogb(u)); I(lrintf(x)); I(llrint(u)); I(lroundf(x)); I(llround(u));
  int e;
  F(frexpf(x, &e)); I(e);
  D(frexp(u, &e)); I(e);
  float fi;
  F(modff(x, &fi)); F(fi);
  double di;
  D(modf(u, &di)); D(di);
  int q;
  F(remquof(x, y, &q)); I(q & 7);
  D(remquo(u, v, &q)); I(q & 7);
  float s, cs;
  sincosf(x, &s, &cs); F(s); F(cs);
  double ds, dc;
  sincos(u, &ds, &dc); D(ds); D(dc);
  sincospif(x, &s, &cs); F(s); F(cs);
  F(ldexpf(x, (int)(v * 40))); D(ldexp(u, (int)(v * 300))); F(scalbnf(y, -30));
  I(isnan(x)); I(isinf(x)); I(isfinite(u)); I(signbit(u)); I(std::isnan(u));
  F(__saturatef(x)); F(__fdividef(x, y));
  F(__expf(z)); F(__exp10f(z)); F(__logf(fabsf(x))); F(__log2f(fabsf(x))); F(__log10f(fabsf(x)));
  F(__powf(fabsf(x), z)); F(__sinf(z)); F(__cosf(z)); F(__tanf(z)); F(rsqrtf(fabsf(x)));
#undef F
#undef D
#undef I
}

// Constants of <math.h>, math_constants.h and vector_types.h.
extern "C" __global__ void consts(double *o, int *ok) {
  o[0] = INFINITY;
  o[1] = NAN;
  o[2] = M_PI;
  o[3] = CUDART_PI_F;
  o[4] = CUDART_INF;
  o[5] = M_SQRT2;
  o[6] = HUGE_VALF;
  int *np = NULL;
  float4 f = make_float4(1, 2, 3, 4);
  int3 i3 = make_int3(5, 6, 7);
  double2 d2 = make_double2(8, 9);
  uchar4 u4 = make_uchar4(10, 11, 12, 13);
  longlong2 l2 = make_longlong2(14, 15);
  ulong1 ul = make_ulong1(16);
  ushort3 s3 = make_ushort3(17, 18, 19);
  dim3 d = dim3(20, 21);
  ok[0] = np == 0;
  ok[1] = sizeof(float4) == 16 && alignof(float4) == 16 && sizeof(int3) == 12 && alignof(int3) == 4 &&
          sizeof(double2) == 16 && sizeof(longlong4) == 32 && alignof(double4) == 16 && sizeof(char3) == 3 &&
          alignof(short2) == 4 && sizeof(dim3) == 12;
  ok[2] = (int)(f.x + f.y + f.z + f.w + i3.x + i3.y + i3.z + d2.x + d2.y + u4.x + u4.y + u4.z + u4.w + l2.x + l2.y +
                ul.x + s3.x + s3.y + s3.z + d.x + d.y + d.z);
  ok[3] = warpSize;
}

// Loads and stores with cache operators.
extern "C" __global__ void ldst(const float *a, const double *b, const float4 *c, float *o, double *od, float4 *o4, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = __ldg(&a[i]) + __ldcg(&a[i]) + __ldca(&a[i]) + __ldcs(&a[i]) + __ldlu(&a[i]) + __ldcv(&a[i]);
  double y = __ldg(&b[i]) + __ldcs(&b[i]);
  float4 v = __ldg(&c[i]);
  __stcs(&o[i], x);
  __stwb(&od[i], y);
  __stcg(&o4[i], v);
  __stwt(&o[n + i], (float)__ldg((const char *)&a[i]));
}
