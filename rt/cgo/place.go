//go:build cgo

package cgo

/*
#include "shim.h"
*/
import "C"

import (
	"slices"

	"github.com/cugen/cugen/rt"
)

var _ rt.ParamPlacer = (*Driver)(nil)

// PlaceParams is rt.ParamPlacer: launches of the kernel pass the driver
// kernelParams, one pointer per parameter into the packed buffer at packed's
// offsets, built on the C side, and the driver places each parameter where
// the compiled kernel reads it. The kernel's launches then take launchSlow:
// GPU timings put that at the ordinary launch's cost (NOTES-launch-cost.md).
// Call it before the kernel's first launch, as rt does.
func (d *Driver) PlaceParams(h rt.KernelHandle, packed []rt.ParamSpec) error {
	k, err := d.kernel(h, "PlaceParams")
	if err != nil {
		return err
	}
	offs := make([]C.uint, len(packed))
	for i, p := range packed {
		offs[i] = C.uint(p.Offset)
	}
	l := k.lib
	l.mu.Lock()
	defer l.mu.Unlock()
	if k.place != nil {
		if !slices.Equal(k.place, offs) {
			return rt.Errorf("PlaceParams", rt.ErrNotPermitted, "kernel %s is placed from other offsets already", k.name)
		}
		return nil
	}
	k.place = offs
	k.fn = nil
	return nil
}

// launchPlaced launches k, whose parameters are placed, as fn in ctx (nil:
// the stream's, or the current one).
func launchPlaced(fn C.CUfunction, ctx C.CUcontext, k *kernel, l rt.LaunchArgs) error {
	g, b, c := l.Grid, l.Block, l.Cluster
	var offs *C.uint
	if len(k.place) > 0 {
		offs = &k.place[0]
	}
	if rc := C.cg_launch_placed(fn, ctx, C.uint(g.X), C.uint(g.Y), C.uint(g.Z), C.uint(b.X), C.uint(b.Y), C.uint(b.Z),
		C.uint(l.SharedMem), cstream(l.Stream), l.Params, offs, C.uint(len(k.place)),
		C.uint(c.X), C.uint(c.Y), C.uint(c.Z), exFlags(l), C.int(l.Priority)); rc != 0 {
		op := "cuLaunchKernel"
		if needsEx(&l) {
			op = "cuLaunchKernelEx"
		}
		return launchErr(op+" (kernelParams)", rc, k, l)
	}
	return nil
}
