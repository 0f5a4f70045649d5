// The quickstart's device code: an extern "C" kernel, a template instantiated
// twice, a __device__ counter and a __managed__ total.

extern "C" __global__ void vecAdd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

template <typename T>
__global__ void scale(T *x, T s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}
template __global__ void scale<float>(float *, float, int);
template __global__ void scale<double>(double *, double, int);

__device__ int launches;     // one per context: how many sum launches ran there
__managed__ unsigned total;  // one for the whole process

__global__ void sum(const unsigned *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&total, v[i]);
  if (i == 0) atomicAdd(&launches, 1);
}
