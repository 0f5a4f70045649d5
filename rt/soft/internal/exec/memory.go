// Device memory: the address map and the allocations in it, shared by every
// context and device of a driver. The driver makes and frees allocations;
// the executor resolves the addresses a kernel uses (memaccess.go).

package exec

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// Address map. Device addresses are never host pointers: each device owns a
// 1 TiB range, managed variables live in a range of their own, and generic
// addresses of shared and local memory are windows that no allocation can
// overlap, so a generic ld/st can tell the spaces apart from the address.
const (
	ManagedBase = 0x6000_0000_0000
	GlobalBase  = 0x7000_0000_0000
	sharedWin   = 0x1000_0000_0000 // generic = sharedWin + shared offset
	localWin    = 0x2000_0000_0000 // generic = localWin + local offset
	paramWin    = 0x3000_0000_0000 // generic = paramWin + kernel parameter offset
	winSize     = 1 << 32
	AllocAlign  = 256 // cuMemAlloc's alignment guarantee
	AllocGuard  = 256 // unmapped gap after each allocation
)

// Alloc is one device allocation (cuMemAlloc, a module variable, a managed
// variable). Its backing store is []uint64, so every naturally aligned
// access is aligned for sync/atomic.
type Alloc struct {
	Base, Size uint64
	Dev        int
	Owner      Host   // the owning context, nil for managed memory (reachable from every context)
	ReadOnly   bool   // .const variables
	What       string // "cuMemAlloc", "variable x of lib.ptx"

	// The memory, until Memory.Free drops it (a launch on another
	// goroutine may be reading ptr then).
	ptr   atomic.Pointer[uint64] // &backing[0]
	freed atomic.Bool
}

// NewAlloc is a zeroed allocation of size bytes at device address base.
func NewAlloc(base, size uint64) *Alloc {
	n := (size + 7) / 8
	if n == 0 {
		n = 1
	}
	b := make([]uint64, n)
	a := &Alloc{Base: base, Size: size}
	a.ptr.Store(&b[0])
	return a
}

// Bytes is the allocation's memory as a byte slice (access it through
// devmem: kernels and other streams may be using it).
func (a *Alloc) Bytes() []byte { return unsafe.Slice((*byte)(unsafe.Pointer(a.ptr.Load())), a.Size) }

// Freed reports whether Memory.Free has freed a.
func (a *Alloc) Freed() bool { return a.freed.Load() }

// Memory indexes every live allocation of the process and the last
// KeepFreed freed ones (those keep their span, without backing, so that a
// use after free is reported precisely; addresses are never reused, so an
// older freed address is reported as out of bounds).
type Memory struct {
	mu    sync.RWMutex
	spans []*Alloc // sorted by base
	freed []*Alloc // the freed allocations in spans, oldest first
	// managedEnd is the end of the last managed allocation ever placed,
	// forgotten or not: where the next one may start.
	managedEnd uint64
}

// KeepFreed is how many freed allocations Memory remembers for its
// use-after-free reports: a bound, so that a long-running process's churn
// of allocations does not grow its heap.
const KeepFreed = 1024

func NewMemory() *Memory { return &Memory{} }

func (s *Memory) Insert(a *Alloc) {
	s.mu.Lock()
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].Base > a.Base })
	s.spans = append(s.spans, nil)
	copy(s.spans[i+1:], s.spans[i:])
	s.spans[i] = a
	s.mu.Unlock()
}

// InsertManaged places a managed variable of size bytes after the last
// managed allocation, live or freed, and inserts it. Choosing the address
// and inserting it is one critical section: two libraries placing their
// first managed variable at the same moment must not be given one address.
func (s *Memory) InsertManaged(size uint64, what string) *Alloc {
	s.mu.Lock()
	defer s.mu.Unlock()
	base := max(uint64(ManagedBase), s.managedEnd)
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].Base >= GlobalBase })
	if i > 0 && s.spans[i-1].Base >= ManagedBase {
		last := s.spans[i-1]
		base = max(base, last.Base+(last.Size+AllocAlign-1)/AllocAlign*AllocAlign+AllocGuard)
	}
	a := NewAlloc(base, size)
	a.What = what
	s.spans = slices.Insert(s.spans, i, a)
	s.managedEnd = base + (size+AllocAlign-1)/AllocAlign*AllocAlign + AllocGuard
	return a
}

