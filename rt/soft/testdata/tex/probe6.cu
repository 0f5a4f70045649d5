// probe6.cu: does one round-6 form (targeted.inc's t_tex6, forms2.inc's
// T6_<form>) get through ptxas and load on this driver? Build with
// -DT6_ONLY=<form>; the kernel never takes the case, but launching it loads
// the module (.gpu/tex6/run.sh probes every form this way).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include "forms2.inc"
__global__ void k(cudaTextureObject_t t, int form, const uint4* cs, uint4* res) {
  uint4 c = cs[0], o = make_uint4(0, 0, 0, 0);
  switch (form) { TEX6_CASES }
  res[0] = o;
}
int main(int argc, char** argv) {
  uint4* d;
  if (cudaMalloc(&d, 2 * sizeof(uint4)) != cudaSuccess) return 2;
  cudaMemset(d, 0, 2 * sizeof(uint4));
  k<<<1, 1>>>(0, -1, d, d + 1);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  printf("form %s: %s\n", argc > 1 ? argv[1] : "?", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
