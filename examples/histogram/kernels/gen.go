// histogram.cu uses a __managed__ variable, which clang cannot compile, so the
// PTX is built with nvcc (on a machine that has it) and committed; cugen then
// runs anywhere.

package kernels

//go:generate nvcc -ptx -arch=compute_75 -O3 -o histogram.ptx histogram.cu
//go:generate go run github.com/cugen/cugen/cmd/cugen -src histogram.cu -o histogram_cugen.go histogram.ptx
