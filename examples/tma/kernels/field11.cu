// field11.cu: kernels shaped like code from the field (variadic templates,
// over-aligned __grid_constant__ parameters, a TMA tile copy, typed globals,
// struct pointers, internal globals). Written by the cugen team for tests.
#include <cuda.h>
#include <stdint.h>
#include <assert.h>

struct Cell { float x, y; int id; };
struct Inner { double w; short k; };
template <typename... Ts> struct Tuple {};

// ---- variadic kernels -------------------------------------------------------
template <typename... Ts> __global__ void vk(unsigned long long *out, Ts... xs) {
  unsigned long long s = 0;
  ((s = s * 31 + (unsigned long long)sizeof(xs)), ...);
  if (threadIdx.x == 0) out[0] = s + sizeof...(Ts);
}
template __global__ void vk<>(unsigned long long *);
template __global__ void vk<int, float>(unsigned long long *, int, float);
template __global__ void vk<float *, Cell, const Cell *>(unsigned long long *, float *, Cell, const Cell *);
template __global__ void vk<double, char, Inner *>(unsigned long long *, double, char, Inner *);

template <typename T, typename... Rest> __global__ void mixed(T *out, int n, Rest... rest) {
  if (threadIdx.x == 0) out[0] = (T)(n + sizeof...(Rest));
}
template __global__ void mixed<float, int, int, int>(float *, int, int, int, int);
template __global__ void mixed<double>(double *, int);

template <int... Ns> __global__ void ints(int *out) {
  int v[] = {0, Ns...};
  if (threadIdx.x < sizeof(v) / sizeof(int)) out[threadIdx.x] = v[threadIdx.x];
}
template __global__ void ints<1, 2, 3>(int *);
template __global__ void ints<>(int *);

// nvcc allows one pack per __global__ template, last; a pack may appear in several parameters.
template <class... A> __global__ void packTwice(Tuple<A...>, int *out, A... a) {
  if (threadIdx.x == 0) out[0] = sizeof...(A);
}
template __global__ void packTwice<int, float>(Tuple<int, float>, int *, int, float);

// ---- over-aligned parameters -------------------------------------------------
struct alignas(64) Big64 { unsigned long long v[8]; };
struct alignas(128) Big128 { unsigned long long v[16]; };

extern "C" __global__ void bigParam(const __grid_constant__ Big64 b, unsigned long long *out) {
  int i = threadIdx.x;
  if (i < 8) out[i] = b.v[i];
}
extern "C" __global__ void bigAfterPtr(unsigned long long *out, const __grid_constant__ Big128 b, int n) {
  int i = threadIdx.x;
  if (i < 16) out[i] = b.v[i] + (unsigned long long)n;
}
extern "C" __global__ void bigByValue(char c, Big64 b, unsigned long long *out, short s) {
  int i = threadIdx.x;
  if (i < 8) out[i] = b.v[i] * (unsigned long long)c + (unsigned long long)s;
}
extern "C" __global__ void plainAfterBig(const __grid_constant__ Big64 b, float x, unsigned long long *out) {
  int i = threadIdx.x;
  if (i < 8) out[i] = b.v[i] + (unsigned long long)x;
}

// ---- TMA: 2-D tile copy through cp.async.bulk.tensor + mbarrier -------------
#define TW 32
#define TH 8
extern "C" __global__ void tmaTile(const __grid_constant__ CUtensorMap map, float *out, int x0, int y0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __shared__ alignas(128) float tile[TH][TW];
  __shared__ alignas(8) unsigned long long bar;
  unsigned sbar = (unsigned)__cvta_generic_to_shared(&bar);
  unsigned stile = (unsigned)__cvta_generic_to_shared(&tile[0][0]);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar));
    asm volatile("fence.proxy.async.shared::cta;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "r"(TH * TW * 4) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(stile),
                 "l"(&map), "r"(x0), "r"(y0), "r"(sbar)
                 : "memory");
  }
  asm volatile("{\n\t.reg .pred P1;\n\tLAB_WAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t@P1 bra DONE;\n\tbra LAB_WAIT;\n\tDONE:\n\t}" ::"r"(sbar),
               "r"(0)
               : "memory");
  for (int i = threadIdx.x; i < TH * TW; i += blockDim.x) out[i] = tile[i / TW][i % TW];
#endif
}

// ---- typed globals, struct pointers, internal globals ------------------------
__device__ float t[4][8];
__constant__ int lut[256] = {1, 2, 3};
__managed__ int f[32];
__device__ float *p;
__device__ Cell cells[3];

__global__ void touch(Cell *c, const Cell *cc, Inner *in, int n) {
  int i = threadIdx.x;
  assert(n >= 0);
  if (i < n) {
    c[i].x = cc[i].y + t[i % 4][i % 8] + lut[i] + f[i % 32];
    in[i].w = c[i].x;
    if (p) p[i] = cells[i % 3].x;
  }
}
