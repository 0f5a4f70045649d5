// 128-bit values (.b128, PTX ISA 8.3): a .b128 register is two
// consecutive 64-bit slots, the low half first, so that the executor needs
// nothing new for moving or storing one. The forms PTX has for them:
//
//	mov.b128 d, {lo, hi}     two 64-bit moves (pack)
//	mov.b128 {lo, hi}, a     … (unpack)
//	mov.b128 d, a
//	ld/ldu/st.b128           a 16-byte access of two 64-bit elements
//	                         (.v2.b64's code: 16-byte aligned, or it faults)
//	atom.cas.b128 / atom.exch.b128 (sm_90): opAtom with class acB128, run
//	                         under a lock striped by address (atom128)
//
// Any other instruction naming a .b128 register is refused: PTX has none.

package exec

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

func (dc *decoder) failB128(in *ptx.Instr, name string) {
	dc.failIn(in, "%s is a .b128 register: only mov, ld, st and atom.cas/atom.exch take .b128 operands", name)
}

// wideReg is the low slot of a .b128 register operand (the high one
// follows at +32); a destination "_" is the junk slot pair.
func (dc *decoder) wideReg(in *ptx.Instr, sc *scope, o ptx.Operand, dest bool) uint32 {
	r, ok := o.(*ptx.Reg)
	if !ok || r.Not {
		dc.failIn(in, "a .b128 operand must be a .b128 register")
	}
	if r.Name == "_" {
		if !dest {
			dc.failIn(in, "a .b128 operand must be a .b128 register")
		}
		return dc.junk128()
	}
	s := dc.resolve(sc, r.Name, r.Pos)
	if s.kind != skReg || s.typ != ptx.B128 {
		dc.failIn(in, "%s is not a .b128 register", r.Name)
	}
	return s.slot
}

// junk128 is a pair of slots that a sink "_" destination writes.
func (dc *decoder) junk128() uint32 {
	s := dc.newSlot()
	dc.newSlot()
	return s
}

// movB128 decodes mov.b128: pack, unpack or a register copy.
func (dc *decoder) movB128(in *ptx.Instr, sc *scope, x inst) {
	ops := in.Operands
	pair := func(o ptx.Operand, dest bool) []uint32 {
		v := o.(*ptx.Vec)
		if len(v.Elems) != 2 {
			dc.failIn(in, "mov.b128 packs or unpacks two .b64 or four .b32 values, not %d", len(v.Elems))
		}
		var r []uint32
		for _, e := range v.Elems {
			if t := dc.regType(sc, e); t != ptx.TypeNone && t.Size() != 8 {
				dc.failIn(in, "mov.b128 packs or unpacks .b64 values, not .%s", t)
			}
			if dest {
				r = append(r, dc.dst(in, sc, e))
			} else {
				r = append(r, dc.src(in, sc, e, ptx.B64))
			}
		}
		return r
	}
	var d, a [2]uint32
	pv, packs := ops[1].(*ptx.Vec)
	uv, unpacks := ops[0].(*ptx.Vec)
	// four .b32 values: each 64-bit half packs or unpacks two of them
	quad := func(v *ptx.Vec) {
		for _, e := range v.Elems {
			if t := dc.regType(sc, e); t != ptx.TypeNone && t.Size() != 4 {
				dc.failIn(in, "mov.b128 packs or unpacks four .b32 values, not .%s", t)
			}
		}
	}
	if packs && !unpacks && len(pv.Elems) == 4 {
		quad(pv)
		lo := dc.wideReg(in, sc, ops[0], true)
		for h := 0; h < 2; h++ {
			half := &ptx.Vec{Elems: pv.Elems[2*h : 2*h+2]}
			regs := dc.vecRegs(in, sc, half, ptx.B32, false)
			x.op, x.d, x.aux, x.e, x.fl = opPack, lo+uint32(32*h), dc.vecIndex(regs), 2, 32
			dc.emit(in, x)
		}
		return
	}
	if unpacks && !packs && len(uv.Elems) == 4 {
		quad(uv)
		lo := dc.wideReg(in, sc, ops[1], false)
		for h := 0; h < 2; h++ {
			half := &ptx.Vec{Elems: uv.Elems[2*h : 2*h+2]}
			regs := dc.vecRegs(in, sc, half, ptx.B32, true)
			x.op, x.a, x.aux, x.e, x.fl = opUnpack, lo+uint32(32*h), dc.vecIndex(regs), 2, 32
			dc.emit(in, x)
		}
		return
	}
	switch {
	case packs && unpacks:
		dc.failIn(in, "mov.b128 with two vector operands")
	case packs:
		copy(a[:], pair(ops[1], false))
		lo := dc.wideReg(in, sc, ops[0], true)
		d = [2]uint32{lo, lo + 32}
	case unpacks:
		copy(d[:], pair(ops[0], true))
		lo := dc.wideReg(in, sc, ops[1], false)
		a = [2]uint32{lo, lo + 32}
	default:
		dlo, alo := dc.wideReg(in, sc, ops[0], true), dc.wideReg(in, sc, ops[1], false)
		d, a = [2]uint32{dlo, dlo + 32}, [2]uint32{alo, alo + 32}
	}
	for i := range d {
		x.op, x.d, x.a = opMov, d[i], a[i]
		dc.emit(in, x)
	}
}

