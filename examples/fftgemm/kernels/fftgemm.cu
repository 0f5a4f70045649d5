// Kernels of the fftgemm example. Between them the program runs cuRAND,
// cuFFT and cuBLAS on the same stream: thermal noise (curandGenerateNormal)
// → addNoise → forward FFT → lowPass → inverse FFT → realPart, then
// rowEnergy on a second stream while SGEMM runs on the first, and biasReLU
// once both are done.

// addNoise adds thermal noise to count complex values: x[i] += sigma ·
// (noise[2i], noise[2i+1]), noise being standard normal samples.
__global__ void addNoise(float2 *x, const float *noise, int count, float sigma) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  x[i].x += sigma * noise[2 * i];
  x[i].y += sigma * noise[2 * i + 1];
}

// lowPass zeroes the bins of batch spectra of n bins above frequency keep:
// bin k holds frequency min(k, n-k).
__global__ void lowPass(float2 *spec, int n, int batch, int keep) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n * batch) return;
  int k = i % n;
  int f = k < n - k ? k : n - k;
  if (f > keep) spec[i] = make_float2(0.f, 0.f);
}

// realPart writes scale times the real part of z: the inverse FFT's
// output, normalized (cuFFT's inverse is not).
__global__ void realPart(float *out, const float2 *z, int count, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = z[i].x * scale;
}

// rowEnergy sums the squares of each row of a rows×cols row-major matrix:
// one block per row, blockDim.x a power of two, blockDim.x floats of
// dynamic shared memory.
__global__ void rowEnergy(float *energy, const float *a, int rows, int cols) {
  extern __shared__ float part[];
  int r = blockIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float v = a[r * cols + c];
    s += v * v;
  }
  part[threadIdx.x] = s;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) part[threadIdx.x] += part[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) energy[r] = part[0];
}

// biasReLU finishes the rows×cols row-major GEMM output y:
// y = max(y + bias[col], 0) / sqrt(energy[row] + 1).
__global__ void biasReLU(float *y, const float *bias, const float *energy, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows * cols) return;
  float v = y[i] + bias[i % cols];
  y[i] = fmaxf(v, 0.f) / sqrtf(energy[i / cols] + 1.f);
}
