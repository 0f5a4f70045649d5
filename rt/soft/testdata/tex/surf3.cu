// surf3: follow-up H100 recordings for rt/soft's sust.p and sured rules
// (rt/soft/testdata/tex/NOTES.md, "Formatted stores and reductions": what
// surf2-sustp/surf2-sured left open). Kernels are PTX strings JIT-loaded one
// form at a time (cuModuleLoadData), so a form ptxas refuses is reported
// ("FORM ... refused") instead of failing the build; arrays and surface
// objects come from the runtime API.
//
//   nvcc -arch=sm_90 -O2 -o surf3 surf3.cu -lcuda && ./surf3 surf3.bin && gzip -9 surf3.bin
//
// Output (little-endian u32 words): 'TEX1', records, '!END'.
//   'SUSP' as in surf2-sustp.bin.zst: hdr[9] = geom kind bits nch W H D L form, image before,
//          n, coords[n][4], values[n][4], image after; form = geom*100 + vec*10 + mode
//          (geom 0 1d, 1 2d, 2 3d, 3 a1d, 4 a2d; a1d coords {layer, x}, a2d {layer, x, y}).
//          One thread stores the n values in order.
//   'SUR2' same layout, for sured: form = kind*1000 + op*100 + ty*10 + geom*2 + mode;
//          kind 0 .b (x in bytes), 1 .p (x in elements); op 0 add 1 min 2 max 3 and 4 or;
//          ty 0 u32 1 s32 2 u64 3 s64 4 b32 5 b64; geom 0 1d 1 2d 2 3d; mode 0 clamp 1 zero
//          (redtrap's 1-D .trap records put 9 in place of geom*2 + mode).
//          All n threads reduce at once; 64-bit values are (w.y<<32)|w.x.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)
#define DK(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #x, (int)e_); exit(2); } } while (0)

