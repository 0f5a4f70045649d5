package kernels

//go:generate go tool cugen -compiler clang -src saxpy.cu -o saxpy_cugen.go saxpy.cu
