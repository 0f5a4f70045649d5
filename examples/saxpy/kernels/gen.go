package kernels

//go:generate go run github.com/cugen/cugen/cmd/cugen -compiler clang -o saxpy_cugen.go saxpy.cu
