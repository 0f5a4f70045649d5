// mufu.cu: record and analyse the H100's .approx results exhaustively.
// Every op's results for all 2^32 inputs live in a 16 GiB device array;
// hypotheses are relations between entries (checks), counted per input
// class (sign and exponent: the top 9 bits). Writes encoded recordings of
// the fundamental domains, residuals, samples and per-bucket hashes to
// the directory given as argv[1]; prints a summary on stdout.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <string>
#include <algorithm>
#include <cuda.h>
#include <cuda_runtime.h>
#include "ops.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)
#define CU(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { const char* s_; cuGetErrorString(e_, &s_); \
  fprintf(stderr, "CU %s at %s:%d\n", s_, __FILE__, __LINE__); ok_ = false; } } while (0)

typedef unsigned long long u64;
static const u64 N32 = 1ull << 32;
static const int GRID = 132 * 16, BLOCK = 256;

// ---------------------------------------------------------------- fill
template <int OP> __global__ void kfill(uint32_t* out) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < N32; i += (u64)gridDim.x * blockDim.x)
    out[i] = apply<OP>((uint32_t)i);
}
template <int OP> __global__ void kfill16(uint32_t* out) { // scalar 16-bit forms: 65536 inputs
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 65536) {
    uint32_t r = 0;
    switch (OP) {
    case 0: r = f_ex2h(i); break;
    case 1: r = f_ex2bh(i); break;
    case 2: r = f_tanhh(i); break;
    case 3: r = f_tanhbh(i); break;
    }
    out[i] = r & 0xffff;
  }
}

// ---------------------------------------------------------------- predictors
enum Pid { P_OTHER, P_SINMAP, P_QUANT, P_EX2RED, P_PERRED, P_SCALE, P_LG2RED, P_ODD, P_TRUNCK,
  P_IDENT, P_EX2SEQ, P_LG2SEQ, P_RCPSEQ, P_RSQSEQ, P_SQRTSEQ, P_DENX, P_CR, P_X2 };
struct Params { int pid, q, mode, k, variant, outmode, fn; float c; };

__device__ __forceinline__ float fb(uint32_t b) { return __uint_as_float(b); }
__device__ __forceinline__ uint32_t bf(float f) { return __float_as_uint(f); }
__device__ __forceinline__ float ftzf(float x) { return (fabsf(x) < 1.17549435e-38f) ? copysignf(0.f, x) : x; }
__device__ __forceinline__ uint32_t canon(uint32_t b) { return ((b & 0x7fffffff) > 0x7f800000) ? 0x7fffffffu : b; }
__device__ float quant(float x, int q, int mode) {
  double v = ldexp((double)x, q);
  double r = mode == 0 ? floor(v) : mode == 1 ? trunc(v) : rint(v);
  return (float)ldexp(r, -q);
}
__device__ __forceinline__ uint32_t gridbits(double f, int q) { // bits of k*2^-q, f = k*2^-q in [0,1)
  return bf((float)f);
}
__device__ uint32_t roundd(double v, int outmode) {
  float r;
  switch (outmode) {
  case 0: r = __double2float_rn(v); if (fabsf(r) < 1.17549435e-38f) r = copysignf(0.f, r); break;
  case 1: r = __double2float_rn(v); break;
  case 2: r = __double2float_rz(v); break;
  case 3: r = __double2float_rd(v); break;
  default: r = __double2float_ru(v); break;
  }
  return bf(r);
}
// normalize a positive finite nonzero magnitude a (bits without sign): value = (1+m/2^23)*2^e
__device__ __forceinline__ void norm(uint32_t a, int& e, uint32_t& m) {
  if (a >= 0x00800000) { e = (int)(a >> 23) - 127; m = a & 0x7fffff; }
  else { int sh = __clz(a) - 8; m = (a << sh) & 0x7fffff; e = -126 - sh; }
}