static FILE* out;
static void w32(uint32_t v) { fwrite(&v, 4, 1, out); }
static void wbuf(const void* p, size_t n) {
  static const char z[4] = {0, 0, 0, 0};
  w32((uint32_t)n);
  fwrite(p, 1, n, out);
  if (n & 3) fwrite(z, 1, 4 - (n & 3), out);
}
static uint64_t seed = 0x5eed5eed2026ull;
static uint64_t rnd() {
  uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

struct Fmt { const char* name; int kind; int bits; int nch; };  // kind 0 u, 1 s, 2 f, 3 unorm, 4 snorm
static cudaChannelFormatDesc chdesc(const Fmt& f) {
  int y = f.nch > 1 ? f.bits : 0, z = f.nch > 2 ? f.bits : 0, w = f.nch > 3 ? f.bits : 0;
  if (f.kind >= 3) {
    static const cudaChannelFormatKind un[2][3] = {{cudaChannelFormatKindUnsignedNormalized8X1, cudaChannelFormatKindUnsignedNormalized8X2, cudaChannelFormatKindUnsignedNormalized8X4},
                                                   {cudaChannelFormatKindUnsignedNormalized16X1, cudaChannelFormatKindUnsignedNormalized16X2, cudaChannelFormatKindUnsignedNormalized16X4}};
    static const cudaChannelFormatKind sn[2][3] = {{cudaChannelFormatKindSignedNormalized8X1, cudaChannelFormatKindSignedNormalized8X2, cudaChannelFormatKindSignedNormalized8X4},
                                                   {cudaChannelFormatKindSignedNormalized16X1, cudaChannelFormatKindSignedNormalized16X2, cudaChannelFormatKindSignedNormalized16X4}};
    int bi = f.bits == 16, ci = f.nch == 4 ? 2 : f.nch - 1;
    return cudaCreateChannelDesc(f.bits, y, z, w, f.kind == 3 ? un[bi][ci] : sn[bi][ci]);
  }
  cudaChannelFormatKind k = f.kind == 0 ? cudaChannelFormatKindUnsigned : f.kind == 1 ? cudaChannelFormatKindSigned : cudaChannelFormatKindFloat;
  return cudaCreateChannelDesc(f.bits, y, z, w, k);
}

// One surface: geom 0 1d, 1 2d, 2 3d, 3 a1d, 4 a2d.
struct Surf {
  cudaArray_t arr; cudaSurfaceObject_t s; int W, H, D, L; size_t es;
  std::vector<uint8_t> img, back; cudaMemcpy3DParms up, down;
};
static bool make_surf(Surf& sf, const Fmt& f, int g, int W) {
  static const int H[5] = {1, 7, 4, 1, 5}, D[5] = {1, 1, 3, 1, 1}, L[5] = {0, 0, 0, 3, 3};
  sf.W = W; sf.H = H[g]; sf.D = D[g]; sf.L = L[g]; sf.es = f.bits / 8 * f.nch;
  cudaChannelFormatDesc cd = chdesc(f);
  cudaExtent ext = make_cudaExtent(W, g == 0 || g == 3 ? 0 : sf.H, g == 2 ? sf.D : (g >= 3 ? sf.L : 0));
  cudaError_t e = cudaMalloc3DArray(&sf.arr, &cd, ext, cudaArraySurfaceLoadStore | (g >= 3 ? cudaArrayLayered : 0));
  if (e != cudaSuccess) { printf("ARRAY %s geom %d refused: %s\n", f.name, g, cudaGetErrorString(e)); cudaGetLastError(); return false; }
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = sf.arr;
  e = cudaCreateSurfaceObject(&sf.s, &rd);
  if (e != cudaSuccess) { printf("SURFACE %s geom %d refused: %s\n", f.name, g, cudaGetErrorString(e)); cudaGetLastError(); cudaFreeArray(sf.arr); return false; }
  int depth = sf.D * (sf.L ? sf.L : 1);
  size_t n = (size_t)W * sf.H * depth * sf.es;
  sf.img.resize(n); sf.back.resize(n);
  sf.up = {}; sf.down = {};
  sf.up.srcPtr = make_cudaPitchedPtr(sf.img.data(), W * sf.es, W, sf.H); sf.up.dstArray = sf.arr;
  sf.up.extent = make_cudaExtent(W, sf.H, depth); sf.up.kind = cudaMemcpyHostToDevice;
  sf.down.srcArray = sf.arr; sf.down.dstPtr = make_cudaPitchedPtr(sf.back.data(), W * sf.es, W, sf.H);
  sf.down.extent = sf.up.extent; sf.down.kind = cudaMemcpyDeviceToHost;
  return true;
}
static void free_surf(Surf& sf) { CK(cudaDestroySurfaceObject(sf.s)); CK(cudaFreeArray(sf.arr)); }

// The kernel around one instruction: thread i (or, with seq, thread 0 for
// every i in order) runs BODY with %r6..%r9 = coords[i], %r10..%r13 =
// values[i], %rd7 = (values[i].y << 32) | values[i].x.
static std::string kernel_ptx(const std::string& body) {
  return std::string(".version 8.5\n.target sm_90\n.address_size 64\n"
                     ".visible .entry k(.param .u64 ps, .param .u64 pc, .param .u64 pv, .param .u32 n, .param .u32 seq)\n{\n"
                     " .reg .b64 %rd<8>; .reg .b32 %r<16>; .reg .pred %p<4>;\n"
                     " ld.param.u64 %rd1, [ps]; ld.param.u64 %rd2, [pc]; ld.param.u64 %rd3, [pv];\n"
                     " ld.param.u32 %r1, [n]; ld.param.u32 %r14, [seq];\n"
                     " mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mad.lo.u32 %r5, %r3, %r4, %r2;\n"
                     " setp.ne.u32 %p2, %r14, 0;\n"
                     " @%p2 mov.u32 %r5, 0;\n"
                     "LOOP:\n"
                     " setp.ge.u32 %p1, %r5, %r1;\n"
                     " @%p1 bra END;\n"
                     " mul.wide.u32 %rd4, %r5, 16; add.u64 %rd5, %rd2, %rd4; add.u64 %rd6, %rd3, %rd4;\n"
                     " ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd5];\n"
                     " ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd6];\n"
                     " mov.b64 %rd7, {%r10, %r11};\n ") +
         body +
         "\n @!%p2 bra END;\n add.u32 %r5, %r5, 1;\n bra LOOP;\nEND:\n ret;\n}\n";
}
static CUfunction load(const std::string& name, const std::string& body) {
  std::string src = kernel_ptx(body);
  CUmodule m;
  CUresult r = cuModuleLoadData(&m, src.c_str());
  if (r != CUDA_SUCCESS) { printf("FORM %s refused: cuModuleLoadData %d\n", name.c_str(), (int)r); return nullptr; }
  CUfunction f;
  r = cuModuleGetFunction(&f, m, "k");
  if (r != CUDA_SUCCESS) { printf("FORM %s refused: cuModuleGetFunction %d\n", name.c_str(), (int)r); return nullptr; }
  printf("FORM %s ok\n", name.c_str());
  return f;
}

static uint4* dC;
static uint4* dV;
static int nrec;

// run: upload a random image, run f over cs/vs, download, write a record.
static bool run(uint32_t tag, CUfunction f, Surf& sf, const Fmt& fm, int g, int form, const std::vector<uint4>& cs, const std::vector<uint4>& vs, bool seq) {
  for (auto& b : sf.img) b = (uint8_t)rnd();
  CK(cudaMemcpy3D(&sf.up));
  int n = (int)cs.size();
  CK(cudaMemcpy(dC, cs.data(), n * sizeof(uint4), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dV, vs.data(), n * sizeof(uint4), cudaMemcpyHostToDevice));
  unsigned long long s = sf.s;
  unsigned sq = seq ? 1 : 0, nn = (unsigned)n;
  void* args[] = {&s, &dC, &dV, &nn, &sq};
  unsigned grid = seq ? 1 : (n + 127) / 128, block = seq ? 1 : 128;
  CUresult r = cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, 0, args, nullptr);
  cudaError_t e = r == CUDA_SUCCESS ? cudaDeviceSynchronize() : cudaErrorLaunchFailure;
  if (e != cudaSuccess) {
    // a fault ends the context: report and stop
    printf("RUN tag %08x form %d on %s: launch %d, %s (stopping)\n", tag, form, fm.name, (int)r, cudaGetErrorString(e));
    return false;
  }
  CK(cudaMemcpy3D(&sf.down));
  uint32_t hdr[9] = {(uint32_t)g, (uint32_t)fm.kind, (uint32_t)fm.bits, (uint32_t)fm.nch, (uint32_t)sf.W, (uint32_t)sf.H, (uint32_t)sf.D, (uint32_t)sf.L, (uint32_t)form};
  w32(tag);
  w32(9); for (uint32_t h : hdr) w32(h);
  wbuf(sf.img.data(), sf.img.size());
  w32((uint32_t)n); fwrite(cs.data(), sizeof(uint4), n, out); fwrite(vs.data(), sizeof(uint4), n, out);
  wbuf(sf.back.data(), sf.back.size());
  fflush(out);
  nrec++;
  return true;
}

