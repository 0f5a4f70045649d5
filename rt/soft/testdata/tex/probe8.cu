// probe8.cu (helper p7): does tex.grad.{2d,3d,a1d}.s32 read its coordinate registers'
// bits as f32 (as soft now assumes from probe7, where every coordinate was a
// subnormal or NaN and so read as 0)? Each form takes registers holding the bits
// of a float c (and random 32-bit patterns) and is printed beside plain tex with
// .f32 coordinates c (the same texture): if the bits are read as f32, they agree on
// every sample. Also tex.grad.1d.s32 on linear memory beside tex.1d.s32 (tex1Dfetch).
// Textures: texel-numbered f32x1 (texel i holds i+1): 2d 11x7, 3d 5x4x3, a1d 13 x 3
// layers, linear 37; configs point/clamp/unnormalized, linear/clamp/unnormalized,
// linear/wrap/normalized, point/border/unnormalized.
// Build and run: nvcc -arch=sm_90 -O2 -o probe8 probe8.cu && ./probe8 > probe8.txt
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
struct S { unsigned x, y, z, l; float fx, fy, fz; float g; };
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %s line %d\n", cudaGetErrorString(e_), #x, __LINE__); exit(1); } } while (0)
#define OUT4 "=f"(a), "=f"(b), "=f"(c), "=f"(d)
#define ST(o) o = make_uint4(__float_as_uint(a), __float_as_uint(b), __float_as_uint(c), __float_as_uint(d))
__global__ void k(int geom, cudaTextureObject_t t, const S* in, uint4* res, uint4* ref, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  S s = in[i]; float a, b, c, d; uint4 o, r;
  switch (geom) {
  case 0: // 2d
    asm volatile("tex.grad.2d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}], {%7, %7}, {%7, %7};" : OUT4 : "l"(t), "r"(s.x), "r"(s.y), "f"(s.g)); ST(o);
    asm volatile("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : OUT4 : "l"(t), "f"(s.fx), "f"(s.fy)); ST(r);
    break;
  case 1: // 3d
    asm volatile("tex.grad.3d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}], {%8, %8, %8, %8}, {%8, %8, %8, %8};" : OUT4 : "l"(t), "r"(s.x), "r"(s.y), "r"(s.z), "f"(s.g)); ST(o);
    asm volatile("tex.3d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];" : OUT4 : "l"(t), "f"(s.fx), "f"(s.fy), "f"(s.fz)); ST(r);
    break;
  case 2: // a1d
    asm volatile("tex.grad.a1d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}], {%7}, {%7};" : OUT4 : "l"(t), "r"(s.l), "r"(s.x), "f"(s.g)); ST(o);
    asm volatile("tex.a1d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : OUT4 : "l"(t), "r"(s.l), "f"(s.fx)); ST(r);
    break;
  default: // 1d on linear memory: x an integer
    asm volatile("tex.grad.1d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5}], {%6}, {%6};" : OUT4 : "l"(t), "r"(s.x), "f"(s.g)); ST(o);
    asm volatile("tex.1d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5}];" : OUT4 : "l"(t), "r"(s.x)); ST(r);
  }
  res[i] = o; ref[i] = r;
}
static uint64_t st = 0x5eed7;
static uint64_t rnd() { st += 0x9e3779b97f4a7c15ull; uint64_t z = st; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31); }
static float frand(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() >> 40) / (float)(1 << 24); }
static unsigned fb(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static float bf(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
int main() {
  const char* gname[4] = {"2d", "3d", "a1d", "1d-linear"};
  const int W[4] = {11, 5, 13, 37}, H[4] = {7, 4, 0, 0}, D[4] = {0, 3, 3, 0};
  const int n = 1024;
  for (int g = 0; g < 4; g++) {
    for (int cfg = 0; cfg < (g == 3 ? 1 : 4); cfg++) {
      int w = W[g], h = H[g] ? H[g] : 1, dd = D[g] ? D[g] : 1, nt = w * h * dd;
      float* tx = new float[nt];
      for (int i = 0; i < nt; i++) tx[i] = (float)(i + 1);
      cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
      cudaResourceDesc rd = {};
      cudaArray_t arr = 0; float* lin = 0;
      if (g == 3) {
        CK(cudaMalloc(&lin, nt * 4)); CK(cudaMemcpy(lin, tx, nt * 4, cudaMemcpyHostToDevice));
        rd.resType = cudaResourceTypeLinear; rd.res.linear.devPtr = lin; rd.res.linear.desc = cd; rd.res.linear.sizeInBytes = nt * 4;
      } else {
        CK(cudaMalloc3DArray(&arr, &cd, make_cudaExtent(w, H[g], D[g]), g == 2 ? cudaArrayLayered : 0));
        cudaMemcpy3DParms cp = {};
        cp.srcPtr = make_cudaPitchedPtr(tx, w * sizeof(float), w, h); cp.dstArray = arr;
        cp.extent = make_cudaExtent(w, h, dd); cp.kind = cudaMemcpyHostToDevice;
        CK(cudaMemcpy3D(&cp));
        rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
      }
      cudaTextureDesc td = {};
      cudaTextureAddressMode am[4] = {cudaAddressModeClamp, cudaAddressModeClamp, cudaAddressModeWrap, cudaAddressModeBorder};
      for (int i = 0; i < 3; i++) td.addressMode[i] = am[cfg];
      td.filterMode = (cfg == 1 || cfg == 2) ? cudaFilterModeLinear : cudaFilterModePoint;
      td.readMode = cudaReadModeElementType; td.normalizedCoords = cfg == 2;
      cudaTextureObject_t t; CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
      S* hs = new S[n];
      for (int i = 0; i < n; i++) {
        float e[3] = {(float)w, (float)h, (float)dd};
        float f[3];
        for (int k = 0; k < 3; k++) {
          if (i < n / 2) f[k] = cfg == 2 ? frand(-0.5f, 1.5f) : frand(-2.f, e[k] + 2.f); // floats around the texture
          else f[k] = bf((unsigned)rnd());                                               // any bits
        }
        if (g == 3) { hs[i].x = (unsigned)((int)(rnd() % 45) - 4); hs[i].fx = 0; }
        else { hs[i].x = fb(f[0]); hs[i].fx = f[0]; }
        hs[i].y = fb(f[1]); hs[i].fy = f[1]; hs[i].z = fb(f[2]); hs[i].fz = f[2];
        hs[i].l = (unsigned)((int)(rnd() % 5) - 1);
        const float gs[4] = {0.f, 1.f, 0.5f, 4.f};
        hs[i].g = gs[i % 4];
      }
      S* din; uint4 *dres, *dref;
      CK(cudaMalloc(&din, n * sizeof(S))); CK(cudaMalloc(&dres, n * 16)); CK(cudaMalloc(&dref, n * 16));
      CK(cudaMemcpy(din, hs, n * sizeof(S), cudaMemcpyHostToDevice));
      k<<<(n + 127) / 128, 128>>>(g, t, din, dres, dref, n);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      uint4* res = new uint4[n]; uint4* ref = new uint4[n];
      CK(cudaMemcpy(res, dres, n * 16, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(ref, dref, n * 16, cudaMemcpyDeviceToHost));
      int same = 0;
      for (int i = 0; i < n; i++) same += memcmp(&res[i], &ref[i], 16) == 0;
      printf("config %s cfg %d (addr %d, %s, %s): %d/%d equal to the reference (%s)\n", gname[g], cfg, (int)am[cfg],
             td.filterMode ? "linear" : "point", cfg == 2 ? "normalized" : "unnormalized", same, n,
             g == 3 ? "tex.1d.s32" : "tex.<geom>.f32 at the float whose bits the registers hold");
      for (int i = 0; i < n; i++)
        printf("  %s %d s %d x %08x y %08x z %08x l %d g %08x: res %08x %08x %08x %08x ref %08x %08x %08x %08x\n", gname[g], cfg, i,
               hs[i].x, hs[i].y, hs[i].z, (int)hs[i].l, fb(hs[i].g), res[i].x, res[i].y, res[i].z, res[i].w, ref[i].x, ref[i].y, ref[i].z, ref[i].w);
      CK(cudaDestroyTextureObject(t));
      if (arr) CK(cudaFreeArray(arr));
      if (lin) CK(cudaFree(lin));
      CK(cudaFree(din)); CK(cudaFree(dres)); CK(cudaFree(dref));
      delete[] tx; delete[] hs; delete[] res; delete[] ref;
    }
  }
  return 0;
}
