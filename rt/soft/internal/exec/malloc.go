// Device-side malloc and free (and so new and delete, which call them, and
// the device runtime's cudaMalloc and cudaFree): each allocation is an
// allocation of its own, owned by the launch's context, so that an access
// past its end, after its free, or a free of something else is reported
// precisely. As in CUDA the heap is bounded per context
// (Options.MallocHeapBytes, cudaLimitMallocHeapSize's 8 MiB by default): a
// malloc that does not fit returns NULL. Memory a kernel mallocs outlives
// the launch until a kernel frees it or the context is destroyed; the host
// cannot free it (cuMemFree refuses it, as cudaFree does).

package exec

const heapWhat = "device malloc"

// deviceMalloc allocates n bytes on the context's device heap; 0 when the
// heap is exhausted (or n is 0).
func (c *cta) deviceMalloc(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	rt := c.l.Host.Runtime()
	limit := uint64(c.l.Config.MallocHeapBytes)
	size := (n + 15) &^ 15
	rt.mu.Lock()
	if rt.heapUsed+size > limit || size < n {
		rt.mu.Unlock()
		return 0
	}
	rt.heapUsed += size
	rt.mu.Unlock()
	a, err := c.l.Host.Alloc("malloc", n, heapWhat)
	if err != nil {
		rt.mu.Lock()
		rt.heapUsed -= size
		rt.mu.Unlock()
		return 0
	}
	return a.Base
}

func (c *cta) deviceFree(p uint64) string {
	if p == 0 {
		return ""
	}
	mem := c.l.Mem
	a := mem.Lookup(p)
	if a == nil || a.Base != p || a.What != heapWhat {
		return sprintf("free of %#x, which malloc did not return", p)
	}
	// The owner's: a pointer may come from another context's kernel.
	if !a.Owner.Free(a) {
		return sprintf("free of %#x, which was already freed", p)
	}
	rt := a.Owner.Runtime()
	rt.mu.Lock()
	rt.heapUsed -= (a.Size + 15) &^ 15
	rt.mu.Unlock()
	return ""
}

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
