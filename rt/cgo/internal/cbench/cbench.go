//go:build cgo

// Package cbench holds the C loops rt/cgo's launch- and graph-cost tests
// compare rt/cgo with: what a C program does, timed in C in the same
// process as the Go calls. Only rt/cgo's tests import it, so none of it is
// in a program that uses rt/cgo. Handles are passed as the driver's
// pointer values (uintptr); the shim's own functions, which the loops also
// time without a Go→C crossing, come from rt/cgo as addresses (Shim).
package cbench

/*
#cgo CFLAGS: -I${SRCDIR}/../..
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "shim.h"
#include "shim_ext.h"

typedef __typeof__(cg_launch) *cb_shim_launch_fn;
typedef __typeof__(cg_launch_placed) *cb_shim_placed_fn;
typedef __typeof__(cgx_exec_kernel_set) *cb_shim_set_fn;

// now_ns and the loops below time in C, so the Go→C call around a loop is
// not part of its time.
static long long now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *sym(const char *name) {
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	return h ? dlsym(h, name) : 0;
}

// The reference for rt/cgo's launch cost: what a C program does, a loop of
// cuLaunchKernel calls with the usual kernelParams array of argument
// pointers. The benchmark runs it in the same process as the Go launches.
typedef int (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, CUstream, void **, void **);
typedef int (*sync_fn)(CUstream);
typedef int (*graph_launch_fn)(CUgraphExec, CUstream);

static long long cb_vecadd(uintptr_t fp, uintptr_t sp, unsigned long long a, unsigned long long b,
                           unsigned long long c, int n, int count, int extra, int *rc) {
	CUfunction f = (CUfunction)fp;
	CUstream s = (CUstream)sp;
	static launch_fn launch;
	if (!launch) {
		launch = (launch_fn)sym("cuLaunchKernel");
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

static void cb_noop(void) {}

// cb_touch is the shim's launch in a C loop with a read of one cache line
// in each of touch pages of pool after every launch (an experiment: what do
// cold pages cost in the state a launch leaves behind?).
static long long cb_touch(void *shim, uintptr_t fp, uintptr_t sp, void *params, int count,
                          volatile unsigned char *pool, long pages, int touch, int *rc) {
	cb_shim_launch_fn launch = (cb_shim_launch_fn)shim;
	unsigned long x = 88172645463325252ull;
	unsigned sum = 0;
	long long t0 = now_ns();
	for (int i = 0; i < count; i++) {
		*rc = launch((CUfunction)fp, 0, 1, 1, 1, 32, 1, 1, 0, (CUstream)sp, params, 28);
		if (*rc) return 0;
		for (int j = 0; j < touch; j++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			sum += pool[(x % pages) * 4096 + (j & 63) * 64];
		}
	}
	return now_ns() - t0 + (sum & 1); // sum keeps the reads
}

// cb_shim runs the shim's own launch count times from C: rt/cgo's C side
// without any Go→C crossing.
static long long cb_shim(void *shim, uintptr_t fp, uintptr_t sp, void *params, int count, int *rc) {
	cb_shim_launch_fn launch = (cb_shim_launch_fn)shim;
	long long t0 = now_ns();
	for (int i = 0; i < count; i++) {
		*rc = launch((CUfunction)fp, 0, 1, 1, 1, 32, 1, 1, 0, (CUstream)sp, params, 28);
		if (*rc) return 0;
	}
	return now_ns() - t0;
}

// cb_shim_once is one launch through the shim, for a Go loop of them.
static int cb_shim_once(void *shim, uintptr_t fp, uintptr_t sp, void *params) {
	return ((cb_shim_launch_fn)shim)((CUfunction)fp, 0, 1, 1, 1, 32, 1, 1, 0, (CUstream)sp, params, 28);
}

// cb_placed launches count times as a placed kernel launches: kernelParams
// built from the packed buffer and offs in cg_launch_placed.
static long long cb_placed(void *shim, uintptr_t fp, uintptr_t sp, void *params, const unsigned int *offs,
                           unsigned int n, int count, int *rc) {
	cb_shim_placed_fn launch = (cb_shim_placed_fn)shim;
	long long t0 = now_ns();
	for (int i = 0; i < count; i++) {
		*rc = launch((CUfunction)fp, 0, 1, 1, 1, 32, 1, 1, 0, (CUstream)sp, params, offs, n, 0, 0, 0, 0, 0);
		if (*rc) return 0;
	}
	return now_ns() - t0;
}

// cb_repack launches count times the other way a launch could place
// parameters: copy each to the device's offset in a stack buffer, then pass
// that buffer as rt/cgo passes any (CU_LAUNCH_PARAM_BUFFER_POINTER).
static long long cb_repack(void *shim, uintptr_t fp, uintptr_t sp, void *params, const unsigned int *from,
                           const unsigned int *to, const unsigned int *size, unsigned int n, unsigned int total,
                           int count, int *rc) {
	cb_shim_launch_fn launch = (cb_shim_launch_fn)shim;
	long long t0 = now_ns();
	for (int i = 0; i < count; i++) {
		unsigned char buf[4096];
		for (unsigned int j = 0; j < n; j++) memcpy(buf + to[j], (unsigned char *)params + from[j], size[j]);
		*rc = launch((CUfunction)fp, 0, 1, 1, 1, 32, 1, 1, 0, (CUstream)sp, buf, total);
		if (*rc) return 0;
	}
	return now_ns() - t0;
}

// cb_graph_loop times count cuLaunchKernel calls of the vecAdd-shaped
// kernel f (kernelParams, one block of 32 threads) and the synchronize
// after them.
static long long cb_graph_loop(uintptr_t fp, uintptr_t sp, unsigned long long a, unsigned long long b,
                               unsigned long long c, int n, int count, int *rc) {
	CUfunction f = (CUfunction)fp;
	CUstream s = (CUstream)sp;
	static launch_fn launch;
	static sync_fn sync;
	if (!launch) {
		launch = (launch_fn)sym("cuLaunchKernel");
		sync = (sync_fn)sym("cuStreamSynchronize");
		if (!launch || !sync) { *rc = -1; return 0; }
	}
	void *args[4] = {&a, &b, &c, &n};
	long long t0 = now_ns();
	for (int i = 0; i < count; i++) {
		*rc = launch(f, 1, 1, 1, 32, 1, 1, 0, s, args, 0);
		if (*rc) return 0;
	}
	*rc = sync(s);
	return now_ns() - t0;
}

// cb_graph_replay times one cuGraphLaunch of x and the synchronize after it.
static long long cb_graph_replay(uintptr_t xp, uintptr_t sp, int *rc) {
	static graph_launch_fn glaunch;
	static sync_fn sync;
	if (!glaunch) {
		glaunch = (graph_launch_fn)sym("cuGraphLaunch");
		sync = (sync_fn)sym("cuStreamSynchronize");
		if (!glaunch || !sync) { *rc = -1; return 0; }
	}
	long long t0 = now_ns();
	*rc = glaunch((CUgraphExec)xp, (CUstream)sp);
	if (*rc == 0) *rc = sync((CUstream)sp);
	return now_ns() - t0;
}

// CUDA_KERNEL_NODE_PARAMS_v2, as in shim_ext.c.
typedef struct {
	CUfunction func;
	unsigned int gx, gy, gz, bx, by, bz, shmem;
	void **kernelParams, **extra;
	CUkernel kern;
	CUcontext ctx;
} node_params;
typedef int (*set_fn)(CUgraphExec, CUgraphNode, const node_params *);

// cb_graph_update times count cuGraphExecKernelNodeSetParams calls, one per
// node, pointing the vecAdd nodes at (a, b, c, n) with kernelParams, the
// kernel named by CUkernel (kern, ctx) as CUDA 12 programs do, or cast to a
// CUfunction if the driver refuses that.
static long long cb_graph_update(uintptr_t xp, uintptr_t *nodes, int count, uintptr_t kp, uintptr_t cp,
                                 unsigned long long a, unsigned long long b, unsigned long long c, int n, int *rc) {
	CUgraphExec x = (CUgraphExec)xp;
	static set_fn set;
	if (!set) {
		set = (set_fn)sym("cuGraphExecKernelNodeSetParams_v2");
		if (!set) { *rc = -1; return 0; }
	}
	void *args[4] = {&a, &b, &c, &n};
	node_params p = {0, 1, 1, 1, 32, 1, 1, 0, args, 0, (CUkernel)kp, (CUcontext)cp};
	if (set(x, (CUgraphNode)nodes[0], &p) != 0) {
		p.func = (CUfunction)kp;
		p.kern = 0;
		p.ctx = 0;
	}
	long long t0 = now_ns();
	for (int i = 0; i < count; i++) {
		*rc = set(x, (CUgraphNode)nodes[i], &p);
		if (*rc) return 0;
	}
	return now_ns() - t0;
}

// cb_graph_update_shim times count of the shim's own updates from C:
// rt/cgo's C side without a Go→C crossing.
static long long cb_graph_update_shim(void *shim, uintptr_t xp, uintptr_t *nodes, int count, uintptr_t kp,
                                      uintptr_t cp, void *params, int *rc) {
	cb_shim_set_fn set = (cb_shim_set_fn)shim;
	long long t0 = now_ns();
	for (int i = 0; i < count; i++) {
		*rc = set((CUgraphExec)xp, (CUgraphNode)nodes[i], (CUkernel)kp, 0, (CUcontext)cp, 1, 1, 1, 32, 1, 1, 0, params, 28);
		if (*rc) return 0;
	}
	return now_ns() - t0;
}
*/
import "C"

