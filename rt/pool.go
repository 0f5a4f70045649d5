package rt

import "sync/atomic"

// Stream-ordered allocation (cuMemAllocAsync, cuMemFreeAsync) and memory
// pools: the AsyncAllocator capability at rt's level.

func asyncAllocator(d Driver, op string) (AsyncAllocator, error) {
	return capability[AsyncAllocator](d, op, "stream-ordered allocation (rt.AsyncAllocator)")
}

// AllocAsync allocates n elements of T in s's order from the current pool
// of s's device (cuMemAllocAsync): work queued on s after the call may use
// the buffer at once, work on other streams after an event. The contents
// are undefined. Free it with FreeAsync (or Free, which waits).
func AllocAsync[T any](s *Stream, n int) (Buffer[T], error) { return allocAsync[T](s, nil, n) }

// AllocFromPool is AllocAsync from pool (cuMemAllocFromPoolAsync).
func AllocFromPool[T any](s *Stream, pool *MemPool, n int) (Buffer[T], error) {
	return allocAsync[T](s, pool, n)
}

func allocAsync[T any](s *Stream, pool *MemPool, n int) (Buffer[T], error) {
	const op = "rt.AllocAsync"
	s, err := s.orCurrent(op)
	if err != nil {
		return Buffer[T]{}, err
	}
	size, err := bytesOf(op, n, sizeOf[T]())
	if err != nil {
		return Buffer[T]{}, err
	}
	if pool != nil {
		if err := pool.check(op); err != nil {
			return Buffer[T]{}, err
		}
		if pool.dev.drv != s.ctx.drv {
			return Buffer[T]{}, Errorf(op, ErrInvalidHandle, "a pool of %v for a stream of %v", pool.dev, s.ctx)
		}
	}
	a, err := asyncAllocator(s.ctx.drv, "cuMemAllocAsync")
	if err != nil {
		return Buffer[T]{}, err
	}
	var ph MemPoolHandle
	if pool != nil {
		ph = pool.h
	}
	p, err := a.MemAllocAsync(s.ctx.h, max(size, 1), s.h, ph)
	if err != nil {
		return Buffer[T]{}, err
	}
	return Buffer[T]{Ptr: Ptr[T](p), Len: n, ctx: s.ctx}, nil
}

// FreeAsync frees the buffer in s's order (cuMemFreeAsync): after the work
// queued on s before it, which may still use it. The memory goes back to
// its pool, for later AllocAsync calls to reuse.
func (b Buffer[T]) FreeAsync(s *Stream) error {
	const op = "rt.Buffer.FreeAsync"
	if b.ctx == nil && b.Ptr == 0 {
		return nil // the zero Buffer, as Free
	}
	s, err := b.on(op, s)
	if err != nil {
		return err
	}
	a, err := asyncAllocator(s.ctx.drv, "cuMemFreeAsync")
	if err != nil {
		return err
	}
	return a.MemFreeAsync(s.ctx.h, DevPtr(b.Ptr), s.h)
}

// MemPool is a pool of device memory that stream-ordered allocations come
// from (CUmemoryPool). Memory freed into a pool stays reserved for reuse,
// up to its release threshold, which makes AllocAsync in a loop cheap.
type MemPool struct {
	a     AsyncAllocator
	h     MemPoolHandle
	dev   Device
	owned bool        // made by NewMemPool: Destroy destroys it
	gone  atomic.Bool // destroyed
}

// check refuses a nil, zero or destroyed pool.
func (p *MemPool) check(op string) error {
	switch {
	case p == nil || p.a == nil:
		return Errorf(op, ErrInvalidHandle, "a nil or zero rt.MemPool (pools come from Device.NewMemPool and Device.MemPool)")
	case p.gone.Load():
		return Errorf(op, ErrInvalidHandle, "memory pool %#x was destroyed", uintptr(p.h))
	}
	return nil
}

