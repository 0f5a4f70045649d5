package kernels

//go:generate go run github.com/cugen/cugen/cmd/cugen -compiler clang -src reduce.cu -o reduce_cugen.go reduce.cu
