//go:build cgo

package cgo

/*
#include "shim_ext.h"
*/
import "C"

import (
	"github.com/cugen/cugen/rt"
)

// Stream dependencies, event queries, host functions and priorities
// (rt.Streamer).

var _ rt.Streamer = (*Driver)(nil)

// StreamWaitEvent is cuStreamWaitEvent.
func (d *Driver) StreamWaitEvent(ctx rt.CtxHandle, s rt.StreamHandle, e rt.EventHandle, flags uint32) error {
	ext()
	return check("cuStreamWaitEvent", C.cgx_stream_wait_event(cctx(ctx), cstream(s), cevent(e), C.uint(flags)))
}

// EventRecordWithFlags is cuEventRecordWithFlags.
func (d *Driver) EventRecordWithFlags(ctx rt.CtxHandle, e rt.EventHandle, s rt.StreamHandle, flags uint32) error {
	ext()
	return check("cuEventRecordWithFlags", C.cgx_event_record_flags(cctx(ctx), cevent(e), cstream(s), C.uint(flags)))
}

// EventQuery is cuEventQuery: CUDA_ERROR_NOT_READY is done = false.
func (d *Driver) EventQuery(ctx rt.CtxHandle, e rt.EventHandle) (bool, error) {
	ext()
	switch rc := C.cgx_event_query(cctx(ctx), cevent(e)); rc {
	case 0:
		return true, nil
	case C.int(rt.ErrNotReady):
		return false, nil
	default:
		return false, check("cuEventQuery", rc)
	}
}

// LaunchHostFunc is cuLaunchHostFunc. fn runs on a driver thread (see
// hostfunc.go); queued during a capture it is kept for the graph's host
// node.
func (d *Driver) LaunchHostFunc(ctx rt.CtxHandle, s rt.StreamHandle, fn func()) error {
	ext()
	if fn == nil {
		return rt.Errorf("cuLaunchHostFunc", rt.ErrInvalidValue, "nil function")
	}
	status, id, err := captureInfo(ctx, s)
	if err != nil {
		return err
	}
	held := status == rt.CaptureActive
	h := registerHostFunc(fn, held)
	if rc := C.cgx_launch_host_func(cctx(ctx), cstream(s), C.uintptr_t(h)); rc != 0 {
		forgetHostFunc(h)
		return check("cuLaunchHostFunc", rc)
	}
	if held {
		retainHostFuncs([]uintptr{h})
		hostFuncs.mu.Lock()
		hostFuncs.byCapture[id] = append(hostFuncs.byCapture[id], h)
		hostFuncs.mu.Unlock()
	}
	return nil
}

// StreamPriorityRange is cuCtxGetStreamPriorityRange.
func (d *Driver) StreamPriorityRange(ctx rt.CtxHandle) (least, greatest int, err error) {
	ext()
	var l, g C.int
	if rc := C.cgx_priority_range(cctx(ctx), &l, &g); rc != 0 {
		return 0, 0, check("cuCtxGetStreamPriorityRange", rc)
	}
	return int(l), int(g), nil
}

// StreamPriority is cuStreamGetPriority.
func (d *Driver) StreamPriority(ctx rt.CtxHandle, s rt.StreamHandle) (int, error) {
	ext()
	var p C.int
	if rc := C.cgx_stream_priority(cctx(ctx), cstream(s), &p); rc != 0 {
		return 0, check("cuStreamGetPriority", rc)
	}
	return int(p), nil
}
