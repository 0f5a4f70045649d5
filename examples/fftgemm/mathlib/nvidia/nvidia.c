//go:build cgo

#include <dlfcn.h>
#include <stdio.h>

#include "nvidia.h"

// Values from cublas_api.h, cufft.h, curand.h and cuda.h.
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum { CUFFT_C2C = 0x29 };
enum { CURAND_RNG_PSEUDO_DEFAULT = 100 };

typedef int (*cublasCreate_t)(void **);
typedef int (*cublasSetStream_t)(void *, void *);
typedef int (*cublasGetVersion_t)(void *, int *);
typedef int (*cublasSgemm_t)(void *, int, int, int, int, int, const float *, const void *, int, const void *, int,
                             const float *, void *, int);
typedef int (*cublasDestroy_t)(void *);
typedef int (*cufftPlan1d_t)(int *, int, int, int);
typedef int (*cufftSetStream_t)(int, void *);
typedef int (*cufftExecC2C_t)(int, void *, void *, int);
typedef int (*cufftDestroy_t)(int);
typedef int (*cufftGetVersion_t)(int *);
typedef int (*curandCreateGenerator_t)(void **, int);
typedef int (*curandSetPseudoRandomGeneratorSeed_t)(void *, unsigned long long);
typedef int (*curandSetStream_t)(void *, void *);
typedef int (*curandGenerateNormal_t)(void *, float *, size_t, float, float);
typedef int (*curandDestroyGenerator_t)(void *);
typedef int (*curandGetVersion_t)(int *);
typedef int (*cuStreamGetCtx_t)(void *, void **);
typedef int (*cuCtxPushCurrent_t)(void *);
typedef int (*cuCtxPopCurrent_t)(void **);
typedef int (*cuMemAlloc_t)(uint64_t *, size_t);
typedef int (*cuMemFree_t)(uint64_t);
typedef int (*cuStreamSynchronize_t)(void *);

static cublasCreate_t p_cublasCreate;
static cublasSetStream_t p_cublasSetStream;
static cublasGetVersion_t p_cublasGetVersion;
static cublasSgemm_t p_cublasSgemm;
static cublasDestroy_t p_cublasDestroy;
static cufftPlan1d_t p_cufftPlan1d;
static cufftSetStream_t p_cufftSetStream;
static cufftExecC2C_t p_cufftExecC2C;
static cufftDestroy_t p_cufftDestroy;
static cufftGetVersion_t p_cufftGetVersion;
static curandCreateGenerator_t p_curandCreateGenerator;
static curandSetPseudoRandomGeneratorSeed_t p_curandSetSeed;
static curandSetStream_t p_curandSetStream;
static curandGenerateNormal_t p_curandGenerateNormal;
static curandDestroyGenerator_t p_curandDestroyGenerator;
static curandGetVersion_t p_curandGetVersion;
static cuStreamGetCtx_t p_cuStreamGetCtx;
static cuCtxPushCurrent_t p_cuCtxPushCurrent;
static cuCtxPopCurrent_t p_cuCtxPopCurrent;
static cuMemAlloc_t p_cuMemAlloc;
static cuMemFree_t p_cuMemFree;
static cuStreamSynchronize_t p_cuStreamSynchronize;

static void *open_lib(const char *path, char *err, size_t n) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(err, n, "%s", e ? e : path);
	}
	return h;
}

#define SYM(h, var, name)                                                 \
	do {                                                                  \
		*(void **)(&(var)) = dlsym((h), (name));                          \
		if (!(var)) {                                                     \
			snprintf(err, n, "%s does not export %s", path, (name));      \
			return -1;                                                    \
		}                                                                 \
	} while (0)

int nv_open_cuda(const char *path, char *err, size_t n) {
	void *h = open_lib(path, err, n);
	if (!h) return -1;
	SYM(h, p_cuStreamGetCtx, "cuStreamGetCtx");
	SYM(h, p_cuCtxPushCurrent, "cuCtxPushCurrent_v2");
	SYM(h, p_cuCtxPopCurrent, "cuCtxPopCurrent_v2");
	SYM(h, p_cuMemAlloc, "cuMemAlloc_v2");
	SYM(h, p_cuMemFree, "cuMemFree_v2");
	SYM(h, p_cuStreamSynchronize, "cuStreamSynchronize");
	return 0;
}

int nv_open_cublas(const char *path, char *err, size_t n) {
	void *h = open_lib(path, err, n);
	if (!h) return -1;
	SYM(h, p_cublasCreate, "cublasCreate_v2");
	SYM(h, p_cublasSetStream, "cublasSetStream_v2");
	SYM(h, p_cublasGetVersion, "cublasGetVersion_v2");
	SYM(h, p_cublasSgemm, "cublasSgemm_v2");
	SYM(h, p_cublasDestroy, "cublasDestroy_v2");
	return 0;
}

