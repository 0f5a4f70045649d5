package kernels

//go:generate go tool cugen -compiler clang -src reduce.cu -o reduce_cugen.go reduce.cu
