//go:build cgo

package cgo

/*
#include <dlfcn.h>
#include <time.h>
#include "shim.h"

// The reference for rt/cgo's launch cost: what a C program does, a loop of
// cuLaunchKernel calls with the usual kernelParams array of argument
// pointers. The benchmark runs it in the same process as the Go launches.
typedef int (*cloop_launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, CUstream, void **, void **);

static long long cloop_vecadd(CUfunction f, CUstream s, unsigned long long a, unsigned long long b,
                              unsigned long long c, int n, int count, int *rc) {
	static cloop_launch_fn launch;
	if (!launch) {
		void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
		launch = h ? (cloop_launch_fn)dlsym(h, "cuLaunchKernel") : 0;
		if (!launch) { *rc = -1; return 0; }
	}
	void *args[4] = {&a, &b, &c, &n};
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < count; i++) {
		*rc = launch(f, 1, 1, 1, 32, 1, 1, 0, s, args, 0);
		if (*rc) return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
}
*/
import "C"

import (
	"time"

	"github.com/cugen/cugen/rt"
)

// cLoopVecAdd launches the vecAdd-shaped kernel h count times from C on
// stream s and returns the C-measured time. It exists for the launch-cost
// benchmark, which must compare against C in the same process.
func (d *Driver) cLoopVecAdd(h rt.KernelHandle, s rt.StreamHandle, a, b, c rt.DevPtr, n int32, count int) (time.Duration, error) {
	k := d.kernels.get(uintptr(h))
	if k == nil {
		return 0, rt.Errorf("cLoopVecAdd", rt.ErrInvalidHandle, "kernel handle %d", h)
	}
	var rc C.int
	ns := C.cloop_vecadd(k.fn, cstream(s), C.ulonglong(a), C.ulonglong(b), C.ulonglong(c), C.int(n), C.int(count), &rc)
	if rc != 0 {
		return 0, rt.Errorf("cuLaunchKernel (C loop)", rt.Result(rc), "")
	}
	return time.Duration(ns), nil
}
