// Kernels for the multi-GPU example: one library launched on every device
// and in every context, and a kernel that reads another device's memory.
// Each result is the same bits on every backend (integer math, single
// roundings, sums in a fixed order), so runs on the GPUs and on rt/soft
// can be compared digest for digest.

// launches counts the launches of mix in each context: a __device__
// variable exists once per context, though the library is loaded once.
__device__ unsigned int launches;

// mix writes a hash of each index and seed.
__global__ void mix(unsigned int *out, unsigned int seed, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i == 0) atomicAdd(&launches, 1u);
	if (i >= n) return;
	unsigned int x = (unsigned int)i * 0x9e3779b9u ^ seed;
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	out[i] = x;
}

// axpy is y = a*x + y, rounded once per element (a fused multiply-add).
__global__ void axpy(float *y, const float *x, float a, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = __fmaf_rn(a, x[i], y[i]);
}

// peerAdd is out = a + b. Any of the three may be another device's
// memory, once peer access to it is enabled.
__global__ void peerAdd(float *out, const float *a, const float *b, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = a[i] + b[i];
}

// blockSum writes the sum of each block of 256 elements of in (zeros past
// n) to out[block], added pairwise in shared memory: a fixed order. Launch
// it with blocks of 256 threads.
__global__ void blockSum(float *out, const float *in, int n) {
	__shared__ float s[256];
	int t = threadIdx.x, i = blockIdx.x * 256 + t;
	s[t] = i < n ? in[i] : 0.0f;
	__syncthreads();
	for (int k = 128; k > 0; k >>= 1) {
		if (t < k) s[t] += s[t + k];
		__syncthreads();
	}
	if (t == 0) out[blockIdx.x] = s[0];
}
