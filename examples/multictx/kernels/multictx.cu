// Kernels for the multi-context example: each context has its own `base`.

__device__ int base = 1000;

__global__ void fill(int *out, int n, int add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = base + add + i;
}

__global__ void setBase(int b) { base = b; }