static const char* GEOM[5] = {"1d", "2d", "3d", "a1d", "a2d"};
static const char* MODE[2] = {"clamp", "zero"};
static std::string coords_operand(int g) {
  switch (g) {
    case 0: return "{%r6}";
    case 1: case 3: return "{%r6, %r7}";
    default: return "{%r6, %r7, %r8, %r9}";
  }
}
// an in-range element coordinate (x in elements), for geometry g
static uint4 elem_coord(const Surf& sf, int g, int x) {
  uint32_t c[4] = {0, 0, 0, 0};
  int y = (int)(rnd() % sf.H), z = (int)(rnd() % sf.D), l = sf.L ? (int)(rnd() % sf.L) : 0;
  switch (g) {
    case 0: c[0] = x; break;
    case 1: c[0] = x; c[1] = y; break;
    case 2: c[0] = x; c[1] = y; c[2] = c[3] = z; break;
    case 3: c[0] = l; c[1] = x; break;
    case 4: c[0] = l; c[1] = x; c[2] = c[3] = y; break;
  }
  return make_uint4(c[0], c[1], c[2], c[3]);
}

// Values for the normalized conversions: ties of every kind, their f32
// neighbours, negative ties, and uniform values in [-1.1, 1.1].
static uint32_t norm_value(int k) {
  uint32_t M = (1u << k) - 1;
  int cat = (int)(rnd() % 8);
  float v;
  if (cat < 3) {  // (j + 1/2)/M, nearest f32, possibly nudged by an ulp, either sign
    double t = ((double)(rnd() % M) + 0.5) / M;
    v = (float)t;
    int nudge = (int)(rnd() % 3) - 1;
    uint32_t u = fb(v) + nudge;
    v = bf(u);
    if (rnd() & 1) v = -v;
  } else if (cat < 5) {  // a value with exactly k+3, k+4, k+5 fractional bits, either sign
    int fbits = k + 3 + (int)(rnd() % 3);
    double q = (double)(rnd() % (1ull << fbits)) / (double)(1ull << fbits);
    v = (float)q;
    if (rnd() & 1) v = -v;
  } else {
    v = (float)((double)(rnd() >> 11) / 9007199254740992.0 * 2.2 - 1.1);
  }
  return fb(v);
}
static uint32_t half_value() {
  static const uint32_t nan[] = {0x7f800001, 0x7f801fff, 0xff800001, 0x7f802000, 0x7f810000, 0x7fa00000, 0xffbfffff, 0x7fc00001, 0x7f800100};
  int cat = (int)(rnd() % 4);
  if (cat == 0) return nan[rnd() % (sizeof nan / sizeof nan[0])];
  if (cat == 1) return (uint32_t)rnd();
  return fb((float)((double)(rnd() >> 11) / 9007199254740992.0 * 140000.0 - 70000.0)) ^ (uint32_t)(rnd() & 0x1fff);
}

