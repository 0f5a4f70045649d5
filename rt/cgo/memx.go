//go:build cgo

package cgo

/*
#include "shim_ext.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// Page-locked memory, 16/32-bit memsets and 2-D copies (rt.MemoryOps);
// stream-ordered allocation and pools (rt.AsyncAllocator).

var (
	_ rt.MemoryOps      = (*Driver)(nil)
	_ rt.AsyncAllocator = (*Driver)(nil)
)

func cpool(h rt.MemPoolHandle) C.CUmemoryPool { return *(*C.CUmemoryPool)(unsafe.Pointer(&h)) }

// MemHostAlloc is cuMemHostAlloc with CU_MEMHOSTALLOC_PORTABLE.
func (d *Driver) MemHostAlloc(ctx rt.CtxHandle, size uint64) (unsafe.Pointer, error) {
	ext()
	var p unsafe.Pointer
	if rc := C.cgx_mem_host_alloc(cctx(ctx), &p, C.size_t(size)); rc != 0 {
		return nil, checkd("cuMemHostAlloc", rc, fmt.Sprintf("%d bytes", size))
	}
	return p, nil
}

// MemHostFree is cuMemFreeHost.
func (d *Driver) MemHostFree(ctx rt.CtxHandle, p unsafe.Pointer) error {
	ext()
	return check("cuMemFreeHost", C.cgx_mem_free_host(cctx(ctx), p))
}

// MemsetD16 is cuMemsetD16(Async).
func (d *Driver) MemsetD16(ctx rt.CtxHandle, dst rt.DevPtr, v uint16, n uint64, s rt.StreamHandle, async bool) error {
	ext()
	return check("cuMemsetD16", C.cgx_memset_d16(cctx(ctx), C.CUdeviceptr(dst), C.ushort(v), C.size_t(n), cstream(s), b2i(async)))
}

// MemsetD32 is cuMemsetD32(Async).
func (d *Driver) MemsetD32(ctx rt.CtxHandle, dst rt.DevPtr, v uint32, n uint64, s rt.StreamHandle, async bool) error {
	ext()
	return check("cuMemsetD32", C.cgx_memset_d32(cctx(ctx), C.CUdeviceptr(dst), C.uint(v), C.size_t(n), cstream(s), b2i(async)))
}

// Memcpy2D is cuMemcpy2D(Async). Host memory that is Go's is read or
// written before the call returns for a synchronous copy, and staged by
// CUDA for an async one.
func (d *Driver) Memcpy2D(ctx rt.CtxHandle, c *rt.Copy2D, s rt.StreamHandle, async bool) error {
	ext()
	if (c.SrcHost == nil) == (c.SrcDevice == 0) || (c.DstHost == nil) == (c.DstDevice == 0) {
		return rt.Errorf("cuMemcpy2D", rt.ErrInvalidValue, "each side is host memory or device memory, exactly one of them")
	}
	return check("cuMemcpy2D", C.cgx_memcpy_2d(cctx(ctx), c.SrcHost, C.CUdeviceptr(c.SrcDevice), C.size_t(c.SrcPitch),
		c.DstHost, C.CUdeviceptr(c.DstDevice), C.size_t(c.DstPitch), C.size_t(c.WidthBytes), C.size_t(c.Height), cstream(s), b2i(async)))
}

// MemAllocAsync is cuMemAllocAsync, or cuMemAllocFromPoolAsync with a pool.
func (d *Driver) MemAllocAsync(ctx rt.CtxHandle, size uint64, s rt.StreamHandle, pool rt.MemPoolHandle) (rt.DevPtr, error) {
	ext()
	var p C.CUdeviceptr
	if rc := C.cgx_mem_alloc_async(cctx(ctx), &p, C.size_t(size), cstream(s), cpool(pool)); rc != 0 {
		return 0, checkd("cuMemAllocAsync", rc, fmt.Sprintf("%d bytes", size))
	}
	return rt.DevPtr(p), nil
}

// MemFreeAsync is cuMemFreeAsync.
func (d *Driver) MemFreeAsync(ctx rt.CtxHandle, p rt.DevPtr, s rt.StreamHandle) error {
	ext()
	return check("cuMemFreeAsync", C.cgx_mem_free_async(cctx(ctx), C.CUdeviceptr(p), cstream(s)))
}

// MemPoolCreate is cuMemPoolCreate of a pool of pinned device memory on dev.
func (d *Driver) MemPoolCreate(dev int, maxSize uint64) (rt.MemPoolHandle, error) {
	ext()
	var p C.CUmemoryPool
	if rc := C.cgx_mem_pool_create(C.int(dev), C.size_t(maxSize), &p); rc != 0 {
		return 0, checkd("cuMemPoolCreate", rc, fmt.Sprintf("device %d", dev))
	}
	return rt.MemPoolHandle(uintptr(unsafe.Pointer(p))), nil
}

// MemPoolDestroy is cuMemPoolDestroy.
func (d *Driver) MemPoolDestroy(pool rt.MemPoolHandle) error {
	ext()
	return check("cuMemPoolDestroy", C.cgx_mem_pool_destroy(cpool(pool)))
}

// DeviceMemPool is cuDeviceGetMemPool.
func (d *Driver) DeviceMemPool(dev int) (rt.MemPoolHandle, error) {
	ext()
	var p C.CUmemoryPool
	if rc := C.cgx_device_mem_pool(C.int(dev), &p); rc != 0 {
		return 0, checkd("cuDeviceGetMemPool", rc, fmt.Sprintf("device %d", dev))
	}
	return rt.MemPoolHandle(uintptr(unsafe.Pointer(p))), nil
}

// MemPoolAttribute is cuMemPoolGetAttribute.
func (d *Driver) MemPoolAttribute(pool rt.MemPoolHandle, a rt.MemPoolAttr) (uint64, error) {
	ext()
	var v C.ulonglong
	if rc := C.cgx_mem_pool_get(cpool(pool), C.int(a), &v); rc != 0 {
		return 0, checkd("cuMemPoolGetAttribute", rc, fmt.Sprintf("attribute %d", a))
	}
	return uint64(v), nil
}

// SetMemPoolAttribute is cuMemPoolSetAttribute.
func (d *Driver) SetMemPoolAttribute(pool rt.MemPoolHandle, a rt.MemPoolAttr, v uint64) error {
	ext()
	return checkd("cuMemPoolSetAttribute", C.cgx_mem_pool_set(cpool(pool), C.int(a), C.ulonglong(v)), fmt.Sprintf("attribute %d = %d", a, v))
}

// MemPoolTrimTo is cuMemPoolTrimTo.
func (d *Driver) MemPoolTrimTo(pool rt.MemPoolHandle, keep uint64) error {
	ext()
	return check("cuMemPoolTrimTo", C.cgx_mem_pool_trim(cpool(pool), C.size_t(keep)))
}