__device__ uint32_t pred(const Params& p, uint32_t xb, const uint32_t* __restrict__ self,
                         const uint32_t* __restrict__ other, const uint32_t* __restrict__ T, bool& skip) {
  float x = fb(xb);
  uint32_t s = xb & 0x80000000u, a = xb & 0x7fffffffu;
  switch (p.pid) {
  case P_OTHER: return other[xb];
  case P_SINMAP: return other[bf(__fmul_rz(x, p.c))];
  case P_QUANT: {
    if (a >= 0x7f800000) { skip = true; return 0; }
    float v = quant(ftzf(x), p.q, p.mode);
    if (bf(v) == xb) { skip = true; return 0; }
    return self[bf(v)];
  }
  case P_EX2RED: {
    if (a > 0x7f800000) return 0x7fffffffu;
    if (a == 0x7f800000) return s ? 0u : 0x7f800000u;
    float v = quant(ftzf(x), p.q, p.mode);
    if (v >= 128.f) return 0x7f800000u;
    if (v < -200.f) return 0u;
    double I = floor((double)v), f = (double)v - I;
    uint32_t t = T[gridbits(f, p.q)];
    long long eb = (long long)((t >> 23) & 0xff) + (long long)I;
    if (eb >= 255) return 0x7f800000u;
    if (eb <= 0) return roundd(ldexp((double)fb(t), (int)I), p.outmode);
    return (uint32_t)((long long)t + ((long long)I << 23));
  }
  case P_PERRED: {
    if (a >= 0x7f800000) return 0x7fffffffu;
    float y = ftzf(x);
    if (p.variant == 0) {
      float v = quant(y, p.q, p.mode);
      double f = (double)v - floor((double)v);
      return T[gridbits(f, p.q)];
    }
    float v = quant(fabsf(y), p.q, p.mode);
    double f = (double)v - floor((double)v);
    uint32_t r = T[gridbits(f, p.q)];
    return (p.variant == 1 && s) ? r ^ 0x80000000u : r;
  }
  case P_SCALE: {
    if (a > 0x7f800000) return 0x7fffffffu;
    int var = p.variant;
    if (a == 0x7f800000) {
      if (var == 0) return s;
      if (s) return 0x7fffffffu;
      return var == 1 ? 0u : 0x7f800000u;
    }
    if (a == 0 || (a < 0x00800000 && p.mode == 0)) {
      if (var == 0) return s | 0x7f800000u;
      if (var == 1) return s | 0x7f800000u;
      return s;
    }
    if (s && var != 0) return 0x7fffffffu;
    int e; uint32_t m; norm(a, e, m);
    double val;
    if (var == 0) val = ldexp((double)fb(T[0x3f800000u | m]), -e);
    else {
      int par = e & 1, half = (e - par) / 2;
      double t = fb(T[(par ? 0x40000000u : 0x3f800000u) | m]);
      val = ldexp(t, var == 1 ? -half : half);
    }
    return roundd(val, p.outmode) | (var == 0 ? s : 0);
  }
  case P_LG2RED: {
    if (a > 0x7f800000) return 0x7fffffffu;
    if (a == 0 || (a < 0x00800000 && p.mode == 0)) return 0xff800000u;
    if (s) return 0x7fffffffu;
    if (a == 0x7f800000) return 0x7f800000u;
    int e; uint32_t m; norm(a, e, m);
    float h0 = fb(T[0x3f800000u | m]), h1 = fb(T[0x3f000000u | m]);
    double L = (fabsf(h0) <= fabsf(h1)) ? (double)h0 : (double)h1 + 1.0;
    return roundd((double)e + L, p.outmode + 1);
  }
  case P_ODD: {
    if (a > 0x7f800000) { skip = true; return 0; }
    return self[xb ^ 0x80000000u] ^ 0x80000000u;
  }
  case P_TRUNCK: {
    if (a >= 0x7f800000) { skip = true; return 0; }
    uint32_t sh = 23 - p.k, mask = (1u << sh) - 1, xq;
    if (p.mode == 0) xq = xb & ~mask;
    else { // round to nearest even at k bits (carry may bump the exponent)
      uint32_t half = 1u << (sh - 1), low = xb & mask, t = xb & ~mask;
      if (low > half || (low == half && ((t >> sh) & 1))) t += 1u << sh;
      xq = t;
    }
    if (xq == xb || (xq & 0x7fffffff) >= 0x7f800000) { skip = true; return 0; }
    return self[xq];
  }
  case P_IDENT: return xb;
  case P_EX2SEQ: {
    if (!(x >= p.c)) { float h = __fmul_rn(x, 0.5f); float r = fb(other[bf(h)]); return canon(bf(__fmul_rn(r, r))); }
    return other[xb];
  }
  case P_LG2SEQ: {
    if (x < 1.17549435e-38f) {
      float y = __fmul_rn(x, ldexpf(1.f, p.k)); float r = fb(other[bf(y)]);
      return canon(bf(__fadd_rn(r, -(float)p.k)));
    }
    return other[xb];
  }
  case P_RCPSEQ: {
    float ax = fabsf(x);
    if ((p.variant & 1) && ax < 1.17549435e-38f && ax > 0.f) {
      float r = fb(other[bf(__fmul_rn(x, ldexpf(1.f, p.k)))]); return canon(bf(__fmul_rn(r, ldexpf(1.f, p.k))));
    }
    if ((p.variant & 2) && ax > ldexpf(1.f, 126) && ax <= 3.40282347e38f) {
      float r = fb(other[bf(__fmul_rn(x, ldexpf(1.f, -p.k)))]); return canon(bf(__fmul_rn(r, ldexpf(1.f, -p.k))));
    }
    return other[xb];
  }
  case P_RSQSEQ:
  case P_SQRTSEQ: {
    if (fabsf(x) < 1.17549435e-38f) {
      float r = fb(other[bf(__fmul_rn(x, ldexpf(1.f, p.k)))]);
      return canon(bf(__fmul_rn(r, ldexpf(1.f, p.pid == P_RSQSEQ ? p.k / 2 : -p.k / 2))));
    }
    return other[xb];
  }
  case P_DENX: {
    if ((xb & 0x7f800000u) == 0 && (xb & 0x7fffffu) != 0) return p.variant == 0 ? xb : bf(p.c);
    return other[xb];
  }
  case P_CR: {
    double d = x, v;
    switch (p.fn) {
    case 0: v = exp2(d); break;
    case 1: v = log2(d); break;
    case 2: v = 1.0 / d; break;
    case 3: v = rsqrt(d); break;
    case 4: v = sqrt(d); break;
    case 5: v = sin(d); break;
    case 6: v = cos(d); break;
    default: v = tanh(d); break;
    }
    return canon(bf(__double2float_rn(v)));
  }
  case P_X2: return T[xb & 0xffff] | (T[xb >> 16] << 16);
  }
  return 0;
}

__device__ __forceinline__ unsigned udist(uint32_t a, uint32_t b) {
  long long oa = (a >> 31) ? -(long long)(a & 0x7fffffff) : (long long)a;
  long long ob = (b >> 31) ? -(long long)(b & 0x7fffffff) : (long long)b;
  long long d = oa > ob ? oa - ob : ob - oa;
  return d > 0xffffffffll ? 0xffffffffu : (unsigned)d;
}

#define SAMP 4
struct CheckOut { u64 cnt[512]; u64 skip[512]; unsigned maxd[512]; unsigned scnt[512]; uint32_t samp[512 * SAMP * 3]; };

