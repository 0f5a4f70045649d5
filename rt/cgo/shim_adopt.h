// shim_adopt.h declares the cga_* wrappers of shim_adopt.c: the driver
// calls that check handles made outside rt before rt adopts them
// (rt.Adopter) and give out the driver's own handles (rt.NativeHandler).
// They follow shim.h's conventions.
#ifndef CUGEN_RT_CGO_SHIM_ADOPT_H
#define CUGEN_RT_CGO_SHIM_ADOPT_H

#include "shim.h"

// cga_pointer_info describes the memory at p (cuPointerGetAttributes, which
// reports memory the driver does not know as memory type 0, not as an
// error): its context, CUmemorytype, whether it is managed, its device
// ordinal, and the allocation's base and size (0 and 0 where the driver
// cannot tell).
int cga_pointer_info(unsigned long long p, CUcontext *ctx, unsigned int *memtype, int *managed, int *ordinal,
                     unsigned long long *base, unsigned long long *size);
// cga_kernel_function is cuKernelGetFunction with ctx current.
int cga_kernel_function(CUcontext ctx, CUkernel k, CUfunction *f);

#endif
