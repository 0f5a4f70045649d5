// nvidia.h declares the nv_* wrappers of nvidia.c: the handful of cuBLAS,
// cuFFT and CUDA driver calls the example makes, resolved with dlopen at
// run time, so that nothing is needed to build (no CUDA toolkit, no
// headers: the few types and values below restate cublas_api.h, cufft.h,
// curand.h and cuda.h). Every wrapper returns the library's status (0: success).
#ifndef FFTGEMM_NVIDIA_H
#define FFTGEMM_NVIDIA_H

#include <stddef.h>
#include <stdint.h>

// nv_open_* dlopen one library by path or name and resolve what the
// example uses; 0, or -1 with dlerror's text in err.
int nv_open_cuda(const char *path, char *err, size_t n);
int nv_open_cublas(const char *path, char *err, size_t n);
int nv_open_cufft(const char *path, char *err, size_t n);
int nv_open_curand(const char *path, char *err, size_t n);

int nv_cublas_create(uintptr_t *h, uintptr_t stream);
int nv_cublas_version(uintptr_t h, int *v);
int nv_cublas_sgemm(uintptr_t h, int ta, int tb, int m, int n, int k, float alpha, uint64_t a, int lda, uint64_t b,
                    int ldb, float beta, uint64_t c, int ldc);
int nv_cublas_destroy(uintptr_t h);

int nv_cufft_version(int *v);
// nv_cufft_create makes the plan, sets its stream, and allocates its
// spectrum buffer of bytes in the stream's context (cuMemAlloc: memory of
// the library's, not rt's). *cu is the failing driver call's CUresult when
// the cuFFT status is 0 but the result is not.
int nv_cufft_create(int *plan, int n, int batch, uintptr_t stream, uint64_t *spec, size_t bytes, int *cu);
int nv_cufft_exec(int plan, uint64_t in, uint64_t out, int dir);
// nv_cufft_destroy waits for the stream, destroys the plan and frees the
// spectrum.
int nv_cufft_destroy(int plan, uintptr_t stream, uint64_t spec, int *cu);

int nv_curand_version(int *v);
// nv_curand_create makes a CURAND_RNG_PSEUDO_DEFAULT generator with seed,
// generating on stream.
int nv_curand_create(uintptr_t *g, unsigned long long seed, uintptr_t stream);
int nv_curand_normal(uintptr_t g, uint64_t out, size_t n, float mean, float stddev);
int nv_curand_destroy(uintptr_t g);

#endif
