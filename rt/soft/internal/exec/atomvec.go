// Vector atomics (sm_90): atom/red .v2/.v4 on f32 and .v2/.v4/.v8 on
// packed halves. Each element is updated atomically on its own, which is
// what the PTX ISA promises ("the vector operation is performed as
// individual scalar atomic operations").

package exec

import (
	"math/bits"
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// atomVec decodes a vector atomic: e elements, destinations (atom) then
// sources in vec at aux.
func (dc *decoder) atomVec(in *ptx.Instr, sc *scope, m modset, x inst, kind, cls, n, space int, red bool) {
	ops := in.Operands
	t := m.typ()
	i := 0
	if !red {
		i = 1
	}
	if len(ops) != i+2 {
		dc.failIn(in, "wrong number of operands")
	}
	var dst []uint32
	if !red {
		dst = dc.vecRegs(in, sc, ops[0], t, true)
	} else {
		dst = make([]uint32, n)
	}
	src := dc.vecRegs(in, sc, ops[i+1], t, false)
	if len(dst) != n || len(src) != n {
		dc.failIn(in, "expected %d values", n)
	}
	var sp int
	x.op, x.fl, x.e = opAtom, uint16(kind|cls<<4), uint32(n)
	x.a, x.imm, sp = dc.memAddr(in, sc, ops[i], space)
	x.aux2 = int32(sp)
	x.aux = dc.vecIndex(append(dst, src...))
	dc.emit(in, x)
}

func (c *cta) atomVec(w *warp, in *inst, m uint32) bool {
	kind, cls := int(in.fl&15), int(in.fl>>4)
	size := atomSize[cls]
	n := uint64(in.e)
	regs := c.p.vec[in.aux : in.aux+2*int32(in.e)]
	base := lanes(w.r, in.a)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		p := c.ptr(w, int(in.aux2), base[l]+uint64(in.imm), size*n, true, l)
		if p == nil {
			return false
		}
		for i := uint64(0); i < n; i++ {
			q := unsafe.Add(p, i*size)
			v := w.r[regs[n+i]+uint32(l)]
			var old uint64
			switch size {
			case 4:
				old = uint64(gpumath.Atomic32((*uint32)(q), kind, cls, uint32(v), 0))
			default:
				old = uint64(gpumath.Atomic16(q, kind, cls, uint16(v), 0))
			}
			w.r[regs[i]+uint32(l)] = old
		}
	}
	return true
}
