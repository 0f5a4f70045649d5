//go:build nvcc

// field11.cu's images, built by nvcc 13.0 on the GPU machine and committed:
// this step runs where nvcc is installed and asked for, go generate -tags
// nvcc ./...; gen.go's cugen step needs no tag and runs anywhere. (go
// generate runs a package's files in name order, so this one first.) The
// fatbins' --compress-mode is none (raw), speed (LZ4) and size (zstd).

package kernels

//go:generate nvcc -ptx -arch sm_80 -o field11_sm80.ptx field11.cu
//go:generate nvcc -ptx -arch sm_90 -o field11_sm90.ptx field11.cu
//go:generate nvcc -cubin -arch sm_90 -o field11_sm90.cubin field11.cu
//go:generate nvcc -fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 --compress-mode=none -o field11.none.fatbin field11.cu
//go:generate nvcc -fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 --compress-mode=speed -o field11.speed.fatbin field11.cu
//go:generate nvcc -fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 --compress-mode=size -o field11.size.fatbin field11.cu
//go:generate nvcc -c -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -o field11.o field11.cu
