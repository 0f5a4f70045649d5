// __half and __nv_bfloat16 under the clang route, the same kernel for both
// (compiled for sm_70, sm_80 and sm_90, where the native instructions
// differ); the Go test (clang_half_test.go) rounds the exact results.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define HALF_KERNEL(NAME, T, T2, TOF, FROMF, FROMF_RZ, MK2)                                                            \
  extern "C" __global__ void NAME(const T *a, const T *b, const T *c, T *o, float *of, T *acc, T2 *acc2, int n) {      \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                                                     \
    if (i >= n) return;                                                                                                \
    T x = a[i], y = b[i], z = c[i];                                                                                    \
    int k = 0, kf = 0;                                                                                                 \
    o[(k++) * n + i] = x + y;                                                                                          \
    o[(k++) * n + i] = x - y;                                                                                          \
    o[(k++) * n + i] = x * y;                                                                                          \
    o[(k++) * n + i] = x / y;                                                                                          \
    o[(k++) * n + i] = __hfma(x, y, z);                                                                                \
    o[(k++) * n + i] = -x;                                                                                             \
    o[(k++) * n + i] = __habs(x);                                                                                      \
    o[(k++) * n + i] = __hmax(x, y);                                                                                   \
    o[(k++) * n + i] = __hmin(x, y);                                                                                   \
    o[(k++) * n + i] = hsqrt(__habs(x));                                                                               \
    o[(k++) * n + i] = FROMF_RZ(TOF(x) * 3.0f);                                                                        \
    T w = x;                                                                                                           \
    w += y;                                                                                                            \
    w *= z;                                                                                                            \
    o[(k++) * n + i] = w;                                                                                              \
    T2 p = MK2(x, y), q = MK2(z, x);                                                                                   \
    T2 s = p + q, m = p * q, f = __hfma2(p, q, p);                                                                     \
    o[(k++) * n + i] = s.x;                                                                                            \
    o[(k++) * n + i] = s.y;                                                                                            \
    o[(k++) * n + i] = m.x;                                                                                            \
    o[(k++) * n + i] = m.y;                                                                                            \
    o[(k++) * n + i] = f.y;                                                                                            \
    o[(k++) * n + i] = __shfl_xor_sync(0xffffffffu, x, 1);                                                             \
    o[(k++) * n + i] = __shfl_down_sync(0xffffffffu, p, 2).y;                                                          \
    o[(k++) * n + i] = T(i) + T(0.5f);                                                                                 \
    of[(kf++) * n + i] = TOF(x);                                                                                       \
    of[(kf++) * n + i] = (float)(x < y) + 2 * (float)(x == y) + 4 * (float)(x >= z) + 8 * (float)__hisnan(x) +      \
                         16 * (float)(x != y);                                                                         \
    of[(kf++) * n + i] = (float)__hlt2(p, q).x + 2 * (float)__hbge2(p, q);                                             \
    atomicAdd(&acc[0], T(0.25f));                                                                                      \
    atomicAdd(&acc2[0], MK2(T(0.5f), T(1.0f)));                                                                        \
  }

HALF_KERNEL(halfs, __half, __half2, __half2float, __float2half, __float2half_rz, __halves2half2)
HALF_KERNEL(bfloats, __nv_bfloat16, __nv_bfloat162, __bfloat162float, __float2bfloat16, __float2bfloat16_rz,
            __halves2bfloat162)
