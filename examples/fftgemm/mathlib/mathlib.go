// Package mathlib is the part of cuBLAS, cuFFT and cuRAND the fftgemm
// example calls, as a Go interface at the level of their C APIs: a cudaStream_t
// (rt.StreamHandle) and device pointers (rt.DevPtr), column-major matrices,
// unnormalized inverse transforms. Two implementations satisfy it: package
// nvidia, a cgo binding that dlopens libcublas, libcufft and libcurand (nothing to
// build against), and package standin, plain Go over rt, which runs the
// same calls on rt/soft in a program's CPU tests. Both receive rt's handles
// as the C libraries do, and adopt them (rt.AdoptStream, rt.AdoptBuffer)
// or pass them on.
package mathlib

import "github.com/cugen/cugen/rt"

// Libs makes the libraries' handles.
type Libs interface {
	// Name says which implementation and library versions these are.
	Name() string
	// NewBLAS is cublasCreate then cublasSetStream: its GEMMs run on s.
	NewBLAS(s rt.StreamHandle) (BLAS, error)
	// NewFFT is cufftPlan1d of batch complex-to-complex transforms of n
	// points (CUFFT_C2C) then cufftSetStream: its transforms run on s. The
	// plan owns a spectrum buffer of n·batch float2 values, which the
	// library allocated in s's context.
	NewFFT(n, batch int, s rt.StreamHandle) (FFT, error)
	// NewRNG is curandCreateGenerator(CURAND_RNG_PSEUDO_DEFAULT), its
	// seed (curandSetPseudoRandomGeneratorSeed) and cuRAND's stream
	// (curandSetStream): its samples are generated on s. A seed gives the
	// same samples at every run of one implementation (the two
	// implementations' generators differ).
	NewRNG(seed uint64, s rt.StreamHandle) (RNG, error)
}

// RNG is a cuRAND generator.
type RNG interface {
	// Normal is curandGenerateNormal: n float32 samples of a normal
	// distribution (mean, stddev) at out; n must be even, as cuRAND's
	// pseudo-random generators need.
	Normal(out rt.DevPtr, n int, mean, stddev float32) error
	// Destroy is curandDestroyGenerator.
	Destroy() error
}

// BLAS is a cuBLAS handle.
type BLAS interface {
	// Sgemm is cublasSgemm: C = alpha·op(A)·op(B) + beta·C with op(A)
	// m×k, op(B) k×n and C m×n, all column-major with leading dimensions
	// lda, ldb and ldc; op transposes where trans is set. (A row-major
	// product Y = X·W is the column-major Yᵀ = Wᵀ·Xᵀ: Sgemm(false, false,
	// cols(W), rows(X), cols(X), 1, W, cols(W), X, cols(X), 0, Y, cols(W)).)
	Sgemm(transA, transB bool, m, n, k int, alpha float32, a rt.DevPtr, lda int, b rt.DevPtr, ldb int, beta float32, c rt.DevPtr, ldc int) error
	// Destroy is cublasDestroy.
	Destroy() error
}

// FFT is a cuFFT plan.
type FFT interface {
	// Forward is cufftExecC2C(in → Spectrum(), CUFFT_FORWARD): in holds
	// batch signals of n float2 values, one after another.
	Forward(in rt.DevPtr) error
	// Inverse is cufftExecC2C(Spectrum() → out, CUFFT_INVERSE), which does
	// not divide by n.
	Inverse(out rt.DevPtr) error
	// Spectrum is the plan's own buffer: n·batch float2 values that the
	// library allocated. The plan frees it in Destroy.
	Spectrum() rt.DevPtr
	// Destroy is cufftDestroy; it frees the spectrum buffer once the
	// stream's work is done.
	Destroy() error
}
