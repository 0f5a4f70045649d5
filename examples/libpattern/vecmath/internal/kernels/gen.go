package kernels

//go:generate go run github.com/cugen/cugen/cmd/cugen -compiler clang -src vecmath.cu -o vecmath_cugen.go vecmath.cu
