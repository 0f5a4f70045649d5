package soft

import (
	"sync"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// Page-locked host memory, 16/32-bit memsets, 2-D copies and free memory
// (rt.MemoryOps); stream-ordered allocation and memory pools
// (rt.AsyncAllocator).
//
// Host memory comes in two kinds, as on a GPU: page-locked memory from
// MemHostAlloc, which async copies read and write when their stream gets to
// them, and any other (Go) memory, which CUDA stages: an async copy from it
// reads it before the call returns, an async copy into it has completed
// when the call returns, and a capture refuses it.

var (
	_ rt.MemoryOps      = (*Driver)(nil)
	_ rt.AsyncAllocator = (*Driver)(nil)
)

// extState is what soft keeps for the optional capabilities besides graphs:
// page-locked buffers, memory pools, peer access and kernel attributes. Its
// zero value is ready to use; mu guards it.
type extState struct {
	mu      sync.Mutex
	pinned  map[uintptr][]uint64 // page-locked buffers by address (the slice keeps them alive)
	pools   map[rt.MemPoolHandle]*pool
	devPool map[int]*pool        // each device's default pool
	asyncs  map[uint64]*pool     // stream-ordered allocations by base address
	peers   map[[2]*context]bool // (ctx, peer): ctx may access peer's memory
	kattrs  map[kattrKey]int     // attributes set per (kernel, device)
	freed   map[uint64]struct{}  // stream-ordered frees queued, not yet run
}

func (x *extState) init() {
	if x.pinned == nil {
		x.pinned = map[uintptr][]uint64{}
		x.pools = map[rt.MemPoolHandle]*pool{}
		x.devPool = map[int]*pool{}
		x.asyncs = map[uint64]*pool{}
		x.peers = map[[2]*context]bool{}
		x.kattrs = map[kattrKey]int{}
		x.freed = map[uint64]struct{}{}
	}
}

// MemHostAlloc is cuMemHostAlloc: page-locked memory is ordinary Go memory
// here that the backend remembers, so that copies treat it as pinned.
func (d *Driver) MemHostAlloc(ch rt.CtxHandle, size uint64) (unsafe.Pointer, error) {
	const op = "cuMemHostAlloc"
	if _, err := d.ctx(op, ch); err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, rt.Errorf(op, rt.ErrInvalidValue, "size 0")
	}
	if err := hostFits(op, size); err != nil {
		return nil, err
	}
	buf := make([]uint64, (size+7)/8)
	p := unsafe.Pointer(&buf[0])
	d.ext.mu.Lock()
	d.ext.init()
	d.ext.pinned[uintptr(p)] = buf
	d.ext.mu.Unlock()
	return p, nil
}

// MemHostFree is cuMemFreeHost.
func (d *Driver) MemHostFree(ch rt.CtxHandle, p unsafe.Pointer) error {
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	d.ext.init()
	if _, ok := d.ext.pinned[uintptr(p)]; !ok {
		return rt.Errorf("cuMemFreeHost", rt.ErrInvalidValue, "%p is not page-locked memory from cuMemHostAlloc", p)
	}
	delete(d.ext.pinned, uintptr(p))
	return nil
}

// isPinned reports whether [p, p+n) lies in one page-locked buffer.
func (d *Driver) isPinned(p unsafe.Pointer, n uint64) bool {
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	a := uintptr(p)
	for base, buf := range d.ext.pinned {
		if a >= base && uint64(a-base)+n <= uint64(len(buf))*8 {
			return true
		}
	}
	return false
}

// MemsetD16 is cuMemsetD16(Async).
func (d *Driver) MemsetD16(ch rt.CtxHandle, dst rt.DevPtr, v uint16, n uint64, sh rt.StreamHandle, async bool) error {
	return d.memsetN("cuMemsetD16", ch, dst, uint64(v), 2, n, sh, async)
}

// MemsetD32 is cuMemsetD32(Async).
func (d *Driver) MemsetD32(ch rt.CtxHandle, dst rt.DevPtr, v uint32, n uint64, sh rt.StreamHandle, async bool) error {
	return d.memsetN("cuMemsetD32", ch, dst, uint64(v), 4, n, sh, async)
}

func (d *Driver) memsetN(op string, ch rt.CtxHandle, dst rt.DevPtr, v uint64, size, n uint64, sh rt.StreamHandle, async bool) error {
	if n == 0 {
		return nil
	}
	if uint64(dst)%size != 0 {
		return rt.Errorf(op, rt.ErrInvalidValue, "destination %#x is not aligned to %d bytes", uint64(dst), size)
	}
	if _, err := d.span(op, dst, n*size); err != nil {
		return err
	}
	return d.copyOp(op, ch, sh, async, memOp{typ: rt.NodeMemset}, func() error {
		b, err := d.span(op, dst, n*size)
		if err != nil {
			return err
		}
		for i := uint64(0); i < n; i++ {
			for j := uint64(0); j < size; j++ {
				b[i*size+j] = byte(v >> (8 * j))
			}
		}
		return nil
	})
}

