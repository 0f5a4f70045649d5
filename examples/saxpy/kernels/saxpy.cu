// saxpy for float and double from one template.

template <typename T>
__global__ void saxpy(int n, T a, const T *__restrict__ x, T *__restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
template __global__ void saxpy<float>(int, float, const float *__restrict__, float *__restrict__);
template __global__ void saxpy<double>(int, double, const double *__restrict__, double *__restrict__);
