// Dynamic parallelism: parents that launch children (nested, in device
// streams, as tail launches), device-side cudaMalloc/cudaMemcpyAsync/
// cudaFree and the device runtime's errors. Compiled by nvcc -rdc for
// sm_90 (cdp.ptx), run on the H100 by record.cu and in rt/soft by
// cdp_test.go.

extern "C" __global__ void cdpLeaf(int *out, int base, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) out[base + t] += base + t + 1;
}

// cdpTree launches, from thread 0 of each block, a child grid per level
// down to depth 0; each writes its slice of out.
extern "C" __global__ void cdpTree(int *out, int base, int depth) {
    if (threadIdx.x != 0) return;
    int b = base * 2 + blockIdx.x;
    cdpLeaf<<<1, 8>>>(out, b * 8, 8);
    if (depth > 0) cdpTree<<<2, 32>>>(out, b, depth - 1);
}

// cdpStreams: the children of one block run in issue order in a created
// stream, a copy between them; a tail launch runs after them.
extern "C" __global__ void cdpStep(int *x, int k) { x[threadIdx.x] = x[threadIdx.x] * 3 + k; }

extern "C" __global__ void cdpStreams(int *x, int *y, int *status) {
    cudaStream_t s;
    int e1 = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cdpStep<<<1, 32, 0, s>>>(x, 1);
    cdpStep<<<1, 32, 0, s>>>(x, 2);
    int e2 = cudaMemcpyAsync(y, x, 32 * sizeof(int), cudaMemcpyDeviceToDevice, s);
    cdpStep<<<1, 32, 0, cudaStreamTailLaunch>>>(y, 5);
    cudaStreamDestroy(s);
    int *tmp = 0;
    int e3 = cudaMalloc((void **)&tmp, 64);
    int e4 = cudaFree(tmp);
    cdpStep<<<1, 2000>>>(x, 9); // too many threads: an error
    int e5 = cudaGetLastError();
    int e6 = cudaGetLastError();
    const char *msg = cudaGetErrorString((cudaError_t)e5);
    status[0] = e1;
    status[1] = e2;
    status[2] = e3;
    status[3] = e4;
    status[4] = e5;
    status[5] = e6;
    status[6] = tmp != 0;
    for (int i = 0; i < 24; i++) {
        status[8 + i] = msg[i];
        if (!msg[i]) break;
    }
}
