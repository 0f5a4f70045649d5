#include "cuda_min.h"

__device__ int counter;
__device__ float table[4] = {1.0f, -2.5f, 0.125f, 3.0f};
__device__ int *ptrs[2] = {&counter, &counter};
__device__ char msg[] = "hello";
__device__ struct { int a; int *p; } mixed = {7, &counter};
__constant__ double coef[3] = {0.5, 0.25, -1.0};
extern __shared__ float dyn[];

typedef float (*unop)(float);
__device__ __noinline__ float twice(float x) { return 2 * x; }
__device__ __noinline__ float neg(float x) { return -x; }
__device__ unop ops[2] = {twice, neg};

extern "C" __global__ void __launch_bounds__(128, 4) saxpy(int n, float a, const float *x, float *y) {
  int i = CTAID_X * NTID_X + TID_X;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void reduce(const float *in, float *out, int n) {
  unsigned t = TID_X;
  dyn[t] = t < (unsigned)n ? in[t] : 0.f;
  SYNC();
  for (unsigned k = NTID_X / 2; k > 0; k >>= 1) {
    if (t < k) dyn[t] += dyn[t + k];
    SYNC();
  }
  if (t == 0) out[CTAID_X] = dyn[0];
}

extern "C" __global__ void indirect(float *x, int which) {
  unsigned t = TID_X;
  x[t] = ops[which & 1](x[t]) + table[t & 3];

  __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
}

extern "C" __global__ void sw(int *o, int k) {
  int r;
  switch (k) {
  case 0: r = 11; break;
  case 1: r = 23; break;
  case 2: r = 37; break;
  case 3: r = 41; break;
  case 4: r = 53; break;
  case 5: r = 67; break;
  default: r = -1;
  }
  o[TID_X] = r + (int)coef[k & 1];
}

extern "C" __global__ void hello(int v, double d) {
  struct { int v; double d; } args = {v, d};
  if (TID_X == 0) vprintf("v=%d d=%f\n", &args);
}

extern "C" __global__ void usemixed(int *o) {
  o[TID_X] = mixed.a + *mixed.p + msg[TID_X & 3] + *ptrs[TID_X & 1];
}

__device__ __noinline__ float poly(float x, int n) {
  float r = 0.f;
  for (int i = 0; i < n; i++) r = r * x + 1.5f;
  return r;
}

extern "C" __global__ void tiled(const float *a, float *b, int n) {
  __shared__ float tile[16][17];
  unsigned tx = TID_X, ty = TID_Y;
  tile[ty][tx] = a[ty * 16 + tx];
  SYNC();
  b[tx * 16 + ty] = poly(tile[tx][ty], n);
}
extern "C" __global__ void setmixed(int v) { mixed.a = v; mixed.p = ptrs[v & 1]; }
struct __attribute__((packed)) Packed { char tag; int *p; short s; };
__device__ Packed packed = {3, &counter, -2};
extern "C" __global__ void usepacked(int v) { packed.tag = v; *packed.p += packed.s; }
