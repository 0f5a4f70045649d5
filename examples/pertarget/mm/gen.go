// Package mm is the GPU part of a micromagnetics-style code base: its
// kernels (madd3.cu), shipped as one PTX file per target, and the package's
// own hand-written API over them (mm.go).
//
// cugen generates the three PTX files into one library (they are one
// kernel file compiled for three targets: their names say so), whose image
// is a fatbin of all three: the CUDA driver JIT-compiles the newest PTX
// each device can take (compute_80 on an H100 or H200, compute_70 on a
// T4), and rt/soft runs the one a GPU of its emulated compute capability
// would. -unexported keeps the generated names (madd3, normalize,
// madd3Kernel, library) out of the package's API, which has functions of
// the same names, and -src gives the extern "C" kernels their parameter
// types and names.
package mm

//go:generate go tool cugen -unexported -src madd3.cu -o madd3_cugen.go madd3_50.ptx madd3_70.ptx madd3_80.ptx
