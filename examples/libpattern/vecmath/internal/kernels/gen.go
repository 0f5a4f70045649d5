package kernels

//go:generate go run github.com/cugen/cugen/cmd/cugen -compiler clang -o vecmath_cugen.go vecmath.cu
