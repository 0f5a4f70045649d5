//go:build cgo

// shim_adopt.c: see shim_adopt.h. Entry points are resolved through cg_sym
// on first use.
#include <string.h>

#include "shim_adopt.h"

// CUpointer_attribute values (cuda.h).
enum {
	CU_POINTER_ATTRIBUTE_CONTEXT = 1,
	CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
	CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
	CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
	CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
	CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
};

typedef CUresult (*cga_attrs_fn)(unsigned int, int *, void **, CUdeviceptr);
typedef CUresult (*cga_range_fn)(CUdeviceptr *, size_t *, CUdeviceptr);
typedef CUresult (*cga_kfunc_fn)(CUfunction *, CUkernel);
typedef CUresult (*cga_push_fn)(CUcontext);
typedef CUresult (*cga_pop_fn)(CUcontext *);

int cga_pointer_info(unsigned long long p, CUcontext *ctx, unsigned int *memtype, int *managed, int *ordinal,
                     unsigned long long *base, unsigned long long *size) {
	cga_attrs_fn attrs = (cga_attrs_fn)cg_sym("cuPointerGetAttributes");
	if (!attrs) return CG_MISSING | CG_NOT_SUPPORTED;
	// IS_MANAGED is documented as a boolean: read it into a zeroed 8-byte
	// word, whatever width the driver writes.
	unsigned long long man = 0;
	int ids[4] = {CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
	              CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
	void *data[4] = {ctx, memtype, &man, ordinal};
	*ctx = NULL;
	*memtype = 0;
	*ordinal = -1;
	CUresult r = attrs(4, ids, data, (CUdeviceptr)p);
	if (r != 0) return r;
	*managed = man != 0;
	*base = 0;
	*size = 0;
	if (*memtype == 0) return 0;
	// The range attributes (CUDA 11.2+) describe device and host
	// allocations alike; cuMemGetAddressRange, device memory only, is the
	// older drivers' way.
	CUdeviceptr b = 0;
	size_t n = 0;
	int rids[2] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
	void *rdata[2] = {&b, &n};
	if (attrs(2, rids, rdata, (CUdeviceptr)p) == 0 && n != 0) {
		*base = b;
		*size = n;
		return 0;
	}
	cga_range_fn range = (cga_range_fn)cg_sym("cuMemGetAddressRange_v2");
	cga_push_fn push = (cga_push_fn)cg_sym("cuCtxPushCurrent_v2");
	cga_pop_fn pop = (cga_pop_fn)cg_sym("cuCtxPopCurrent_v2");
	if (range && push && pop && *ctx && push(*ctx) == 0) {
		if (range(&b, &n, (CUdeviceptr)p) == 0) {
			*base = b;
			*size = n;
		}
		CUcontext o;
		pop(&o);
	}
	return 0;
}

int cga_kernel_function(CUcontext ctx, CUkernel k, CUfunction *f) {
	cga_kfunc_fn get = (cga_kfunc_fn)cg_sym("cuKernelGetFunction");
	cga_push_fn push = (cga_push_fn)cg_sym("cuCtxPushCurrent_v2");
	cga_pop_fn pop = (cga_pop_fn)cg_sym("cuCtxPopCurrent_v2");
	if (!get || !push || !pop) return CG_MISSING | CG_NOT_SUPPORTED;
	CUresult r;
	if (ctx) {
		r = push(ctx);
		if (r != 0) return CG_PUSH_FAILED | r;
	}
	r = get(f, k);
	if (ctx) {
		CUcontext o;
		CUresult q = pop(&o);
		if (q != 0 && r == 0) return CG_POP_FAILED | q;
	}
	return r;
}
