// forms.cu: one kernel per PTX form, for cuobjdump -sass.
#include "ops.cuh"
#define K(NAME, FN) extern "C" __global__ void NAME(const uint32_t* in, uint32_t* out) { \
  int i = threadIdx.x; out[i] = FN(in[i]); }
K(k_ex2_ftz_f32, f_ex2f) K(k_ex2_f32, f_ex2) K(k_lg2_ftz_f32, f_lg2f) K(k_lg2_f32, f_lg2)
K(k_rcp_ftz_f32, f_rcpf) K(k_rcp_f32, f_rcp) K(k_rsqrt_ftz_f32, f_rsqf) K(k_rsqrt_f32, f_rsq)
K(k_sqrt_ftz_f32, f_sqrtf) K(k_sqrt_f32, f_sqrt) K(k_sin_ftz_f32, f_sinf) K(k_sin_f32, f_sin)
K(k_cos_ftz_f32, f_cosf) K(k_cos_f32, f_cos) K(k_tanh_f32, f_tanh)
K(k_ex2_f16, f_ex2h) K(k_ex2_f16x2, f_ex2h2) K(k_ex2_ftz_bf16, f_ex2bh) K(k_ex2_ftz_bf16x2, f_ex2bh2)
K(k_tanh_f16, f_tanhh) K(k_tanh_f16x2, f_tanhh2) K(k_tanh_bf16, f_tanhbh) K(k_tanh_bf16x2, f_tanhbh2)
extern "C" __global__ void k_div_approx_f32(const float* a, const float* b, float* o) {
  int i = threadIdx.x; float r; asm volatile("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(a[i]), "f"(b[i])); o[i] = r; }
extern "C" __global__ void k_div_full_f32(const float* a, const float* b, float* o) {
  int i = threadIdx.x; float r; asm volatile("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(a[i]), "f"(b[i])); o[i] = r; }
extern "C" __global__ void k_rcp_approx_ftz_f64(const double* a, double* o) {
  int i = threadIdx.x; double r; asm volatile("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(a[i])); o[i] = r; }
extern "C" __global__ void k_rsqrt_approx_f64(const double* a, double* o) {
  int i = threadIdx.x; double r; asm volatile("rsqrt.approx.f64 %0, %1;" : "=d"(r) : "d"(a[i])); o[i] = r; }
extern "C" __global__ void k_rsqrt_approx_ftz_f64(const double* a, double* o) {
  int i = threadIdx.x; double r; asm volatile("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(a[i])); o[i] = r; }
