// Package cgo is cugen's real GPU backend: an rt.Driver over the CUDA driver
// API in libcuda.so.1.
//
// The driver library is dlopen'ed at run time, so neither the CUDA toolkit nor
// cuda.h is needed to build, and a binary built on a machine without a GPU
// runs unchanged on one with a GPU. Without libcuda.so.1, New returns an
// error (and rt.Default moves on to the next backend). Built with
// CGO_ENABLED=0 the package still compiles, and New always fails.
//
// Importing the package registers the backend as "cuda" (rank 0, preferred
// by rt.Default):
//
//	import _ "github.com/cugen/cugen/rt/cgo"
//
// # Contexts and threads
//
// Every method that takes an rt.CtxHandle makes that context current for
// the duration of the call inside one cgo call (cuCtxPushCurrent, the work,
// cuCtxPopCurrent), so Go code never has to lock itself to an OS thread. Only
// CtxSetCurrent/CtxGetCurrent and calls with a zero CtxHandle depend on the
// calling thread; they need runtime.LockOSThread as in C.
//
// # Loading
//
// Libraries are loaded with the context-independent API (cuLibraryLoadData,
// CUDA 12.0+): one load serves every context and device, kernels are
// CUkernel handles launched directly, and __device__ globals are resolved
// per context. On a driver without that API, or with LoadOptions.Legacy (or
// CUGEN_CUDA_LEGACY=1 in the environment), the backend falls back to
// per-context modules (cuModuleLoadDataEx), which it loads on first use in
// each context and drops when the context is destroyed. Handles behave the
// same on both paths. LoadOptions.JIT (register cap, optimization level,
// line and debug info, a verbose log) reaches the PTX compiler on both
// paths; LibraryJITLog returns its info log.
//
// # Launching
//
// Launch passes the caller's packed parameter buffer through
// CU_LAUNCH_PARAM_BUFFER_POINTER; the buffer never holds Go pointers and is
// not retained, and the launch allocates nothing. Shapes and the buffer go
// to the driver as rt.LaunchArgs' contract has them: rt.Kernel normalized the
// shapes and checked the buffer against the kernel's layout, which it learns
// through KernelParamInfo (cuKernelGetParamInfo, CUDA 12.4+), so the hot path
// checks nothing again.
//
// Beyond rt.Driver, *Driver implements every optional capability of rt
// (TestEveryCapability checks that it still does): rt.ParamInfoer,
// rt.ParamPlacer, rt.KernelAttributer, rt.OccupancyCalculator,
// rt.JITLogger, rt.WarmUpper, rt.LoadingModer, rt.Linker (cuLink*),
// rt.Streamer, rt.MemoryOps, rt.AsyncAllocator, rt.PeerAccessor,
// rt.Grapher, rt.Texturer, rt.Adopter and rt.NativeHandler, and
// tensormap.Encoder.
package cgo