// 4. sured.p on surfaces whose elements are not 32-bit integers (float,
// normalized, 8/16-bit and 2x32-bit formats): what soft refuses today.
// Forms as section 3's .p ones (PTX takes only .b32, and .b64 for min/max).
// Run alone, one format per process (`surf3 OUT.bin redfmt K`), since a
// fault ends the context. 1-D, clamp; every thread reduces element i % W
// (two threads per element, so accumulation shows), plus a few outside.
static const Fmt REDFMT[] = {{"f32x1", 2, 32, 1}, {"unorm8x4", 3, 8, 4}, {"u8x4", 0, 8, 4}, {"u16x2", 0, 16, 2}, {"s16x2", 1, 16, 2},
                             {"f16x2", 2, 16, 2}, {"u8x1", 0, 8, 1}, {"u16x1", 0, 16, 1}, {"f32x2", 2, 32, 2}, {"s8x4", 1, 8, 4},
                             {"unorm16x2", 3, 16, 2}, {"u32x4", 0, 32, 4}, {"snorm8x4", 4, 8, 4}, {"snorm16x2", 4, 16, 2},
                             {"snorm8x1", 4, 8, 1}, {"snorm16x1", 4, 16, 1}};
static void red_formats(int k) {
  static const char* OPS[5] = {"add", "min", "max", "and", "or"};
  static const char* TYS[6] = {"u32", "s32", "u64", "s64", "b32", "b64"};
  const Fmt& fm = REDFMT[k];
  struct RF { int op, ty; };
  const RF rfs[] = {{0, 4}, {1, 4}, {2, 4}, {3, 4}, {4, 4}, {1, 5}, {2, 5}};  // sured.p takes .b32 and .b64 (min/max) only
  for (const RF& rf : rfs) {
    bool w64 = rf.ty == 2 || rf.ty == 3 || rf.ty == 5;
    std::string name = std::string("sured.p.") + OPS[rf.op] + ".1d." + TYS[rf.ty] + ".clamp";
    CUfunction f = load(name + " on " + fm.name, name + " [%rd1, {%r6}], " + (w64 ? "%rd7" : "%r10") + ";");
    if (!f) continue;
    Surf sf;
    if (!make_surf(sf, fm, 0, 16)) return;
    int n = 2 * sf.W + 4;
    std::vector<uint4> cs(n), vs(n);
    for (int i = 0; i < n; i++) {
      int x = i < 2 * sf.W ? i % sf.W : (i % 2 ? sf.W + i % 3 : -1 - i % 3);
      cs[i] = make_uint4((uint32_t)x, 0, 0, 0);
      uint32_t a = (uint32_t)rnd(), b = (uint32_t)rnd();
      if (rf.op == 0 && rnd() % 2) { a = (uint32_t)(rnd() % 300); b = 0; }
      vs[i] = make_uint4(a, b, 0, 0);
    }
    int form = 1000 + rf.op * 100 + rf.ty * 10;
    bool ok = run(0x32525553, f, sf, fm, 0, form, cs, vs, false);  // 'SUR2'
    free_surf(sf);
    if (!ok) return;
  }
}

