package kernels

//go:generate go run github.com/cugen/cugen/cmd/cugen -compiler clang -o multictx_cugen.go multictx.cu
