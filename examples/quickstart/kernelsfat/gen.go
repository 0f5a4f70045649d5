package kernelsfat

//go:generate go run github.com/cugen/cugen/cmd/cugen -src kernels.cu -o kernels_cugen.go kernels.fatbin
