package soft

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// update32 applies fn with a CAS loop and returns the old value.
func update32(p *uint32, fn func(uint32) uint32) uint32 {
	for {
		o := atomic.LoadUint32(p)
		if atomic.CompareAndSwapUint32(p, o, fn(o)) {
			return o
		}
	}
}

func update64(p *uint64, fn func(uint64) uint64) uint64 {
	for {
		o := atomic.LoadUint64(p)
		if atomic.CompareAndSwapUint64(p, o, fn(o)) {
			return o
		}
	}
}

func atomic32(p *uint32, kind, cls int, v, cmp uint32) uint32 {
	switch cls {
	case acF32:
		switch kind {
		case atAdd:
			// atom.add.f32 rounds to nearest and flushes subnormals.
			return update32(p, func(o uint32) uint32 {
				return uint32(r32(ftz32(ftz32(math.Float32frombits(o)) + ftz32(math.Float32frombits(v)))))
			})
		case atMin:
			return update32(p, func(o uint32) uint32 {
				return uint32(r32(min32(math.Float32frombits(o), math.Float32frombits(v), false)))
			})
		case atMax:
			return update32(p, func(o uint32) uint32 {
				return uint32(r32(max32(math.Float32frombits(o), math.Float32frombits(v), false)))
			})
		}
	case acF16x2, acBF16x2:
		f := fmtF16
		if cls == acBF16x2 {
			f = fmtBF16
		}
		return update32(p, func(o uint32) uint32 {
			lo := halfAtomic(f, kind, uint64(o&0xffff), uint64(v&0xffff))
			hi := halfAtomic(f, kind, uint64(o>>16), uint64(v>>16))
			return uint32(pack16(lo, hi))
		})
	}
	signed := cls == acS32
	switch kind {
	case atAdd:
		return atomic.AddUint32(p, v) - v
	case atExch:
		return atomic.SwapUint32(p, v)
	case atCas:
		return update32(p, func(o uint32) uint32 {
			if o == v {
				return cmp
			}
			return o
		})
	case atAnd:
		return atomic.AndUint32(p, v)
	case atOr:
		return atomic.OrUint32(p, v)
	case atXor:
		return update32(p, func(o uint32) uint32 { return o ^ v })
	case atMin:
		return update32(p, func(o uint32) uint32 {
			if signed {
				return uint32(min(int32(o), int32(v)))
			}
			return min(o, v)
		})
	case atMax:
		return update32(p, func(o uint32) uint32 {
			if signed {
				return uint32(max(int32(o), int32(v)))
			}
			return max(o, v)
		})
	case atInc:
		return update32(p, func(o uint32) uint32 {
			if o >= v {
				return 0
			}
			return o + 1
		})
	case atDec:
		return update32(p, func(o uint32) uint32 {
			if o == 0 || o > v {
				return v
			}
			return o - 1
		})
	}
	return 0
}

func atomic64(p *uint64, kind, cls int, v, cmp uint64) uint64 {
	if cls == acF64 {
		switch kind {
		case atAdd:
			return update64(p, func(o uint64) uint64 { return r64(math.Float64frombits(o) + math.Float64frombits(v)) })
		case atMin:
			return update64(p, func(o uint64) uint64 {
				return r64(min64(math.Float64frombits(o), math.Float64frombits(v), false))
			})
		case atMax:
			return update64(p, func(o uint64) uint64 {
				return r64(max64(math.Float64frombits(o), math.Float64frombits(v), false))
			})
		}
	}
	signed := cls == acS64
	switch kind {
	case atAdd:
		return atomic.AddUint64(p, v) - v
	case atExch:
		return atomic.SwapUint64(p, v)
	case atCas:
		return update64(p, func(o uint64) uint64 {
			if o == v {
				return cmp
			}
			return o
		})
	case atAnd:
		return atomic.AndUint64(p, v)
	case atOr:
		return atomic.OrUint64(p, v)
	case atXor:
		return update64(p, func(o uint64) uint64 { return o ^ v })
	case atMin:
		return update64(p, func(o uint64) uint64 {
			if signed {
				return uint64(min(int64(o), int64(v)))
			}
			return min(o, v)
		})
	case atMax:
		return update64(p, func(o uint64) uint64 {
			if signed {
				return uint64(max(int64(o), int64(v)))
			}
			return max(o, v)
		})
	case atInc:
		return update64(p, func(o uint64) uint64 {
			if o >= v {
				return 0
			}
			return o + 1
		})
	case atDec:
		return update64(p, func(o uint64) uint64 {
			if o == 0 || o > v {
				return v
			}
			return o - 1
		})
	}
	return 0
}

func halfAtomic(f smallFmt, kind int, o, v uint64) uint64 {
	switch kind {
	case atAdd:
		return hadd(f, o, v, rnRN)
	case atMin:
		return hmin(f, o, v, false)
	case atMax:
		return hmax(f, o, v, false)
	}
	return o
}

// atomic16 updates a 16-bit value by CAS on its containing aligned word.
func atomic16(p unsafe.Pointer, kind, cls int, v, cmp uint16) uint16 {
	word := (*uint32)(unsafe.Pointer(uintptr(p) &^ 3))
	shift := (uintptr(p) & 2) * 8
	f := fmtF16
	if cls == acBF16 {
		f = fmtBF16
	}
	o := update32(word, func(o uint32) uint32 {
		old := uint64(o >> shift & 0xffff)
		var nv uint64
		switch {
		case kind == atCas:
			nv = old
			if old == uint64(v) {
				nv = uint64(cmp)
			}
		case kind == atExch:
			nv = uint64(v)
		default:
			nv = halfAtomic(f, kind, old, uint64(v))
		}
		return o&^(0xffff<<shift) | uint32(nv)<<shift
	})
	return uint16(o >> shift)
}

// Atomic operations (low nibble of opAtom's fl) and operand classes (fl>>4).
const (
	atAdd = iota
	atMin
	atMax
	atInc
	atDec
	atCas
	atExch
	atAnd
	atOr
	atXor
)

const (
	acU32 = iota
	acS32
	acU64
	acS64
	acF32
	acF64
	acF16
	acF16x2
	acBF16
	acBF16x2
	acB16
	acB128 // atom.cas/exch.b128 (b128.go)
)
