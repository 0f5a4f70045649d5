package kernels

//go:generate go tool cugen -compiler clang -src ddp.cu -o ddp_cugen.go ddp.cu
