// rec.cu: records the H100's answers to PTX texture and surface instructions
// (tex, tld4, tex.level, txq, suld.b, sust.b, suq) over a sweep of formats,
// filter modes, address modes, read modes and coordinates, for rt/soft's
// replay test (tex_sampler_test.go). See NOTES.md for how it was run and the
// file format. Build: python3 genforms.py && nvcc -arch=sm_90 -O2 -o rec rec.cu
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cmath>
#include <cfloat>
#include <climits>
#include <vector>
#include "forms.inc"
#include "forms2.inc"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void kplain(unsigned* o) { o[threadIdx.x] = 42 + threadIdx.x; }

__global__ void ktex(cudaTextureObject_t t, int form, const uint4* cs, uint4* res, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint4 c = cs[i], o = make_uint4(0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef);
  switch (form) {
    TEX_CASES
#ifndef NO_TEXLEVEL
    TEXLEVEL_CASES
#endif
#ifndef NO_GRAD
    // targeted.inc: tex.grad.2d (gradients (z,w) and (w,z)), tex.level.cube (lod in w)
    case 101: { float a,b,d,e; asm volatile("tex.grad.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5,%6}], {%7,%8}, {%9,%10};" : "=f"(a),"=f"(b),"=f"(d),"=f"(e) : "l"(t), "f"(__uint_as_float(c.x)), "f"(__uint_as_float(c.y)), "f"(__uint_as_float(c.z)), "f"(__uint_as_float(c.w)), "f"(__uint_as_float(c.w)), "f"(__uint_as_float(c.z))); o = make_uint4(__float_as_uint(a),__float_as_uint(b),__float_as_uint(d),__float_as_uint(e)); } break;
    case 102: { float a,b,d,e; asm volatile("tex.level.cube.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5,%6,%7,%8}], %8;" : "=f"(a),"=f"(b),"=f"(d),"=f"(e) : "l"(t), "f"(__uint_as_float(c.x)), "f"(__uint_as_float(c.y)), "f"(__uint_as_float(c.z)), "f"(__uint_as_float(c.w))); o = make_uint4(__float_as_uint(a),__float_as_uint(b),__float_as_uint(d),__float_as_uint(e)); } break;
#endif
#ifndef NO_TEX3
    TEX3_CASES
#endif
#ifndef NO_TEX4
    TEX4_CASES
#endif
#ifndef NO_TEX5
    TEX5_CASES
#endif
#ifndef NO_TEX6
    TEX6_CASES
#endif
  }
  res[i] = o;
}

__global__ void ksuld(cudaSurfaceObject_t s, int form, const uint4* cs, uint4* res, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint4 c = cs[i], o = make_uint4(0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef);
  #ifndef NO_SURFK
  switch (form) { SULD_CASES }
#endif
  res[i] = o;
}

// One thread stores in order, so that later stores win.
__global__ void ksust(cudaSurfaceObject_t s, int form, const uint4* cs, const uint4* vals, int n) {
  for (int i = 0; i < n; i++) {
    uint4 c = cs[i], w = vals[i];
    (void)c; (void)w;
#ifndef NO_SURFK
    switch (form) { SUST_CASES }
#endif
  }
}

