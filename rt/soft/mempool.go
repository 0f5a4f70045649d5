// Stream-ordered allocation and memory pools (rt.AsyncAllocator).

package soft

import "github.com/cugen/cugen/rt"

var _ rt.AsyncAllocator = (*Driver)(nil)

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
	d.ext.asyncs[a.Base] = p
	p.used += size
	p.reserved = max(p.reserved, p.used)
	p.usedHigh, p.reservedHigh = max(p.usedHigh, p.used), max(p.reservedHigh, p.reserved)
	d.ext.mu.Unlock()
	if _, err := d.submit(op, s, &snode{typ: rt.NodeMemAlloc}, func() error { return nil }); err != nil {
		return 0, err
	}
	return rt.DevPtr(a.Base), nil
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
	if o.none() && err == nil {
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
	a := d.mem.Lookup(uint64(ptr))
	if a == nil || a.Freed() {
		return rt.Errorf(op, rt.ErrInvalidValue, "%#x was already freed", uint64(ptr))
	}
	owner := ownerOf(a)
	owner.mu.Lock()
	delete(owner.allocs, a.Base)
	owner.mu.Unlock()
	d.mem.Free(a)
	owner.dev.release(a.Size)
	d.poolFreed(a.Base, a.Size)
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

// pooled reports whether base is a live stream-ordered allocation's.
func (d *Driver) pooled(base uint64) bool {
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	_, ok := d.ext.asyncs[base]
	return ok
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
