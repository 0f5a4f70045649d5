#include "cuda_min.h"
typedef float float4v __attribute__((ext_vector_type(4)));
typedef __fp16 half;

extern "C" __global__ void vec4(const float4v *a, float4v *b, int n) {
  int i = CTAID_X * NTID_X + TID_X;
  if (i < n) { float4v v = a[i]; b[i] = v.wzyx * 2.0f; }
}

extern "C" __global__ void warp(int *o, unsigned mask) {
  int v = TID_X;
  v += __nvvm_shfl_sync_down_i32(mask, v, 4, 31);
  v += __nvvm_shfl_sync_bfly_i32(0xffffffff, v, 1, 31);
  unsigned b = __nvvm_vote_ballot_sync(0xffffffff, v & 1);
  __nvvm_bar_warp_sync(0xffffffff);
  o[TID_X] = v + __builtin_popcount(b) + __nvvm_read_ptx_sreg_laneid();
}

extern "C" __global__ void halfk(half *h, float *f, int n) {
  int i = TID_X;
  if (i < n) { h[i] = h[i] * (half)1.5f + (half)f[i]; f[i] = (float)h[i]; }
}

extern "C" __global__ void atom(int *p, unsigned long long *q, float *r) {
  __nvvm_atom_add_gen_i(p, 1);
  __nvvm_atom_cas_gen_i(p + 1, 0, TID_X);
  __nvvm_atom_max_gen_i(p + 2, (int)TID_X);
  __nvvm_atom_add_gen_ll((long long *)q, 1);
  __nvvm_atom_add_gen_f(r, 0.5f);
  __nvvm_membar_gl();
}

extern "C" __global__ void inl(int *o) {
  int x = TID_X, y;
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %1, 0;\n\tselp.b32 %0, 1, 2, p;\n\t}" : "=r"(y) : "r"(x));
  o[x] = y;
}

extern "C" __global__ void loc(int *o, int k) {
  int t[16];
  for (int i = 0; i < 16; i++) t[i] = o[i] * i;
  o[TID_X] = t[(k + TID_X) & 15];
}

extern "C" __global__ void mathk(double *d, float *f, long long *l, unsigned long long *u) {
  int i = TID_X;
  d[i] = __builtin_sqrt(d[i]) / d[i + 1] + __builtin_fma(d[i], 3.0, -1.0);
  f[i] = __builtin_fminf(f[i], -0.0f) + __builtin_copysignf(1.0f, f[i]) + __builtin_inff();
  l[i] = l[i] / (l[i + 1] | 1) + (l[i] >> 3);
  u[i] = u[i] % 1000000007ull + __builtin_clzll(u[i]) + __nvvm_read_ptx_sreg_clock64();
}
