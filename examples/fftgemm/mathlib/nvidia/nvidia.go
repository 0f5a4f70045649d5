//go:build cgo

// Package nvidia binds the cuBLAS, cuFFT and cuRAND calls of mathlib to
// NVIDIA's libraries, found at run time with dlopen (libcublas.so.13 or
// .12, libcufft.so.12 or .11, libcurand.so.10, and libcuda.so.1 for the
// spectrum's allocation):
// building it needs neither the CUDA toolkit nor its headers. It is what a
// program writes to call a C library with rt's handles: a Stream's Handle
// is the cudaStream_t it takes, a Buffer's Ptr the device pointer, and the
// libraries work in the device's primary context, which rt's
// Device.Primary shares with them.
package nvidia

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "nvidia.h"
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/cugen/cugen/examples/fftgemm/mathlib"
	"github.com/cugen/cugen/rt"
)

// Libs is cuBLAS, cuFFT and cuRAND, opened.
type Libs struct{ cublas, cufft, curand string }

var _ mathlib.Libs = (*Libs)(nil)

// candidates are where each library is looked for: its name (the loader's
// search path: LD_LIBRARY_PATH, ld.so.conf), then $CUDA_HOME/lib64 and
// /usr/local/cuda/lib64.
func candidates(names ...string) []string {
	var out []string
	out = append(out, names...)
	for _, dir := range []string{os.Getenv("CUDA_HOME"), "/usr/local/cuda"} {
		if dir == "" {
			continue
		}
		for _, n := range names {
			out = append(out, filepath.Join(dir, "lib64", n))
		}
	}
	return out
}

func open(what string, fn func(*C.char, *C.char, C.size_t) C.int, names ...string) (string, error) {
	var msgs []string
	for _, p := range candidates(names...) {
		cp := C.CString(p)
		var buf [512]C.char
		rc := fn(cp, &buf[0], C.size_t(len(buf)))
		C.free(unsafe.Pointer(cp))
		if rc == 0 {
			return p, nil
		}
		msgs = append(msgs, C.GoString(&buf[0]))
	}
	return "", fmt.Errorf("nvidia: no usable %s: %v", what, msgs)
}

// Open loads the libraries; without them it returns an error that names
// what it tried.
func Open() (*Libs, error) {
	if _, err := open("CUDA driver", func(p, e *C.char, n C.size_t) C.int { return C.nv_open_cuda(p, e, n) }, "libcuda.so.1"); err != nil {
		return nil, err
	}
	blas, err := open("cuBLAS", func(p, e *C.char, n C.size_t) C.int { return C.nv_open_cublas(p, e, n) }, "libcublas.so.13", "libcublas.so.12")
	if err != nil {
		return nil, err
	}
	fft, err := open("cuFFT", func(p, e *C.char, n C.size_t) C.int { return C.nv_open_cufft(p, e, n) }, "libcufft.so.12", "libcufft.so.11")
	if err != nil {
		return nil, err
	}
	rng, err := open("cuRAND", func(p, e *C.char, n C.size_t) C.int { return C.nv_open_curand(p, e, n) }, "libcurand.so.10")
	if err != nil {
		return nil, err
	}
	return &Libs{cublas: blas, cufft: fft, curand: rng}, nil
}

// Name names the libraries and the cuFFT and cuRAND versions.
func (l *Libs) Name() string {
	var v, r C.int
	C.nv_cufft_version(&v)
	C.nv_curand_version(&r)
	return fmt.Sprintf("cuBLAS (%s), cuFFT %d (%s) and cuRAND %d (%s)", filepath.Base(l.cublas), int(v), filepath.Base(l.cufft), int(r), filepath.Base(l.curand))
}

// NewRNG is curandCreateGenerator(CURAND_RNG_PSEUDO_DEFAULT),
// curandSetPseudoRandomGeneratorSeed(seed) and curandSetStream(s).
func (l *Libs) NewRNG(seed uint64, s rt.StreamHandle) (mathlib.RNG, error) {
	var g C.uintptr_t
	if st := C.nv_curand_create(&g, C.ulonglong(seed), C.uintptr_t(s)); st != 0 {
		return nil, fmt.Errorf("curandCreateGenerator/curandSetPseudoRandomGeneratorSeed/curandSetStream: curandStatus_t %d", int(st))
	}
	return &rng{g: g}, nil
}

type rng struct{ g C.uintptr_t }

