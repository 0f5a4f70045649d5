//go:build cgo

package cgo

/*
#include "shim_ext.h"
*/
import "C"

import "sync"

// Host functions (cuLaunchHostFunc) call back into Go from a thread of the
// driver's. The driver is never given a Go pointer: it gets a handle, a
// number, and the callback (shim_ext.c's host_tramp → cugenHostFunc) looks
// the Go function up here.
//
// A host function queued on a stream runs once and is forgotten. One queued
// during a capture becomes a host node, which runs at every launch of the
// graph, of every graph instantiated from it, and of every graph that took
// a copy of it (a child node): such a function is kept, with a count of the
// graphs and instantiated graphs that hold it, until the last of them is
// destroyed.

// hostFunc is a registered host function.
type hostFunc struct {
	fn   func()
	refs int // graph-held: the holders; 0 for a one-shot function
	held bool
}

// hostFuncs is the process's registry (the driver, like the Driver, is
// process-wide).
var hostFuncs struct {
	mu   sync.Mutex
	next uintptr
	m    map[uintptr]*hostFunc
	// byCapture lists the functions queued during each active capture
	// (cuStreamGetCaptureInfo's id), for StreamEndCapture to give to the
	// graph.
	byCapture map[uint64][]uintptr
}

// register adds fn and returns its handle; held marks a function queued
// during a capture.
func registerHostFunc(fn func(), held bool) uintptr {
	hostFuncs.mu.Lock()
	defer hostFuncs.mu.Unlock()
	if hostFuncs.m == nil {
		hostFuncs.m = map[uintptr]*hostFunc{}
		hostFuncs.byCapture = map[uint64][]uintptr{}
	}
	hostFuncs.next++
	hostFuncs.m[hostFuncs.next] = &hostFunc{fn: fn, held: held}
	return hostFuncs.next
}

// forget drops a one-shot function the driver will never call (its launch
// failed).
func forgetHostFunc(h uintptr) {
	hostFuncs.mu.Lock()
	delete(hostFuncs.m, h)
	hostFuncs.mu.Unlock()
}

// retainHostFuncs counts one more holder of each of hs.
func retainHostFuncs(hs []uintptr) {
	if len(hs) == 0 {
		return
	}
	hostFuncs.mu.Lock()
	defer hostFuncs.mu.Unlock()
	for _, h := range hs {
		if f := hostFuncs.m[h]; f != nil {
			f.refs++
		}
	}
}

// releaseHostFuncs counts one holder less of each of hs and forgets those
// no graph holds any more.
func releaseHostFuncs(hs []uintptr) {
	if len(hs) == 0 {
		return
	}
	hostFuncs.mu.Lock()
	defer hostFuncs.mu.Unlock()
	for _, h := range hs {
		if f := hostFuncs.m[h]; f != nil {
			if f.refs--; f.refs <= 0 {
				delete(hostFuncs.m, h)
			}
		}
	}
}

// cugenHostFunc is what the driver calls, on its own thread, for the host
// function with handle h.
//
//export cugenHostFunc
func cugenHostFunc(h C.uintptr_t) {
	hostFuncs.mu.Lock()
	f := hostFuncs.m[uintptr(h)]
	if f != nil && !f.held {
		delete(hostFuncs.m, uintptr(h))
	}
	hostFuncs.mu.Unlock()
	if f != nil {
		f.fn()
	}
}

// graphRec is what rt/cgo keeps about a graph or an instantiated graph: the
// host functions it holds. A conditional node's body keeps its functions
// in its root graph's record.
type graphRec struct {
	fns  []uintptr
	root *graphRec // a body's: the record of the graph that owns it
}

// graphRecs are the records of graphs and instantiated graphs with host
// functions, by handle.
var (
	graphRecsMu sync.Mutex
	graphRecs   = map[uintptr]*graphRec{}
)

// recOf returns the record that keeps h's functions, made if create is set;
// graphRecsMu must be held.
func recOf(h uintptr, create bool) *graphRec {
	r := graphRecs[h]
	if r == nil && create {
		r = &graphRec{}
		graphRecs[h] = r
	}
	if r != nil && r.root != nil {
		return r.root
	}
	return r
}

// addHostFuncs gives the host functions hs to graph h (already retained
// for it).
func addHostFuncs(h uintptr, hs []uintptr) {
	if len(hs) == 0 {
		return
	}
	graphRecsMu.Lock()
	r := recOf(h, true)
	r.fns = append(r.fns, hs...)
	graphRecsMu.Unlock()
}

// copyHostFuncs gives to holder (a graph or an instantiated graph) the host
// functions of graph from, retaining them.
func copyHostFuncs(holder, from uintptr) {
	graphRecsMu.Lock()
	src := recOf(from, false)
	if src == nil || len(src.fns) == 0 {
		graphRecsMu.Unlock()
		return
	}
	hs := append([]uintptr(nil), src.fns...)
	r := recOf(holder, true)
	r.fns = append(r.fns, hs...)
	graphRecsMu.Unlock()
	retainHostFuncs(hs)
}

// dropRec forgets h's record and releases its host functions.
func dropRec(h uintptr) {
	graphRecsMu.Lock()
	r := graphRecs[h]
	delete(graphRecs, h)
	if r != nil && r.root == nil {
		for k, o := range graphRecs { // its bodies
			if o.root == r {
				delete(graphRecs, k)
			}
		}
	}
	graphRecsMu.Unlock()
	if r == nil || r.root != nil {
		return
	}
	releaseHostFuncs(r.fns)
}

// linkBody records that graph body is a conditional node's body in graph
// owner, whose record keeps the body's host functions.
func linkBody(body, owner uintptr) {
	graphRecsMu.Lock()
	defer graphRecsMu.Unlock()
	root := recOf(owner, true)
	graphRecs[body] = &graphRec{root: root}
}

var extOnce sync.Once

// ext resolves the entry points of shim_ext.c on first use.
func ext() { extOnce.Do(func() { C.cgx_init() }) }
