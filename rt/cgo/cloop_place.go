//go:build cgo

package cgo

/*
#include <string.h>
#include <time.h>
#include "shim.h"

static long long place_now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// cloop_placed launches count times as a placed kernel launches: kernelParams
// built from the packed buffer and offs in cg_launch_placed.
static long long cloop_placed(CUfunction f, CUstream s, void *params, const unsigned int *offs, unsigned int n,
                             int count, int *rc) {
	long long t0 = place_now_ns();
	for (int i = 0; i < count; i++) {
		*rc = cg_launch_placed(f, 0, 1, 1, 1, 32, 1, 1, 0, s, params, offs, n, 0, 0, 0, 0, 0);
		if (*rc) return 0;
	}
	return place_now_ns() - t0;
}

// cloop_repack launches count times the other way a launch could place
// parameters: copy each to the device's offset in a stack buffer, then pass
// that buffer as rt/cgo passes any (CU_LAUNCH_PARAM_BUFFER_POINTER).
static long long cloop_repack(CUfunction f, CUstream s, void *params, const unsigned int *from,
                             const unsigned int *to, const unsigned int *size, unsigned int n, unsigned int total,
                             int count, int *rc) {
	long long t0 = place_now_ns();
	for (int i = 0; i < count; i++) {
		unsigned char buf[4096];
		for (unsigned int j = 0; j < n; j++) memcpy(buf + to[j], (unsigned char *)params + from[j], size[j]);
		*rc = cg_launch(f, 0, 1, 1, 1, 32, 1, 1, 0, s, buf, total);
		if (*rc) return 0;
	}
	return place_now_ns() - t0;
}
*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// placeLoop times count launches of kernel h on stream s from C, with a
// packed buffer at layout ps placed one of the two ways: kernelParams (what
// placed kernels do) or, with repack, a copy to a stack buffer at the same
// offsets, passed as any buffer is.
func (d *Driver) placeLoop(h rt.KernelHandle, s rt.StreamHandle, params unsafe.Pointer, ps []rt.ParamSpec, count int, repack bool) (time.Duration, error) {
	k := d.kernels.get(uintptr(h))
	offs := make([]C.uint, len(ps))
	sizes := make([]C.uint, len(ps))
	var total C.uint
	for i, p := range ps {
		offs[i], sizes[i] = C.uint(p.Offset), C.uint(p.Size)
		total = max(total, C.uint(p.Offset+p.Size))
	}
	fn := C.CUfunction(unsafe.Pointer(k.k))
	var rc C.int
	var ns C.longlong
	if repack {
		ns = C.cloop_repack(fn, cstream(s), params, &offs[0], &offs[0], &sizes[0], C.uint(len(ps)), total, C.int(count), &rc)
	} else {
		ns = C.cloop_placed(fn, cstream(s), params, &offs[0], C.uint(len(ps)), C.int(count), &rc)
	}
	if rc != 0 {
		return 0, rt.Errorf("placed launch (C loop)", rt.Result(rc), "")
	}
	return time.Duration(ns), nil
}
