// A linear model trained by data-parallel SGD: each device holds a shard
// of the data and a replica of the weights, computes its shard's gradient,
// and applies the gradient averaged over every device (rt/nccl's
// AllReduce with Avg, between these kernels on the same stream).

// grad computes the mean-squared-error gradient of the shard (n rows of
// d features, row-major X, targets y) at weights w: g[j] = (1/n) sum over
// rows of (x·w - y) x[j]. One thread per weight, summing rows in order:
// the result does not depend on the schedule.
__global__ void grad(const float *X, const float *y, const float *w, float *g, int n, int d) {
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= d) return;
	float acc = 0;
	for (int i = 0; i < n; i++) {
		float r = -y[i];
		for (int k = 0; k < d; k++) r += X[i * d + k] * w[k];
		acc += r * X[i * d + j];
	}
	g[j] = acc / n;
}

// loss writes the shard's mean squared error (halved) at w to out[0].
__global__ void loss(const float *X, const float *y, const float *w, float *out, int n, int d) {
	if (blockIdx.x != 0 || threadIdx.x != 0) return;
	float acc = 0;
	for (int i = 0; i < n; i++) {
		float r = -y[i];
		for (int k = 0; k < d; k++) r += X[i * d + k] * w[k];
		acc += r * r;
	}
	out[0] = acc / (2 * n);
}

// sgd takes a step: w -= lr * g.
__global__ void sgd(float *w, const float *g, float lr, int d) {
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < d) w[j] -= lr * g[j];
}
