package kernels

//go:generate go run github.com/cugen/cugen/cmd/cugen -compiler clang -o reduce_cugen.go reduce.cu