// Normal is curandGenerateNormal.
func (r *rng) Normal(out rt.DevPtr, n int, mean, stddev float32) error {
	if st := C.nv_curand_normal(r.g, C.uint64_t(out), C.size_t(n), C.float(mean), C.float(stddev)); st != 0 {
		return fmt.Errorf("curandGenerateNormal: curandStatus_t %d", int(st))
	}
	return nil
}

// Destroy is curandDestroyGenerator.
func (r *rng) Destroy() error {
	if st := C.nv_curand_destroy(r.g); st != 0 {
		return fmt.Errorf("curandDestroyGenerator: curandStatus_t %d", int(st))
	}
	return nil
}

// NewBLAS is cublasCreate and cublasSetStream(s).
func (l *Libs) NewBLAS(s rt.StreamHandle) (mathlib.BLAS, error) {
	var h C.uintptr_t
	if st := C.nv_cublas_create(&h, C.uintptr_t(s)); st != 0 {
		return nil, fmt.Errorf("cublasCreate/cublasSetStream: cublasStatus_t %d", int(st))
	}
	return &blas{h: h}, nil
}

type blas struct{ h C.uintptr_t }

// Version is cublasGetVersion.
func (b *blas) Version() int {
	var v C.int
	C.nv_cublas_version(b.h, &v)
	return int(v)
}

func b2i(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Sgemm is cublasSgemm.
func (b *blas) Sgemm(transA, transB bool, m, n, k int, alpha float32, a rt.DevPtr, lda int, bp rt.DevPtr, ldb int, beta float32, c rt.DevPtr, ldc int) error {
	st := C.nv_cublas_sgemm(b.h, b2i(transA), b2i(transB), C.int(m), C.int(n), C.int(k), C.float(alpha),
		C.uint64_t(a), C.int(lda), C.uint64_t(bp), C.int(ldb), C.float(beta), C.uint64_t(c), C.int(ldc))
	if st != 0 {
		return fmt.Errorf("cublasSgemm: cublasStatus_t %d", int(st))
	}
	return nil
}

// Destroy is cublasDestroy.
func (b *blas) Destroy() error {
	if st := C.nv_cublas_destroy(b.h); st != 0 {
		return fmt.Errorf("cublasDestroy: cublasStatus_t %d", int(st))
	}
	return nil
}

// NewFFT is cufftPlan1d(n, CUFFT_C2C, batch) and cufftSetStream(s), with
// the plan's spectrum buffer allocated by the library's side (cuMemAlloc
// in s's context).
func (l *Libs) NewFFT(n, batch int, s rt.StreamHandle) (mathlib.FFT, error) {
	var (
		plan C.int
		spec C.uint64_t
		cu   C.int
	)
	if st := C.nv_cufft_create(&plan, C.int(n), C.int(batch), C.uintptr_t(s), &spec, C.size_t(n*batch*8), &cu); st != 0 || cu != 0 {
		return nil, fmt.Errorf("cufftPlan1d/cufftSetStream/cuMemAlloc: cufftResult %d, CUresult %d", int(st), int(cu))
	}
	return &fft{plan: plan, s: s, spec: rt.DevPtr(spec)}, nil
}

type fft struct {
	plan C.int
	s    rt.StreamHandle
	spec rt.DevPtr
}

// cuFFT's directions (cufft.h).
const (
	cufftForward = -1
	cufftInverse = 1
)

func (f *fft) Spectrum() rt.DevPtr { return f.spec }

func (f *fft) Forward(in rt.DevPtr) error { return f.exec(in, f.spec, cufftForward) }

func (f *fft) Inverse(out rt.DevPtr) error { return f.exec(f.spec, out, cufftInverse) }

func (f *fft) exec(in, out rt.DevPtr, dir int) error {
	if st := C.nv_cufft_exec(f.plan, C.uint64_t(in), C.uint64_t(out), C.int(dir)); st != 0 {
		return fmt.Errorf("cufftExecC2C: cufftResult %d", int(st))
	}
	return nil
}

// Destroy waits for the stream, then destroys the plan and frees the
// spectrum.
func (f *fft) Destroy() error {
	var cu C.int
	st := C.nv_cufft_destroy(f.plan, C.uintptr_t(f.s), C.uint64_t(f.spec), &cu)
	if st != 0 || cu != 0 {
		return fmt.Errorf("cufftDestroy/cuMemFree: cufftResult %d, CUresult %d", int(st), int(cu))
	}
	return nil
}
