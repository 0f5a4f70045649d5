// A source laid out as ML training code is: the element type is a typedef
// chosen under #if in a common header, kernels and variables are declared
// in headers found through -I. cugen -src reads it as the compiler would.
#include "common.h"
#include "layers/attn.cuh"

__global__ void matmul(floatX *out, const floatX *inp, int n) {}
extern "C" __global__ void init(Layer *layers, int count) {}
