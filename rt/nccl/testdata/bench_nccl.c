// bench_nccl.c measures what a small AllReduce costs when C calls NCCL
// directly: the loop of rt/nccl's BenchmarkGPUAllReduce8B and
// BenchmarkGPUAllReduce8BInPlace (two float32s on a one-rank communicator,
// a stream synchronisation every 256 calls), so that gpu.sh can print the
// ratio of the two in one run. Our own code; it declares the few NCCL and
// CUDA runtime functions it calls, so it builds without their headers:
//
//	gcc -O2 -o bench_nccl bench_nccl.c /usr/lib/x86_64-linux-gnu/libnccl.so.2 -L/usr/local/cuda/lib64 -lcudart
//	./bench_nccl 200000
//
// It prints, per form, "C-NCCL <name> <iterations> <ns> ns/op".
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct ncclComm *ncclComm_t;
typedef struct CUstream_st *cudaStream_t;
int ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist);
int ncclCommDestroy(ncclComm_t comm);
int ncclAllReduce(const void *send, void *recv, size_t count, int datatype, int op, ncclComm_t comm, cudaStream_t s);
const char *ncclGetErrorString(int r);
int cudaSetDevice(int dev);
int cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags);
int cudaStreamSynchronize(cudaStream_t s);
int cudaMalloc(void **p, size_t n);
int cudaFree(void *p);

enum { ncclFloat32 = 7, ncclSum = 0, cudaStreamNonBlocking = 1 };

#define CHECK(what, call)                                                        \
	do {                                                                         \
		int r_ = (call);                                                         \
		if (r_ != 0) {                                                           \
			fprintf(stderr, "bench_nccl: %s failed: %d\n", what, r_);            \
			exit(1);                                                             \
		}                                                                        \
	} while (0)

static double now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

// run times n AllReduces of two float32s from send to recv.
static double run(ncclComm_t comm, cudaStream_t s, void *send, void *recv, long n) {
	double t0 = now_ns();
	for (long i = 0; i < n; i++) {
		int r = ncclAllReduce(send, recv, 2, ncclFloat32, ncclSum, comm, s);
		if (r != 0) {
			fprintf(stderr, "bench_nccl: ncclAllReduce: %s\n", ncclGetErrorString(r));
			exit(1);
		}
		if (i % 256 == 255) cudaStreamSynchronize(s);
	}
	cudaStreamSynchronize(s);
	return (now_ns() - t0) / n;
}

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 200000;
	int dev = 0;
	ncclComm_t comm;
	cudaStream_t s;
	void *send, *recv;
	CHECK("cudaSetDevice", cudaSetDevice(0));
	CHECK("ncclCommInitAll", ncclCommInitAll(&comm, 1, &dev));
	CHECK("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK("cudaMalloc", cudaMalloc(&send, 8));
	CHECK("cudaMalloc", cudaMalloc(&recv, 8));
	run(comm, s, send, recv, n / 10 + 1);  // warm up
	printf("C-NCCL AllReduce8B %ld %.1f ns/op\n", n, run(comm, s, send, recv, n));
	printf("C-NCCL AllReduce8BInPlace %ld %.1f ns/op\n", n, run(comm, s, send, send, n));
	cudaFree(send);
	cudaFree(recv);
	ncclCommDestroy(comm);
	return 0;
}
