package exec

import (
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

var atomSize = [...]uint64{gpumath.AcU32: 4, gpumath.AcS32: 4, gpumath.AcU64: 8, gpumath.AcS64: 8, gpumath.AcF32: 4, gpumath.AcF64: 8, gpumath.AcF16: 2,
	gpumath.AcF16x2: 4, gpumath.AcBF16: 2, gpumath.AcBF16x2: 4, gpumath.AcB16: 2, gpumath.AcB128: 16}

// atom runs an atomic (or reduction) for each lane of m, in lane order, on
// global or shared memory through sync/atomic, so concurrent CTAs on other
// workers see a consistent order.
func (c *cta) atom(w *warp, in *inst, m uint32) bool {
	if in.e > 1 {
		return c.atomVec(w, in, m)
	}
	kind, cls := int(in.fl&15), int(in.fl>>4)
	if cls == gpumath.AcB128 {
		return c.atom128(w, in, m)
	}
	size := atomSize[cls]
	r := w.r
	base, b, cv, d := lanes(r, in.a), lanes(r, in.b), lanes(r, in.c), lanes(r, in.d)
	space := int(in.aux2)
	if space == spShared && size == 4 && kind == gpumath.AtAdd && (cls == gpumath.AcU32 || cls == gpumath.AcS32) {
		// The CTA's own shared memory is only ever touched by the worker
		// running the CTA: an integer add needs no atomic instruction.
		// From the first lane outside it on, the general loop goes on.
		// (Operands in locals: the stores through p could alias in and c
		// as far as the compiler knows, which would reload them per lane.)
		if sh, n, imm := c.shPtr, c.shLen, uint64(in.imm); n >= 4 {
			lim := n - 4
			for ; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m) & 31
				addr := base[l] + imm
				if addr > lim || addr&3 != 0 {
					break
				}
				p := (*uint32)(unsafe.Add(sh, addr))
				old := *p
				*p = old + uint32(b[l])
				d[l] = uint64(old)
			}
		}
	}
	if space == spGlobal && size == 4 && kind == gpumath.AtAdd && (cls == gpumath.AcU32 || cls == gpumath.AcS32) {
		// In the instruction's cached allocation (as ldG32's accesses):
		// one test a lane, and the add itself, as gpumath.Atomic32 does
		// it. From the first lane outside it on, the general loop goes on.
		if e := &c.gc[c.pc]; e.n >= 4 && e.n <= maxRotN && !e.ro {
			k, q, p := uint64(in.imm)-e.lo, (e.n-4)>>2, e.ptr
			for ; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m) & 31
				off := base[l] + k
				if !inWord(off, q) {
					break
				}
				v := uint32(b[l])
				d[l] = uint64(atomic.AddUint32((*uint32)(unsafe.Add(p, off)), v) - v)
			}
		}
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		addr := base[l] + uint64(in.imm)
		p := c.ptr(w, space, addr, size, true, l)
		if p == nil {
			return false
		}
		v := b[l]
		var old uint64
		switch size {
		case 4:
			old = uint64(gpumath.Atomic32((*uint32)(p), kind, cls, uint32(v), uint32(cv[l])))
		case 8:
			old = gpumath.Atomic64((*uint64)(p), kind, cls, v, cv[l])
		default:
			old = uint64(gpumath.Atomic16(p, kind, cls, uint16(v), uint16(cv[l])))
		}
		d[l] = old
	}
	return true
}
