// rawsc.cu: fill kernels for sin/cos.approx.ftz.f32 over all 2^32 inputs.
// run1.sh patches the FMUL.RZ constant 1/(2*pi) (0x3e22f983) to 1.0 in the
// cubin, so that these kernels return MUFU.SIN / MUFU.COS of the raw input.
#include <stdint.h>
extern "C" __global__ void fill_sin(uint32_t* out) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < (1ull << 32);
       i += (uint64_t)gridDim.x * blockDim.x) {
    float x = __uint_as_float((uint32_t)i), r;
    asm volatile("sin.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    out[i] = __float_as_uint(r);
  }
}
extern "C" __global__ void fill_cos(uint32_t* out) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < (1ull << 32);
       i += (uint64_t)gridDim.x * blockDim.x) {
    float x = __uint_as_float((uint32_t)i), r;
    asm volatile("cos.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    out[i] = __float_as_uint(r);
  }
}
