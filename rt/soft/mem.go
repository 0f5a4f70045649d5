package soft

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// Address map. Device addresses are never host pointers: each device owns a
// 1 TiB range, managed variables live in a range of their own, and generic
// addresses of shared and local memory are windows that no allocation can
// overlap, so a generic ld/st can tell the spaces apart from the address.
const (
	managedBase = 0x6000_0000_0000
	globalBase  = 0x7000_0000_0000
	sharedWin   = 0x1000_0000_0000 // generic = sharedWin + shared offset
	localWin    = 0x2000_0000_0000 // generic = localWin + local offset
	paramWin    = 0x3000_0000_0000 // generic = paramWin + kernel parameter offset
	winSize     = 1 << 32
	allocAlign  = 256 // cuMemAlloc's alignment guarantee
	allocGuard  = 256 // unmapped gap after each allocation
)

func devBase(dev int) uint64 { return globalBase + uint64(dev)<<40 }

// alloc is one device allocation (cuMemAlloc, a module variable, a managed
// variable). Its backing store is []uint64, so every naturally aligned
// access is aligned for sync/atomic.
type alloc struct {
	base, size uint64
	ptr        unsafe.Pointer // &backing[0]
	backing    []uint64
	dev        int
	ctx        *context // nil for managed memory, reachable from every context
	readOnly   bool     // .const variables
	what       string   // "cuMemAlloc", "variable x of lib.ptx"
	freed      bool     // guarded by addrSpace.mu
}

func newAlloc(base, size uint64) *alloc {
	n := (size + 7) / 8
	if n == 0 {
		n = 1
	}
	b := make([]uint64, n)
	return &alloc{base: base, size: size, backing: b, ptr: unsafe.Pointer(&b[0])}
}

// bytes is the allocation's memory as a byte slice.
func (a *alloc) bytes() []byte { return unsafe.Slice((*byte)(a.ptr), a.size) }

// addrSpace indexes every allocation of the process, live and freed (freed
// ones keep their span, without backing, so use-after-free is reported
// precisely; addresses are never reused).
type addrSpace struct {
	mu    sync.RWMutex
	spans []*alloc // sorted by base
}

func newAddrSpace() *addrSpace { return &addrSpace{} }

func (s *addrSpace) insert(a *alloc) {
	s.mu.Lock()
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].base > a.base })
	s.spans = append(s.spans, nil)
	copy(s.spans[i+1:], s.spans[i:])
	s.spans[i] = a
	s.mu.Unlock()
}

// insertManaged places a managed variable of size bytes after the last
// managed allocation, live or freed, and inserts it. Choosing the address
// and inserting it is one critical section: two libraries placing their
// first managed variable at the same moment must not be given one address.
func (s *addrSpace) insertManaged(size uint64, what string) *alloc {
	s.mu.Lock()
	defer s.mu.Unlock()
	base := uint64(managedBase)
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].base >= globalBase })
	if i > 0 && s.spans[i-1].base >= managedBase {
		last := s.spans[i-1]
		base = last.base + (last.size+allocAlign-1)/allocAlign*allocAlign + allocGuard
	}
	a := newAlloc(base, size)
	a.what = what
	s.spans = slices.Insert(s.spans, i, a)
	return a
}

func (s *addrSpace) free(a *alloc) {
	s.mu.Lock()
	a.freed = true
	a.backing, a.ptr = nil, nil
	s.mu.Unlock()
}

// find returns the allocation whose span contains addr (live or freed), or
// nil; s.mu must be held.
func (s *addrSpace) find(addr uint64) *alloc {
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].base > addr })
	if i == 0 {
		return nil
	}
	a := s.spans[i-1]
	if addr-a.base < a.size {
		return a
	}
	return nil
}

// live returns the live allocation containing [addr, addr+n), or nil.
func (s *addrSpace) live(addr, n uint64) *alloc {
	s.mu.RLock()
	defer s.mu.RUnlock()
	a := s.find(addr)
	if a == nil || a.freed || addr+n > a.base+a.size || addr+n < addr {
		return nil
	}
	return a
}