int nv_open_cufft(const char *path, char *err, size_t n) {
	void *h = open_lib(path, err, n);
	if (!h) return -1;
	SYM(h, p_cufftPlan1d, "cufftPlan1d");
	SYM(h, p_cufftSetStream, "cufftSetStream");
	SYM(h, p_cufftExecC2C, "cufftExecC2C");
	SYM(h, p_cufftDestroy, "cufftDestroy");
	SYM(h, p_cufftGetVersion, "cufftGetVersion");
	return 0;
}

int nv_open_curand(const char *path, char *err, size_t n) {
	void *h = open_lib(path, err, n);
	if (!h) return -1;
	SYM(h, p_curandCreateGenerator, "curandCreateGenerator");
	SYM(h, p_curandSetSeed, "curandSetPseudoRandomGeneratorSeed");
	SYM(h, p_curandSetStream, "curandSetStream");
	SYM(h, p_curandGenerateNormal, "curandGenerateNormal");
	SYM(h, p_curandDestroyGenerator, "curandDestroyGenerator");
	SYM(h, p_curandGetVersion, "curandGetVersion");
	return 0;
}

int nv_cublas_create(uintptr_t *h, uintptr_t stream) {
	void *p = NULL;
	int r = p_cublasCreate(&p);
	if (r != 0) return r;
	r = p_cublasSetStream(p, (void *)stream);
	if (r != 0) {
		p_cublasDestroy(p);
		return r;
	}
	*h = (uintptr_t)p;
	return 0;
}

int nv_cublas_version(uintptr_t h, int *v) { return p_cublasGetVersion((void *)h, v); }

int nv_cublas_sgemm(uintptr_t h, int ta, int tb, int m, int n, int k, float alpha, uint64_t a, int lda, uint64_t b,
                    int ldb, float beta, uint64_t c, int ldc) {
	return p_cublasSgemm((void *)h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha,
	                     (const void *)(uintptr_t)a, lda, (const void *)(uintptr_t)b, ldb, &beta,
	                     (void *)(uintptr_t)c, ldc);
}

int nv_cublas_destroy(uintptr_t h) { return p_cublasDestroy((void *)h); }

int nv_cufft_version(int *v) { return p_cufftGetVersion(v); }

int nv_cufft_create(int *plan, int n, int batch, uintptr_t stream, uint64_t *spec, size_t bytes, int *cu) {
	*cu = 0;
	int r = p_cufftPlan1d(plan, n, CUFFT_C2C, batch);
	if (r != 0) return r;
	r = p_cufftSetStream(*plan, (void *)stream);
	if (r != 0) {
		p_cufftDestroy(*plan);
		return r;
	}
	void *ctx = NULL;
	if ((*cu = p_cuStreamGetCtx((void *)stream, &ctx)) != 0 || (*cu = p_cuCtxPushCurrent(ctx)) != 0) {
		p_cufftDestroy(*plan);
		return 0;
	}
	*cu = p_cuMemAlloc(spec, bytes);
	void *old;
	p_cuCtxPopCurrent(&old);
	if (*cu != 0) p_cufftDestroy(*plan);
	return 0;
}

int nv_cufft_exec(int plan, uint64_t in, uint64_t out, int dir) {
	return p_cufftExecC2C(plan, (void *)(uintptr_t)in, (void *)(uintptr_t)out, dir);
}

int nv_cufft_destroy(int plan, uintptr_t stream, uint64_t spec, int *cu) {
	if ((*cu = p_cuStreamSynchronize((void *)stream)) != 0) return 0;
	int r = p_cufftDestroy(plan);
	void *ctx = NULL;
	if ((*cu = p_cuStreamGetCtx((void *)stream, &ctx)) == 0 && (*cu = p_cuCtxPushCurrent(ctx)) == 0) {
		*cu = p_cuMemFree(spec);
		void *old;
		p_cuCtxPopCurrent(&old);
	}
	return r;
}

int nv_curand_version(int *v) { return p_curandGetVersion(v); }

int nv_curand_create(uintptr_t *g, unsigned long long seed, uintptr_t stream) {
	void *p = NULL;
	int r = p_curandCreateGenerator(&p, CURAND_RNG_PSEUDO_DEFAULT);
	if (r != 0) return r;
	if ((r = p_curandSetSeed(p, seed)) != 0 || (r = p_curandSetStream(p, (void *)stream)) != 0) {
		p_curandDestroyGenerator(p);
		return r;
	}
	*g = (uintptr_t)p;
	return 0;
}

int nv_curand_normal(uintptr_t g, uint64_t out, size_t n, float mean, float stddev) {
	return p_curandGenerateNormal((void *)g, (float *)(uintptr_t)out, n, mean, stddev);
}

int nv_curand_destroy(uintptr_t g) { return p_curandDestroyGenerator((void *)g); }
