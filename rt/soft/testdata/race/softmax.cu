// Row softmax, one block of 256 threads per row: the kernels of
// rt/soft's racecheck test. Built with clang (see gen.sh); only clang's
// builtins, no CUDA headers.
//
// softmaxRacy reuses s[0]: it holds the row's maximum, which every thread
// reads, and then warp 0's partial sum, with no barrier between the two, so
// a warp that has not read the maximum yet may read a partial sum instead.
// softmaxFixed has the barrier.
#include <__clang_cuda_builtin_vars.h>
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __device__ __attribute__((device))

__device__ static float warpMax(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v = __builtin_fmaxf(v, __nvvm_shfl_sync_bfly_f32(0xffffffff, v, o, 0x1f));
  return v;
}

__device__ static float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __nvvm_shfl_sync_bfly_f32(0xffffffff, v, o, 0x1f);
  return v;
}

// blockReduce leaves the reduction of every thread's v in s[0]: per-warp
// partials in s[0..7], then warp 0 combines them.
template <bool Max>
__device__ static void blockReduce(float *s, float v) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = Max ? warpMax(v) : warpSum(v);
  if (lane == 0)
    s[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x >> 5) ? s[lane] : (Max ? -__builtin_inff() : 0.0f);
    v = Max ? warpMax(v) : warpSum(v);
    if (lane == 0)
      s[0] = v;
  }
  __syncthreads();
}

template <bool Fixed>
__device__ static void softmax(const float *x, float *y, int n) {
  __shared__ float s[32];
  const float *row = x + blockIdx.x * n;
  float *out = y + blockIdx.x * n;
  float m = -__builtin_inff();
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    m = __builtin_fmaxf(m, row[i]);
  blockReduce<true>(s, m);
  m = s[0];
  if (Fixed)
    __syncthreads(); // every thread has read the maximum before s is reused
  float sum = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    sum += __nvvm_ex2_approx_f((row[i] - m) * 1.4426950408889634f);
  blockReduce<false>(s, sum);
  sum = s[0];
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = __nvvm_ex2_approx_f((row[i] - m) * 1.4426950408889634f) / sum;
}

extern "C" __global__ void softmaxRacy(const float *x, float *y, int n) { softmax<false>(x, y, n); }
extern "C" __global__ void softmaxFixed(const float *x, float *y, int n) { softmax<true>(x, y, n); }
