//go:build cgo

package cgo

/*
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include "shim.h"

// now_ns and the loops below time in C, so the Go→C call around a loop is
// not part of its time.
static long long now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// The reference for rt/cgo's launch cost: what a C program does, a loop of
// cuLaunchKernel calls with the usual kernelParams array of argument
// pointers. The benchmark runs it in the same process as the Go launches.
typedef int (*cloop_launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, CUstream, void **, void **);

static long long cloop_vecadd(CUfunction f, CUstream s, unsigned long long a, unsigned long long b,
                              unsigned long long c, int n, int count, int extra, int *rc) {
	static cloop_launch_fn launch;
	if (!launch) {
		void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
		launch = h ? (cloop_launch_fn)dlsym(h, "cuLaunchKernel") : 0;
		if (!launch) { *rc = -1; return 0; }
	}
	void *args[4] = {&a, &b, &c, &n};
	// The packed-buffer form rt/cgo uses: CU_LAUNCH_PARAM_BUFFER_POINTER (1),
	// CU_LAUNCH_PARAM_BUFFER_SIZE (2), CU_LAUNCH_PARAM_END (0).
	unsigned char buf[28];
	memcpy(buf, &a, 8); memcpy(buf + 8, &b, 8); memcpy(buf + 16, &c, 8); memcpy(buf + 24, &n, 4);
	size_t size = sizeof buf;
	void *ex[5] = {(void *)1, buf, (void *)2, &size, (void *)0};
	long long t0 = now_ns();
	for (int i = 0; i < count; i++) {
		*rc = extra ? launch(f, 1, 1, 1, 32, 1, 1, 0, s, 0, ex) : launch(f, 1, 1, 1, 32, 1, 1, 0, s, args, 0);
		if (*rc) return 0;
	}
	return now_ns() - t0;
}

static void cloop_noop(void) {}

// cloop_touch is the C loop with a read of one cache line in each of touch
// pages of pool after every launch (an experiment: what do cold pages cost
// in the state a launch leaves behind?).
static long long cloop_touch(CUfunction f, CUstream s, void *params, int count, volatile unsigned char *pool,
                             long pages, int touch, int *rc) {
	unsigned long x = 88172645463325252ull;
	unsigned sum = 0;
	long long t0 = now_ns();
	for (int i = 0; i < count; i++) {
		*rc = cg_launch(f, 0, 1, 1, 1, 32, 1, 1, 0, s, params, 28);
		if (*rc) return 0;
		for (int j = 0; j < touch; j++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			sum += pool[(x % pages) * 4096 + (j & 63) * 64];
		}
	}
	return now_ns() - t0 + (sum & 1); // sum keeps the reads
}

// cloop_shim runs the shim's own launch count times from C: rt/cgo's C side
// without any Go→C crossing.
static long long cloop_shim(CUfunction f, CUstream s, void *params, int count, int *rc) {
	long long t0 = now_ns();
	for (int i = 0; i < count; i++) {
		*rc = cg_launch(f, 0, 1, 1, 1, 32, 1, 1, 0, s, params, 28);
		if (*rc) return 0;
	}
	return now_ns() - t0;
}

*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// cLoopVecAdd launches the vecAdd-shaped kernel h count times from C on
// stream s and returns the C-measured time. It exists for the launch-cost
// benchmark, which must compare against C in the same process.
// With extra set, the C loop passes a packed buffer the way rt/cgo does,
// which separates the driver's cost for that form from cgo's.
func (d *Driver) cLoopVecAdd(h rt.KernelHandle, s rt.StreamHandle, a, b, c rt.DevPtr, n int32, count int, extra bool) (time.Duration, error) {
	k := d.kernels.get(uintptr(h))
	if k == nil {
		return 0, rt.Errorf("cLoopVecAdd", rt.ErrInvalidHandle, "kernel handle %d", h)
	}
	var rc C.int
	ns := C.cloop_vecadd(k.fn, cstream(s), C.ulonglong(a), C.ulonglong(b), C.ulonglong(c), C.int(n), C.int(count), b2i(extra), &rc)
	if rc != 0 {
		return 0, rt.Errorf("cuLaunchKernel (C loop)", rt.Result(rc), "")
	}
	return time.Duration(ns), nil
}

// cLoopShim times count launches of the shim's launch from a C loop.
func (d *Driver) cLoopShim(h rt.KernelHandle, s rt.StreamHandle, params *[28]byte, count int) (time.Duration, error) {
	k := d.kernels.get(uintptr(h))
	var rc C.int
	ns := C.cloop_shim(k.fn, cstream(s), unsafe.Pointer(params), C.int(count), &rc)
	if rc != 0 {
		return 0, rt.Errorf("cg_launch (C loop)", rt.Result(rc), "")
	}
	return time.Duration(ns), nil
}

// crossings launches count times from Go, one C loop call of one launch
// each, adding extra empty cgo calls after each launch: with extra = 1 minus
// extra = 0, the cost of one crossing in the cache state a launch leaves.
func (d *Driver) crossings(h rt.KernelHandle, s rt.StreamHandle, a rt.DevPtr, count, extra int) (time.Duration, error) {
	k := d.kernels.get(uintptr(h))
	var rc C.int
	t0 := time.Now()
	for i := 0; i < count; i++ {
		C.cloop_vecadd(k.fn, cstream(s), C.ulonglong(a), C.ulonglong(a), C.ulonglong(a), 32, 1, 0, &rc)
		if rc != 0 {
			return 0, rt.Errorf("cuLaunchKernel (C loop)", rt.Result(rc), "")
		}
		for j := 0; j < extra; j++ {
			C.cloop_noop()
		}
	}
	return time.Since(t0), nil
}

// cLoopTouch is cloop_touch over pool.
func (d *Driver) cLoopTouch(h rt.KernelHandle, s rt.StreamHandle, params *[28]byte, count int, pool []byte, touch int) (time.Duration, error) {
	k := d.kernels.get(uintptr(h))
	var rc C.int
	ns := C.cloop_touch(k.fn, cstream(s), unsafe.Pointer(params), C.int(count), (*C.uchar)(unsafe.Pointer(&pool[0])), C.long(len(pool)/4096), C.int(touch), &rc)
	if rc != 0 {
		return 0, rt.Errorf("cg_launch (C loop)", rt.Result(rc), "")
	}
	return time.Duration(ns), nil
}

// cNoops makes count empty cgo calls: the Go→C transition cost alone.
func cNoops(count int) time.Duration {
	t0 := time.Now()
	for i := 0; i < count; i++ {
		C.cloop_noop()
	}
	return time.Since(t0)
}

// shimLaunches calls the shim's launch directly from a Go loop: rt/cgo's
// C side and the cgo transition, without Driver.Launch's Go code.
func (d *Driver) shimLaunches(h rt.KernelHandle, s rt.StreamHandle, params *[28]byte, count int) (time.Duration, error) {
	k := d.kernels.get(uintptr(h))
	t0 := time.Now()
	for i := 0; i < count; i++ {
		if rc := C.cg_launch(k.fn, nil, 1, 1, 1, 32, 1, 1, 0, cstream(s), unsafe.Pointer(params), 28); rc != 0 {
			return 0, rt.Errorf("cg_launch", rt.Result(rc), "")
		}
	}
	return time.Since(t0), nil
}
