// Device memory: the address map and the allocations in it, shared by every
// context and device of a driver. The driver makes and frees allocations;
// the executor resolves the addresses a kernel uses (memaccess.go).

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

// alloc is one device allocation (cuMemAlloc, a module variable, a managed
// variable). Its backing store is []uint64, so every naturally aligned
// access is aligned for sync/atomic.
type alloc struct {
	base, size uint64
	ptr        unsafe.Pointer // &backing[0]
	backing    []uint64
	dev        int
	owner      Host   // the owning context, nil for managed memory (reachable from every context)
	readOnly   bool   // .const variables
	what       string // "cuMemAlloc", "variable x of lib.ptx"
	freed      bool   // guarded by addrSpace.mu
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

// lookup returns the allocation whose span contains addr, live or freed,
// or nil.
func (s *addrSpace) lookup(addr uint64) *alloc {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.find(addr)
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

// span is the bytes of [addr, addr+n) if they lie in one live allocation;
// op names the call that asks, in the error.
func (s *addrSpace) span(op string, addr, n uint64) ([]byte, error) {
	a := s.live(addr, n)
	if a == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidValue, "%s", s.describe(addr, n))
	}
	off := addr - a.base
	return a.bytes()[off : off+n : off+n], nil
}
