//go:build cgo

package cgo

/*
// Graph launches and node updates are hot paths: they keep no pointer and
// call no Go.
#cgo noescape cgx_graph_launch
#cgo nocallback cgx_graph_launch
#cgo noescape cgx_exec_kernel_set
#cgo nocallback cgx_exec_kernel_set
#cgo noescape cgx_exec_kernel_set_placed
#cgo nocallback cgx_exec_kernel_set_placed
#cgo noescape cgx_capture_info
#cgo nocallback cgx_capture_info
#include <stdlib.h>
#include "shim_ext.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// CUDA graphs (rt.Grapher). Handles are the driver's pointers: a
// GraphHandle is the CUgraph, a GraphNodeHandle the CUgraphNode, a
// GraphExecHandle the CUgraphExec, so a launch or a node update looks
// nothing up.

var _ rt.Grapher = (*Driver)(nil)

func cgraph(h rt.GraphHandle) C.CUgraph        { return *(*C.CUgraph)(unsafe.Pointer(&h)) }
func cexec(h rt.GraphExecHandle) C.CUgraphExec { return *(*C.CUgraphExec)(unsafe.Pointer(&h)) }
func cnode(h rt.GraphNodeHandle) C.CUgraphNode { return *(*C.CUgraphNode)(unsafe.Pointer(&h)) }
func graphh(g C.CUgraph) rt.GraphHandle        { return rt.GraphHandle(uintptr(unsafe.Pointer(g))) }
func nodeh(n C.CUgraphNode) rt.GraphNodeHandle { return rt.GraphNodeHandle(uintptr(unsafe.Pointer(n))) }
func exech(x C.CUgraphExec) rt.GraphExecHandle { return rt.GraphExecHandle(uintptr(unsafe.Pointer(x))) }
func cnodes(hs []rt.GraphNodeHandle) *C.CUgraphNode {
	return (*C.CUgraphNode)(unsafe.Pointer(unsafe.SliceData(hs)))
}

// captureInfo is cuStreamGetCaptureInfo's status and id of s's capture.
func captureInfo(ctx rt.CtxHandle, s rt.StreamHandle) (rt.CaptureStatus, uint64, error) {
	var status C.int
	var id C.ulonglong
	var n C.size_t
	if rc := C.cgx_capture_info(cctx(ctx), cstream(s), &status, &id, nil, 0, &n); rc != 0 {
		return rt.CaptureNone, 0, check("cuStreamGetCaptureInfo", rc)
	}
	return rt.CaptureStatus(status), uint64(id), nil
}

// StreamBeginCapture is cuStreamBeginCapture.
func (d *Driver) StreamBeginCapture(ctx rt.CtxHandle, s rt.StreamHandle, mode rt.CaptureMode) error {
	ext()
	return check("cuStreamBeginCapture", C.cgx_begin_capture(cctx(ctx), cstream(s), C.int(mode)))
}

// StreamBeginCaptureToGraph is cuStreamBeginCaptureToGraph (CUDA 12.3+).
func (d *Driver) StreamBeginCaptureToGraph(ctx rt.CtxHandle, s rt.StreamHandle, g rt.GraphHandle, deps []rt.GraphNodeHandle, mode rt.CaptureMode) error {
	ext()
	return check("cuStreamBeginCaptureToGraph", C.cgx_begin_capture_to_graph(cctx(ctx), cstream(s), cgraph(g), cnodes(deps), C.size_t(len(deps)), C.int(mode)))
}

// StreamEndCapture is cuStreamEndCapture. The host functions queued during
// the capture go to the graph.
func (d *Driver) StreamEndCapture(ctx rt.CtxHandle, s rt.StreamHandle) (rt.GraphHandle, error) {
	ext()
	_, id, idErr := captureInfo(ctx, s)
	var g C.CUgraph
	rc := C.cgx_end_capture(cctx(ctx), cstream(s), &g)
	var fns []uintptr
	if idErr == nil {
		hostFuncs.mu.Lock()
		fns = hostFuncs.byCapture[id]
		delete(hostFuncs.byCapture, id)
		hostFuncs.mu.Unlock()
	}
	if rc != 0 {
		releaseHostFuncs(fns)
		return 0, check("cuStreamEndCapture", rc)
	}
	addHostFuncs(uintptr(unsafe.Pointer(g)), fns)
	return graphh(g), nil
}

// StreamCaptureInfo is cuStreamGetCaptureInfo.
func (d *Driver) StreamCaptureInfo(ctx rt.CtxHandle, s rt.StreamHandle, deps []rt.GraphNodeHandle) (rt.CaptureStatus, int, error) {
	ext()
	var status C.int
	var id C.ulonglong
	var n C.size_t
	if rc := C.cgx_capture_info(cctx(ctx), cstream(s), &status, &id, cnodes(deps), C.size_t(len(deps)), &n); rc != 0 {
		return rt.CaptureNone, 0, check("cuStreamGetCaptureInfo", rc)
	}
	return rt.CaptureStatus(status), int(n), nil
}

// GraphCreate is cuGraphCreate.
func (d *Driver) GraphCreate(ctx rt.CtxHandle) (rt.GraphHandle, error) {
	ext()
	var g C.CUgraph
	if rc := C.cgx_graph_create(cctx(ctx), &g); rc != 0 {
		return 0, check("cuGraphCreate", rc)
	}
	return graphh(g), nil
}

// GraphDestroy is cuGraphDestroy.
func (d *Driver) GraphDestroy(g rt.GraphHandle) error {
	ext()
	if rc := C.cgx_graph_destroy(cgraph(g)); rc != 0 {
		return check("cuGraphDestroy", rc)
	}
	dropRec(uintptr(g))
	return nil
}

// GraphNodes is cuGraphGetNodes.
func (d *Driver) GraphNodes(g rt.GraphHandle) ([]rt.GraphNodeHandle, error) {
	ext()
	var n C.size_t
	if rc := C.cgx_graph_nodes(cgraph(g), nil, &n); rc != 0 {
		return nil, check("cuGraphGetNodes", rc)
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]rt.GraphNodeHandle, n)
	if rc := C.cgx_graph_nodes(cgraph(g), cnodes(out), &n); rc != 0 {
		return nil, check("cuGraphGetNodes", rc)
	}
	return out[:n], nil
}

// GraphNodeType is cuGraphNodeGetType.
func (d *Driver) GraphNodeType(n rt.GraphNodeHandle) (rt.NodeType, error) {
	ext()
	var t C.int
	if rc := C.cgx_node_type(cnode(n), &t); rc != 0 {
		return 0, check("cuGraphNodeGetType", rc)
	}
	return rt.NodeType(t), nil
}

// GraphAddEmpty is cuGraphAddEmptyNode.
func (d *Driver) GraphAddEmpty(g rt.GraphHandle, deps []rt.GraphNodeHandle) (rt.GraphNodeHandle, error) {
	ext()
	var n C.CUgraphNode
	if rc := C.cgx_add_empty(cgraph(g), cnodes(deps), C.size_t(len(deps)), &n); rc != 0 {
		return 0, check("cuGraphAddEmptyNode", rc)
	}
	return nodeh(n), nil
}

// GraphAddChild is cuGraphAddChildGraphNode; the parent holds the child's
// host functions from then on.
func (d *Driver) GraphAddChild(g rt.GraphHandle, deps []rt.GraphNodeHandle, child rt.GraphHandle) (rt.GraphNodeHandle, error) {
	ext()
	var n C.CUgraphNode
	if rc := C.cgx_add_child(cgraph(g), cnodes(deps), C.size_t(len(deps)), cgraph(child), &n); rc != 0 {
		return 0, check("cuGraphAddChildGraphNode", rc)
	}
	copyHostFuncs(uintptr(g), uintptr(child))
	return nodeh(n), nil
}

// GraphConditionalCreate is cuGraphConditionalHandleCreate (CUDA 12.3+).
func (d *Driver) GraphConditionalCreate(ctx rt.CtxHandle, g rt.GraphHandle, def uint32, flags uint32) (rt.ConditionalHandle, error) {
	ext()
	var h C.CUgraphConditionalHandle
	if rc := C.cgx_cond_create(cctx(ctx), cgraph(g), C.uint(def), C.uint(flags), &h); rc != 0 {
		return 0, d.newer(check("cuGraphConditionalHandleCreate", rc), 12030, "conditional nodes")
	}
	return rt.ConditionalHandle(h), nil
}

// GraphAddConditional adds a conditional node (cuGraphAddNode) and returns
// the bodies the driver made for it.
func (d *Driver) GraphAddConditional(ctx rt.CtxHandle, g rt.GraphHandle, deps []rt.GraphNodeHandle, c rt.ConditionalHandle, typ rt.CondType, size int) (rt.GraphNodeHandle, []rt.GraphHandle, error) {
	ext()
	var n C.CUgraphNode
	var bodies *C.CUgraph
	rc := C.cgx_add_conditional(cctx(ctx), cgraph(g), cnodes(deps), C.size_t(len(deps)), C.CUgraphConditionalHandle(c),
		C.int(typ), C.uint(size), &n, &bodies)
	if rc != 0 {
		need := 12030
		if typ == rt.CondSwitch || typ == rt.CondIf && size == 2 {
			need = 12080
		}
		return 0, nil, d.newer(checkd("cuGraphAddNode", rc, fmt.Sprintf("a conditional node of type %d with %d bodies", typ, size)), need, "this conditional node")
	}
	out := make([]rt.GraphHandle, size)
	if bodies != nil {
		for i, b := range unsafe.Slice(bodies, size) {
			out[i] = graphh(b)
			linkBody(uintptr(out[i]), uintptr(g))
		}
	}
	return nodeh(n), out, nil
}

// newer adds to err, when the driver is older than version (1000*major +
// 10*minor), that it needs that version for what.
func (d *Driver) newer(err error, version int, what string) error {
	if e, ok := err.(*rt.Error); ok && d.version < version {
		e.Detail = join(e.Detail, fmt.Sprintf("%s need CUDA %d.%d; the driver is CUDA %s", what, version/1000, version%1000/10, versionString()))
	}
	return err
}

// GraphInstantiate is cuGraphInstantiateWithFlags.
func (d *Driver) GraphInstantiate(ctx rt.CtxHandle, g rt.GraphHandle, flags uint64) (rt.GraphExecHandle, error) {
	ext()
	var x C.CUgraphExec
	if rc := C.cgx_instantiate(cctx(ctx), cgraph(g), C.ulonglong(flags), &x); rc != 0 {
		return 0, check("cuGraphInstantiate", rc)
	}
	copyHostFuncs(uintptr(unsafe.Pointer(x)), uintptr(g))
	return exech(x), nil
}

// GraphExecDestroy is cuGraphExecDestroy.
func (d *Driver) GraphExecDestroy(ctx rt.CtxHandle, x rt.GraphExecHandle) error {
	ext()
	if rc := C.cgx_exec_destroy(cctx(ctx), cexec(x)); rc != 0 {
		return check("cuGraphExecDestroy", rc)
	}
	dropRec(uintptr(x))
	return nil
}

// GraphLaunch is cuGraphLaunch. On a stream it makes no context current
// (unless the driver asks for one) and allocates nothing. A capture cannot
// record it (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, CUDA 13.0): add the
// graph as a child node instead.
func (d *Driver) GraphLaunch(ctx rt.CtxHandle, x rt.GraphExecHandle, s rt.StreamHandle) error {
	if rc := C.cgx_graph_launch(cctx(ctx), cexec(x), cstream(s)); rc != 0 {
		return check("cuGraphLaunch", rc)
	}
	return nil
}

// GraphUpload is cuGraphUpload.
func (d *Driver) GraphUpload(ctx rt.CtxHandle, x rt.GraphExecHandle, s rt.StreamHandle) error {
	ext()
	return check("cuGraphUpload", C.cgx_graph_upload(cctx(ctx), cexec(x), cstream(s)))
}

// GraphExecKernelNodeSetParams is cuGraphExecKernelNodeSetParams with the
// packed parameter buffer (the extra form a launch passes). It allocates
// nothing.
func (d *Driver) GraphExecKernelNodeSetParams(x rt.GraphExecHandle, n rt.GraphNodeHandle, h rt.KernelHandle, l rt.LaunchArgs) error {
	k := d.kernels.get(uintptr(h))
	if k == nil || k.fn == nil || k.dead.Load() {
		return d.setNodeSlow(x, n, h, k, l)
	}
	if rc := C.cgx_exec_kernel_set(cexec(x), cnode(n), k.k, nil, cctx(l.Ctx), C.uint(l.Grid.X), C.uint(l.Grid.Y), C.uint(l.Grid.Z),
		C.uint(l.Block.X), C.uint(l.Block.Y), C.uint(l.Block.Z), C.uint(l.SharedMem), l.Params, C.size_t(l.ParamSize)); rc != 0 {
		return nodeErr(rc, k, l)
	}
	return nil
}

// setNodeSlow is GraphExecKernelNodeSetParams for the legacy path, where
// the node's function is the kernel's CUfunction in the graph's context,
// for placed kernels (kernelParams, as their launches), and the errors.
//
//go:noinline
func (d *Driver) setNodeSlow(x rt.GraphExecHandle, n rt.GraphNodeHandle, h rt.KernelHandle, k *kernel, l rt.LaunchArgs) error {
	if k == nil || k.dead.Load() {
		return d.badKernel(h, k)
	}
	var f C.CUfunction
	if lib := k.lib; lib.legacy {
		var err error
		lib.mu.Lock()
		f, err = d.legacyFunc(lib, k, cctx(l.Ctx))
		lib.mu.Unlock()
		if err != nil {
			return err
		}
	}
	ck := k.k // nil on the legacy path
	var rc C.int
	if k.place != nil {
		rc = C.cgx_exec_kernel_set_placed(cexec(x), cnode(n), ck, f, cctx(l.Ctx), C.uint(l.Grid.X), C.uint(l.Grid.Y), C.uint(l.Grid.Z),
			C.uint(l.Block.X), C.uint(l.Block.Y), C.uint(l.Block.Z), C.uint(l.SharedMem), l.Params, C.size_t(l.ParamSize), &k.place[0], C.uint(len(k.place)))
	} else {
		rc = C.cgx_exec_kernel_set(cexec(x), cnode(n), ck, f, cctx(l.Ctx), C.uint(l.Grid.X), C.uint(l.Grid.Y), C.uint(l.Grid.Z),
			C.uint(l.Block.X), C.uint(l.Block.Y), C.uint(l.Block.Z), C.uint(l.SharedMem), l.Params, C.size_t(l.ParamSize))
	}
	if rc != 0 {
		return nodeErr(rc, k, l)
	}
	return nil
}

func nodeErr(rc C.int, k *kernel, l rt.LaunchArgs) error {
	return checkd("cuGraphExecKernelNodeSetParams", rc, fmt.Sprintf("kernel %s, grid %v, block %v, %d shared bytes, %d parameter bytes",
		k.name, l.Grid, l.Block, l.SharedMem, l.ParamSize))
}
