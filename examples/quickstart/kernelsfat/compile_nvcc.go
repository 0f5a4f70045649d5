//go:build nvcc

// The same source as ../kernels, built by nvcc into a fatbin with an sm_90
// cubin and compute_75 PTX (the GPU runs the cubin, rt/soft the PTX) and
// committed. This step runs where nvcc is installed and asked for,
// go generate -tags nvcc ./...; gen.go's cugen step needs no tag and runs
// anywhere. (go generate runs a package's files in name order, so this one
// first.)

package kernelsfat

//go:generate nvcc -fatbin -gencode arch=compute_75,code=compute_75 -gencode arch=compute_90,code=sm_90 -O3 -o kernels.fatbin kernels.cu
