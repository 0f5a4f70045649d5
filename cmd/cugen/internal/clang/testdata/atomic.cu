// Atomics of every type and scope under the clang route; the Go test
// (clang_atomic_test.go) checks the totals, which do not depend on order.
#include <cuda_runtime.h>

extern "C" __global__ void atomics(const int *x, int *ai, unsigned *au, unsigned long long *aul, long long *al, float *af,
                                   double *ad, unsigned short *as, int *olds, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  int v = x[g];
  int b = blockIdx.x;
  atomicAdd(&ai[0], v);
  atomicAdd_block(&ai[1 + b], v); // block scope: one counter per block
  atomicAdd_system(&ai[8], v);
  atomicSub(&ai[9], v);
  atomicSub_block(&ai[10 + b], v);
  atomicMin(&ai[14], v - 500);
  atomicMax(&ai[15], v - 500);
  atomicMin_block(&ai[16 + b], v);
  atomicMax_system(&ai[20], v);
  atomicAnd(&ai[21], ~(1 << (v & 15)));
  atomicOr(&ai[22], 1 << (v & 15));
  atomicXor(&ai[23], v);
  int old;
  do {
    old = ai[24];
  } while (atomicCAS(&ai[24], old, old + 1) != old);
  atomicAdd(&au[0], (unsigned)v * 1000u);
  atomicInc(&au[1], 100u);
  atomicDec(&au[2], 100u);
  atomicMax(&au[3], (unsigned)v);
  atomicMin(&au[4], (unsigned)v);
  atomicAnd_system(&au[5], ~(1u << (v & 31)));
  atomicOr_block(&au[6 + b], 1u << (v & 31));
  atomicXor_system(&au[10], (unsigned)v << 3);
  olds[g] = (int)atomicExch(&au[11], (unsigned)g);
  atomicAdd(&aul[0], (unsigned long long)v << 32);
  atomicAdd_block(&aul[1 + b], (unsigned long long)v);
  atomicMax(&aul[5], (unsigned long long)v << 40);
  atomicMin(&aul[6], (unsigned long long)v << 40);
  atomicAnd(&aul[7], ~(1ull << (v & 63)));
  atomicOr(&aul[8], 1ull << (v & 63));
  atomicXor(&aul[9], (unsigned long long)v << 20);
  unsigned long long o64;
  do {
    o64 = aul[10];
  } while (atomicCAS(&aul[10], o64, o64 + 3) != o64);
  atomicMin(&al[0], (long long)v - 1000000000000ll);
  atomicMax(&al[1], (long long)v * -1000000000000ll);
  atomicAdd(&af[0], v * 0.5f);
  atomicAdd_block(&af[1 + b], v * 0.25f);
  atomicAdd_system(&af[5], v * 0.125f);
  atomicExch(&af[6], 1.5f);
  atomicAdd(&ad[0], v * 0.5);
  atomicAdd_block(&ad[1 + b], v * 0.25);
  atomicAdd_system(&ad[5], v * 0.125);
  unsigned short os;
  do {
    os = as[0];
  } while (atomicCAS(&as[0], os, (unsigned short)(os + 1)) != os);
}