// Memcpy2D is cuMemcpy2D(Async).
func (d *Driver) Memcpy2D(ch rt.CtxHandle, c *rt.Copy2D, sh rt.StreamHandle, async bool) error {
	const op = "cuMemcpy2D"
	w, h := c.WidthBytes, c.Height
	if w == 0 || h == 0 {
		return nil
	}
	if c.SrcPitch < w || c.DstPitch < w {
		return rt.Errorf(op, rt.ErrInvalidValue, "pitches %d (source) and %d (destination) must be at least the width, %d", c.SrcPitch, c.DstPitch, w)
	}
	if (c.SrcHost == nil) == (c.SrcDevice == 0) || (c.DstHost == nil) == (c.DstDevice == 0) {
		return rt.Errorf(op, rt.ErrInvalidValue, "each side is host memory or device memory, exactly one of them")
	}
	srcLen, dstLen := c.SrcPitch*(h-1)+w, c.DstPitch*(h-1)+w
	if c.SrcDevice != 0 {
		if _, err := d.span(op, c.SrcDevice, srcLen); err != nil {
			return err
		}
	}
	if c.DstDevice != 0 {
		if _, err := d.span(op, c.DstDevice, dstLen); err != nil {
			return err
		}
	}
	cc := *c
	m := memOp{typ: rt.NodeMemcpy}
	if cc.SrcHost != nil {
		m.host, m.hostLen = cc.SrcHost, srcLen
		if async && !d.isPinned(cc.SrcHost, srcLen) && !d.streamCaptured(op, ch, sh) {
			snap := alignedCopy(unsafe.Slice((*byte)(cc.SrcHost), srcLen))
			cc.SrcHost = unsafe.Pointer(unsafe.SliceData(snap))
		}
	} else if cc.DstHost != nil {
		m.host, m.hostLen, m.toHost = cc.DstHost, dstLen, true
	}
	return d.copyOp(op, ch, sh, async, m, func() error {
		var src, dst []byte
		var err error
		if cc.SrcDevice != 0 {
			src, err = d.span(op, cc.SrcDevice, srcLen)
		} else {
			src = unsafe.Slice((*byte)(cc.SrcHost), srcLen)
		}
		if err != nil {
			return err
		}
		if cc.DstDevice != 0 {
			dst, err = d.span(op, cc.DstDevice, dstLen)
		} else {
			dst = unsafe.Slice((*byte)(cc.DstHost), dstLen)
		}
		if err != nil {
			return err
		}
		for y := uint64(0); y < h; y++ {
			copy(dst[y*cc.DstPitch:y*cc.DstPitch+w], src[y*cc.SrcPitch:y*cc.SrcPitch+w])
		}
		return nil
	})
}

// MemInfo is cuMemGetInfo: the device's memory (Options.MemBytes) and what
// is not allocated.
func (d *Driver) MemInfo(ch rt.CtxHandle) (free, total uint64, err error) {
	c, err := d.ctx("cuMemGetInfo", ch)
	if err != nil {
		return 0, 0, err
	}
	dv := c.dev
	dv.mu.Lock()
	defer dv.mu.Unlock()
	return dv.limit - dv.used, dv.limit, nil
}

// ---- stream-ordered allocation ----

// pool is a memory pool. Soft allocates from the device either way; a pool
// keeps the accounting CUDA reports: used is what is allocated from it,
// reserved what it holds (used plus freed memory it keeps for reuse, up to
// its release threshold). Where CUDA returns memory above the threshold at
// the next synchronization, soft does at the free.
type pool struct {
	h                      rt.MemPoolHandle
	dev                    int
	maxSize                uint64
	attrs                  map[rt.MemPoolAttr]uint64 // threshold and reuse policies
	used, reserved         uint64
	usedHigh, reservedHigh uint64
	isDefault              bool
}

// devicePool is dev's default pool, made on first use; ext.mu must be held.
func (d *Driver) devicePool(dev int) *pool {
	d.ext.init()
	p := d.ext.devPool[dev]
	if p == nil {
		p = d.newPool(dev, 0)
		p.isDefault = true
		d.ext.devPool[dev] = p
	}
	return p
}

// poolGranularity is what CUDA rounds a pool's maximum size up to: on an
// H100 (CUDA 13.0) a pool of at most 2 MiB held 8 buffers of 4 MiB.
const poolGranularity = 32 << 20