// 5. sured.p on rows that are not a whole number of accesses (`surf3 OUT
// redshort K`): u8x1/u16x1/u8x2 surfaces 6, 5 or 3 elements wide (6, 5, 10,
// 12 or 3 bytes), .b32 add/min/max/and/or and .b64 min/max, clamp and zero,
// one thread per access at x = -2..4 (.b64: -1..2), in order from thread 0
// (seq) so each access's effect can be told apart.
static void red_short(int k) {
  static const char* OPS[5] = {"add", "min", "max", "and", "or"};
  struct SF { Fmt f; int W; };
  const SF sfs[] = {{{"u8x1", 0, 8, 1}, 6}, {{"u8x1", 0, 8, 1}, 5}, {{"u16x1", 0, 16, 1}, 5}, {{"u16x1", 0, 16, 1}, 6}, {{"u8x1", 0, 8, 1}, 3}, {{"u8x2", 0, 8, 2}, 3}};
  if (k < 0 || k >= (int)(sizeof sfs / sizeof sfs[0])) return;
  const SF& sfm = sfs[k];
  for (int op = 0; op < 5; op++)
    for (int w64 = 0; w64 < 2; w64++) {
      if (w64 && (op == 0 || op >= 3)) continue;
      for (int m = 0; m < 2; m++) {
        std::string name = std::string("sured.p.") + OPS[op] + ".1d." + (w64 ? "b64." : "b32.") + MODE[m];
        CUfunction f = load(name + " on " + sfm.f.name, name + " [%rd1, {%r6}], " + (w64 ? "%rd7" : "%r10") + ";");
        if (!f) continue;
        Surf sf;
        if (!make_surf(sf, sfm.f, 0, sfm.W)) return;
        std::vector<uint4> cs, vs;
        for (int x = w64 ? -1 : -2; x <= (w64 ? 2 : 4); x++) {
          cs.push_back(make_uint4((uint32_t)x, 0, 0, 0));
          uint32_t a = (uint32_t)rnd(), b = (uint32_t)rnd();
          if (op == 0) { a = (uint32_t)(rnd() % 200) + 1; b = 0; }
          vs.push_back(make_uint4(a, b, 0, 0));
        }
        int form = 1000 + op * 100 + (w64 ? 5 : 4) * 10 + m;
        bool ok = run(0x32525553, f, sf, sfm.f, 0, form, cs, vs, true);  // 'SUR2', in order
        free_surf(sf);
        if (!ok) return;
      }
    }
}

// 6. Rows that are not a whole number of accesses, continued. `surf3 OUT
// redtrap K`: one access alone (a trap ends the context, so one per
// process) of sured.p/.b under .trap at an x whose access does not fit in
// the row, or lies past it; the outcome is the record (no fault) or the
// RUN line with the error. `surf3 OUT redb K`: sured.b (x in bytes) on such
// rows under .clamp and .zero, every access in order at x = 0, 4, 8, 12,
// -4 (and .b64 at 0, 8, 16).
struct TrapCase { const char* fmt; int W; const char* ins; int x; bool w64; };
static const TrapCase TRAPS[] = {
    {"u8x1", 6, "sured.p.add.1d.b32.trap", 0, false}, {"u8x1", 6, "sured.p.add.1d.b32.trap", 1, false},
    {"u8x1", 6, "sured.p.add.1d.b32.trap", 2, false}, {"u8x1", 3, "sured.p.add.1d.b32.trap", 0, false},
    {"u16x1", 5, "sured.p.min.1d.b64.trap", 1, true}, {"u16x1", 5, "sured.p.min.1d.b64.trap", 0, true},
    {"u8x1", 6, "sured.b.add.1d.u32.trap", 4, false}, {"u8x1", 6, "sured.b.add.1d.u32.trap", 8, false},
    {"u8x1", 6, "sured.b.add.1d.u32.trap", 0, false}};
