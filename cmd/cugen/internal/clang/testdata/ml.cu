// An ordinary training-code .cu file, as a new user would bring it: host
// code with launches beside the kernels, the toolkit's headers, warp
// reductions, cooperative groups, and the float math library. cugen's clang
// route compiles it without a CUDA toolkit; clang_compile_test.go runs the
// kernels on rt/soft.
#include <cassert>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <device_launch_parameters.h>
#include <math_constants.h>

namespace cg = cooperative_groups;

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define CUDA_CHECK(call)                                                                                               \
  do {                                                                                                                 \
    cudaError_t err_ = (call);                                                                                         \
    if (err_ != cudaSuccess) {                                                                                         \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_), __FILE__, __LINE__);                      \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

__device__ __forceinline__ float warpReduceMax(float v) {
  for (int off = warpSize / 2; off > 0; off /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, off));
  return v;
}
__device__ __forceinline__ float warpReduceSum(float v) {
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffff, v, off);
  return v;
}

// One warp per row: out = softmax(inp) over C columns.
__global__ void softmax_forward(float *out, const float *inp, int N, int C) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= N) return;
  const float *x = inp + (size_t)row * C;
  float m = -INFINITY;
  for (int i = lane; i < C; i += 32) m = fmaxf(m, x[i]);
  m = warpReduceMax(m);
  float s = 0.0f;
  for (int i = lane; i < C; i += 32) s += expf(x[i] - m);
  s = warpReduceSum(s);
  for (int i = lane; i < C; i += 32) out[(size_t)row * C + i] = expf(x[i] - m) / s;
}

// LayerNorm with cooperative groups: one warp per row.
__global__ void layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *w, const float *b,
                                  int N, int C) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (row >= N) return;
  const float *x = inp + (size_t)row * C;
  float sum = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) sum += x[i];
  float mu = cg::reduce(warp, sum, cg::plus<float>()) / C;
  float var = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    float d = x[i] - mu;
    var += d * d;
  }
  float rs = rsqrtf(cg::reduce(warp, var, cg::plus<float>()) / C + 1e-5f);
  if (warp.thread_rank() == 0) {
    mean[row] = mu;
    rstd[row] = rs;
  }
  for (int i = warp.thread_rank(); i < C; i += warp.size()) out[(size_t)row * C + i] = (x[i] - mu) * rs * w[i] + b[i];
}

#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)
__global__ void gelu_forward(float *out, const float *inp, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    float x = inp[i];
    float cube = 0.044715f * x * x * x;
    out[i] = 0.5f * x * (1.0f + tanhf(GELU_SCALING_FACTOR * (x + cube)));
  }
}

template <typename Tp, typename Tg>
__global__ void adamw_kernel(Tp *params, const Tg *grads, float *m, float *v, long n, float lr, float beta1, float beta2,
                             float b1c, float b2c, float eps, float wd) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  float g = (float)grads[i];
  float mi = beta1 * m[i] + (1.0f - beta1) * g;
  float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  float p = (float)params[i];
  params[i] = (Tp)(p - lr * (mi / b1c / (sqrtf(vi / b2c) + eps) + wd * p));
}
template __global__ void adamw_kernel<float, float>(float *, const float *, float *, float *, long, float, float, float,
                                                    float, float, float, float);
template __global__ void adamw_kernel<__nv_bfloat16, __nv_bfloat16>(__nv_bfloat16 *, const __nv_bfloat16 *, float *,
                                                                    float *, long, float, float, float, float, float,
                                                                    float, float);

// The host side, as the code base has it: compiled for checking only.
void softmax(float *out, const float *inp, int N, int C, cudaStream_t stream) {
  int block = 256;
  softmax_forward<<<CEIL_DIV(N * 32, block), block, 0, stream>>>(out, inp, N, C);
  CUDA_CHECK(cudaGetLastError());
}

void adamw(float *params, const float *grads, float *m, float *v, long n, int t) {
  float b1c = 1.0f - powf(0.9f, t), b2c = 1.0f - powf(0.999f, t);
  adamw_kernel<<<CEIL_DIV(n, 512), 512>>>(params, grads, m, v, n, 1e-3f, 0.9f, 0.999f, b1c, b2c, 1e-8f, 0.0f);
  CUDA_CHECK(cudaDeviceSynchronize());
}

// CPU reference code beside the kernels: the C library on the host side.
float cpu_max_abs_finite(const float *a, int n) {
  float m = 0.0f;
  clock_t t0 = clock();
  for (int i = 0; i < n; i++) {
    if (!isfinite(a[i])) continue;
    m = max(m, fabsf(a[i]));
  }
  uintptr_t addr = (uintptr_t)a;
  printf("%f in %ld ticks at %#lx\n", m, (long)(clock() - t0), (unsigned long)addr);
  return m;
}

int host_main() {
  float *d;
  CUDA_CHECK(cudaMalloc(&d, 1024 * sizeof(float)));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("%s: %d SMs\n", prop.name, prop.multiProcessorCount);
  cudaStream_t s;
  cudaStreamCreate(&s);
  softmax(d, d, 4, 256, s);
  dim3 grid(4, 1, 1), block(32);
  gelu_forward<<<grid, block>>>(d, d, 128);
  cudaFree(d);
  return 0;
}