// b128Regs lists the slots of ld/st.b128's value operand: the low and high
// halves of its .b128 register, for an access of two 64-bit elements.
func (dc *decoder) b128Regs(in *ptx.Instr, sc *scope, o ptx.Operand, load bool, n int) []uint32 {
	if n != 1 {
		dc.failIn(in, "vectors of .b128 are not supported")
	}
	if v, ok := o.(*ptx.Vec); ok {
		dc.failIn(in, "expected one .b128 register, got %d values", len(v.Elems))
	}
	lo := dc.wideReg(in, sc, o, load)
	return []uint32{lo, lo + 32}
}

// atomB128 decodes atom.cas.b128 d, [a], b, c and atom.exch.b128 d, [a], b.
func (dc *decoder) atomB128(in *ptx.Instr, sc *scope, m modset, x inst, kind, vec int, red bool) {
	if red || kind != gpumath.AtCas && kind != gpumath.AtExch {
		dc.failIn(in, ".b128 atomics are atom.cas and atom.exch only")
	}
	if vec > 1 {
		dc.failIn(in, "vectors of .b128 are not supported")
	}
	space, _ := spaceOf(m)
	if space < 0 || space == spLocal || space == spConst {
		dc.failIn(in, "atomics on this state space are not supported")
	}
	ops := in.Operands
	if kind == gpumath.AtCas {
		dc.nops(in, 4)
	} else {
		dc.nops(in, 3, 4) // exch may name a cache policy
	}
	x.op, x.fl = opAtom, uint16(kind|gpumath.AcB128<<4)
	x.d = dc.wideReg(in, sc, ops[0], true)
	var sp int
	x.a, x.imm, sp = dc.memAddr(in, sc, ops[1], space)
	x.aux2 = int32(sp)
	x.b = dc.wideReg(in, sc, ops[2], false)
	if kind == gpumath.AtCas {
		x.c = dc.wideReg(in, sc, ops[3], false)
	}
	dc.emit(in, x)
}

// b128Locks serialise the 16-byte atomics (Go has no 128-bit
// compare-and-swap); each halves' loads and stores are atomic too, so
// 64-bit atomics and volatile loads see whole halves.
var b128Locks [64]sync.Mutex

// atom128 runs atom.cas/exch.b128 for the lanes of m, in lane order.
func (c *cta) atom128(w *warp, in *inst, m uint32) bool {
	kind := int(in.fl & 15)
	r := w.r
	base := lanes(r, in.a)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := uint32(bits.TrailingZeros32(mm) & 31)
		p := c.ptr(w, int(in.aux2), base[l]+uint64(in.imm), 16, true, int(l))
		if p == nil {
			return false
		}
		lo, hi := (*uint64)(p), (*uint64)(unsafe.Add(p, 8))
		bl, bh := r[in.b+l], r[in.b+32+l]
		mu := &b128Locks[(uintptr(p)>>4)%uintptr(len(b128Locks))]
		mu.Lock()
		ol, oh := atomic.LoadUint64(lo), atomic.LoadUint64(hi)
		if kind == gpumath.AtExch || ol == bl && oh == bh {
			nl, nh := bl, bh
			if kind == gpumath.AtCas {
				nl, nh = r[in.c+l], r[in.c+32+l]
			}
			atomic.StoreUint64(lo, nl)
			atomic.StoreUint64(hi, nh)
		}
		mu.Unlock()
		r[in.d+l], r[in.d+32+l] = ol, oh
	}
	return true
}
