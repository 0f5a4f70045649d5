package gpumath

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

func Atomic32(p *uint32, kind, cls int, v, cmp uint32) uint32 {
	switch cls {
	case AcF32:
		switch kind {
		case AtAdd:
			// atom.add.f32 rounds to nearest and flushes subnormals.
			return update32(p, func(o uint32) uint32 {
				return uint32(R32(Ftz32(Ftz32(math.Float32frombits(o)) + Ftz32(math.Float32frombits(v)))))
			})
		case AtMin:
			return update32(p, func(o uint32) uint32 {
				return uint32(R32(Min32(math.Float32frombits(o), math.Float32frombits(v), false)))
			})
		case AtMax:
			return update32(p, func(o uint32) uint32 {
				return uint32(R32(Max32(math.Float32frombits(o), math.Float32frombits(v), false)))
			})
		}
	case AcF16x2, AcBF16x2:
		f := F16
		if cls == AcBF16x2 {
			f = BF16
		}
		return update32(p, func(o uint32) uint32 {
			lo := halfAtomic(f, kind, uint64(o&0xffff), uint64(v&0xffff))
			hi := halfAtomic(f, kind, uint64(o>>16), uint64(v>>16))
			return uint32(Pack16(lo, hi))
		})
	}
	signed := cls == AcS32
	switch kind {
	case AtAdd:
		return atomic.AddUint32(p, v) - v
	case AtExch:
		return atomic.SwapUint32(p, v)
	case AtCas:
		return update32(p, func(o uint32) uint32 {
			if o == v {
				return cmp
			}
			return o
		})
	case AtAnd:
		return atomic.AndUint32(p, v)
	case AtOr:
		return atomic.OrUint32(p, v)
	case AtXor:
		return update32(p, func(o uint32) uint32 { return o ^ v })
	case AtMin:
		return update32(p, func(o uint32) uint32 {
			if signed {
				return uint32(min(int32(o), int32(v)))
			}
			return min(o, v)
		})
	case AtMax:
		return update32(p, func(o uint32) uint32 {
			if signed {
				return uint32(max(int32(o), int32(v)))
			}
			return max(o, v)
		})
	case AtInc:
		return update32(p, func(o uint32) uint32 {
			if o >= v {
				return 0
			}
			return o + 1
		})
	case AtDec:
		return update32(p, func(o uint32) uint32 {
			if o == 0 || o > v {
				return v
			}
			return o - 1
		})
	}
	return 0
}

func Atomic64(p *uint64, kind, cls int, v, cmp uint64) uint64 {
	if cls == AcF64 {
		switch kind {
		case AtAdd:
			return update64(p, func(o uint64) uint64 { return R64(math.Float64frombits(o) + math.Float64frombits(v)) })
		case AtMin:
			return update64(p, func(o uint64) uint64 {
				return R64(Min64(math.Float64frombits(o), math.Float64frombits(v), false))
			})
		case AtMax:
			return update64(p, func(o uint64) uint64 {
				return R64(Max64(math.Float64frombits(o), math.Float64frombits(v), false))
			})
		}
	}
	signed := cls == AcS64
	switch kind {
	case AtAdd:
		return atomic.AddUint64(p, v) - v
	case AtExch:
		return atomic.SwapUint64(p, v)
	case AtCas:
		return update64(p, func(o uint64) uint64 {
			if o == v {
				return cmp
			}
			return o
		})
	case AtAnd:
		return atomic.AndUint64(p, v)
	case AtOr:
		return atomic.OrUint64(p, v)
	case AtXor:
		return update64(p, func(o uint64) uint64 { return o ^ v })
	case AtMin:
		return update64(p, func(o uint64) uint64 {
			if signed {
				return uint64(min(int64(o), int64(v)))
			}
			return min(o, v)
		})
	case AtMax:
		return update64(p, func(o uint64) uint64 {
			if signed {
				return uint64(max(int64(o), int64(v)))
			}
			return max(o, v)
		})
	case AtInc:
		return update64(p, func(o uint64) uint64 {
			if o >= v {
				return 0
			}
			return o + 1
		})
	case AtDec:
		return update64(p, func(o uint64) uint64 {
			if o == 0 || o > v {
				return v
			}
			return o - 1
		})
	}
	return 0
}

func halfAtomic(f SmallFmt, kind int, o, v uint64) uint64 {
	switch kind {
	case AtAdd:
		return Hadd(f, o, v, RN)
	case AtMin:
		return Hmin(f, o, v, false)
	case AtMax:
		return Hmax(f, o, v, false)
	}
	return o
}

// Atomic16 updates a 16-bit value by CAS on its containing aligned word.
func Atomic16(p unsafe.Pointer, kind, cls int, v, cmp uint16) uint16 {
	word := (*uint32)(unsafe.Pointer(uintptr(p) &^ 3))
	shift := (uintptr(p) & 2) * 8
	f := F16
	if cls == AcBF16 {
		f = BF16
	}
	o := update32(word, func(o uint32) uint32 {
		old := uint64(o >> shift & 0xffff)
		var nv uint64
		switch {
		case kind == AtCas:
			nv = old
			if old == uint64(v) {
				nv = uint64(cmp)
			}
		case kind == AtExch:
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
	AtAdd = iota
	AtMin
	AtMax
	AtInc
	AtDec
	AtCas
	AtExch
	AtAnd
	AtOr
	AtXor
)

const (
	AcU32 = iota
	AcS32
	AcU64
	AcS64
	AcF32
	AcF64
	AcF16
	AcF16x2
	AcBF16
	AcBF16x2
	AcB16
	AcB128 // atom.cas/exch.b128 (b128.go)
)
