#pragma once
#if defined(ENABLE_BF16)
#include <cuda_bf16.h>
typedef __nv_bfloat16 floatX;
#elif defined(ENABLE_FP16)
#include <cuda_fp16.h>
typedef half floatX;
#else
typedef float floatX;
#endif
typedef floatX floatN; // a chain across files

#define WIDTH 4
struct Layer {
  floatX w[WIDTH];
  int n;
};
__device__ floatX bias[64];
__constant__ Layer defaults;
