// mufu2.cu: GPU call 2. Records MUFU.SIN/COS at the odd multiples of 2^-25
// in [0, 1/2) and checks exhaustively, over all 2^32 raw inputs, the model
//   K = trunc(|y| * 2^25) mod 2^25 (|y| flushed if subnormal)
//   MUFU.SIN(y) = sign(y) * S[K], MUFU.COS(y) = S[(K + 2^23) mod 2^25]
//   S[k + 2^24] = -S[k]   (S recorded on [0, 1/2) at 2^-25)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>
typedef unsigned long long u64;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "CUDA %s line %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

__global__ void kS(const uint32_t* raw, uint32_t* S) { // S[k] for k < 2^24: MUFU.SIN(k * 2^-25)
  for (u64 k = blockIdx.x * (u64)blockDim.x + threadIdx.x; k < (1ull << 24); k += (u64)gridDim.x * blockDim.x)
    S[k] = raw[__float_as_uint((float)ldexp((double)k, -25))];
}
__device__ __forceinline__ uint32_t model(uint32_t xb, const uint32_t* S, int cosine) {
  uint32_t a = xb & 0x7fffffffu;
  if (a >= 0x7f800000u) return 0x7fffffffu;
  if (a < 0x00800000u) a = 0;
  double v = ldexp((double)__uint_as_float(a), 25);
  double t = trunc(v);
  u64 K = (u64)fmod(t, 33554432.0);
  if (cosine) K = (K + (1u << 23)) & ((1u << 25) - 1);
  uint32_t r = S[K & ((1u << 24) - 1)] ^ (uint32_t)((K >> 24) << 31);
  if (!cosine && (xb >> 31)) r ^= 0x80000000u;
  return r;
}
__global__ void kcheck(const uint32_t* raw, const uint32_t* S, int cosine, u64* bad, uint32_t* samp) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < (1ull << 32); i += (u64)gridDim.x * blockDim.x) {
    uint32_t xb = (uint32_t)i, p = model(xb, S, cosine);
    if (p != raw[i]) {
      u64 n = atomicAdd(bad, 1ull);
      if (n < 8) { samp[3 * n] = xb; samp[3 * n + 1] = raw[i]; samp[3 * n + 2] = p; }
    }
  }
}

int main(int argc, char** argv) {
  const char* dir = argv[1];
  CK(cudaFree(0));
  CUmodule mod; CUfunction fs[2];
  if (cuModuleLoad(&mod, argv[2]) != CUDA_SUCCESS || cuModuleGetFunction(&fs[0], mod, "fill_sin") != CUDA_SUCCESS ||
      cuModuleGetFunction(&fs[1], mod, "fill_cos") != CUDA_SUCCESS) { fprintf(stderr, "module\n"); return 1; }
  uint32_t *A, *S, *samp; u64* bad;
  CK(cudaMalloc(&A, (1ull << 32) * 4)); CK(cudaMalloc(&S, (1u << 24) * 4));
  CK(cudaMalloc(&bad, 8)); CK(cudaMalloc(&samp, 24 * 4));
  std::vector<uint32_t> h(1u << 24), odd(1u << 23);
  for (int c = 0; c < 2; c++) {
    void* args[] = {&A};
    if (cuLaunchKernel(fs[c], 132 * 16, 1, 1, 256, 1, 1, 0, 0, args, 0) != CUDA_SUCCESS) { fprintf(stderr, "launch\n"); return 1; }
    CK(cudaDeviceSynchronize());
    if (c == 0) {
      kS<<<132 * 16, 256>>>(A, S); CK(cudaGetLastError());
      CK(cudaMemcpy(h.data(), S, h.size() * 4, cudaMemcpyDeviceToHost));
      for (size_t j = 0; j < odd.size(); j++) odd[j] = h[2 * j + 1];
      char p[512]; snprintf(p, sizeof p, "%s/sin_odd25.bin", dir);
      FILE* f = fopen(p, "wb"); fwrite(odd.data(), 4, odd.size(), f); fclose(f);
      snprintf(p, sizeof p, "%s/sin_s25.bin", dir);
      f = fopen(p, "wb"); fwrite(h.data(), 4, h.size(), f); fclose(f);
      printf("recorded MUFU.SIN at (2j+1)*2^-25, j<2^23, and S[k]=MUFU.SIN(k*2^-25), k<2^24\n");
    }
    CK(cudaMemset(bad, 0, 8));
    kcheck<<<132 * 16, 256>>>(A, S, c, bad, samp); CK(cudaGetLastError());
    u64 nb; uint32_t sm[24];
    CK(cudaMemcpy(&nb, bad, 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(sm, samp, 96, cudaMemcpyDeviceToHost));
    printf("MUFU.%s(raw) vs S-table model over all 2^32 inputs: %llu mismatches", c ? "COS" : "SIN", nb);
    for (u64 j = 0; j < nb && j < 8; j++) printf(" [x=%08x hw=%08x model=%08x]", sm[3 * j], sm[3 * j + 1], sm[3 * j + 2]);
    printf("\n");
  }
  return 0;
}
