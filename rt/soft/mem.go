package soft

import (
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/devmem"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

func devBase(dev int) uint64 { return exec.GlobalBase + uint64(dev)<<40 }

// reserve takes size bytes of the device's address range.
func (dv *device) reserve(size uint64) (uint64, bool) {
	dv.mu.Lock()
	defer dv.mu.Unlock()
	if dv.used+size > dv.limit || size > dv.limit {
		return 0, false
	}
	base := dv.next
	dv.next += (size+exec.AllocAlign-1)/exec.AllocAlign*exec.AllocAlign + exec.AllocGuard
	// Every allocation starts on the texture alignment (512 bytes on the
	// H100, where cuMemAlloc's addresses are 512-byte aligned too), so that
	// linear and pitched textures can be made over any of them.
	dv.next = (dv.next + rt.TextureAlign - 1) / rt.TextureAlign * rt.TextureAlign
	dv.used += size
	return base, true
}

func (dv *device) release(size uint64) {
	dv.mu.Lock()
	dv.used -= size
	dv.mu.Unlock()
}

// allocate makes a zeroed allocation owned by c.
func (d *Driver) allocate(op string, c *context, size uint64, what string) (*exec.Alloc, error) {
	base, ok := c.dev.reserve(size)
	if !ok {
		return nil, rt.Errorf(op, rt.ErrOutOfMemory, "%d bytes requested on device %d (%d of %d bytes in use)", size, c.dev.ord, c.dev.used, c.dev.limit)
	}
	if err := hostFits(op, size); err != nil {
		c.dev.release(size)
		return nil, err
	}
	a := exec.NewAlloc(base, size)
	a.Dev, a.Owner, a.What = c.dev.ord, c, what
	c.mu.Lock()
	if c.destroyed {
		c.mu.Unlock()
		c.dev.release(size)
		return nil, rt.Errorf(op, rt.ErrInvalidContext, "context was destroyed")
	}
	c.allocs[base] = a
	c.mu.Unlock()
	d.mem.Insert(a)
	return a, nil
}

// MemAlloc is cuMemAlloc.
func (d *Driver) MemAlloc(ch rt.CtxHandle, size uint64) (rt.DevPtr, error) {
	c, err := d.ctx("cuMemAlloc", ch)
	if err != nil {
		return 0, err
	}
	if err := d.forbidden("cuMemAlloc", c, false); err != nil {
		return 0, err
	}
	if size == 0 {
		return 0, rt.Errorf("cuMemAlloc", rt.ErrInvalidValue, "size 0")
	}
	a, err := d.allocate("cuMemAlloc", c, size, "cuMemAlloc")
	if err != nil {
		return 0, err
	}
	return rt.DevPtr(a.Base), nil
}

// MemFree is cuMemFree. Like cudaFree it first waits for the context's
// queued work, so no running kernel loses memory under it.
func (d *Driver) MemFree(ch rt.CtxHandle, p rt.DevPtr) error {
	const op = "cuMemFree"
	c, err := d.ctx(op, ch)
	if err != nil {
		return err
	}
	if p == 0 {
		return nil
	}
	if err := d.forbidden(op, c, false); err != nil {
		return err
	}
	if err := c.synchronize(); err != nil {
		return asyncErr(op, err)
	}
	a := d.mem.Lookup(uint64(p))
	if a == nil || a.Base != uint64(p) || a.What != "cuMemAlloc" && a.What != "cuMemAllocAsync" {
		return rt.Errorf(op, rt.ErrInvalidValue, "%#x is not the start of a cuMemAlloc allocation", uint64(p))
	}
	owner := ownerOf(a)
	owner.mu.Lock()
	if owner.allocs[a.Base] != a {
		owner.mu.Unlock()
		return rt.Errorf(op, rt.ErrInvalidValue, "%#x was already freed", uint64(p))
	}
	delete(owner.allocs, a.Base)
	owner.mu.Unlock()
	d.mem.Free(a)
	owner.dev.release(a.Size)
	d.poolFreed(a.Base, a.Size)
	return nil
}

// span checks that [p, p+n) lies in one live allocation and returns its bytes.
func (d *Driver) span(op string, p rt.DevPtr, n uint64) ([]byte, error) {
	return d.mem.Span(op, uint64(p), n)
}

// memOp says what a copy or memset is, for submit: its node type in a
// capture and the host memory it reads (host) or writes (toHost).
type memOp struct {
	typ     rt.NodeType
	host    unsafe.Pointer
	hostLen uint64
	toHost  bool
	rd, wr  devRange // the device memory it reads and writes (hazard.go)
}

// copyOp queues (async) or runs in order on the NULL stream and waits for
// (sync) one memory operation. An async copy into memory that is not
// page-locked has completed when it returns, as CUDA's.
func (d *Driver) copyOp(op string, ch rt.CtxHandle, sh rt.StreamHandle, async bool, m memOp, fn func() error) error {
	var s *stream
	var err error
	if async {
		s, err = d.stream(op, ch, sh)
	} else {
		var c *context
		if c, err = d.ctx(op, ch); err == nil {
			s = c.null
		}
	}
	if err != nil {
		return err
	}
	if !async {
		if err := d.forbidden(op, s.ctx, false); err != nil {
			return err
		}
		if err := d.checkHost(op, s.ctx, m); err != nil {
			return err
		}
	}
	what := op
	if async {
		what += "Async"
	}
	if err := d.orderStreams(op, s, d.memSpans(m), what, !async || m.toHost && !d.isPinned(m.host, m.hostLen)); err != nil {
		return err
	}
	// The pointers are checked when the copy runs, as the memory may be
	// allocated by work queued before it; errors of a synchronous copy are
	// its own, not asynchronous ones.
	var own error
	o, err := d.submit(op, s, &snode{typ: m.typ}, func() error {
		own = fn()
		return own
	})
	if err != nil || o.none() { // failed, or captured
		return err
	}
	if async {
		d.copied(op, s, m)
		if m.toHost && !d.isPinned(m.host, m.hostLen) {
			o.wait()
		}
		return nil
	}
	err = s.wait()
	if err == own && err != nil {
		return err
	}
	if err == nil {
		// The NULL stream waited for the blocking streams: a failure they
		// left is reported here, as CUDA reports it from the next call.
		err = s.ctx.blockingPending()
	}
	return asyncErr(op, err)
}

// MemcpyHtoD is cuMemcpyHtoD(Async).
func (d *Driver) MemcpyHtoD(ch rt.CtxHandle, dst rt.DevPtr, src unsafe.Pointer, n uint64, sh rt.StreamHandle, async bool) error {
	const op = "cuMemcpyHtoD"
	if n == 0 {
		return nil
	}
	if src == nil {
		return rt.Errorf(op, rt.ErrInvalidValue, "nil host pointer")
	}
	if _, err := d.span(op, dst, n); err != nil {
		return err
	}
	m := memOp{typ: rt.NodeMemcpy, host: src, hostLen: n, wr: devRange{uint64(dst), n}}
	if async && !d.isPinned(src, n) && !d.streamCaptured(op, ch, sh) {
		// CUDA stages memory that is not page-locked before the call returns.
		src = unsafe.Pointer(unsafe.SliceData(alignedCopy(unsafe.Slice((*byte)(src), n))))
	}
	return d.copyOp(op, ch, sh, async, m, func() error {
		b, err := d.span(op, dst, n)
		if err != nil {
			return err
		}
		devmem.CopyIn(b, unsafe.Slice((*byte)(src), n))
		return nil
	})
}

// MemcpyDtoH is cuMemcpyDtoH(Async).
func (d *Driver) MemcpyDtoH(ch rt.CtxHandle, dst unsafe.Pointer, src rt.DevPtr, n uint64, sh rt.StreamHandle, async bool) error {
	const op = "cuMemcpyDtoH"
	if n == 0 {
		return nil
	}
	if dst == nil {
		return rt.Errorf(op, rt.ErrInvalidValue, "nil host pointer")
	}
	if _, err := d.span(op, src, n); err != nil {
		return err
	}
	return d.copyOp(op, ch, sh, async, memOp{typ: rt.NodeMemcpy, host: dst, hostLen: n, toHost: true, rd: devRange{uint64(src), n}}, func() error {
		b, err := d.span(op, src, n)
		if err != nil {
			return err
		}
		devmem.CopyOut(unsafe.Slice((*byte)(dst), n), b)
		return nil
	})
}

// MemcpyDtoD is cuMemcpyDtoD(Async).
func (d *Driver) MemcpyDtoD(ch rt.CtxHandle, dst, src rt.DevPtr, n uint64, sh rt.StreamHandle, async bool) error {
	const op = "cuMemcpyDtoD"
	if n == 0 {
		return nil
	}
	if _, err := d.span(op, dst, n); err != nil {
		return err
	}
	if _, err := d.span(op, src, n); err != nil {
		return err
	}
	m := memOp{typ: rt.NodeMemcpy, rd: devRange{uint64(src), n}, wr: devRange{uint64(dst), n}}
	return d.copyOp(op, ch, sh, async, m, func() error {
		to, err := d.span(op, dst, n)
		if err != nil {
			return err
		}
		from, err := d.span(op, src, n)
		if err != nil {
			return err
		}
		devmem.Copy(to, from)
		return nil
	})
}

// MemsetD8 is cuMemsetD8(Async).
func (d *Driver) MemsetD8(ch rt.CtxHandle, dst rt.DevPtr, v byte, n uint64, sh rt.StreamHandle, async bool) error {
	const op = "cuMemsetD8"
	if n == 0 {
		return nil
	}
	if _, err := d.span(op, dst, n); err != nil {
		return err
	}
	return d.copyOp(op, ch, sh, async, memOp{typ: rt.NodeMemset, wr: devRange{uint64(dst), n}}, func() error {
		b, err := d.span(op, dst, n)
		if err != nil {
			return err
		}
		devmem.Fill(b, uint64(v), 1)
		return nil
	})
}