__global__ void kcheck(Params p, const uint32_t* __restrict__ self, const uint32_t* __restrict__ other,
                       const uint32_t* __restrict__ T, CheckOut* o) {
  int lane = threadIdx.x & 31;
  u64 warp = (blockIdx.x * (u64)blockDim.x + threadIdx.x) >> 5, nw = ((u64)gridDim.x * blockDim.x) >> 5;
  for (u64 ch = warp; ch < (1ull << 19); ch += nw) {
    uint32_t base = (uint32_t)(ch << 13), cls = base >> 23;
    unsigned n = 0, mx = 0, sk = 0, found = 0; uint32_t sx = 0, sh = 0, sp = 0;
    for (int it = 0; it < 256; it++) {
      uint32_t xb = base + it * 32 + lane;
      uint32_t h = self[xb];
      bool skip = false;
      uint32_t pr = pred(p, xb, self, other, T, skip);
      if (skip) { sk++; continue; }
      if (pr != h) { n++; mx = max(mx, udist(h, pr)); if (!found) { found = 1; sx = xb; sh = h; sp = pr; } }
    }
    n = __reduce_add_sync(0xffffffffu, n); sk = __reduce_add_sync(0xffffffffu, sk); mx = __reduce_max_sync(0xffffffffu, mx);
    unsigned fm = __ballot_sync(0xffffffffu, found);
    if (fm) {
      int src = __ffs(fm) - 1;
      sx = __shfl_sync(0xffffffffu, sx, src); sh = __shfl_sync(0xffffffffu, sh, src); sp = __shfl_sync(0xffffffffu, sp, src);
    }
    if (lane == 0) {
      if (n) { atomicAdd(&o->cnt[cls], (u64)n); atomicMax(&o->maxd[cls], mx); }
      if (sk) atomicAdd(&o->skip[cls], (u64)sk);
      if (fm) { unsigned j = atomicAdd(&o->scnt[cls], 1u); if (j < SAMP) { uint32_t* q = &o->samp[(cls * SAMP + j) * 3]; q[0] = sx; q[1] = sh; q[2] = sp; } }
    }
  }
}

// per-class output statistics
struct Stats { unsigned orm[512], andm[512]; u64 ident[512], pm1[512], zero[512], nan[512], inf[512], den[512]; };
__global__ void kstats(const uint32_t* __restrict__ a, Stats* o) {
  int lane = threadIdx.x & 31;
  u64 warp = (blockIdx.x * (u64)blockDim.x + threadIdx.x) >> 5, nw = ((u64)gridDim.x * blockDim.x) >> 5;
  for (u64 ch = warp; ch < (1ull << 19); ch += nw) {
    uint32_t base = (uint32_t)(ch << 13), cls = base >> 23;
    unsigned orm = 0, andm = 0x7fffff, id = 0, pm = 0, z = 0, na = 0, in = 0, de = 0;
    for (int it = 0; it < 256; it++) {
      uint32_t xb = base + it * 32 + lane, r = a[xb], ar = r & 0x7fffffff;
      orm |= r & 0x7fffff; andm &= r & 0x7fffff;
      id += (r == xb); pm += (ar == 0x3f800000); z += (ar == 0); na += (ar > 0x7f800000); in += (ar == 0x7f800000);
      de += (ar != 0 && ar < 0x00800000);
    }
    orm = __reduce_or_sync(0xffffffffu, orm); andm = __reduce_and_sync(0xffffffffu, andm);
    id = __reduce_add_sync(0xffffffffu, id); pm = __reduce_add_sync(0xffffffffu, pm); z = __reduce_add_sync(0xffffffffu, z);
    na = __reduce_add_sync(0xffffffffu, na); in = __reduce_add_sync(0xffffffffu, in); de = __reduce_add_sync(0xffffffffu, de);
    if (lane == 0) {
      atomicOr(&o->orm[cls], orm); atomicAnd(&o->andm[cls], andm);
      if (id) atomicAdd(&o->ident[cls], (u64)id); if (pm) atomicAdd(&o->pm1[cls], (u64)pm);
      if (z) atomicAdd(&o->zero[cls], (u64)z); if (na) atomicAdd(&o->nan[cls], (u64)na);
      if (in) atomicAdd(&o->inf[cls], (u64)in); if (de) atomicAdd(&o->den[cls], (u64)de);
    }
  }
}

// order-independent hash per 2^20-input bucket (4096 buckets)
__device__ __forceinline__ u64 mix(uint32_t x, uint32_t r) {
  u64 z = ((u64)x << 32 | r) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31);
}
__global__ void khash(const uint32_t* __restrict__ a, u64* h) {
  int lane = threadIdx.x & 31;
  u64 warp = (blockIdx.x * (u64)blockDim.x + threadIdx.x) >> 5, nw = ((u64)gridDim.x * blockDim.x) >> 5;
  for (u64 ch = warp; ch < (1ull << 19); ch += nw) {
    uint32_t base = (uint32_t)(ch << 13);
    u64 s = 0;
    for (int it = 0; it < 256; it++) { uint32_t xb = base + it * 32 + lane; s += mix(xb, a[xb]); }
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) atomicAdd(&h[base >> 20], s);
  }
}
// gather: out[i] = a[idx[i]]
__global__ void kgather(const uint32_t* __restrict__ a, const uint32_t* __restrict__ idx, uint32_t* out, u64 n) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) out[i] = a[idx[i]];
}
// grid gather: out[k] = a[bits(k*2^-q)]
__global__ void kgrid(const uint32_t* __restrict__ a, int q, uint32_t* out) {
  for (u64 k = blockIdx.x * (u64)blockDim.x + threadIdx.x; k < (1ull << q); k += (u64)gridDim.x * blockDim.x)
    out[k] = a[__float_as_uint((float)ldexp((double)k, -q))];
}
// predicted values for a range
__global__ void kpred(Params p, const uint32_t* self, const uint32_t* other, const uint32_t* T, uint32_t start, uint32_t n, uint32_t* out) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
    bool sk = false; out[i] = pred(p, start + (uint32_t)i, self, other, T, sk);
  }
}

