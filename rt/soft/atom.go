package soft

import (
	"math/bits"
)

var atomSize = [...]uint64{acU32: 4, acS32: 4, acU64: 8, acS64: 8, acF32: 4, acF64: 8, acF16: 2,
	acF16x2: 4, acBF16: 2, acBF16x2: 4, acB16: 2, acB128: 16}

// atom runs an atomic (or reduction) for each lane of m, in lane order, on
// global or shared memory through sync/atomic, so concurrent CTAs on other
// workers see a consistent order.
func (c *cta) atom(w *warp, in *inst, m uint32) bool {
	if in.e > 1 {
		return c.atomVec(w, in, m)
	}
	kind, cls := int(in.fl&15), int(in.fl>>4)
	if cls == acB128 {
		return c.atom128(w, in, m)
	}
	size := atomSize[cls]
	r := w.r
	base, b, cv, d := lanes(r, in.a), lanes(r, in.b), lanes(r, in.c), lanes(r, in.d)
	space := int(in.aux2)
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
			old = uint64(atomic32((*uint32)(p), kind, cls, uint32(v), uint32(cv[l])))
		case 8:
			old = atomic64((*uint64)(p), kind, cls, v, cv[l])
		default:
			old = uint64(atomic16(p, kind, cls, uint16(v), uint16(cv[l])))
		}
		d[l] = old
	}
	return true
}
