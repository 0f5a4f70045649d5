// Package kernels launches the fftgemm example's kernels (fftgemm.cu).
package kernels

//go:generate go tool cugen -compiler clang -src fftgemm.cu -o fftgemm_cugen.go fftgemm.cu
