package fatbin

import (
	"errors"
	"fmt"
	"sync"
)

// DefaultBudget is the memory a run's decompressions may hold at once when
// the caller gives no Budget: one entry of MaxDataSize, or many smaller ones
// decoding in parallel. The process's peak is about twice that, as the
// garbage collector lets the heap double between collections.
const DefaultBudget = MaxDataSize

// ErrBudget is the cause reported when a decompressed size cannot fit in
// the run's memory budget.
var ErrBudget = errors.New("memory budget exceeded")

// A Budget bounds the bytes that decompression holds at once across every
// goroutine of one run: fatbin entries (LZ4, zstd) and SHF_COMPRESSED host
// ELF sections alike. Each decompression reserves its declared size before
// allocating anything. A size that can never fit is refused at once; one
// that does not fit now waits until other goroutines release what they
// hold, so the outcome does not depend on how many decode in parallel.
//
// A Budget is safe for concurrent use. The zero value is not usable: call
// NewBudget.
type Budget struct {
	mu     sync.Mutex
	freed  sync.Cond
	limit  int64
	used   int64 // bytes reserved, pinned or not
	pinned int64 // bytes reserved for the rest of the run (section data)
	peak   int64 // the most bytes reserved at once
}

// NewBudget returns a budget of limit bytes.
func NewBudget(limit int64) *Budget {
	b := &Budget{limit: max(limit, 0)}
	b.freed.L = &b.mu
	return b
}

// Limit is the budget's size in bytes.
func (b *Budget) Limit() int64 { return b.limit }

// InUse is the number of bytes reserved now.
func (b *Budget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Peak is the most bytes reserved at once so far.
func (b *Budget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// reserve takes n bytes from the budget for what (an entry or a section)
// whose size field is at offset off, waiting while goroutines that will
// give bytes back hold them. pin keeps the bytes for the rest of the run;
// otherwise the caller must call the returned release exactly once.
func (b *Budget) reserve(n uint64, what string, off int64, pin bool) (release func(), err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for uint64(b.limit-b.used) < n {
		if n > uint64(b.limit-b.pinned) {
			// Only pinned bytes are never given back: waiting cannot help.
			msg := fmt.Sprintf("%s: decompressed size %#x exceeds the memory budget of %#x bytes", what, n, b.limit)
			if b.pinned > 0 {
				msg += fmt.Sprintf(" (%#x held by sections decompressed before)", b.pinned)
			}
			return nil, &FormatError{Off: off, Msg: msg, Err: ErrBudget}
		}
		b.freed.Wait()
	}
	b.used += int64(n)
	b.peak = max(b.peak, b.used)
	if pin {
		b.pinned += int64(n)
		return func() {}, nil
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.used -= int64(n)
			b.mu.Unlock()
			b.freed.Broadcast()
		})
	}, nil
}