// ---------------------------------------------------------------- host
static std::string dir;
static FILE* manifest;
static FILE* checks;
static bool ok_ = true;
static CheckOut* dco; static Stats* dst; static u64* dh; static uint32_t *dtmp, *dtmp2;

static u64 fnv(const void* p, size_t n) {
  const unsigned char* b = (const unsigned char*)p; u64 h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 1099511628211ull; }
  return h;
}
static void putv(std::vector<unsigned char>& o, long long r) {
  unsigned long long z = ((unsigned long long)r << 1) ^ (unsigned long long)(r >> 63);
  if (z < 255) o.push_back((unsigned char)z);
  else { o.push_back(255); for (int i = 0; i < 8; i++) o.push_back((unsigned char)(r >> (8 * i))); }
}
// seq encoding: residual against a[i-1] + floor((a[i-1]-a[i-1-L])/L)
static std::vector<unsigned char> encSeq(const uint32_t* a, size_t n) {
  std::vector<unsigned char> o; o.reserve(n + 64);
  const long long L = 64;
  for (size_t i = 0; i < n; i++) {
    long long p = 0;
    if (i >= 1) p = a[i - 1];
    if (i >= (size_t)L + 1) { long long d = (long long)a[i - 1] - (long long)a[i - 1 - L]; long long q = d >= 0 ? d / L : -((-d + L - 1) / L); p += q; }
    putv(o, (long long)a[i] - p);
  }
  return o;
}
static void writeFile(const std::string& name, const void* p, size_t n) {
  std::string path = dir + "/" + name;
  FILE* f = fopen(path.c_str(), "wb"); fwrite(p, 1, n, f); fclose(f);
}
// record a[0..n) (host array): seq-encoded file + manifest line
static void recordHost(const std::string& name, const uint32_t* a, size_t n, const char* what) {
  std::vector<unsigned char> e = encSeq(a, n);
  writeFile(name + ".seq", e.data(), e.size());
  fprintf(manifest, "%s.seq seq n=%zu fnv=%016llx bytes=%zu %s\n", name.c_str(), n, fnv(a, n * 4), e.size(), what);
  fflush(manifest);
}
static void recordDev(const std::string& name, const uint32_t* d, size_t n, const char* what) {
  std::vector<uint32_t> h(n);
  CK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
  recordHost(name, h.data(), n, what);
}

struct CheckRes { std::string name; u64 total, skipped; unsigned maxd; std::vector<int> bad; };
static std::vector<CheckRes> allChecks;
static CheckOut hco;

static CheckRes runCheck(const char* opname, const char* hyp, Params p, const uint32_t* self, const uint32_t* other, const uint32_t* T) {
  CK(cudaMemset(dco, 0, sizeof(CheckOut)));
  kcheck<<<GRID, BLOCK>>>(p, self, other, T, dco);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(&hco, dco, sizeof(CheckOut), cudaMemcpyDeviceToHost));
  CheckRes r; r.name = std::string(opname) + " :: " + hyp; r.total = 0; r.skipped = 0; r.maxd = 0;
  for (int c = 0; c < 512; c++) { r.total += hco.cnt[c]; r.skipped += hco.skip[c]; if (hco.cnt[c]) { r.bad.push_back(c); r.maxd = std::max(r.maxd, hco.maxd[c]); } }
  fprintf(checks, "CHECK %s | mismatches %llu of %llu (skipped %llu) maxulp %u classes %zu\n", r.name.c_str(), r.total, N32 - r.skipped, r.skipped, r.maxd, r.bad.size());
  for (int c : r.bad) {
    fprintf(checks, "  cls %03x (s%d e%3d) n=%llu skip=%llu maxd=%u", c, c >> 8, (c & 255) - 127, hco.cnt[c], hco.skip[c], hco.maxd[c]);
    for (unsigned j = 0; j < std::min(hco.scnt[c], (unsigned)SAMP); j++) {
      uint32_t* q = &hco.samp[(c * SAMP + j) * 3];
      fprintf(checks, " [x=%08x hw=%08x pr=%08x]", q[0], q[1], q[2]);
    }
    fprintf(checks, "\n");
  }
  fflush(checks);
  printf("  %-22s %-44s %12llu / %-12llu maxulp %-10u bad classes %zu\n", opname, hyp, r.total, N32 - r.skipped, r.maxd, r.bad.size());
  fflush(stdout);
  allChecks.push_back(r);
  return r;
}
static Params P(int pid) { Params p; memset(&p, 0, sizeof p); p.pid = pid; return p; }