// describe explains why [addr, addr+n) is not accessible, in
// compute-sanitizer's words.
func (s *addrSpace) describe(addr, n uint64) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if a := s.find(addr); a != nil {
		if a.freed {
			return fmt.Sprintf("address %#x is inside a %d-byte allocation at %#x (%s) that was freed", addr, a.size, a.base, a.what)
		}
		return fmt.Sprintf("access of %d bytes at %#x runs %d bytes past the end of the %d-byte allocation at %#x (%s)",
			n, addr, addr+n-(a.base+a.size), a.size, a.base, a.what)
	}
	// Nearest allocation, as compute-sanitizer prints it.
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].base > addr })
	var best *alloc
	var dist uint64
	if i > 0 {
		a := s.spans[i-1]
		best, dist = a, addr-(a.base+a.size)
	}
	if i < len(s.spans) {
		a := s.spans[i]
		if best == nil || a.base-addr < dist {
			best = a
			return fmt.Sprintf("address %#x is out of bounds: %d bytes before the nearest allocation at %#x of size %d bytes (%s)",
				addr, a.base-addr, a.base, a.size, a.what)
		}
	}
	if best != nil {
		state := ""
		if best.freed {
			state = ", freed"
		}
		return fmt.Sprintf("address %#x is out of bounds: %d bytes after the nearest allocation at %#x of size %d bytes (%s%s)",
			addr, dist, best.base, best.size, best.what, state)
	}
	return fmt.Sprintf("address %#x is not a device address", addr)
}

// reserve takes size bytes of the device's address range.
func (dv *device) reserve(size uint64) (uint64, bool) {
	dv.mu.Lock()
	defer dv.mu.Unlock()
	if dv.used+size > dv.limit || size > dv.limit {
		return 0, false
	}
	base := dv.next
	dv.next += (size+allocAlign-1)/allocAlign*allocAlign + allocGuard
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
func (d *Driver) allocate(op string, c *context, size uint64, what string) (*alloc, error) {
	base, ok := c.dev.reserve(size)
	if !ok {
		return nil, rt.Errorf(op, rt.ErrOutOfMemory, "%d bytes requested on device %d (%d of %d bytes in use)", size, c.dev.ord, c.dev.used, c.dev.limit)
	}
	if err := hostFits(op, size); err != nil {
		c.dev.release(size)
		return nil, err
	}
	a := newAlloc(base, size)
	a.dev, a.ctx, a.what = c.dev.ord, c, what
	c.mu.Lock()
	if c.destroyed {
		c.mu.Unlock()
		c.dev.release(size)
		return nil, rt.Errorf(op, rt.ErrInvalidContext, "context was destroyed")
	}
	c.allocs[base] = a
	c.mu.Unlock()
	d.mem.insert(a)
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
	return rt.DevPtr(a.base), nil
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
	d.mem.mu.RLock()
	a := d.mem.find(uint64(p))
	d.mem.mu.RUnlock()
	if a == nil || a.base != uint64(p) || a.what != "cuMemAlloc" && a.what != "cuMemAllocAsync" {
		return rt.Errorf(op, rt.ErrInvalidValue, "%#x is not the start of a cuMemAlloc allocation", uint64(p))
	}
	owner := a.ctx
	owner.mu.Lock()
	if owner.allocs[a.base] != a {
		owner.mu.Unlock()
		return rt.Errorf(op, rt.ErrInvalidValue, "%#x was already freed", uint64(p))
	}
	delete(owner.allocs, a.base)
	owner.mu.Unlock()
	d.mem.free(a)
	owner.dev.release(a.size)
	d.poolFreed(a.base, a.size)
	return nil
}

// span checks that [p, p+n) lies in one live allocation and returns its bytes.
func (d *Driver) span(op string, p rt.DevPtr, n uint64) ([]byte, error) {
	a := d.mem.live(uint64(p), n)
	if a == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidValue, "%s", d.mem.describe(uint64(p), n))
	}
	off := uint64(p) - a.base
	return a.bytes()[off : off+n : off+n], nil
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
	// The pointers are checked when the copy runs, as the memory may be
	// allocated by work queued before it; errors of a synchronous copy are
	// its own, not asynchronous ones.
	var own error
	o, err := d.submit(op, s, &snode{typ: m.typ}, func() error {
		own = fn()
		return own
	})
	if err != nil || o == nil { // failed, or captured
		return err
	}
	if async {
		d.copied(op, s, m)
		if m.toHost && !d.isPinned(m.host, m.hostLen) {
			<-o.done
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
		copy(b, unsafe.Slice((*byte)(src), n))
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
		copy(unsafe.Slice((*byte)(dst), n), b)
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
		copy(to, from)
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
		for i := range b {
			b[i] = v
		}
		return nil
	})
}
