package kernels

//go:generate go run github.com/cugen/cugen/cmd/cugen -compiler clang -src multictx.cu -o multictx_cugen.go multictx.cu