static Stats hs;
static void stats(const char* opname, const uint32_t* a) {
  CK(cudaMemset(dst, 0, sizeof(Stats)));
  CK(cudaMemset(dst->andm, 0xff, sizeof(dst->andm)));
  kstats<<<GRID, BLOCK>>>(a, dst); CK(cudaGetLastError());
  CK(cudaMemcpy(&hs, dst, sizeof(Stats), cudaMemcpyDeviceToHost));
  fprintf(checks, "STATS %s\n", opname);
  for (int c = 0; c < 512; c++)
    fprintf(checks, "  cls %03x (s%d e%4d) or=%06x and=%06x ident=%llu pm1=%llu zero=%llu nan=%llu inf=%llu den=%llu\n", c, c >> 8, (c & 255) - 127,
            hs.orm[c], hs.andm[c], hs.ident[c], hs.pm1[c], hs.zero[c], hs.nan[c], hs.inf[c], hs.den[c]);
  fflush(checks);
}
static void hashes(int op, const uint32_t* a) {
  CK(cudaMemset(dh, 0, 4096 * 8));
  khash<<<GRID, BLOCK>>>(a, dh); CK(cudaGetLastError());
  std::vector<u64> h(4096);
  CK(cudaMemcpy(h.data(), dh, 4096 * 8, cudaMemcpyDeviceToHost));
  writeFile(std::string("hash_") + opFile[op] + ".bin", h.data(), 4096 * 8);
  fprintf(manifest, "hash_%s.bin hash4096 %s\n", opFile[op], opName[op]);
}
static std::vector<uint32_t> sampleInputs() {
  std::vector<uint32_t> v;
  uint32_t sp[] = {0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffffffff, 1, 0x80000001, 0x007fffff, 0x807fffff,
                   0x00800000, 0x80800000, 0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff, 0x3f000000, 0x40000000, 0x3fffffff, 0x3f7fffff};
  for (uint32_t x : sp) v.push_back(x);
  u64 st = 0x1234567ull;
  for (int c = 0; c < 512; c++)
    for (int j = 0; j < 16; j++) {
      st = st * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t m = (uint32_t)(st >> 41) & 0x7fffff;
      if (j == 0) m = 0; if (j == 1) m = 0x7fffff;
      v.push_back((uint32_t)c << 23 | m);
    }
  return v;
}
static void samples(int op, const uint32_t* a) {
  std::vector<uint32_t> in = sampleInputs();
  size_t n = in.size();
  CK(cudaMemcpy(dtmp2, in.data(), n * 4, cudaMemcpyHostToDevice));
  kgather<<<64, 256>>>(a, dtmp2, dtmp, n); CK(cudaGetLastError());
  std::vector<uint32_t> out(n), pairs(2 * n);
  CK(cudaMemcpy(out.data(), dtmp, n * 4, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++) { pairs[2 * i] = in[i]; pairs[2 * i + 1] = out[i]; }
  writeFile(std::string("samples_") + opFile[op] + ".bin", pairs.data(), pairs.size() * 4);
}

static void fill(int op, uint32_t* a);
static CUfunction rawSin, rawCos;
static bool haveRaw = false;

// residual recording for the classes where check r failed
static void residuals(const char* tag, const CheckRes& r, Params p, const uint32_t* self, const uint32_t* other, const uint32_t* T, int maxCls) {
  int done = 0;
  for (int c : r.bad) {
    if (done >= maxCls) { fprintf(manifest, "# resid %s cls %03x not recorded (cap)\n", tag, c); continue; }
    uint32_t start = (uint32_t)c << 23, n = 1u << 23;
    kpred<<<GRID, BLOCK>>>(p, self, other, T, start, n, dtmp); CK(cudaGetLastError());
    std::vector<uint32_t> pr(n), hw(n);
    CK(cudaMemcpy(pr.data(), dtmp, (size_t)n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hw.data(), self + start, (size_t)n * 4, cudaMemcpyDeviceToHost));
    size_t nz = 0; for (uint32_t i = 0; i < n; i++) nz += hw[i] != pr[i];
    char name[128];
    if (nz > (n >> 4)) { // predictor useless here: keep the first 2^18 raw results
      snprintf(name, sizeof name, "raw_%s_%03x", tag, c);
      recordHost(name, hw.data(), 1u << 18, "raw class head (predictor failed)");
    } else {
      std::vector<unsigned char> e;
      for (uint32_t i = 0; i < n; i++) putv(e, (long long)hw[i] - (long long)pr[i]);
      snprintf(name, sizeof name, "resid_%s_%03x.res", tag, c);
      writeFile(name, e.data(), e.size());
      fprintf(manifest, "%s resid n=%u start=%08x nonzero=%zu fnvhw=%016llx pid=%d q=%d mode=%d k=%d var=%d out=%d c=%g\n", name, n, start, nz,
              fnv(hw.data(), (size_t)n * 4), p.pid, p.q, p.mode, p.k, p.variant, p.outmode, p.c);
    }
    fflush(manifest);
    done++;
  }
}
// kpred wrapper with the argument order fixed
static CheckRes best(std::vector<std::pair<CheckRes, Params>>& v, Params& bp) {
  size_t bi = 0;
  for (size_t i = 1; i < v.size(); i++) if (v[i].first.total < v[bi].first.total) bi = i;
  bp = v[bi].second; return v[bi].first;
}

int main(int argc, char** argv) {
  dir = argc > 1 ? argv[1] : ".";
  const char* rawCubin = argc > 2 ? argv[2] : "rawsc_p.cubin";
  manifest = fopen((dir + "/manifest.txt").c_str(), "w");
  checks = fopen((dir + "/checks.txt").c_str(), "w");
  CK(cudaFree(0));
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s sm_%d%d\n", prop.name, prop.major, prop.minor);
  {
    CUmodule mod;
    CU(cuModuleLoad(&mod, rawCubin));
    if (ok_) { CU(cuModuleGetFunction(&rawSin, mod, "fill_sin")); CU(cuModuleGetFunction(&rawCos, mod, "fill_cos")); }
    haveRaw = ok_;
    printf("raw MUFU.SIN/COS module: %s\n", haveRaw ? "loaded" : "MISSING");
  }
  uint32_t *A, *B, *C;
  CK(cudaMalloc(&A, N32 * 4)); CK(cudaMalloc(&B, N32 * 4)); CK(cudaMalloc(&C, N32 * 4));
  CK(cudaMalloc(&dco, sizeof(CheckOut))); CK(cudaMalloc(&dst, sizeof(Stats))); CK(cudaMalloc(&dh, 4096 * 8));
  CK(cudaMalloc(&dtmp, (1u << 26) * 4)); CK(cudaMalloc(&dtmp2, (1u << 26) * 4));

  const float C2PI = 0.15915493667125701904f;
  std::vector<std::pair<CheckRes, Params>> cand;
  Params bp, p;

  // ================= RCP
  printf("== rcp\n");
  fill(RCPF, A); fill(RCP, B);
  for (int op : {RCPF, RCP}) { uint32_t* a = op == RCPF ? A : B; stats(opName[op], a); hashes(op, a); samples(op, a); }
  for (int om = 0; om < 3; om++) { p = P(P_SCALE); p.variant = 0; p.mode = 0; p.outmode = om; char h[64]; snprintf(h, 64, "scale T[1,2) ftz-in out%d", om); runCheck(opName[RCPF], h, p, A, 0, A); }
  runCheck(opName[RCP], "== rcp.ftz", P(P_OTHER), B, A, 0);
  cand.clear();
  for (int om = 0; om < 3; om++) { p = P(P_SCALE); p.variant = 0; p.mode = 1; p.outmode = om; char h[64]; snprintf(h, 64, "scale T(ftz) normalize-in out%d", om); cand.push_back({runCheck(opName[RCP], h, p, B, 0, A), p}); }
  for (int k : {24, 32, 64}) for (int v : {1, 3}) { p = P(P_RCPSEQ); p.k = k; p.variant = v; char h[64]; snprintf(h, 64, "seq k=%d var=%d", k, v); cand.push_back({runCheck(opName[RCP], h, p, B, A, 0), p}); }
  { CheckRes r = best(cand, bp); residuals("rcp", r, bp, B, A, A, 6); }
  p = P(P_CR); p.fn = 2; runCheck(opName[RCPF], "CR 1/x", p, A, 0, 0); runCheck(opName[RCP], "CR 1/x", p, B, 0, 0);
  recordDev("dom_rcp", A + 0x3f800000u, 1u << 23, "rcp.approx.ftz.f32 of [1,2) (bits 3f800000+i)");

  // ================= RSQRT, SQRT
  for (int which = 0; which < 2; which++) {
    int of = which ? SQRTF : RSQF, on = which ? SQRT : RSQ; const char* tag = which ? "sqrt" : "rsqrt";
    printf("== %s\n", tag);
    fill(of, A); fill(on, B);
    for (int op : {of, on}) { uint32_t* a = op == of ? A : B; stats(opName[op], a); hashes(op, a); samples(op, a); }
    for (int om = 0; om < 3; om++) { p = P(P_SCALE); p.variant = 1 + which; p.mode = 0; p.outmode = om; char h[64]; snprintf(h, 64, "scale T[1,4) ftz-in out%d", om); runCheck(opName[of], h, p, A, 0, A); }
    runCheck(opName[on], "== ftz form", P(P_OTHER), B, A, 0);
    cand.clear();
    for (int om = 0; om < 2; om++) { p = P(P_SCALE); p.variant = 1 + which; p.mode = 1; p.outmode = om; char h[64]; snprintf(h, 64, "scale T(ftz) normalize-in out%d", om); cand.push_back({runCheck(opName[on], h, p, B, 0, A), p}); }
    for (int k : {24, 32, 64}) { p = P(which ? P_SQRTSEQ : P_RSQSEQ); p.k = k; char h[64]; snprintf(h, 64, "seq k=%d", k); cand.push_back({runCheck(opName[on], h, p, B, A, 0), p}); }
    { CheckRes r = best(cand, bp); residuals(tag, r, bp, B, A, A, 6); }
    p = P(P_CR); p.fn = which ? 4 : 3; runCheck(opName[of], "CR", p, A, 0, 0); runCheck(opName[on], "CR", p, B, 0, 0);
    recordDev(std::string("dom_") + tag, A + 0x3f800000u, 1u << 24, which ? "sqrt.approx.ftz.f32 of [1,4) (bits 3f800000+i)" : "rsqrt.approx.ftz.f32 of [1,4) (bits 3f800000+i)");
  }

  // ================= EX2
  printf("== ex2\n");
  fill(EX2F, A); fill(EX2, B);
  for (int op : {EX2F, EX2}) { uint32_t* a = op == EX2F ? A : B; stats(opName[op], a); hashes(op, a); samples(op, a); }
  int qbest = -1, mbest = 0;
  for (int mode = 0; mode < 3; mode++)
    for (int q = 20; q <= 26; q++) {
      p = P(P_QUANT); p.q = q; p.mode = mode; char h[64]; snprintf(h, 64, "quant q=%d mode=%d", q, mode);
      CheckRes r = runCheck(opName[EX2F], h, p, A, 0, 0);
      if (r.total == 0 && (qbest < 0 || q < qbest)) { qbest = q; mbest = mode; }
    }
  if (qbest < 0) { qbest = 24; mbest = 0; }
  int qrec = std::min(qbest, 24);
  printf("  ex2 quantization: q=%d mode=%d (recording grid q=%d)\n", qbest, mbest, qrec);
  fprintf(manifest, "# ex2 q=%d mode=%d\n", qbest, mbest);
  for (int om = 0; om < 2; om++) { p = P(P_EX2RED); p.q = qrec; p.mode = mbest; p.outmode = om; char h[64]; snprintf(h, 64, "reduce q=%d mode=%d out%d", qrec, mbest, om); runCheck(opName[EX2F], h, p, A, 0, A); }
  runCheck(opName[EX2], "== ftz form", P(P_OTHER), B, A, 0);
  cand.clear();
  for (float th : {-126.f, -125.f, -127.f}) { p = P(P_EX2SEQ); p.c = th; char h[64]; snprintf(h, 64, "seq x<%g: ex2(x/2)^2", th); cand.push_back({runCheck(opName[EX2], h, p, B, A, 0), p}); }
  { CheckRes r = best(cand, bp); residuals("ex2", r, bp, B, A, A, 6); }
  p = P(P_CR); p.fn = 0; runCheck(opName[EX2F], "CR", p, A, 0, 0); runCheck(opName[EX2], "CR", p, B, 0, 0);
  kgrid<<<GRID, BLOCK>>>(A, qrec, dtmp); CK(cudaGetLastError());
  { char w[128]; snprintf(w, 128, "ex2.approx.ftz.f32 of k*2^-%d, k<2^%d", qrec, qrec); recordDev("dom_ex2", dtmp, 1u << qrec, w); }

  // ================= LG2
  printf("== lg2\n");
  fill(LG2F, A); fill(LG2, B);
  for (int op : {LG2F, LG2}) { uint32_t* a = op == LG2F ? A : B; stats(opName[op], a); hashes(op, a); samples(op, a); }
  for (int om = 0; om < 4; om++) { p = P(P_LG2RED); p.mode = 0; p.outmode = om; char h[64]; snprintf(h, 64, "e+L(m) round%d", om); runCheck(opName[LG2F], h, p, A, 0, A); }
  runCheck(opName[LG2], "== ftz form", P(P_OTHER), B, A, 0);
  cand.clear();
  for (int om = 0; om < 2; om++) { p = P(P_LG2RED); p.mode = 1; p.outmode = om; char h[64]; snprintf(h, 64, "normalize e+L(m) round%d", om); cand.push_back({runCheck(opName[LG2], h, p, B, 0, A), p}); }
  for (int k : {23, 24, 25, 32, 64}) { p = P(P_LG2SEQ); p.k = k; char h[64]; snprintf(h, 64, "seq lg2(x*2^%d)-%d", k, k); cand.push_back({runCheck(opName[LG2], h, p, B, A, 0), p}); }
  { CheckRes r = best(cand, bp); residuals("lg2", r, bp, B, A, A, 6); }
  p = P(P_CR); p.fn = 1; runCheck(opName[LG2F], "CR", p, A, 0, 0); runCheck(opName[LG2], "CR", p, B, 0, 0);
  recordDev("dom_lg2", A + 0x3f000000u, 1u << 24, "lg2.approx.ftz.f32 of [0.5,2) (bits 3f000000+i)");

  // ================= SIN, COS
  for (int which = 0; which < 2; which++) {
    int of = which ? COSF : SINF, on = which ? COS : SIN, raw = which ? RAWCOS : RAWSIN; const char* tag = which ? "cos" : "sin";
    printf("== %s\n", tag);
    fill(of, B); fill(on, C);
    for (int op : {of, on}) { uint32_t* a = op == of ? B : C; stats(opName[op], a); hashes(op, a); samples(op, a); }
    runCheck(opName[on], "== ftz form", P(P_OTHER), C, B, 0);
    cand.clear();
    { p = P(P_DENX); p.variant = which; p.c = 1.f; cand.push_back({runCheck(opName[on], which ? "denormal->1" : "denormal->x", p, C, B, 0), p}); }
    { CheckRes r = best(cand, bp); residuals(tag, r, bp, C, B, B, 4); }
    p = P(P_CR); p.fn = 5 + which; runCheck(opName[of], "CR", p, B, 0, 0); runCheck(opName[on], "CR", p, C, 0, 0);
    if (!haveRaw) continue;
    fill(raw, A);
    stats(opName[raw], A); hashes(raw, A); samples(raw, A);
    { p = P(P_SINMAP); p.c = C2PI; CheckRes r = runCheck(opName[of], "== raw(RZ(x*0.15915494))", p, B, A, 0); residuals((std::string(tag) + "map").c_str(), r, p, B, A, A, 4); }
    int qb = -1, mb = 0;
    for (int mode = 0; mode < 3; mode++)
      for (int q = 20; q <= 26; q++) {
        p = P(P_QUANT); p.q = q; p.mode = mode; char h[64]; snprintf(h, 64, "quant q=%d mode=%d", q, mode);
        CheckRes r = runCheck(opName[raw], h, p, A, 0, 0);
        if (r.total == 0 && (qb < 0 || q < qb)) { qb = q; mb = mode; }
      }
    if (qb < 0) { qb = 24; mb = 0; }
    int qr = std::min(qb, 24);
    printf("  %s quantization: q=%d mode=%d (recording grid q=%d)\n", tag, qb, mb, qr);
    fprintf(manifest, "# %s q=%d mode=%d\n", tag, qb, mb);
    for (int v = 0; v < 3; v++) { p = P(P_PERRED); p.q = qr; p.mode = mb; p.variant = v; char h[64]; snprintf(h, 64, "periodic q=%d mode=%d var%d", qr, mb, v); runCheck(opName[raw], h, p, A, 0, A); }
    runCheck(opName[raw], "odd: -f(-x)", P(P_ODD), A, 0, 0);
    kgrid<<<GRID, BLOCK>>>(A, qr, dtmp); CK(cudaGetLastError());
    { char w[128]; snprintf(w, 128, "MUFU.%s of k*2^-%d, k<2^%d", which ? "COS" : "SIN", qr, qr); recordDev(std::string("dom_") + tag, dtmp, 1u << qr, w); }
  }

  // ================= TANH
  printf("== tanh\n");
  fill(TANH, A);
  stats(opName[TANH], A); hashes(TANH, A); samples(TANH, A);
  Stats ts = hs;
  runCheck(opName[TANH], "odd: -f(-x)", P(P_ODD), A, 0, 0);
  runCheck(opName[TANH], "identity", P(P_IDENT), A, 0, 0);
  p = P(P_CR); p.fn = 7; runCheck(opName[TANH], "CR", p, A, 0, 0);
  int kcls[512]; for (int c = 0; c < 512; c++) kcls[c] = 23;
  int kclsRN[512]; for (int c = 0; c < 512; c++) kclsRN[c] = 23;
  for (int mode = 0; mode < 2; mode++)
    for (int k = 22; k >= 6; k--) {
      p = P(P_TRUNCK); p.k = k; p.mode = mode; char h[64]; snprintf(h, 64, "depends on top %d mantissa bits (%s)", k, mode ? "RN" : "trunc");
      CheckRes r = runCheck(opName[TANH], h, p, A, 0, 0);
      int* kc = mode ? kclsRN : kcls;
      std::vector<char> bad(512, 0); for (int c : r.bad) bad[c] = 1;
      for (int c = 0; c < 512; c++) if (!bad[c] && kc[c] == k + 1) kc[c] = k;
    }
  fprintf(checks, "TANH minimal mantissa bits per class (trunc / RN):\n");
  for (int c = 0; c < 512; c++) fprintf(checks, "  cls %03x e%4d k=%d kRN=%d\n", c, (c & 255) - 127, kcls[c], kclsRN[c]);
  {
    // record positive classes whose results are neither x nor 1, at their quantization, nearest to 1 first, up to 2^25 entries
    std::vector<int> cls;
    for (int c = 0; c < 255; c++) if (ts.ident[c] < (1ull << 23) && ts.pm1[c] < (1ull << 23) && ts.nan[c] == 0) cls.push_back(c);
    std::sort(cls.begin(), cls.end(), [](int a, int b) { return abs(a - 126) < abs(b - 126); });
    u64 used = 0;
    for (int c : cls) {
      int k = kcls[c]; u64 n = 1ull << k;
      if (used + n > (1ull << 25)) { fprintf(manifest, "# tanh cls %03x k=%d not recorded (budget)\n", c, k); continue; }
      std::vector<uint32_t> idx(n);
      for (u64 j = 0; j < n; j++) idx[j] = ((uint32_t)c << 23) | (uint32_t)(j << (23 - k));
      CK(cudaMemcpy(dtmp2, idx.data(), n * 4, cudaMemcpyHostToDevice));
      kgather<<<GRID, BLOCK>>>(A, dtmp2, dtmp, n); CK(cudaGetLastError());
      char name[64], w[128]; snprintf(name, 64, "tanh_%03x", c); snprintf(w, 128, "tanh.approx.f32 class %03x, mantissa j<<%d, j<2^%d", c, 23 - k, k);
      recordDev(name, dtmp, n, w);
      used += n;
    }
  }

  // ================= f16 / bf16
  printf("== f16/bf16\n");
  {
    const char* nm[4] = {"ex2_f16", "ex2_bf16", "tanh_f16", "tanh_bf16"};
    std::vector<uint32_t> t(65536);
    uint32_t* dt[4];
    for (int i = 0; i < 4; i++) {
      CK(cudaMalloc(&dt[i], 65536 * 4));
      switch (i) { case 0: kfill16<0><<<256, 256>>>(dt[i]); break; case 1: kfill16<1><<<256, 256>>>(dt[i]); break;
                   case 2: kfill16<2><<<256, 256>>>(dt[i]); break; default: kfill16<3><<<256, 256>>>(dt[i]); }
      CK(cudaGetLastError());
      CK(cudaMemcpy(t.data(), dt[i], 65536 * 4, cudaMemcpyDeviceToHost));
      std::vector<uint16_t> t16(65536); for (int j = 0; j < 65536; j++) t16[j] = (uint16_t)t[j];
      writeFile(std::string("tab_") + nm[i] + ".bin", t16.data(), 65536 * 2);
      fprintf(manifest, "tab_%s.bin u16x65536 fnv=%016llx\n", nm[i], fnv(t16.data(), 65536 * 2));
    }
    int x2[4] = {EX2H2, EX2BH2, TANHH2, TANHBH2};
    for (int i = 0; i < 4; i++) {
      fill(x2[i], A); hashes(x2[i], A); samples(x2[i], A);
      runCheck(opName[x2[i]], "== pack(scalar(lo), scalar(hi))", P(P_X2), A, 0, dt[i]);
    }
  }
  fclose(manifest); fclose(checks);
  printf("done\n");
  return 0;
}

static void fill(int op, uint32_t* a) {
  switch (op) {
#define F(O) case O: kfill<O><<<GRID, BLOCK>>>(a); break;
  F(EX2F) F(EX2) F(LG2F) F(LG2) F(RCPF) F(RCP) F(RSQF) F(RSQ) F(SQRTF) F(SQRT) F(SINF) F(SIN) F(COSF) F(COS) F(TANH)
  F(EX2H2) F(EX2BH2) F(TANHH2) F(TANHBH2)
#undef F
  case RAWSIN: case RAWCOS: {
    void* args[] = {&a};
    CUresult e = cuLaunchKernel(op == RAWSIN ? rawSin : rawCos, GRID, 1, 1, BLOCK, 1, 1, 0, 0, args, 0);
    if (e != CUDA_SUCCESS) { fprintf(stderr, "raw launch failed %d\n", (int)e); exit(1); }
    break;
  }
  }
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
}
