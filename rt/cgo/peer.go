//go:build cgo

package cgo

/*
#include "shim_ext.h"
*/
import "C"

import (
	"fmt"

	"github.com/cugen/cugen/rt"
)

// Peer access (rt.PeerAccessor) and occupancy (rt.OccupancyCalculator).

var (
	_ rt.PeerAccessor        = (*Driver)(nil)
	_ rt.OccupancyCalculator = (*Driver)(nil)
)

// DeviceCanAccessPeer is cuDeviceCanAccessPeer.
func (d *Driver) DeviceCanAccessPeer(dev, peer int) (bool, error) {
	ext()
	var can C.int
	if rc := C.cgx_can_access_peer(C.int(dev), C.int(peer), &can); rc != 0 {
		return false, checkd("cuDeviceCanAccessPeer", rc, fmt.Sprintf("device %d, peer %d", dev, peer))
	}
	return can != 0, nil
}

// CtxEnablePeerAccess is cuCtxEnablePeerAccess run in ctx.
func (d *Driver) CtxEnablePeerAccess(ctx, peer rt.CtxHandle) error {
	ext()
	return check("cuCtxEnablePeerAccess", C.cgx_enable_peer(cctx(ctx), cctx(peer)))
}

// CtxDisablePeerAccess is cuCtxDisablePeerAccess run in ctx.
func (d *Driver) CtxDisablePeerAccess(ctx, peer rt.CtxHandle) error {
	ext()
	return check("cuCtxDisablePeerAccess", C.cgx_disable_peer(cctx(ctx), cctx(peer)))
}

// MemcpyPeer is cuMemcpyPeer(Async), run in dstCtx.
func (d *Driver) MemcpyPeer(dstCtx rt.CtxHandle, dst rt.DevPtr, srcCtx rt.CtxHandle, src rt.DevPtr, n uint64, s rt.StreamHandle, async bool) error {
	ext()
	op := "cuMemcpyPeer"
	if async {
		op = "cuMemcpyPeerAsync"
	}
	return check(op, C.cgx_memcpy_peer(C.CUdeviceptr(dst), cctx(dstCtx), C.CUdeviceptr(src), cctx(srcCtx), C.size_t(n), cstream(s), b2i(async)))
}

// DeviceP2PAttribute is cuDeviceGetP2PAttribute.
func (d *Driver) DeviceP2PAttribute(attr rt.P2PAttr, src, dst int) (int, error) {
	ext()
	var v C.int
	if rc := C.cgx_p2p_attribute(C.int(attr), C.int(src), C.int(dst), &v); rc != 0 {
		return 0, checkd("cuDeviceGetP2PAttribute", rc, fmt.Sprintf("attribute %d from device %d to %d", attr, src, dst))
	}
	return int(v), nil
}

// occupancyFunc is the function occupancy queries name for h in ctx: the
// CUkernel cast to a CUfunction, which the driver resolves in the current
// context, or on the legacy path the kernel's function in ctx.
func (d *Driver) occupancyFunc(op string, h rt.KernelHandle, ctx rt.CtxHandle) (C.CUfunction, error) {
	k, err := d.kernel(h, op)
	if err != nil {
		return nil, err
	}
	if !k.lib.legacy {
		return k.fn, nil
	}
	c := cctx(ctx)
	if c == nil {
		if c, err = currentCtx(op); err != nil {
			return nil, err
		}
	}
	k.lib.mu.Lock()
	defer k.lib.mu.Unlock()
	return d.legacyFunc(k.lib, k, c)
}

// OccupancyMaxActiveBlocks is cuOccupancyMaxActiveBlocksPerMultiprocessor
// in ctx.
func (d *Driver) OccupancyMaxActiveBlocks(ctx rt.CtxHandle, h rt.KernelHandle, block int, dynSmem uint64) (int, error) {
	ext()
	const op = "cuOccupancyMaxActiveBlocksPerMultiprocessor"
	f, err := d.occupancyFunc(op, h, ctx)
	if err != nil {
		return 0, err
	}
	var n C.int
	if rc := C.cgx_occupancy(cctx(ctx), f, C.int(block), C.size_t(dynSmem), &n); rc != 0 {
		return 0, checkd(op, rc, fmt.Sprintf("block of %d threads, %d bytes of dynamic shared memory", block, dynSmem))
	}
	return int(n), nil
}

// OccupancyMaxPotentialBlockSize is cuOccupancyMaxPotentialBlockSize with a
// fixed dynamic shared memory size (no C callback: see
// rt.Kernel.SuggestBlockSizeFunc).
func (d *Driver) OccupancyMaxPotentialBlockSize(ctx rt.CtxHandle, h rt.KernelHandle, dynSmem uint64, blockLimit int) (int, int, error) {
	ext()
	const op = "cuOccupancyMaxPotentialBlockSize"
	f, err := d.occupancyFunc(op, h, ctx)
	if err != nil {
		return 0, 0, err
	}
	var grid, block C.int
	if rc := C.cgx_potential_block(cctx(ctx), f, C.size_t(dynSmem), C.int(blockLimit), &grid, &block); rc != 0 {
		return 0, 0, check(op, rc)
	}
	return int(grid), int(block), nil
}
