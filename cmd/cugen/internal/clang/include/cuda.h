// cuda.h: the CUDA driver API's version and handle types for .cu files that
// include it beside their kernels (cugen compiles the device code only; the
// host side of a cugen program is Go).
#ifndef CUGEN_CUDA_H
#define CUGEN_CUDA_H
#pragma clang system_header
#include "cugen_clang.h"
#define CUDA_VERSION 12000
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef enum cudaError_enum { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1, CUDA_ERROR_OUT_OF_MEMORY = 2 } CUresult;
#endif
