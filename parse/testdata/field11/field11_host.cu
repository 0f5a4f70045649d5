// Host check of field11.cu's TMA and over-aligned kernels (runtime API), and
// the device's parameter offsets of every extern "C" kernel.
#include "field11.cu"
#include <cstdio>
#include <cstring>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("FAIL %s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)
#define CD(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { const char* s_; cuGetErrorString(e_, &s_); printf("FAIL %s: %s\n", #x, s_); return 1; } } while (0)

static int offsets(const char *name, const void *fn) {
  cudaFunction_t f;
  CK(cudaGetFuncBySymbol(&f, fn));
  printf("PARAMS %s", name);
  for (size_t i = 0;; i++) {
    size_t off, sz;
    if (cuFuncGetParamInfo((CUfunction)f, i, &off, &sz) != CUDA_SUCCESS) break;
    printf(" %zu:%zu", off, sz);
  }
  printf("\n");
  return 0;
}

int main() {
  CK(cudaFree(0));
  offsets("bigParam", (const void *)bigParam);
  offsets("bigAfterPtr", (const void *)bigAfterPtr);
  offsets("bigByValue", (const void *)bigByValue);
  offsets("plainAfterBig", (const void *)plainAfterBig);
  offsets("tmaTile", (const void *)tmaTile);

  unsigned long long *out;
  CK(cudaMalloc(&out, 16 * 8));
  Big64 b;
  for (int i = 0; i < 8; i++) b.v[i] = 0x1111111111111111ull * (i + 1);
  bigParam<<<1, 32>>>(b, out);
  CK(cudaDeviceSynchronize());
  unsigned long long h[16];
  CK(cudaMemcpy(h, out, 8 * 8, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < 8; i++) bad += h[i] != b.v[i];
  printf("bigParam %s\n", bad ? "WRONG" : "ok");

  Big128 c;
  for (int i = 0; i < 16; i++) c.v[i] = 1000 + i;
  bigAfterPtr<<<1, 32>>>(out, c, 7);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, out, 16 * 8, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < 16; i++) bad += h[i] != c.v[i] + 7;
  printf("bigAfterPtr %s\n", bad ? "WRONG" : "ok");

  // TMA: a 64x32 matrix (row-major, 64 columns), tile TWxTH at (32, 8).
  const int W = 64, H = 32;
  std::vector<float> m(W * H);
  for (int i = 0; i < W * H; i++) m[i] = (float)i;
  float *dm, *dout;
  CK(cudaMalloc(&dm, W * H * 4));
  CK(cudaMalloc(&dout, TW * TH * 4));
  CK(cudaMemcpy(dm, m.data(), W * H * 4, cudaMemcpyHostToDevice));
  CUtensorMap map;
  cuuint64_t dims[2] = {W, H};
  cuuint64_t strides[1] = {W * 4};
  cuuint32_t box[2] = {TW, TH};
  cuuint32_t estr[2] = {1, 1};
  CD(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dm, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  printf("sizeof(CUtensorMap)=%zu alignof=%zu\n", sizeof(CUtensorMap), alignof(CUtensorMap));
  tmaTile<<<1, 128>>>(map, dout, 32, 8);
  CK(cudaDeviceSynchronize());
  std::vector<float> o(TW * TH);
  CK(cudaMemcpy(o.data(), dout, TW * TH * 4, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int y = 0; y < TH; y++)
    for (int x = 0; x < TW; x++) bad += o[y * TW + x] != m[(y + 8) * W + (x + 32)];
  printf("tmaTile %s (%d wrong)\n", bad ? "WRONG" : "ok", bad);
  // The tensor map's bytes, for a Go test that encodes the same map.
  printf("TENSORMAP");
  const unsigned char *mb = (const unsigned char *)&map;
  for (int i = 0; i < 128; i++) printf("%02x", mb[i]);
  printf("\nDM %p\n", (void *)dm);
  return 0;
}
