// Device-side malloc and free (and so new and delete, which call them, and
// the device runtime's cudaMalloc and cudaFree): each allocation is an
// allocation of its own, owned by the launch's context, so that an access
// past its end, after its free, or a free of something else is reported
// precisely. As in CUDA the heap is bounded per context
// (Options.MallocHeapBytes, cudaLimitMallocHeapSize's 8 MiB by default): a
// malloc that does not fit returns NULL. Memory a kernel mallocs outlives
// the launch until a kernel frees it or the context is destroyed; the host
// cannot free it (cuMemFree refuses it, as cudaFree does).

package soft

const defaultHeap = 8 << 20

const heapWhat = "device malloc"

// deviceMalloc allocates n bytes on the context's device heap; 0 when the
// heap is exhausted (or n is 0).
func (c *cta) deviceMalloc(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	ctx := c.l.ctx
	limit := uint64(c.l.d.opt.MallocHeapBytes)
	size := (n + 15) &^ 15
	ctx.mu.Lock()
	if ctx.heapUsed+size > limit || size < n {
		ctx.mu.Unlock()
		return 0
	}
	ctx.heapUsed += size
	ctx.mu.Unlock()
	a, err := c.l.d.allocate("malloc", ctx, n, heapWhat)
	if err != nil {
		ctx.mu.Lock()
		ctx.heapUsed -= size
		ctx.mu.Unlock()
		return 0
	}
	return a.base
}

// deviceFree frees a pointer deviceMalloc returned; "" or why it cannot.
func (c *cta) deviceFree(p uint64) string {
	if p == 0 {
		return ""
	}
	d := c.l.d
	d.mem.mu.RLock()
	a := d.mem.find(p)
	d.mem.mu.RUnlock()
	if a == nil || a.base != p || a.what != heapWhat {
		return sprintf("free of %#x, which malloc did not return", p)
	}
	ctx := a.ctx
	ctx.mu.Lock()
	if ctx.allocs[a.base] != a {
		ctx.mu.Unlock()
		return sprintf("free of %#x, which was already freed", p)
	}
	delete(ctx.allocs, a.base)
	ctx.heapUsed -= (a.size + 15) &^ 15
	ctx.mu.Unlock()
	d.mem.free(a)
	ctx.dev.release(a.size)
	return ""
}

// heapCall runs malloc and free for lane l; args reads the call's
// parameters and ret stores its return value.
func (c *cta) heapCall(w *warp, which int, l int, args func(i int, size uint64) (uint64, bool), ret func(v, size uint64) bool) bool {
	switch which {
	case biMalloc:
		n, ok := args(0, 8)
		return ok && ret(c.deviceMalloc(n), 8)
	case biFree:
		p, ok := args(0, 8)
		if !ok {
			return false
		}
		if msg := c.deviceFree(p); msg != "" {
			c.fault = &fault{kind: fInvalid, warp: w.id, lane: l, pc: c.pc, addr: p, space: spGlobal, msg: msg}
			return false
		}
		return true
	}
	return false
}
