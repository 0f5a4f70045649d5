package kernels

//go:generate go tool cugen -compiler clang -src multigpu.cu -o multigpu_cugen.go multigpu.cu
