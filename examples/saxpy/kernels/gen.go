package kernels

//go:generate go run github.com/cugen/cugen/cmd/cugen -compiler clang -src saxpy.cu -o saxpy_cugen.go saxpy.cu
