//go:build cgo

package cgo

/*
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include "shim_ext.h"

// The references for rt/cgo's graph costs: what a C program does, timed in
// C, in the same process as the Go calls they are compared with. Each
// resolves its entry points itself, as cloop.go's launch loop does.

static long long gcost_now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *gcost_sym(const char *name) {
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	return h ? dlsym(h, name) : 0;
}

typedef int (*gcost_launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               CUstream, void **, void **);
typedef int (*gcost_sync_fn)(CUstream);
typedef int (*gcost_graph_launch_fn)(CUgraphExec, CUstream);

// gcost_loop times count cuLaunchKernel calls of the vecAdd-shaped kernel
// f (kernelParams, one block of 32 threads) and the synchronize after them.
static long long gcost_loop(CUfunction f, CUstream s, unsigned long long a, unsigned long long b,
                            unsigned long long c, int n, int count, int *rc) {
	static gcost_launch_fn launch;
	static gcost_sync_fn sync;
	if (!launch) {
		launch = (gcost_launch_fn)gcost_sym("cuLaunchKernel");
		sync = (gcost_sync_fn)gcost_sym("cuStreamSynchronize");
		if (!launch || !sync) { *rc = -1; return 0; }
	}
	void *args[4] = {&a, &b, &c, &n};
	long long t0 = gcost_now();
	for (int i = 0; i < count; i++) {
		*rc = launch(f, 1, 1, 1, 32, 1, 1, 0, s, args, 0);
		if (*rc) return 0;
	}
	*rc = sync(s);
	return gcost_now() - t0;
}

// gcost_replay times one cuGraphLaunch of x and the synchronize after it.
static long long gcost_replay(CUgraphExec x, CUstream s, int *rc) {
	static gcost_graph_launch_fn glaunch;
	static gcost_sync_fn sync;
	if (!glaunch) {
		glaunch = (gcost_graph_launch_fn)gcost_sym("cuGraphLaunch");
		sync = (gcost_sync_fn)gcost_sym("cuStreamSynchronize");
		if (!glaunch || !sync) { *rc = -1; return 0; }
	}
	long long t0 = gcost_now();
	*rc = glaunch(x, s);
	if (*rc == 0) *rc = sync(s);
	return gcost_now() - t0;
}

// CUDA_KERNEL_NODE_PARAMS_v2, as in shim_ext.c.
typedef struct {
	CUfunction func;
	unsigned int gx, gy, gz, bx, by, bz, shmem;
	void **kernelParams, **extra;
	CUkernel kern;
	CUcontext ctx;
} gcost_node_params;
typedef int (*gcost_set_fn)(CUgraphExec, CUgraphNode, const gcost_node_params *);

// gcost_update times count cuGraphExecKernelNodeSetParams calls, one per
// node, pointing the vecAdd nodes at (a, b, c, n) with kernelParams, the
// kernel named by CUkernel (kern, ctx) as CUDA 12 programs do, or cast to a
// CUfunction if the driver refuses that.
static long long gcost_update(CUgraphExec x, CUgraphNode *nodes, int count, CUkernel k, CUcontext ctx,
                              unsigned long long a, unsigned long long b, unsigned long long c, int n, int *rc) {
	static gcost_set_fn set;
	if (!set) {
		set = (gcost_set_fn)gcost_sym("cuGraphExecKernelNodeSetParams_v2");
		if (!set) { *rc = -1; return 0; }
	}
	void *args[4] = {&a, &b, &c, &n};
	gcost_node_params p = {0, 1, 1, 1, 32, 1, 1, 0, args, 0, k, ctx};
	if (set(x, nodes[0], &p) != 0) {
		p.func = (CUfunction)k;
		p.kern = 0;
		p.ctx = 0;
	}
	long long t0 = gcost_now();
	for (int i = 0; i < count; i++) {
		*rc = set(x, nodes[i], &p);
		if (*rc) return 0;
	}
	return gcost_now() - t0;
}

// gcost_update_shim times count of the shim's own updates from C: rt/cgo's
// C side without a Go→C crossing.
static long long gcost_update_shim(CUgraphExec x, CUgraphNode *nodes, int count, CUkernel k, CUcontext ctx,
                                   void *params, int *rc) {
	long long t0 = gcost_now();
	for (int i = 0; i < count; i++) {
		*rc = cgx_exec_kernel_set(x, nodes[i], k, 0, ctx, 1, 1, 1, 32, 1, 1, 0, params, 28);
		if (*rc) return 0;
	}
	return gcost_now() - t0;
}
*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// These exist for the graph cost test and benchmarks (graph_test.go), which
// must compare with C in the same process.

// cGraphLoop times count launches of the vecAdd-shaped kernel h on s from
// a C loop, and the synchronize after them.
func (d *Driver) cGraphLoop(h rt.KernelHandle, s rt.StreamHandle, a, b, c rt.DevPtr, n int32, count int) (time.Duration, error) {
	k := d.kernels.get(uintptr(h))
	var rc C.int
	ns := C.gcost_loop(k.fn, cstream(s), C.ulonglong(a), C.ulonglong(b), C.ulonglong(c), C.int(n), C.int(count), &rc)
	if rc != 0 {
		return 0, rt.Errorf("cuLaunchKernel (C loop)", rt.Result(rc), "")
	}
	return time.Duration(ns), nil
}

// cGraphReplay times one launch of x on s from C, and the synchronize.
func cGraphReplay(x rt.GraphExecHandle, s rt.StreamHandle) (time.Duration, error) {
	var rc C.int
	ns := C.gcost_replay(cexec(x), cstream(s), &rc)
	if rc != 0 {
		return 0, rt.Errorf("cuGraphLaunch (C)", rt.Result(rc), "")
	}
	return time.Duration(ns), nil
}

// cGraphUpdate times a C loop of one cuGraphExecKernelNodeSetParams per node.
func (d *Driver) cGraphUpdate(x rt.GraphExecHandle, nodes []rt.GraphNodeHandle, h rt.KernelHandle, ctx rt.CtxHandle, a, b, c rt.DevPtr, n int32) (time.Duration, error) {
	k := d.kernels.get(uintptr(h))
	var rc C.int
	ns := C.gcost_update(cexec(x), cnodes(nodes), C.int(len(nodes)), k.k, cctx(ctx), C.ulonglong(a), C.ulonglong(b), C.ulonglong(c), C.int(n), &rc)
	if rc != 0 {
		return 0, rt.Errorf("cuGraphExecKernelNodeSetParams (C loop)", rt.Result(rc), "")
	}
	return time.Duration(ns), nil
}

// cGraphUpdateShim times a C loop of the shim's update, one per node.
func (d *Driver) cGraphUpdateShim(x rt.GraphExecHandle, nodes []rt.GraphNodeHandle, h rt.KernelHandle, ctx rt.CtxHandle, params [28]byte) (time.Duration, error) {
	k := d.kernels.get(uintptr(h))
	var rc C.int
	// params is a copy of its own: cgo checks the whole allocation an
	// unsafe.Pointer points into, which must hold no Go pointers.
	ns := C.gcost_update_shim(cexec(x), cnodes(nodes), C.int(len(nodes)), k.k, cctx(ctx), unsafe.Pointer(&params), &rc)
	if rc != 0 {
		return 0, rt.Errorf("cgx_exec_kernel_set (C loop)", rt.Result(rc), "")
	}
	return time.Duration(ns), nil
}
