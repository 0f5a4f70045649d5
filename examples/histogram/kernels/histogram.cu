// A weighted byte histogram: the weights live in a __constant__ table written
// from Go, a __device__ counter counts the bytes seen in each context, and a
// __managed__ total is shared by every context and the host.

__constant__ unsigned weights[256];
__device__ unsigned long long seen;
__managed__ unsigned long long total;

__global__ void histogram(const unsigned char *data, int n, unsigned *bins) {
  __shared__ unsigned local[256];
  for (int j = threadIdx.x; j < 256; j += blockDim.x) local[j] = 0;
  __syncthreads();
  unsigned long long mine = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(&local[data[i]], weights[data[i]]);
    mine++;
  }
  __syncthreads();
  for (int j = threadIdx.x; j < 256; j += blockDim.x)
    if (local[j]) atomicAdd(&bins[j], local[j]);
  if (mine) {
    atomicAdd(&seen, mine);
    atomicAdd(&total, mine);
  }
}