// newPool registers a pool; ext.mu must be held.
func (d *Driver) newPool(dev int, maxSize uint64) *pool {
	maxSize = (maxSize + poolGranularity - 1) / poolGranularity * poolGranularity
	p := &pool{h: rt.MemPoolHandle(d.newHandle()), dev: dev, maxSize: maxSize,
		attrs: map[rt.MemPoolAttr]uint64{rt.PoolReuseFollowEventDependencies: 1, rt.PoolReuseAllowOpportunistic: 1, rt.PoolReuseAllowInternalDependencies: 1}}
	d.ext.pools[p.h] = p
	return p
}

func (d *Driver) pool(op string, h rt.MemPoolHandle) (*pool, error) {
	d.ext.init()
	p := d.ext.pools[h]
	if p == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidValue, "memory pool %#x does not exist", uintptr(h))
	}
	return p, nil
}

// MemAllocAsync is cuMemAllocAsync (pool 0) or cuMemAllocFromPoolAsync.
// The memory is allocated at once, so it is valid for s's later work and
// (soft does not tell) any other. Captured, the allocation becomes a mem
// alloc node and stays for the life of the context.
func (d *Driver) MemAllocAsync(ch rt.CtxHandle, size uint64, sh rt.StreamHandle, ph rt.MemPoolHandle) (rt.DevPtr, error) {
	const op = "cuMemAllocAsync"
	s, err := d.stream(op, ch, sh)
	if err != nil {
		return 0, err
	}
	if size == 0 {
		return 0, rt.Errorf(op, rt.ErrInvalidValue, "size 0")
	}
	c := s.ctx
	d.ext.mu.Lock()
	var p *pool
	if ph == 0 {
		p = d.devicePool(c.dev.ord)
	} else if p, err = d.pool(op, ph); err == nil && p.dev != c.dev.ord {
		err = rt.Errorf(op, rt.ErrInvalidValue, "pool %#x is on device %d, the stream's context on device %d", uintptr(ph), p.dev, c.dev.ord)
	}
	if err == nil && p.maxSize > 0 && p.used+size > p.maxSize {
		err = rt.Errorf(op, rt.ErrOutOfMemory, "pool %#x: %d bytes allocated, %d more requested, at most %d", uintptr(p.h), p.used, size, p.maxSize)
	}
	d.ext.mu.Unlock()
	if err != nil {
		return 0, err
	}
	a, err := d.allocate(op, c, size, "cuMemAllocAsync")
	if err != nil {
		return 0, err
	}
	d.ext.mu.Lock()
	d.ext.asyncs[a.base] = p
	p.used += size
	p.reserved = max(p.reserved, p.used)
	p.usedHigh, p.reservedHigh = max(p.usedHigh, p.used), max(p.reservedHigh, p.reserved)
	d.ext.mu.Unlock()
	if _, err := d.submit(op, s, &snode{typ: rt.NodeMemAlloc}, func() error { return nil }); err != nil {
		return 0, err
	}
	return rt.DevPtr(a.base), nil
}

// MemFreeAsync is cuMemFreeAsync: the memory is freed when s gets to it.
func (d *Driver) MemFreeAsync(ch rt.CtxHandle, ptr rt.DevPtr, sh rt.StreamHandle) error {
	const op = "cuMemFreeAsync"
	s, err := d.stream(op, ch, sh)
	if err != nil {
		return err
	}
	d.ext.mu.Lock()
	d.ext.init()
	_, async := d.ext.asyncs[uint64(ptr)]
	_, queued := d.ext.freed[uint64(ptr)]
	if async && !queued {
		d.ext.freed[uint64(ptr)] = struct{}{}
	}
	d.ext.mu.Unlock()
	if !async || queued {
		return rt.Errorf(op, rt.ErrInvalidValue, "%#x is not a live allocation of cuMemAllocAsync", uint64(ptr))
	}
	captured := false
	o, err := d.submit(op, s, &snode{typ: rt.NodeMemFree}, func() error { return d.freeAsync(op, ptr) })
	if o == nil && err == nil {
		captured = true // the graph owns the memory now; it stays
	}
	if err != nil || captured {
		d.ext.mu.Lock()
		delete(d.ext.freed, uint64(ptr))
		d.ext.mu.Unlock()
	}
	return err
}

// freeAsync frees a stream-ordered allocation and returns what its pool
// does not keep.
func (d *Driver) freeAsync(op string, ptr rt.DevPtr) error {
	d.mem.mu.RLock()
	a := d.mem.find(uint64(ptr))
	d.mem.mu.RUnlock()
	if a == nil || a.freed {
		return rt.Errorf(op, rt.ErrInvalidValue, "%#x was already freed", uint64(ptr))
	}
	owner := a.ctx
	owner.mu.Lock()
	delete(owner.allocs, a.base)
	owner.mu.Unlock()
	d.mem.free(a)
	owner.dev.release(a.size)
	d.poolFreed(a.base, a.size)
	return nil
}