// NewMemPool creates a pool of memory on d (cuMemPoolCreate); maxSize 0
// means no limit but the device's memory, and CUDA rounds a limit up to its
// pools' granularity (32 MiB). Its release threshold starts at 0: memory
// freed into it is returned at the next synchronization.
func (d Device) NewMemPool(maxSize uint64) (*MemPool, error) {
	if err := d.check("rt.Device.NewMemPool"); err != nil {
		return nil, err
	}
	a, err := asyncAllocator(d.drv, "cuMemPoolCreate")
	if err != nil {
		return nil, err
	}
	h, err := a.MemPoolCreate(d.ord, maxSize)
	if err != nil {
		return nil, err
	}
	return &MemPool{a: a, h: h, dev: d, owned: true}, nil
}

// MemPool is the device's current pool, the one AllocAsync uses
// (cuDeviceGetMemPool; the device's default pool unless changed).
func (d Device) MemPool() (*MemPool, error) {
	if err := d.check("rt.Device.MemPool"); err != nil {
		return nil, err
	}
	a, err := asyncAllocator(d.drv, "cuDeviceGetMemPool")
	if err != nil {
		return nil, err
	}
	h, err := a.DeviceMemPool(d.ord)
	if err != nil {
		return nil, err
	}
	return &MemPool{a: a, h: h, dev: d}, nil
}

// Handle is the backend's pool handle.
func (p *MemPool) Handle() MemPoolHandle {
	if p == nil {
		return 0
	}
	return p.h
}

// Device is the pool's device.
func (p *MemPool) Device() Device {
	if p == nil {
		return Device{}
	}
	return p.dev
}

// Attribute reads one of the pool's attributes (cuMemPoolGetAttribute).
func (p *MemPool) Attribute(a MemPoolAttr) (uint64, error) {
	if err := p.check("rt.MemPool.Attribute"); err != nil {
		return 0, err
	}
	return p.a.MemPoolAttribute(p.h, a)
}

// SetAttribute sets one of the pool's attributes (cuMemPoolSetAttribute).
func (p *MemPool) SetAttribute(a MemPoolAttr, v uint64) error {
	if err := p.check("rt.MemPool.SetAttribute"); err != nil {
		return err
	}
	return p.a.SetMemPoolAttribute(p.h, a, v)
}

// SetReleaseThreshold sets how many bytes of freed memory the pool keeps
// reserved across synchronizations (PoolReleaseThreshold): a program that
// allocates and frees the same sizes every iteration sets it to its working
// set, so that no iteration goes back to the system. ^uint64(0) keeps
// everything.
func (p *MemPool) SetReleaseThreshold(bytes uint64) error {
	return p.SetAttribute(PoolReleaseThreshold, bytes)
}

// ReleaseThreshold is the pool's release threshold in bytes.
func (p *MemPool) ReleaseThreshold() (uint64, error) { return p.Attribute(PoolReleaseThreshold) }

// Trim returns reserved memory to the system until at most keep bytes
// remain reserved, never less than what is allocated (cuMemPoolTrimTo).
func (p *MemPool) Trim(keep uint64) error {
	if err := p.check("rt.MemPool.Trim"); err != nil {
		return err
	}
	return p.a.MemPoolTrimTo(p.h, keep)
}

// Destroy destroys a pool made by NewMemPool (cuMemPoolDestroy); a device's
// own pool cannot be destroyed.
func (p *MemPool) Destroy() error {
	const op = "rt.MemPool.Destroy"
	if err := p.check(op); err != nil {
		return err
	}
	if !p.owned {
		return Errorf(op, ErrNotPermitted, "the pool of %v is the device's, not one NewMemPool made", p.dev)
	}
	if !p.gone.CompareAndSwap(false, true) {
		return Errorf(op, ErrInvalidHandle, "memory pool %#x was destroyed", uintptr(p.h))
	}
	if err := p.a.MemPoolDestroy(p.h); err != nil {
		p.gone.Store(false)
		return err
	}
	return nil
}
