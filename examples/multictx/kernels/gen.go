package kernels

//go:generate go tool cugen -compiler clang -src multictx.cu -o multictx_cugen.go multictx.cu
