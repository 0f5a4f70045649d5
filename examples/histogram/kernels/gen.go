package kernels

//go:generate go run github.com/cugen/cugen/cmd/cugen -src histogram.cu -o histogram_cugen.go histogram.ptx
