package kernelsfat

//go:generate go tool cugen -src kernels.cu -o kernels_cugen.go kernels.fatbin
