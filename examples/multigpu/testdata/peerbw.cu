// peerbw is CUDA's own side of two-gpu.sh's peer-copy comparison: bytes
// copied from device 1 to device 0 with cudaMemcpyPeerAsync, peer access
// enabled both ways where the devices have it (with one device, between
// two allocations of device 0), timed as examples/multigpu's
// BenchmarkPeerCopy times rt.Buffer.CopyFromPeerAsync: three untimed
// copies, then n copies queued on a non-blocking stream of device 0 and
// one synchronize, by the wall clock. It prints
// "PEER-BW-C: bytes N GB/s X (…)". Our own code; build it with nvcc:
//
//	nvcc -O2 -o peerbw peerbw.cu && ./peerbw 268435456 50
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CK(call)                                                                                     \
	do {                                                                                             \
		cudaError_t e_ = (call);                                                                     \
		if (e_ != cudaSuccess) {                                                                     \
			fprintf(stderr, "peerbw: %s: %s (%s)\n", #call, cudaGetErrorString(e_), cudaGetErrorName(e_)); \
			exit(1);                                                                                 \
		}                                                                                            \
	} while (0)

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
	size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)256 << 20;
	int n = argc > 2 ? atoi(argv[2]) : 50;
	int ndev = 0;
	CK(cudaGetDeviceCount(&ndev));
	int from = ndev >= 2 ? 1 : 0, access = 0;
	if (ndev >= 2) {
		int a = 0, b = 0;
		CK(cudaDeviceCanAccessPeer(&a, 0, 1));
		CK(cudaDeviceCanAccessPeer(&b, 1, 0));
		access = a && b;
	}
	void *src, *dst;
	CK(cudaSetDevice(from));
	CK(cudaMalloc(&src, bytes));
	CK(cudaMemset(src, 7, bytes));
	if (access) CK(cudaDeviceEnablePeerAccess(0, 0));
	CK(cudaSetDevice(0));
	CK(cudaMalloc(&dst, bytes));
	if (access) CK(cudaDeviceEnablePeerAccess(1, 0));
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaDeviceSynchronize());
	for (int i = 0; i < 3; i++) CK(cudaMemcpyPeerAsync(dst, 0, src, from, bytes, s));
	CK(cudaStreamSynchronize(s));
	double t0 = now();
	for (int i = 0; i < n; i++) CK(cudaMemcpyPeerAsync(dst, 0, src, from, bytes, s));
	CK(cudaStreamSynchronize(s));
	double d = now() - t0;
	unsigned char probe[2];
	CK(cudaMemcpy(probe, (char *)dst + bytes - 2, 2, cudaMemcpyDeviceToHost));
	if (probe[0] != 7 || probe[1] != 7) {
		fprintf(stderr, "peerbw: the copy holds %d %d, want 7 7\n", probe[0], probe[1]);
		return 1;
	}
	printf("PEER-BW-C: bytes %zu GB/s %.2f (cudaMemcpyPeerAsync, %s to device 0, %s, %d copies in %.3f ms)\n", bytes,
	       (double)bytes * n / d / 1e9, ndev >= 2 ? "device 1" : "device 0", ndev < 2 ? "one device" : access ? "peer access on" : "peer access off", n,
	       d * 1e3);
	return 0;
}