// Only the size queries are TXQ instructions; ptxas compiles the others
// (channel type and order, sampler state, array size, mip levels) into loads
// from a driver table (c[0x0][0xf0]), which this machine's driver refused
// at module load with "operation not supported": build with TXQ_DIMS_ONLY.
#define NTXQ 13
__global__ void ktxq(cudaTextureObject_t t, unsigned* o) {
  for (int i = 0; i < NTXQ; i++) o[i] = 0xdeadbeef;
#ifndef NO_TXQ
  unsigned v;
  asm volatile("txq.width.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[0] = v;
  asm volatile("txq.height.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[1] = v;
  asm volatile("txq.depth.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[2] = v;
#ifndef TXQ_DIMS_ONLY
  asm volatile("txq.channel_data_type.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[3] = v;
  asm volatile("txq.channel_order.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[4] = v;
  asm volatile("txq.normalized_coords.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[5] = v;
  asm volatile("txq.filter_mode.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[6] = v;
  asm volatile("txq.addr_mode_0.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[7] = v;
  asm volatile("txq.addr_mode_1.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[8] = v;
  asm volatile("txq.addr_mode_2.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[9] = v;
  asm volatile("txq.array_size.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[10] = v;
  asm volatile("txq.num_mipmap_levels.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[11] = v;
  asm volatile("txq.num_samples.b32 %0, [%1];" : "=r"(v) : "l"(t)); o[12] = v;
#endif
#endif
}

#define NSUQ 7
__global__ void ksuq(cudaSurfaceObject_t s, unsigned* o) {
  for (int i = 0; i < NSUQ; i++) o[i] = 0xdeadbeef;
#ifndef NO_TXQ
  unsigned v;
  asm volatile("suq.width.b32 %0, [%1];" : "=r"(v) : "l"(s)); o[0] = v;
  asm volatile("suq.height.b32 %0, [%1];" : "=r"(v) : "l"(s)); o[1] = v;
  asm volatile("suq.depth.b32 %0, [%1];" : "=r"(v) : "l"(s)); o[2] = v;
#if !defined(TXQ_DIMS_ONLY) && !defined(SUQ_DIMS_ONLY)
  asm volatile("suq.channel_data_type.b32 %0, [%1];" : "=r"(v) : "l"(s)); o[3] = v;
  asm volatile("suq.channel_order.b32 %0, [%1];" : "=r"(v) : "l"(s)); o[4] = v;
  asm volatile("suq.array_size.b32 %0, [%1];" : "=r"(v) : "l"(s)); o[5] = v;
  asm volatile("suq.memory_layout.b32 %0, [%1];" : "=r"(v) : "l"(s)); o[6] = v;
#endif
#endif
}

// ---------------------------------------------------------------- output
static FILE* out;
static void w32(uint32_t v) { fwrite(&v, 4, 1, out); }
static void wbuf(const void* p, size_t n) {
  w32((uint32_t)n);
  fwrite(p, 1, n, out);
  static const char z[4] = {0, 0, 0, 0};
  if (n % 4) fwrite(z, 1, 4 - n % 4, out);
}
static uint64_t rs = 0x9E3779B97F4A7C15ull;
static uint64_t rnd() {  // splitmix64
  uint64_t z = (rs += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double unif() { return (rnd() >> 11) * (1.0 / 9007199254740992.0); }
static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

// ---------------------------------------------------------------- formats
struct Fmt { const char* name; int kind; int bits; int nch; };  // kind: 0 unsigned, 1 signed, 2 float
static const Fmt F_F32x1 = {"f32x1", 2, 32, 1}, F_F32x2 = {"f32x2", 2, 32, 2}, F_F32x4 = {"f32x4", 2, 32, 4},
                 F_F16x1 = {"f16x1", 2, 16, 1}, F_F16x2 = {"f16x2", 2, 16, 2}, F_F16x4 = {"f16x4", 2, 16, 4},
                 F_U8x1 = {"u8x1", 0, 8, 1}, F_U8x2 = {"u8x2", 0, 8, 2}, F_U8x4 = {"u8x4", 0, 8, 4},
                 F_S8x1 = {"s8x1", 1, 8, 1}, F_S8x2 = {"s8x2", 1, 8, 2}, F_S8x4 = {"s8x4", 1, 8, 4},
                 F_U16x1 = {"u16x1", 0, 16, 1}, F_U16x4 = {"u16x4", 0, 16, 4}, F_S16x1 = {"s16x1", 1, 16, 1},
                 F_S16x2 = {"s16x2", 1, 16, 2}, F_U32x1 = {"u32x1", 0, 32, 1}, F_U32x2 = {"u32x2", 0, 32, 2},
                 F_U32x4 = {"u32x4", 0, 32, 4}, F_S32x1 = {"s32x1", 1, 32, 1}, F_S32x2 = {"s32x2", 1, 32, 2};
static cudaChannelFormatDesc chdesc(const Fmt& f) {
  if (f.kind >= 3) {  // 3 unsigned normalized, 4 signed normalized (targeted.inc's surfaces)
    static const cudaChannelFormatKind un[2][3] = {{cudaChannelFormatKindUnsignedNormalized8X1, cudaChannelFormatKindUnsignedNormalized8X2, cudaChannelFormatKindUnsignedNormalized8X4},
                                                   {cudaChannelFormatKindUnsignedNormalized16X1, cudaChannelFormatKindUnsignedNormalized16X2, cudaChannelFormatKindUnsignedNormalized16X4}};
    static const cudaChannelFormatKind sn[2][3] = {{cudaChannelFormatKindSignedNormalized8X1, cudaChannelFormatKindSignedNormalized8X2, cudaChannelFormatKindSignedNormalized8X4},
                                                   {cudaChannelFormatKindSignedNormalized16X1, cudaChannelFormatKindSignedNormalized16X2, cudaChannelFormatKindSignedNormalized16X4}};
    int bi = f.bits == 16, ci = f.nch == 4 ? 2 : f.nch - 1;
    return cudaCreateChannelDesc(f.bits, f.nch > 1 ? f.bits : 0, f.nch > 2 ? f.bits : 0, f.nch > 3 ? f.bits : 0, f.kind == 3 ? un[bi][ci] : sn[bi][ci]);
  }
  cudaChannelFormatKind k = f.kind == 0 ? cudaChannelFormatKindUnsigned : f.kind == 1 ? cudaChannelFormatKindSigned : cudaChannelFormatKindFloat;
  return cudaCreateChannelDesc(f.bits, f.nch > 1 ? f.bits : 0, f.nch > 2 ? f.bits : 0, f.nch > 3 ? f.bits : 0, k);
}
static void gen_texels(const Fmt& f, size_t n, std::vector<uint8_t>& b, int special) {
  size_t cb = f.bits / 8;
  b.resize(n * f.nch * cb);
  for (size_t i = 0; i < n * f.nch; i++) {
    uint64_t r = rnd();
    if (f.kind == 2 && f.bits == 32) {
      float v;
      int cat = (int)(r % 100);
      if (cat < 50) v = (float)(unif() * 8 - 4);
      else if (cat < 80) v = (float)ldexp(unif() * 2 - 1, (int)(rnd() % 60) - 30);
      else if (cat < 90) v = (float)(unif() + 0.5) * ((r >> 40) & 1 ? -1.f : 1.f);
      else if (cat < 97 || !special) v = (float)((int)(rnd() % 9) - 4);
      else {
        static const uint32_t sp[] = {0x7fc00000u, 0x7f800000u, 0xff800000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x7f7fffffu, 0xff7fffffu, 0x00800000u, 0x7fa00001u};
        v = bf(sp[rnd() % 10]);
      }
      uint32_t u = fb(v);
      memcpy(&b[i * 4], &u, 4);
    } else if (f.kind == 2 && f.bits == 16) {
      uint16_t u = (uint16_t)r;
      if (!special && ((u >> 10) & 31) == 31) u &= 0xbfff;
      memcpy(&b[i * 2], &u, 2);
    } else {
      memcpy(&b[i * cb], &r, cb);
    }
  }
}

// ---------------------------------------------------------------- coordinates
static float fcoord(int N, int norm, int wide) {
  int cat = (int)(rnd() % 100);
  double s = norm ? 1.0 / N : 1.0;
  if (cat < 30) { int k = (int)(rnd() % ((N + 4) * 32)) - 64; return (float)(k / 32.0 * s); }
  if (cat < 65) {
    if (wide) return (float)((unif() * (3 * N + 6) - N - 3) * s);
    return (float)((unif() * (N + 4) - 2) * s);
  }
  if (cat < 75) { int i = (int)(rnd() % (N + 2)) - 1; float v = (float)((i + 0.5) * s); int k = (int)(rnd() % 5) - 2;
    for (; k > 0; k--) v = nextafterf(v, INFINITY); for (; k < 0; k++) v = nextafterf(v, -INFINITY); return v; }
  if (cat < 85) { int i = (int)(rnd() % (N + 3)) - 1; float v = (float)(i * s); int k = (int)(rnd() % 5) - 2;
    for (; k > 0; k--) v = nextafterf(v, INFINITY); for (; k < 0; k++) v = nextafterf(v, -INFINITY); return v; }
  if (cat < 90) { float v = (float)((unif() * (N + 4) - 2) * s); return (float)ldexp(v, (int)(rnd() % 24)); }
  static const float sp[] = {0.f, -0.f, NAN, INFINITY, -INFINITY, 1e10f, -1e10f, 8388608.f, 16777217.f, -1073741824.f, 3e38f,
                             1e-40f, -1e-40f, FLT_MIN, 65536.5f, 1048576.25f, 4194303.75f, -65536.5f, 1e-7f, -1e-7f, 0.999999f, 2.5f, -0.5f, 131071.75f};
  int k = (int)(rnd() % (sizeof(sp) / sizeof(sp[0])));
  if (k >= 14 && norm) return (float)(sp[k] / N);
  return sp[k];
}
static uint32_t icoord(int N) {
  int cat = (int)(rnd() % 100);
  if (cat < 60) return (uint32_t)((int)(rnd() % (N + 6)) - 3);
  if (cat < 80) return (uint32_t)((int)(rnd() % (5 * N)) - 2 * N);
  static const int sp[] = {INT_MIN, INT_MAX, -1, 65535, 65536, 1 << 20, -(1 << 16), 1 << 30, -(1 << 30), 32767, 32768, 16383, 16384};
  return (uint32_t)sp[rnd() % (sizeof(sp) / sizeof(sp[0]))];
}
static uint32_t lcoord(int L) {
  if (rnd() % 100 < 70) return (uint32_t)(rnd() % L);
  static const int sp[] = {-1, 0, 1, 2, 3, 4, 1000, -1000, INT_MAX, INT_MIN, 65535, 65536, 2047, 2048};
  return (uint32_t)sp[rnd() % 14];
}
static void cubedir(uint32_t* c) {
  int cat = (int)(rnd() % 100);
  float v[3];
  for (int j = 0; j < 3; j++) v[j] = (float)(unif() * 2 - 1);
  if (cat < 50) {
  } else if (cat < 65) {  // near an axis
    int a = (int)(rnd() % 3); v[a] = (rnd() & 1) ? 1.f : -1.f;
    for (int j = 0; j < 3; j++) if (j != a) v[j] = (float)(unif() * 2 - 1);
  } else if (cat < 75) {  // on an edge: |v_a| == |v_b|
    int a = (int)(rnd() % 3), b = (a + 1 + (int)(rnd() % 2)) % 3;
    v[b] = (rnd() & 1) ? fabsf(v[a]) : -fabsf(v[a]);
  } else if (cat < 80) {  // corner
    float m = (float)unif() + 0.1f; for (int j = 0; j < 3; j++) v[j] = (rnd() & 1) ? m : -m;
  } else if (cat < 90) {  // scaled
    float s = (float)ldexp(1.0, (int)(rnd() % 80) - 40); for (int j = 0; j < 3; j++) v[j] *= s;
  } else {  // specials
    static const float sp[] = {0.f, -0.f, NAN, INFINITY, -INFINITY, 1e-40f, 1.f, -1.f, 3e38f};
    for (int j = 0; j < 3; j++) if (rnd() & 1) v[j] = sp[rnd() % 9];
  }
  for (int j = 0; j < 3; j++) c[j] = fb(v[j]);
}

// geoms: 0 1d 1 2d 2 3d 3 a1d 4 a2d 5 cube 6 acube
static const int GW[7] = {13, 11, 5, 13, 11, 4, 4}, GH[7] = {1, 7, 4, 1, 7, 4, 4}, GD[7] = {1, 1, 3, 1, 1, 1, 1}, GL[7] = {0, 0, 0, 3, 3, 6, 12};
static std::vector<uint4> make_coords(int geom, int ct, int norm, int n, int W, int H, int D, int L) {
  std::vector<uint4> v(n);
  for (int i = 0; i < n; i++) {
    uint32_t c[4] = {0, 0, 0, 0};
    int wide = (int)(rnd() & 1);
    if (geom == 5 || geom == 6) {
      if (geom == 5) { cubedir(c); c[3] = c[2]; }
      else { c[0] = lcoord(L / 6); cubedir(c + 1); }
    } else {
      int dims[3] = {W, H, D}, nd = geom == 0 || geom == 3 ? 1 : geom == 2 ? 3 : 2;
      int off = (geom == 3 || geom == 4) ? 1 : 0;
      if (off) c[0] = lcoord(L);
      for (int j = 0; j < nd; j++) c[off + j] = ct ? icoord(dims[j]) : fb(fcoord(dims[j], norm, wide));
      if (geom == 2) c[3] = c[2];
      if (geom == 4) c[3] = c[2];
    }
    v[i] = make_uint4(c[0], c[1], c[2], c[3]);
  }
  return v;
}

// ---------------------------------------------------------------- textures
struct Res {  // one resource and its texels
  int rtype;  // 0 array, 1 linear, 2 pitch2d, 3 layered array, 4 cubemap, 5 layered cubemap
  int geom; Fmt f; int W, H, D, L; size_t pitch;
  std::vector<uint8_t> texels;
  cudaArray_t arr = 0; void* mem = 0;
};
static void make_res(Res& r, int special) {
  size_t es = r.f.bits / 8 * r.f.nch;
  size_t n = (size_t)r.W * r.H * r.D * (r.L ? r.L : 1);
  if (special >= 0) gen_texels(r.f, n, r.texels, special);  // -1: r.texels given
  cudaChannelFormatDesc cd = chdesc(r.f);
  if (r.rtype == 1) {
    CK(cudaMalloc(&r.mem, n * es));
    CK(cudaMemcpy(r.mem, r.texels.data(), n * es, cudaMemcpyHostToDevice));
  } else if (r.rtype == 2) {
    CK(cudaMallocPitch(&r.mem, &r.pitch, r.W * es, r.H));
    CK(cudaMemcpy2D(r.mem, r.pitch, r.texels.data(), r.W * es, r.W * es, r.H, cudaMemcpyHostToDevice));
  } else {
    unsigned flags = 0;
    cudaExtent ext = make_cudaExtent(r.W, r.geom == 0 || r.geom == 3 ? 0 : r.H, r.geom == 2 ? r.D : 0);
    if (r.geom == 3 || r.geom == 4) { flags |= cudaArrayLayered; ext.depth = r.L; }
    if (r.geom == 5 || r.geom == 6) { flags |= cudaArrayCubemap; ext.depth = r.L; if (r.geom == 6) flags |= cudaArrayLayered; }
    CK(cudaMalloc3DArray(&r.arr, &cd, ext, flags));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(r.texels.data(), r.W * es, r.W, r.H);
    p.dstArray = r.arr;
    p.extent = make_cudaExtent(r.W, r.H, r.D * (r.L ? r.L : 1));
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
  }
}
static void free_res(Res& r) {
  if (r.arr) CK(cudaFreeArray(r.arr));
  if (r.mem) CK(cudaFree(r.mem));
}

#define MAXS (1 << 17)
static uint4 *dC, *dR;
static int g_block = 128;
static void lcheck(const char* what) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { fprintf(stderr, "launch %s: %s\n", what, cudaGetErrorString(e)); exit(3); }
}
static unsigned* dQ;
static const float BORDER0[4] = {0.25f, -2.5f, 3.0f, 0.75f};
static const float* BORDER = BORDER0;  // targeted.inc's sRGB border probes point it elsewhere
static int ncfg = 0, nsamp = 0;
static int g_seamless = 0;  // cudaTextureDesc.seamlessCubemap (targeted.inc's seamless probes set it)

// Writes one config record: 'TEXC', the config words, the texels, the txq
// answers, then the form, sample count, coordinates and results.
static void run_tex(Res& r, const int addr[3], int filter, int readMode, int norm, int srgb, int form, const std::vector<uint4>& cs) {
  cudaResourceDesc rd = {};
  size_t es = r.f.bits / 8 * r.f.nch;
  if (r.rtype == 1) { rd.resType = cudaResourceTypeLinear; rd.res.linear.devPtr = r.mem; rd.res.linear.desc = chdesc(r.f); rd.res.linear.sizeInBytes = (size_t)r.W * es; }
  else if (r.rtype == 2) { rd.resType = cudaResourceTypePitch2D; rd.res.pitch2D.devPtr = r.mem; rd.res.pitch2D.desc = chdesc(r.f); rd.res.pitch2D.width = r.W; rd.res.pitch2D.height = r.H; rd.res.pitch2D.pitchInBytes = r.pitch; }
  else { rd.resType = cudaResourceTypeArray; rd.res.array.array = r.arr; }
  cudaTextureDesc td = {};
  for (int i = 0; i < 3; i++) td.addressMode[i] = (cudaTextureAddressMode)addr[i];
  td.filterMode = filter ? cudaFilterModeLinear : cudaFilterModePoint;
  td.readMode = readMode ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
  td.sRGB = srgb; td.normalizedCoords = norm; td.seamlessCubemap = g_seamless;
  for (int i = 0; i < 4; i++) td.borderColor[i] = BORDER[i];
  cudaTextureObject_t t = 0;
  cudaError_t e = cudaCreateTextureObject(&t, &rd, &td, 0);
  cudaGetLastError();
  int n = e == cudaSuccess ? (int)cs.size() : 0;
  unsigned q[NTXQ];
  memset(q, 0, sizeof q);
  std::vector<uint4> res(n);
  if (n) {
    CK(cudaMemcpy(dC, cs.data(), n * sizeof(uint4), cudaMemcpyHostToDevice));
    ktex<<<(n + g_block - 1) / g_block, g_block>>>(t, form, dC, dR, n);
    lcheck("ktex");
    ktxq<<<1, 1>>>(t, dQ);
    lcheck("ktxq");
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(res.data(), dR, n * sizeof(uint4), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(q, dQ, sizeof q, cudaMemcpyDeviceToHost));
    CK(cudaDestroyTextureObject(t));
  }
  w32(0x43584554);  // 'TEXC'
  uint32_t hdr[] = {(uint32_t)r.rtype, (uint32_t)r.geom, (uint32_t)r.f.kind, (uint32_t)r.f.bits, (uint32_t)r.f.nch,
                    (uint32_t)r.W, (uint32_t)r.H, (uint32_t)r.D, (uint32_t)r.L, (uint32_t)r.pitch,
                    (uint32_t)addr[0], (uint32_t)addr[1], (uint32_t)addr[2], (uint32_t)filter, (uint32_t)readMode,
                    (uint32_t)norm, (uint32_t)srgb, fb(BORDER[0]), fb(BORDER[1]), fb(BORDER[2]), fb(BORDER[3]),
                    (uint32_t)e, (uint32_t)form, (uint32_t)g_seamless};
  w32(sizeof hdr / 4);
  for (uint32_t h : hdr) w32(h);
  wbuf(r.texels.data(), r.texels.size());
  w32(NTXQ);
  for (int i = 0; i < NTXQ; i++) w32(q[i]);
  w32(n);
  if (n) { fwrite(cs.data(), sizeof(uint4), n, out); fwrite(res.data(), sizeof(uint4), n, out); }
  fflush(out);
  ncfg++; nsamp += n;
}

static int nsamples(int geom) { return geom == 0 ? 768 : geom == 1 ? 768 : geom == 2 ? 512 : geom <= 4 ? 512 : 768; }

static void tex_sweep() {
  const int AW = cudaAddressModeWrap, AC = cudaAddressModeClamp, AM = cudaAddressModeMirror, AB = cudaAddressModeBorder;
  const int modes[4] = {AW, AC, AM, AB};
  // A: filtering over arrays, float-returning formats.
  struct FR { Fmt f; int rm, srgb; };
  const FR fl[] = {{F_F32x1, 0, 0}, {F_F32x4, 0, 0}, {F_F16x1, 0, 0}, {F_F16x4, 0, 0}, {F_U8x1, 1, 0}, {F_U8x4, 1, 0},
                   {F_U8x4, 1, 1}, {F_S8x1, 1, 0}, {F_S8x4, 1, 0}, {F_U16x1, 1, 0}, {F_S16x1, 1, 0}, {F_S16x2, 1, 0}};
  for (int geom = 0; geom < 3; geom++) {
    for (const FR& fr : fl) {
      Res r; r.rtype = 0; r.geom = geom; r.f = fr.f; r.W = GW[geom]; r.H = GH[geom]; r.D = GD[geom]; r.L = 0; r.pitch = 0;
      make_res(r, 1);
      for (int norm = 0; norm < 2; norm++) {
        std::vector<uint4> cs = make_coords(geom, 0, norm, nsamples(geom), r.W, r.H, r.D, 0);
        for (int m = 0; m < 4; m++)
          for (int filt = 0; filt < 2; filt++) {
            int a[3] = {modes[m], modes[m], modes[m]};
            run_tex(r, a, filt, fr.rm, norm, fr.srgb, geom * 10 + 0, cs);
          }
      }
      free_res(r);
    }
  }
  fprintf(stderr, "A done: %d configs %d samples\n", ncfg, nsamp);
  // B: element reads of integer formats (point; linear recorded as the creation error).
  const Fmt il[] = {F_U8x1, F_U8x4, F_S8x2, F_U16x1, F_S16x1, F_U32x1, F_S32x2, F_U32x4};
  for (int geom = 0; geom < 3; geom++)
    for (const Fmt& f : il) {
      Res r; r.rtype = 0; r.geom = geom; r.f = f; r.W = GW[geom]; r.H = GH[geom]; r.D = GD[geom]; r.L = 0; r.pitch = 0;
      make_res(r, 1);
      int rt = f.kind == 1 ? 1 : 2;
      for (int norm = 0; norm < 2; norm++) {
        std::vector<uint4> cs = make_coords(geom, 0, norm, 256, r.W, r.H, r.D, 0);
        for (int m = 0; m < 4; m++) {
          int a[3] = {modes[m], modes[m], modes[m]};
          run_tex(r, a, 0, 0, norm, 0, geom * 10 + rt, cs);
        }
        int a[3] = {AC, AC, AC};
        run_tex(r, a, 1, 0, norm, 0, geom * 10 + rt, cs);
        run_tex(r, a, 0, 0, norm, 0, geom * 10 + 0, cs);  // .f32 dtype on an integer texture
      }
      free_res(r);
    }
  fprintf(stderr, "B done: %d configs %d samples\n", ncfg, nsamp);
  // C: integer coordinates.
  const FR cl[] = {{F_F32x1, 0, 0}, {F_U8x4, 1, 0}, {F_U32x1, 0, 0}, {F_F16x1, 0, 0}};
  for (int geom = 0; geom < 3; geom++)
    for (const FR& fr : cl) {
      Res r; r.rtype = 0; r.geom = geom; r.f = fr.f; r.W = GW[geom]; r.H = GH[geom]; r.D = GD[geom]; r.L = 0; r.pitch = 0;
      make_res(r, 1);
      int rt = fr.f.kind == 0 && !fr.rm ? 2 : 0;
      for (int norm = 0; norm < 2; norm++) {
        std::vector<uint4> cs = make_coords(geom, 1, norm, 256, r.W, r.H, r.D, 0);
        for (int m = 0; m < 4; m++)
          for (int filt = 0; filt < 2; filt++) {
            int a[3] = {modes[m], modes[m], modes[m]};
            run_tex(r, a, filt, fr.rm, norm, 0, geom * 10 + 3 + rt, cs);
          }
      }
      free_res(r);
    }
  fprintf(stderr, "C done: %d configs %d samples\n", ncfg, nsamp);
  // D: layered, cube, layered cube.
  const FR dl[] = {{F_F32x1, 0, 0}, {F_U8x4, 1, 0}};
  for (int geom = 3; geom < 7; geom++)
    for (const FR& fr : dl) {
      Res r; r.rtype = geom <= 4 ? 3 : geom == 5 ? 4 : 5; r.geom = geom; r.f = fr.f; r.W = GW[geom]; r.H = GH[geom]; r.D = GD[geom]; r.L = GL[geom]; r.pitch = 0;
      make_res(r, 0);
      for (int norm = 0; norm < 2; norm++) {
        std::vector<uint4> cs = make_coords(geom, 0, norm, nsamples(geom), r.W, r.H, r.D, r.L);
        for (int m = 0; m < 4; m++) {
          if (geom >= 5 && m != 1 && m != 0) continue;
          for (int filt = 0; filt < 2; filt++) {
            int a[3] = {modes[m], modes[m], modes[m]};
            run_tex(r, a, filt, fr.rm, norm, 0, geom * 10 + 0, cs);
          }
        }
        if (geom <= 4) {  // integer coordinates
          std::vector<uint4> ci = make_coords(geom, 1, norm, 256, r.W, r.H, r.D, r.L);
          int a[3] = {AC, AC, AC};
          run_tex(r, a, 0, fr.rm, norm, 0, geom * 10 + 3, ci);
          int b[3] = {AB, AB, AB};
          run_tex(r, b, 1, fr.rm, norm, 0, geom * 10 + 3, ci);
        }
      }
      free_res(r);
    }
  fprintf(stderr, "D done: %d configs %d samples\n", ncfg, nsamp);
  // F: tld4 over 2D arrays.
  struct FT { Fmt f; int rm; int rt; };
  const FT tl[] = {{F_F32x4, 0, 0}, {F_U8x4, 1, 0}, {F_U8x4, 0, 2}, {F_S16x2, 1, 0}, {F_F16x4, 0, 0}, {F_S8x4, 0, 1}};
  for (const FT& ft : tl) {
    Res r; r.rtype = 0; r.geom = 1; r.f = ft.f; r.W = 11; r.H = 7; r.D = 1; r.L = 0; r.pitch = 0;
    make_res(r, 1);
    for (int norm = 0; norm < 2; norm++) {
      std::vector<uint4> cs = make_coords(1, 0, norm, 384, r.W, r.H, 1, 0);
      for (int m = 0; m < 4; m++)
        for (int comp = 0; comp < 4; comp++) {
          int a[3] = {modes[m], modes[m], modes[m]};
          run_tex(r, a, ft.rm ? 1 : 0, ft.rm, norm, 0, 70 + comp * 3 + ft.rt, cs);
        }
    }
    free_res(r);
  }
  fprintf(stderr, "F done: %d configs %d samples\n", ncfg, nsamp);
  // G: mixed address modes, tex.level on a non-mipmapped array, dtype crossings.
  {
    Res r; r.rtype = 0; r.geom = 1; r.f = F_F32x1; r.W = 11; r.H = 7; r.D = 1; r.L = 0; r.pitch = 0;
    make_res(r, 0);
    std::vector<uint4> cs = make_coords(1, 0, 1, 512, r.W, r.H, 1, 0);
    const int mix[6][2] = {{AW, AC}, {AC, AW}, {AB, AM}, {AM, AB}, {AW, AB}, {AC, AM}};
    for (int k = 0; k < 6; k++)
      for (int filt = 0; filt < 2; filt++) {
        int a[3] = {mix[k][0], mix[k][1], AC};
        run_tex(r, a, filt, 0, 1, 0, 10, cs);
      }
#ifndef NO_TEXLEVEL
    std::vector<uint4> cl = cs;
    static const float lods[] = {0.f, 0.5f, 1.f, -1.f, 3.f, 100.f, NAN};
    for (auto& c : cl) c.z = fb(lods[rnd() % 7]);
    int a[3] = {AC, AC, AC};
    run_tex(r, a, 1, 0, 1, 0, 100, cl);
#endif
    int a2[3] = {AW, AW, AW};
    run_tex(r, a2, 1, 0, 1, 0, 12, cs);  // .u32 dtype on a float texture
    free_res(r);
  }
  fprintf(stderr, "G done: %d configs %d samples\n", ncfg, nsamp);
}

static void tex_sweep_E() {
  const int AW = cudaAddressModeWrap, AC = cudaAddressModeClamp, AM = cudaAddressModeMirror, AB = cudaAddressModeBorder;
  const int modes[4] = {AW, AC, AM, AB};
  (void)AW; (void)AC; (void)AM; (void)AB;
  struct FR { Fmt f; int rm, srgb; };
  // E: linear memory and pitch2D.
  const FR el[] = {{F_F32x1, 0, 0}, {F_U8x4, 1, 0}, {F_U32x1, 0, 0}, {F_F16x1, 0, 0}};
  for (const FR& fr : el) {
    int rt = fr.f.kind == 0 && !fr.rm ? 2 : 0;
    Res r; r.rtype = 1; r.geom = 0; r.f = fr.f; r.W = 37; r.H = 1; r.D = 1; r.L = 0; r.pitch = 0;
    make_res(r, 1);
    for (int norm = 0; norm < 2; norm++) {
      std::vector<uint4> ci = make_coords(0, 1, norm, 256, r.W, 1, 1, 0), cf = make_coords(0, 0, norm, 256, r.W, 1, 1, 0);
      for (int m = 1; m < 4; m += 2)
        for (int filt = 0; filt < 2; filt++) {
          int a[3] = {modes[m], modes[m], modes[m]};
          run_tex(r, a, filt, fr.rm, norm, 0, 3 + rt, ci);
          run_tex(r, a, filt, fr.rm, norm, 0, 0 + rt, cf);
        }
    }
    free_res(r);
    if (fr.f.kind == 0 && !fr.rm) continue;
    Res p; p.rtype = 2; p.geom = 1; p.f = fr.f; p.W = 11; p.H = 7; p.D = 1; p.L = 0; p.pitch = 0;
    make_res(p, 1);
    for (int norm = 0; norm < 2; norm++) {
      std::vector<uint4> cs = make_coords(1, 0, norm, 512, p.W, p.H, 1, 0);
      for (int m = 0; m < 4; m++)
        for (int filt = 0; filt < 2; filt++) {
          int a[3] = {modes[m], modes[m], modes[m]};
          run_tex(p, a, filt, fr.rm, norm, 0, 10 + rt, cs);
        }
    }
    free_res(p);
  }
  fprintf(stderr, "E done: %d configs %d samples\n", ncfg, nsamp);
}

#include "targeted.inc"

// ---------------------------------------------------------------- surfaces
static const int SG_W[5] = {13, 11, 5, 13, 11}, SG_H[5] = {1, 7, 4, 1, 7}, SG_D[5] = {1, 1, 3, 1, 1}, SG_L[5] = {0, 0, 0, 3, 3};
// SDT index (genforms.py): 0 b8 1 v2.b8 2 v4.b8 3 b16 4 v2.b16 5 v4.b16 6 b32 7 v2.b32 8 v4.b32 9 b64 10 v2.b64
static const int SDT_BYTES[11] = {1, 2, 4, 2, 4, 8, 4, 8, 16, 8, 16};
static std::vector<uint4> surf_coords(int g, int n, int es) {
  std::vector<uint4> v(n);
  int W = SG_W[g], H = SG_H[g], D = SG_D[g], L = SG_L[g];
  for (int i = 0; i < n; i++) {
    uint32_t c[4] = {0, 0, 0, 0};
    int dims[3] = {W, H, D}, nd = g == 0 || g == 3 ? 1 : g == 2 ? 3 : 2, off = g >= 3 ? 1 : 0;
    if (off) c[0] = rnd() % 100 < 80 ? (uint32_t)(rnd() % L) : lcoord(L);
    for (int j = 0; j < nd; j++) {
      int cat = (int)(rnd() % 100), N = dims[j], x;
      if (cat < 70) x = (int)(rnd() % N);
      else if (cat < 90) x = (int)(rnd() % (N + 6)) - 3;
      else { static const int sp[] = {INT_MIN / 16, INT_MAX / 16, -1000, 1000, 65536, -65536}; x = sp[rnd() % 6]; }
      c[off + j] = (uint32_t)(j == 0 ? x * es : x);
    }
    if (g == 2 || g == 4) c[3] = c[2];
    v[i] = make_uint4(c[0], c[1], c[2], c[3]);
  }
  return v;
}
static void surf_sweep() {
  const Fmt sf[] = {F_U8x1, F_U16x1, F_U32x1, F_F32x1, F_U8x4, F_F16x2, F_U32x2, F_U16x4, F_U32x4};
  int nrec = 0;
  for (int g = 0; g < 5; g++)
    for (const Fmt& f : sf) {
      Res r; r.geom = g; r.f = f; r.W = SG_W[g]; r.H = SG_H[g]; r.D = SG_D[g]; r.L = SG_L[g]; r.pitch = 0;
      size_t es = f.bits / 8 * f.nch;
      size_t n = (size_t)r.W * r.H * r.D * (r.L ? r.L : 1);
      cudaChannelFormatDesc cd = chdesc(f);
      cudaExtent ext = make_cudaExtent(r.W, g == 0 || g == 3 ? 0 : r.H, g == 2 ? r.D : (g >= 3 ? r.L : 0));
      unsigned flags = cudaArraySurfaceLoadStore | (g >= 3 ? cudaArrayLayered : 0);
      cudaArray_t arr;
      CK(cudaMalloc3DArray(&arr, &cd, ext, flags));
      cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
      cudaSurfaceObject_t s;
      CK(cudaCreateSurfaceObject(&s, &rd));
      unsigned q[NSUQ];
      ksuq<<<1, 1>>>(s, dQ);
      lcheck("ksuq");
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(q, dQ, sizeof q, cudaMemcpyDeviceToHost));
      std::vector<uint8_t> img(n * es), back(n * es);
      cudaMemcpy3DParms up = {}, down = {};
      up.srcPtr = make_cudaPitchedPtr(img.data(), r.W * es, r.W, r.H); up.dstArray = arr;
      up.extent = make_cudaExtent(r.W, r.H, r.D * (r.L ? r.L : 1)); up.kind = cudaMemcpyHostToDevice;
      down.srcArray = arr; down.dstPtr = make_cudaPitchedPtr(back.data(), r.W * es, r.W, r.H);
      down.extent = up.extent; down.kind = cudaMemcpyDeviceToHost;
      for (int dt = 0; dt < 11; dt++) {
        int acc = SDT_BYTES[dt];
        if (acc != (int)es && !(g == 1 && (dt == 6 || dt == 0 || dt == 8))) continue;
        for (int mode = 0; mode < 2; mode++) {
          int form = g * 100 + dt * 4 + mode;
          // suld
          for (auto& b : img) b = (uint8_t)rnd();
          CK(cudaMemcpy3D(&up));
          std::vector<uint4> cs = surf_coords(g, 256, acc);
          int nn = (int)cs.size();
          std::vector<uint4> res(nn);
          CK(cudaMemcpy(dC, cs.data(), nn * sizeof(uint4), cudaMemcpyHostToDevice));
          ksuld<<<(nn + g_block - 1) / g_block, g_block>>>(s, form, dC, dR, nn);
          lcheck("ksuld");
          CK(cudaDeviceSynchronize());
          CK(cudaMemcpy(res.data(), dR, nn * sizeof(uint4), cudaMemcpyDeviceToHost));
          w32(0x444c5553);  // 'SULD'
          uint32_t hdr[] = {(uint32_t)g, (uint32_t)f.kind, (uint32_t)f.bits, (uint32_t)f.nch, (uint32_t)r.W, (uint32_t)r.H, (uint32_t)r.D, (uint32_t)r.L, (uint32_t)form};
          w32(sizeof hdr / 4); for (uint32_t h : hdr) w32(h);
          wbuf(img.data(), img.size());
          w32(NSUQ); for (int i = 0; i < NSUQ; i++) w32(q[i]);
          w32(nn); fwrite(cs.data(), sizeof(uint4), nn, out); fwrite(res.data(), sizeof(uint4), nn, out);
          // sust: one thread stores 64 values in order, then the image comes back.
          for (auto& b : img) b = (uint8_t)rnd();
          CK(cudaMemcpy3D(&up));
          std::vector<uint4> sc = surf_coords(g, 64, acc), sv(64);
          for (auto& v : sv) v = make_uint4((uint32_t)rnd(), (uint32_t)rnd(), (uint32_t)rnd(), (uint32_t)rnd());
          CK(cudaMemcpy(dC, sc.data(), 64 * sizeof(uint4), cudaMemcpyHostToDevice));
          CK(cudaMemcpy(dR, sv.data(), 64 * sizeof(uint4), cudaMemcpyHostToDevice));
          ksust<<<1, 1>>>(s, form, dC, dR, 64);
          lcheck("ksust");
          CK(cudaDeviceSynchronize());
          CK(cudaMemcpy3D(&down));
          w32(0x54535553);  // 'SUST'
          w32(sizeof hdr / 4); for (uint32_t h : hdr) w32(h);
          wbuf(img.data(), img.size());
          w32(64); fwrite(sc.data(), sizeof(uint4), 64, out); fwrite(sv.data(), sizeof(uint4), 64, out);
          wbuf(back.data(), back.size());
          fflush(out);
          nrec += 2;
        }
      }
      CK(cudaDestroySurfaceObject(s));
      CK(cudaFreeArray(arr));
    }
  fprintf(stderr, "surf done: %d records\n", nrec);
}

// probe k: one surface access that may trap; prints what happened.
static void probe(int k) {
  cudaChannelFormatDesc cd = chdesc(F_U32x1);
  cudaArray_t arr;
  CK(cudaMalloc3DArray(&arr, &cd, make_cudaExtent(11, 7, 0), cudaArraySurfaceLoadStore));
  std::vector<uint32_t> img(77);
  for (int i = 0; i < 77; i++) img[i] = 0x11110000u + i;
  CK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), 44, 44, 7, cudaMemcpyHostToDevice));
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
  cudaSurfaceObject_t s;
  CK(cudaCreateSurfaceObject(&s, &rd));
  // {form, x, y}: 2d b32 forms are 124 clamp, 125 zero, 126 trap (1*100 + 6*4 + mode)
  static const int pr[][3] = {{126, 4, 1}, {126, -4, 1}, {126, 44, 1}, {126, 4, 7}, {124, 2, 1}, {125, 2, 1}, {126, 2, 1},
                              {124, 5, 1}, {125, 7, 1}, {100, 44, 1}, {102, 45, 1}, {132, 4, 1}, {132, 6, 1}, {134, 8, 1}};
  const int np = sizeof(pr) / sizeof(pr[0]);
  if (k >= np) { printf("probe %d none\n", k); return; }
  uint4 c = make_uint4((uint32_t)pr[k][1], (uint32_t)pr[k][2], 0, 0);
  CK(cudaMemcpy(dC, &c, sizeof c, cudaMemcpyHostToDevice));
  ksuld<<<1, 1>>>(s, pr[k][0], dC, dR, 1);
  lcheck("probe");
  cudaError_t e = cudaDeviceSynchronize();
  uint4 o = make_uint4(0, 0, 0, 0);
  if (e == cudaSuccess) CK(cudaMemcpy(&o, dR, sizeof o, cudaMemcpyDeviceToHost));
  printf("probe %d suld form %d x %d y %d: err %d (%s) -> %08x %08x %08x %08x\n", k, pr[k][0], pr[k][1], pr[k][2], (int)e,
         cudaGetErrorName(e), o.x, o.y, o.z, o.w);
  if (e != cudaSuccess) return;
  // the same coordinates as a store of 0xabcdef01 (same form), then which words changed
  uint4 v = make_uint4(0xabcdef01u, 0x12345678u, 0x9abcdef0u, 0x0fedcba9u);
  CK(cudaMemcpy(dR, &v, sizeof v, cudaMemcpyHostToDevice));
  ksust<<<1, 1>>>(s, pr[k][0], dC, dR, 1);
  e = cudaDeviceSynchronize();
  printf("probe %d sust: err %d (%s)", k, (int)e, cudaGetErrorName(e));
  if (e == cudaSuccess) {
    std::vector<uint32_t> b(77);
    CK(cudaMemcpy2DFromArray(b.data(), 44, arr, 0, 0, 44, 7, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 77; i++) if (b[i] != img[i]) printf(" [%d]=%08x", i, b[i]);
  }
  printf("\n");
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: rec tex|surf OUT | probe K\n"); return 1; }
  CK(cudaMalloc(&dC, MAXS * sizeof(uint4)));
  CK(cudaMalloc(&dR, MAXS * sizeof(uint4)));
  CK(cudaMalloc(&dQ, 64 * sizeof(unsigned)));
  {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    fprintf(stderr, "device %s sm_%d%d\n", p.name, p.major, p.minor);
    const void* fs[] = {(const void*)kplain, (const void*)ktex, (const void*)ksuld, (const void*)ksust, (const void*)ktxq, (const void*)ksuq};
    const char* fn[] = {"kplain", "ktex", "ksuld", "ksust", "ktxq", "ksuq"};
    for (int i = 0; i < 6; i++) {
      cudaFuncAttributes a;
      cudaError_t e = cudaFuncGetAttributes(&a, fs[i]);
      fprintf(stderr, "%s: %s regs %d local %d maxthreads %d\n", fn[i], cudaGetErrorString(e), e ? 0 : a.numRegs, e ? 0 : (int)a.localSizeBytes, e ? 0 : a.maxThreadsPerBlock);
      if (!e && i == 1 && a.maxThreadsPerBlock < g_block) g_block = a.maxThreadsPerBlock;
    }
    cudaGetLastError();
    kplain<<<1, 32>>>((unsigned*)dQ);
    cudaError_t e1 = cudaGetLastError(), e2 = cudaDeviceSynchronize();
    unsigned v = 0;
    cudaMemcpy(&v, dQ, 4, cudaMemcpyDeviceToHost);
    fprintf(stderr, "kplain: launch %s sync %s value %u\n", cudaGetErrorString(e1), cudaGetErrorString(e2), v);
    if (!strcmp(argv[1], "diag")) return e1 || e2 || v != 42 ? 4 : 0;
  }
  if (!strcmp(argv[1], "probe")) { probe(atoi(argv[2])); return 0; }
  out = fopen(argv[2], "wb");
  w32(0x31584554);  // 'TEX1'
  if (!strcmp(argv[1], "tex")) { tex_sweep(); tex_sweep_E(); }
  else if (!strcmp(argv[1], "tex2")) tex_targeted(argc > 3 ? argv[3] : "all");
  else surf_sweep();
  w32(0x444e4521);  // '!END'
  fclose(out);
  return 0;
}
