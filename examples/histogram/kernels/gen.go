package kernels

//go:generate go tool cugen -src histogram.cu -o histogram_cugen.go histogram.ptx
