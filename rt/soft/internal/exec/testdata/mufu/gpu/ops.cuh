// ops.cuh: the PTX .approx forms under study, one inline-asm wrapper each.
#pragma once
#include <stdint.h>

enum Op {
  EX2F, EX2, LG2F, LG2, RCPF, RCP, RSQF, RSQ, SQRTF, SQRT,
  SINF, SIN, COSF, COS, TANH,
  EX2H2, EX2BH2, TANHH2, TANHBH2,
  RAWSIN, RAWCOS, // MUFU.SIN / MUFU.COS on the raw input (patched module)
  NOPS
};
static const char* opName[NOPS] = {
  "ex2.approx.ftz.f32", "ex2.approx.f32", "lg2.approx.ftz.f32", "lg2.approx.f32",
  "rcp.approx.ftz.f32", "rcp.approx.f32", "rsqrt.approx.ftz.f32", "rsqrt.approx.f32",
  "sqrt.approx.ftz.f32", "sqrt.approx.f32", "sin.approx.ftz.f32", "sin.approx.f32",
  "cos.approx.ftz.f32", "cos.approx.f32", "tanh.approx.f32",
  "ex2.approx.f16x2", "ex2.approx.ftz.bf16x2", "tanh.approx.f16x2", "tanh.approx.bf16x2",
  "MUFU.SIN(raw)", "MUFU.COS(raw)"};
static const char* opFile[NOPS] = {
  "ex2_ftz", "ex2", "lg2_ftz", "lg2", "rcp_ftz", "rcp", "rsqrt_ftz", "rsqrt",
  "sqrt_ftz", "sqrt", "sin_ftz", "sin", "cos_ftz", "cos", "tanh",
  "ex2_f16x2", "ex2_bf16x2", "tanh_f16x2", "tanh_bf16x2", "rawsin", "rawcos"};

#define F32OP(NAME, PTX) \
  __device__ __forceinline__ uint32_t NAME(uint32_t xb) { \
    float x = __uint_as_float(xb), r; \
    asm volatile(PTX " %0, %1;" : "=f"(r) : "f"(x)); \
    return __float_as_uint(r); }
F32OP(f_ex2f, "ex2.approx.ftz.f32")
F32OP(f_ex2, "ex2.approx.f32")
F32OP(f_lg2f, "lg2.approx.ftz.f32")
F32OP(f_lg2, "lg2.approx.f32")
F32OP(f_rcpf, "rcp.approx.ftz.f32")
F32OP(f_rcp, "rcp.approx.f32")
F32OP(f_rsqf, "rsqrt.approx.ftz.f32")
F32OP(f_rsq, "rsqrt.approx.f32")
F32OP(f_sqrtf, "sqrt.approx.ftz.f32")
F32OP(f_sqrt, "sqrt.approx.f32")
F32OP(f_sinf, "sin.approx.ftz.f32")
F32OP(f_sin, "sin.approx.f32")
F32OP(f_cosf, "cos.approx.ftz.f32")
F32OP(f_cos, "cos.approx.f32")
F32OP(f_tanh, "tanh.approx.f32")

#define X2OP(NAME, PTX) \
  __device__ __forceinline__ uint32_t NAME(uint32_t x) { \
    uint32_t r; asm volatile(PTX " %0, %1;" : "=r"(r) : "r"(x)); return r; }
X2OP(f_ex2h2, "ex2.approx.f16x2")
X2OP(f_ex2bh2, "ex2.approx.ftz.bf16x2")
X2OP(f_tanhh2, "tanh.approx.f16x2")
X2OP(f_tanhbh2, "tanh.approx.bf16x2")

#define H1OP(NAME, PTX) \
  __device__ __forceinline__ uint32_t NAME(uint32_t x) { \
    unsigned short a = (unsigned short)x, r; \
    asm volatile(PTX " %0, %1;" : "=h"(r) : "h"(a)); return r; }
H1OP(f_ex2h, "ex2.approx.f16")
H1OP(f_ex2bh, "ex2.approx.ftz.bf16")
H1OP(f_tanhh, "tanh.approx.f16")
H1OP(f_tanhbh, "tanh.approx.bf16")

template <int OP> __device__ __forceinline__ uint32_t apply(uint32_t x) {
  switch (OP) {
  case EX2F: return f_ex2f(x);
  case EX2: return f_ex2(x);
  case LG2F: return f_lg2f(x);
  case LG2: return f_lg2(x);
  case RCPF: return f_rcpf(x);
  case RCP: return f_rcp(x);
  case RSQF: return f_rsqf(x);
  case RSQ: return f_rsq(x);
  case SQRTF: return f_sqrtf(x);
  case SQRT: return f_sqrt(x);
  case SINF: return f_sinf(x);
  case SIN: return f_sin(x);
  case COSF: return f_cosf(x);
  case COS: return f_cos(x);
  case TANH: return f_tanh(x);
  case EX2H2: return f_ex2h2(x);
  case EX2BH2: return f_ex2bh2(x);
  case TANHH2: return f_tanhh2(x);
  case TANHBH2: return f_tanhbh2(x);
  }
  return 0;
}
