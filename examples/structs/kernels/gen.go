package kernels

//go:generate go tool cugen -compiler clang -src structs.cu -type Params=github.com/cugen/cugen/examples/structs/params.Params -o structs_cugen.go structs.cu