static Fmt fmt_named(const char* n) {
  if (!strcmp(n, "u16x1")) return Fmt{"u16x1", 0, 16, 1};
  if (!strcmp(n, "u8x2")) return Fmt{"u8x2", 0, 8, 2};
  return Fmt{"u8x1", 0, 8, 1};
}
static void red_trap(int k) {
  if (k < 0 || k >= (int)(sizeof TRAPS / sizeof TRAPS[0])) return;
  const TrapCase& tc = TRAPS[k];
  Fmt fm = fmt_named(tc.fmt);
  char name[128];
  snprintf(name, sizeof name, "%s on %s W %d at x %d", tc.ins, tc.fmt, tc.W, tc.x);
  CUfunction f = load(name, std::string(tc.ins) + " [%rd1, {%r6}], " + (tc.w64 ? "%rd7" : "%r10") + ";");
  if (!f) return;
  Surf sf;
  if (!make_surf(sf, fm, 0, tc.W)) return;
  std::vector<uint4> cs(1, make_uint4((uint32_t)tc.x, 0, 0, 0)), vs(1, make_uint4(5, 0, 0, 0));
  bool p = !strncmp(tc.ins, "sured.p", 7);
  int op = strstr(tc.ins, ".min.") ? 1 : 0, ty = tc.w64 ? 5 : (p ? 4 : 0);
  int form = (p ? 1000 : 0) + op * 100 + ty * 10 + 9;  // 9 in the geom*2+mode place: .trap
  if (run(0x32525553, f, sf, fm, 0, form, cs, vs, true)) printf("TRAP case %d (%s): no fault\n", k, name);
  else printf("TRAP case %d (%s): faulted\n", k, name);
}
static void red_b(int k) {
  struct SF { Fmt f; int W; };
  const SF sfs[] = {{{"u8x1", 0, 8, 1}, 6}, {{"u8x1", 0, 8, 1}, 5}, {{"u16x1", 0, 16, 1}, 5}, {{"u8x1", 0, 8, 1}, 3}};
  if (k < 0 || k >= (int)(sizeof sfs / sizeof sfs[0])) return;
  const SF& sfm = sfs[k];
  for (int w64 = 0; w64 < 2; w64++)
    for (int m = 0; m < 2; m++) {
      std::string name = std::string(w64 ? "sured.b.min.1d.u64." : "sured.b.add.1d.u32.") + MODE[m];
      CUfunction f = load(name + " on " + sfm.f.name, name + " [%rd1, {%r6}], " + (w64 ? "%rd7" : "%r10") + ";");
      if (!f) continue;
      Surf sf;
      if (!make_surf(sf, sfm.f, 0, sfm.W)) return;
      std::vector<uint4> cs, vs;
      const int xs32[] = {0, 4, 8, 12, -4}, xs64[] = {0, 8, 16, -8};
      int nx = w64 ? 4 : 5;
      for (int i = 0; i < nx; i++) {
        cs.push_back(make_uint4((uint32_t)(w64 ? xs64[i] : xs32[i]), 0, 0, 0));
        uint32_t a = w64 ? (uint32_t)rnd() : (uint32_t)(rnd() % 200) + 1, b = w64 ? (uint32_t)rnd() : 0;
        vs.push_back(make_uint4(a, b, 0, 0));
      }
      int form = (w64 ? 100 + 20 : 0) + m;  // kind 0 (.b): op add u32 (0) or min u64 (1*100 + 2*10)
      bool ok = run(0x32525553, f, sf, sfm.f, 0, form, cs, vs, true);
      free_surf(sf);
      if (!ok) return;
    }
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: surf3 OUT.bin\n"); return 1; }
  out = fopen(argv[1], "wb");
  if (!out) { perror(argv[1]); return 1; }
  CK(cudaFree(0));
  DK(cuInit(0));
  CK(cudaMalloc(&dC, 8192 * sizeof(uint4)));
  CK(cudaMalloc(&dV, 8192 * sizeof(uint4)));
  w32(0x31584554);  // 'TEX1'
  if (argc >= 4 && (!strcmp(argv[2], "redfmt") || !strcmp(argv[2], "redshort") || !strcmp(argv[2], "redtrap") || !strcmp(argv[2], "redb"))) {
    int k = atoi(argv[3]);
    if (!strcmp(argv[2], "redshort")) red_short(k);
    else if (!strcmp(argv[2], "redtrap")) red_trap(k);
    else if (!strcmp(argv[2], "redb")) red_b(k);
    else if (k >= 0 && k < (int)(sizeof REDFMT / sizeof REDFMT[0])) red_formats(k);
    w32(0x444e4521);  // '!END'
    fclose(out);
    fprintf(stderr, "surf3 %s %d: %d records\n", argv[2], k, nrec);
    return 0;
  }

  // 1. sust.p conversions, one store per element (1-D, 1024 elements):
  // every normalized format and channel count, f16 x1/x2/x4 with NaN edge
  // cases, and integer/float formats not in surf2-sustp.
  const Fmt conv[] = {{"unorm8x1", 3, 8, 1}, {"unorm8x2", 3, 8, 2}, {"unorm8x4", 3, 8, 4}, {"unorm16x1", 3, 16, 1}, {"unorm16x2", 3, 16, 2}, {"unorm16x4", 3, 16, 4},
                      {"snorm8x1", 4, 8, 1}, {"snorm8x2", 4, 8, 2}, {"snorm8x4", 4, 8, 4}, {"snorm16x1", 4, 16, 1}, {"snorm16x2", 4, 16, 2}, {"snorm16x4", 4, 16, 4},
                      {"f16x1", 2, 16, 1}, {"f16x2", 2, 16, 2}, {"f16x4", 2, 16, 4}, {"u8x2", 0, 8, 2}, {"s8x4", 1, 8, 4}, {"u16x4", 0, 16, 4},
                      {"s16x2", 1, 16, 2}, {"f32x2", 2, 32, 2}};
  for (int vec = 0; vec < 3; vec++) {
    static const char* VS[3] = {"", ".v2", ".v4"};
    static const char* VO[3] = {"{%r10}", "{%r10, %r11}", "{%r10, %r11, %r12, %r13}"};
    for (int m = 0; m < 2; m++) {
      std::string name = std::string("sust.p.1d") + VS[vec] + ".b32." + MODE[m];
      CUfunction f = load(name, name + " [%rd1, {%r6}], " + VO[vec] + ";");
      if (!f) continue;
      for (const Fmt& fm : conv) {
        if (vec != 2 && m == 1) continue;  // scalar and v2 only under clamp: the missing channels
        Surf sf;
        if (!make_surf(sf, fm, 0, 1024)) continue;
        std::vector<uint4> cs(1024), vs(1024);
        for (int i = 0; i < 1024; i++) {
          cs[i] = make_uint4(i, 0, 0, 0);
          uint32_t w[4];
          for (int j = 0; j < 4; j++) w[j] = fm.kind >= 3 ? norm_value(fm.kind == 3 ? fm.bits : fm.bits - 1) : fm.kind == 2 && fm.bits == 16 ? half_value() : (uint32_t)rnd();
          vs[i] = make_uint4(w[0], w[1], w[2], w[3]);
        }
        // a few out of range, to see .zero drop and .clamp land on the last element
        for (int i = 1000; i < 1024; i++) cs[i].x = (uint32_t)(i % 2 ? 1024 + (int)(rnd() % 5) : -1 - (int)(rnd() % 5));
        bool ok = run(0x50535553, f, sf, fm, 0, vec * 10 + m, cs, vs, true);
        free_surf(sf);
        if (!ok) goto done;
      }
    }
  }

  // 2. sust.p on layered surfaces (a1d, a2d), 64 stores in order.
  for (int g = 3; g < 5; g++)
    for (int m = 0; m < 2; m++) {
      std::string name = std::string("sust.p.") + GEOM[g] + ".v4.b32." + MODE[m];
      CUfunction f = load(name, name + " [%rd1, " + coords_operand(g) + "], {%r10, %r11, %r12, %r13};");
      if (!f) continue;
      const Fmt fl[] = {{"unorm8x4", 3, 8, 4}, {"f32x1", 2, 32, 1}};
      for (const Fmt& fm : fl) {
        Surf sf;
        if (!make_surf(sf, fm, g, 11)) continue;
        std::vector<uint4> cs(64), vs(64);
        for (int i = 0; i < 64; i++) {
          cs[i] = elem_coord(sf, g, (int)(rnd() % 13) - 1);
          if (rnd() % 8 == 0) cs[i].x = (uint32_t)(rnd() % 2 ? 3 + (int)(rnd() % 3) : 65536 + 1);  // layers past the last, and 65537 (low 16 bits: 1)
          vs[i] = make_uint4(norm_value(8), norm_value(8), norm_value(8), norm_value(8));
        }
        bool ok = run(0x50535553, f, sf, fm, g, g * 100 + 20 + m, cs, vs, true);
        free_surf(sf);
        if (!ok) goto done;
      }
    }

  // 3. sured forms soft takes but surf2-sured did not record: .p add/min/max
  // .b32 and min/max .b64 on unsigned and signed surfaces, .b min/max .s64,
  // and .3d; every form with one thread per element (so min/max/and/or do
  // not saturate) plus 1/8 of the threads outside the surface.
  {
    static const char* OPS[5] = {"add", "min", "max", "and", "or"};
    static const char* TYS[6] = {"u32", "s32", "u64", "s64", "b32", "b64"};
    struct RF { int kind, op, ty; };
    std::vector<RF> rfs;
    for (int op = 0; op < 5; op++) {
      rfs.push_back({1, op, 4});
      if (op == 1 || op == 2) { rfs.push_back({1, op, 5}); rfs.push_back({0, op, 3}); }
      if (op < 3) rfs.push_back({0, op, 0});
      if (op >= 3) rfs.push_back({0, op, 4});
    }
    for (const RF& rf : rfs)
      for (int g = 0; g < 3; g++)
        for (int m = 0; m < 2; m++) {
          bool w64 = rf.ty == 2 || rf.ty == 3 || rf.ty == 5;
          std::string name = std::string("sured.") + (rf.kind ? "p." : "b.") + OPS[rf.op] + "." + GEOM[g] + "." + TYS[rf.ty] + "." + MODE[m];
          CUfunction f = load(name, name + " [%rd1, " + coords_operand(g) + "], " + (w64 ? "%rd7" : "%r10") + ";");
          if (!f) continue;
          // .p: unsigned and signed formats; .b: the unsigned one
          for (int sg = 0; sg < (rf.kind ? 2 : 1); sg++) {
            Fmt fm = w64 ? Fmt{sg ? "s32x2" : "u32x2", sg, 32, 2} : Fmt{sg ? "s32x1" : "u32x1", sg, 32, 1};
            Surf sf;
            if (!make_surf(sf, fm, g, 13)) continue;
            int n = sf.W * sf.H * sf.D;
            std::vector<uint4> cs(n + n / 8), vs(n + n / 8);
            int scale = rf.kind ? 1 : (int)sf.es;
            for (int i = 0; i < (int)cs.size(); i++) {
              int e = i < n ? i : (int)(rnd() % n);
              int x = e % sf.W, y = e / sf.W % sf.H, z = e / (sf.W * sf.H);
              if (i >= n) {  // outside: x, y or z past either end
                int which = (int)(rnd() % (g + 1)), d = rnd() % 2 ? -1 - (int)(rnd() % 3) : (int)(rnd() % 3);
                if (which == 0) x = d < 0 ? d : sf.W + d;
                if (which == 1) y = d < 0 ? d : sf.H + d;
                if (which == 2) z = d < 0 ? d : sf.D + d;
              }
              cs[i] = make_uint4((uint32_t)(x * scale), (uint32_t)y, (uint32_t)z, (uint32_t)z);
              uint32_t a = (uint32_t)rnd(), b = (uint32_t)rnd();
              if (rf.op == 0) { a = (uint32_t)(rnd() % 100000) * (rnd() & 1 ? 1u : 0xffffffffu); b = a >> 31 ? 0xffffffffu : 0; }
              vs[i] = make_uint4(a, b, 0, 0);
            }
            int form = rf.kind * 1000 + rf.op * 100 + rf.ty * 10 + g * 2 + m;
            bool ok = run(0x32525553, f, sf, fm, g, form, cs, vs, false);  // 'SUR2'
            free_surf(sf);
            if (!ok) goto done;
          }
        }
  }
done:
  w32(0x444e4521);  // '!END'
  fclose(out);
  fprintf(stderr, "surf3: %d records\n", nrec);
  return 0;
}