import (
	"time"
	"unsafe"
)

// Shim is the addresses of rt/cgo's shim functions the loops time:
// cg_launch, cg_launch_placed and cgx_exec_kernel_set.
type Shim struct{ Launch, LaunchPlaced, ExecKernelSet unsafe.Pointer }

func u(p uintptr) C.uintptr_t { return C.uintptr_t(p) }

// VecAdd times count cuLaunchKernel calls of the vecAdd-shaped kernel fn
// on stream s (one block of 32 threads) from C; with extra, passing the
// packed buffer as rt/cgo does instead of kernelParams. rc is the first
// failure's CUresult (-1: no cuLaunchKernel).
func VecAdd(fn, s uintptr, a, b, c uint64, n int32, count int, extra bool) (d time.Duration, rc int) {
	var r C.int
	x := C.int(0)
	if extra {
		x = 1
	}
	ns := C.cb_vecadd(u(fn), u(s), C.ulonglong(a), C.ulonglong(b), C.ulonglong(c), C.int(n), C.int(count), x, &r)
	return time.Duration(ns), int(r)
}

// Noop is an empty C call.
func Noop() { C.cb_noop() }

// Noops makes count empty C calls: the Go→C transition cost alone.
func Noops(count int) time.Duration {
	t0 := time.Now()
	for i := 0; i < count; i++ {
		C.cb_noop()
	}
	return time.Since(t0)
}

