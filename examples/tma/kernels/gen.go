// Package kernels is field11.cu's over-aligned and TMA kernels, from every
// kind of image nvcc makes of it: PTX for sm_80 and sm_90, an sm_90 cubin,
// fatbins of sm_80 + sm_90 + compute_90 raw, LZ4- and zstd-compressed, and
// a host object. Each image is a library of its own, so that the tests
// launch the same kernels whichever entry the driver picks. The source's
// variables belong to the kernels the example leaves out: -globals none.
package kernels

//go:generate go tool cugen -gpu-only -kernels ^(bigParam|bigAfterPtr|bigByValue|plainAfterBig|tmaTile)$ -globals none -src field11.cu -o kernels_cugen.go field11_sm80.ptx field11_sm90.ptx field11_sm90.cubin field11.none.fatbin field11.speed.fatbin field11.size.fatbin field11.o
