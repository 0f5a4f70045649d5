// The same source as ../kernels, built by nvcc into a fatbin with an sm_90
// cubin and compute_75 PTX: the GPU runs the cubin, rt/soft the PTX.

package kernelsfat

//go:generate nvcc -fatbin -gencode arch=compute_75,code=compute_75 -gencode arch=compute_90,code=sm_90 -O3 -o kernels.fatbin kernels.cu
//go:generate go run github.com/cugen/cugen/cmd/cugen -src kernels.cu -o kernels_cugen.go kernels.fatbin