// ShimLoop times count launches through the shim's cg_launch from C
// (params: 28 bytes, no Go pointers in the allocation).
func ShimLoop(sh Shim, fn, s uintptr, params unsafe.Pointer, count int) (time.Duration, int) {
	var r C.int
	ns := C.cb_shim(sh.Launch, u(fn), u(s), params, C.int(count), &r)
	return time.Duration(ns), int(r)
}

// ShimOnce is one launch through the shim's cg_launch.
func ShimOnce(sh Shim, fn, s uintptr, params unsafe.Pointer) int {
	return int(C.cb_shim_once(sh.Launch, u(fn), u(s), params))
}

// Touch is ShimLoop reading one cache line of each of touch random pages
// of pool after every launch.
func Touch(sh Shim, fn, s uintptr, params unsafe.Pointer, count int, pool []byte, touch int) (time.Duration, int) {
	var r C.int
	ns := C.cb_touch(sh.Launch, u(fn), u(s), params, C.int(count), (*C.uchar)(unsafe.Pointer(&pool[0])), C.long(len(pool)/4096), C.int(touch), &r)
	return time.Duration(ns), int(r)
}

// Placed times count launches through cg_launch_placed with kernelParams
// at offs; Repack, count copies of each parameter from from to to in a
// stack buffer launched through cg_launch.
func Placed(sh Shim, fn, s uintptr, params unsafe.Pointer, offs []uint32, count int) (time.Duration, int) {
	var r C.int
	ns := C.cb_placed(sh.LaunchPlaced, u(fn), u(s), params, (*C.uint)(unsafe.Pointer(&offs[0])), C.uint(len(offs)), C.int(count), &r)
	return time.Duration(ns), int(r)
}

