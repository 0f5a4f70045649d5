package kernels

//go:generate go tool cugen -src kernels.cu -o kernels_cugen.go kernels.ptx
