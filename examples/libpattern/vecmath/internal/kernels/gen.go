package kernels

//go:generate go tool cugen -compiler clang -src vecmath.cu -o vecmath_cugen.go vecmath.cu