// Repack: see Placed.
func Repack(sh Shim, fn, s uintptr, params unsafe.Pointer, from, to, size []uint32, total uint32, count int) (time.Duration, int) {
	var r C.int
	ns := C.cb_repack(sh.Launch, u(fn), u(s), params, (*C.uint)(unsafe.Pointer(&from[0])), (*C.uint)(unsafe.Pointer(&to[0])),
		(*C.uint)(unsafe.Pointer(&size[0])), C.uint(len(from)), C.uint(total), C.int(count), &r)
	return time.Duration(ns), int(r)
}

// GraphLoop times count cuLaunchKernel calls of the vecAdd-shaped kernel
// fn on s and the synchronize after them.
func GraphLoop(fn, s uintptr, a, b, c uint64, n int32, count int) (time.Duration, int) {
	var r C.int
	ns := C.cb_graph_loop(u(fn), u(s), C.ulonglong(a), C.ulonglong(b), C.ulonglong(c), C.int(n), C.int(count), &r)
	return time.Duration(ns), int(r)
}

// GraphReplay times one cuGraphLaunch of exec on s and the synchronize.
func GraphReplay(exec, s uintptr) (time.Duration, int) {
	var r C.int
	ns := C.cb_graph_replay(u(exec), u(s), &r)
	return time.Duration(ns), int(r)
}

// GraphUpdate times one cuGraphExecKernelNodeSetParams per node of exec,
// for the CUkernel kern in ctx, pointing vecAdd at (a, b, c, n).
func GraphUpdate(exec uintptr, nodes []uintptr, kern, ctx uintptr, a, b, c uint64, n int32) (time.Duration, int) {
	var r C.int
	ns := C.cb_graph_update(u(exec), (*C.uintptr_t)(unsafe.Pointer(&nodes[0])), C.int(len(nodes)), u(kern), u(ctx),
		C.ulonglong(a), C.ulonglong(b), C.ulonglong(c), C.int(n), &r)
	return time.Duration(ns), int(r)
}

// GraphUpdateShim times one of the shim's cgx_exec_kernel_set per node.
// params is copied: cgo checks the whole allocation an unsafe.Pointer
// points into, which must hold no Go pointers.
func GraphUpdateShim(sh Shim, exec uintptr, nodes []uintptr, kern, ctx uintptr, params [28]byte) (time.Duration, int) {
	var r C.int
	ns := C.cb_graph_update_shim(sh.ExecKernelSet, u(exec), (*C.uintptr_t)(unsafe.Pointer(&nodes[0])), C.int(len(nodes)), u(kern), u(ctx), unsafe.Pointer(&params), &r)
	return time.Duration(ns), int(r)
}