// poolFreed does a pool's accounting for a freed stream-ordered allocation.
func (d *Driver) poolFreed(base, size uint64) {
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	d.ext.init()
	p := d.ext.asyncs[base]
	if p == nil {
		return
	}
	delete(d.ext.asyncs, base)
	delete(d.ext.freed, base)
	p.used -= size
	if keep := p.attrs[rt.PoolReleaseThreshold]; p.reserved-p.used > keep {
		p.reserved = p.used + keep
	}
}

// MemPoolCreate is cuMemPoolCreate.
func (d *Driver) MemPoolCreate(dev int, maxSize uint64) (rt.MemPoolHandle, error) {
	if _, err := d.dev("cuMemPoolCreate", dev); err != nil {
		return 0, err
	}
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	d.ext.init()
	return d.newPool(dev, maxSize).h, nil
}

// MemPoolDestroy is cuMemPoolDestroy: allocations still out keep their
// memory until freed.
func (d *Driver) MemPoolDestroy(h rt.MemPoolHandle) error {
	const op = "cuMemPoolDestroy"
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	p, err := d.pool(op, h)
	if err != nil {
		return err
	}
	if p.isDefault {
		return rt.Errorf(op, rt.ErrInvalidValue, "pool %#x is device %d's default pool", uintptr(h), p.dev)
	}
	delete(d.ext.pools, h)
	return nil
}

// DeviceMemPool is cuDeviceGetMemPool: soft's devices always use their
// default pool.
func (d *Driver) DeviceMemPool(dev int) (rt.MemPoolHandle, error) {
	if _, err := d.dev("cuDeviceGetMemPool", dev); err != nil {
		return 0, err
	}
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	return d.devicePool(dev).h, nil
}

// MemPoolAttribute is cuMemPoolGetAttribute.
func (d *Driver) MemPoolAttribute(h rt.MemPoolHandle, a rt.MemPoolAttr) (uint64, error) {
	const op = "cuMemPoolGetAttribute"
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	p, err := d.pool(op, h)
	if err != nil {
		return 0, err
	}
	switch a {
	case rt.PoolReuseFollowEventDependencies, rt.PoolReuseAllowOpportunistic, rt.PoolReuseAllowInternalDependencies, rt.PoolReleaseThreshold:
		return p.attrs[a], nil
	case rt.PoolReservedMemCurrent:
		return p.reserved, nil
	case rt.PoolReservedMemHigh:
		return p.reservedHigh, nil
	case rt.PoolUsedMemCurrent:
		return p.used, nil
	case rt.PoolUsedMemHigh:
		return p.usedHigh, nil
	}
	return 0, rt.Errorf(op, rt.ErrInvalidValue, "attribute %d", a)
}

// SetMemPoolAttribute is cuMemPoolSetAttribute: the threshold and reuse
// policies are set; the high-water marks are reset (to 0 only).
func (d *Driver) SetMemPoolAttribute(h rt.MemPoolHandle, a rt.MemPoolAttr, v uint64) error {
	const op = "cuMemPoolSetAttribute"
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	p, err := d.pool(op, h)
	if err != nil {
		return err
	}
	switch a {
	case rt.PoolReuseFollowEventDependencies, rt.PoolReuseAllowOpportunistic, rt.PoolReuseAllowInternalDependencies:
		if v > 1 {
			return rt.Errorf(op, rt.ErrInvalidValue, "reuse policy %d is 0 or 1, not %d", a, v)
		}
		p.attrs[a] = v
	case rt.PoolReleaseThreshold:
		p.attrs[a] = v
	case rt.PoolReservedMemHigh, rt.PoolUsedMemHigh:
		if v != 0 {
			return rt.Errorf(op, rt.ErrInvalidValue, "a high-water mark can only be reset to 0")
		}
		if a == rt.PoolReservedMemHigh {
			p.reservedHigh = p.reserved
		} else {
			p.usedHigh = p.used
		}
	default:
		return rt.Errorf(op, rt.ErrInvalidValue, "attribute %d cannot be set", a)
	}
	return nil
}

// MemPoolTrimTo is cuMemPoolTrimTo: the pool keeps at most keep bytes
// reserved, and never less than what is allocated.
func (d *Driver) MemPoolTrimTo(h rt.MemPoolHandle, keep uint64) error {
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	p, err := d.pool("cuMemPoolTrimTo", h)
	if err != nil {
		return err
	}
	p.reserved = max(p.used, min(p.reserved, keep))
	return nil
}