// Spans is the number of allocations indexed, live and freed.
func (s *Memory) Spans() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.spans)
}

func (s *Memory) Free(a *Alloc) {
	s.mu.Lock()
	if !a.freed.Load() {
		s.freed = append(s.freed, a)
	}
	a.freed.Store(true)
	a.ptr.Store(nil)
	if len(s.freed) >= 2*KeepFreed {
		s.forget(len(s.freed) - KeepFreed)
	}
	s.mu.Unlock()
}

// forget drops the n oldest freed allocations from the index (amortised:
// Free calls it once per KeepFreed frees); s.mu must be held.
func (s *Memory) forget(n int) {
	gone := make(map[*Alloc]bool, n)
	for _, a := range s.freed[:n] {
		gone[a] = true
	}
	s.spans = slices.DeleteFunc(s.spans, func(a *Alloc) bool { return gone[a] })
	s.freed = append(s.freed[:0], s.freed[n:]...)
	clear(s.freed[len(s.freed):cap(s.freed)])
}

// Lookup returns the allocation whose span contains addr, live or freed,
// or nil.
func (s *Memory) Lookup(addr uint64) *Alloc {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.find(addr)
}

// find returns the allocation whose span contains addr (live or freed), or
// nil; s.mu must be held.
func (s *Memory) find(addr uint64) *Alloc {
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].Base > addr })
	if i == 0 {
		return nil
	}
	a := s.spans[i-1]
	if addr-a.Base < a.Size {
		return a
	}
	return nil
}

// Live returns the live allocation containing [addr, addr+n), or nil.
func (s *Memory) Live(addr, n uint64) *Alloc {
	s.mu.RLock()
	defer s.mu.RUnlock()
	a := s.find(addr)
	if a == nil || a.Freed() || addr+n > a.Base+a.Size || addr+n < addr {
		return nil
	}
	return a
}

// describe explains why [addr, addr+n) is not accessible, in
// compute-sanitizer's words.
func (s *Memory) describe(addr, n uint64) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if a := s.find(addr); a != nil {
		if a.Freed() {
			return fmt.Sprintf("address %#x is inside a %d-byte allocation at %#x (%s) that was freed", addr, a.Size, a.Base, a.What)
		}
		return fmt.Sprintf("access of %d bytes at %#x runs %d bytes past the end of the %d-byte allocation at %#x (%s)",
			n, addr, addr+n-(a.Base+a.Size), a.Size, a.Base, a.What)
	}
	// Nearest allocation, as compute-sanitizer prints it.
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].Base > addr })
	var best *Alloc
	var dist uint64
	if i > 0 {
		a := s.spans[i-1]
		best, dist = a, addr-(a.Base+a.Size)
	}
	if i < len(s.spans) {
		a := s.spans[i]
		if best == nil || a.Base-addr < dist {
			best = a
			return fmt.Sprintf("address %#x is out of bounds: %d bytes before the nearest allocation at %#x of size %d bytes (%s)",
				addr, a.Base-addr, a.Base, a.Size, a.What)
		}
	}
	if best != nil {
		state := ""
		if best.Freed() {
			state = ", freed"
		}
		return fmt.Sprintf("address %#x is out of bounds: %d bytes after the nearest allocation at %#x of size %d bytes (%s%s)",
			addr, dist, best.Base, best.Size, best.What, state)
	}
	return fmt.Sprintf("address %#x is not a device address", addr)
}

// Span is the bytes of [addr, addr+n) if they lie in one live allocation;
// op names the call that asks, in the error.
func (s *Memory) Span(op string, addr, n uint64) ([]byte, error) {
	a := s.Live(addr, n)
	if a == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidValue, "%s", s.describe(addr, n))
	}
	off := addr - a.Base
	return a.Bytes()[off : off+n : off+n], nil
}
