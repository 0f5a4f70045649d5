//go:build nvcc

// histogram.cu uses a __managed__ variable, which clang cannot compile, so its
// PTX is built with nvcc and committed. This step runs where nvcc is
// installed and asked for, go generate -tags nvcc ./...; gen.go's cugen step
// needs no tag and runs anywhere. (go generate runs a package's files in
// name order, so this one first.)

package kernels

//go:generate nvcc -ptx -arch=compute_75 -O3 -o histogram.ptx histogram.cu
