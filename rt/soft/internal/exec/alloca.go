// Dynamic stack allocation (alloca, stacksave, stackrestore; PTX ISA 7.3):
// the static frames of call.go are laid out at load, so the memory alloca
// returns comes from a second, per-lane stack of the warp's (dyn) that
// local addresses reach from dynBase on. Each lane's dynamic stack pointer
// (dsp) is an offset into it; call saves it in the frame and ret restores
// it, so what a function allocated is released when it returns, as in C.
// The thread's static frame plus its dynamic stack is bounded by
// Options.StackBytes: an alloca beyond it is a stack-overflow fault.
//
// Local addresses below dynBase are the static frames (memaccess.go checks
// them first, so a kernel without alloca does not pay for this).

package exec

import (
	"math/bits"
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
)

// dynBase is the local address of the first byte of a lane's dynamic stack.
// It fits a 32-bit local pointer (alloca.u32).
const dynBase = 0x8000_0000

// opStack's kinds (inst.fl).
const (
	skAlloca = iota
	skSave
	skRestore
)

// stackInstr decodes alloca.{u32,u64} ptr, size{, align},
// stacksave.{u32,u64} d and stackrestore.{u32,u64} a.
func (dc *decoder) stackInstr(in *ptx.Instr, sc *scope, m modset, x inst) {
	t := m.typ()
	if len(m.types) != 1 || (t != ptx.U32 && t != ptx.U64) || len(m.flags) != 0 {
		dc.failIn(in, "%s needs exactly one type, .u32 or .u64", in.Op)
	}
	x.op, x.imm = opStack, int64(dc.fi.frame)
	x.e = uint32(t.Size())
	switch in.Op {
	case "alloca":
		dc.nops(in, 2, 3)
		x.fl = skAlloca
		x.aux = 8 // the minimum guaranteed alignment
		if len(in.Operands) == 3 {
			a, ok := in.Operands[2].(*ptx.Imm)
			if !ok || a.Val == 0 || a.Val&(a.Val-1) != 0 || a.Val > 1<<23 {
				dc.failIn(in, "alloca's alignment must be a constant power of 2 no larger than 2^23")
			}
			x.aux = int32(max(a.Val, 8))
		}
		x.a = dc.src(in, sc, in.Operands[1], t)
		x.d = dc.dst(in, sc, in.Operands[0])
	case "stacksave":
		dc.nops(in, 1)
		x.fl = skSave
		x.d = dc.dst(in, sc, in.Operands[0])
	case "stackrestore":
		dc.nops(in, 1)
		x.fl = skRestore
		x.a = dc.src(in, sc, in.Operands[0], t)
	}
	dc.p.usesAlloca = true
	dc.emit(in, x)
}

// stackOp runs an opStack instruction for the lanes of m.
func (c *cta) stackOp(w *warp, in *inst, m uint32) bool {
	r := w.r
	fb := lanes(r, fbSlot)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		switch in.fl {
		case skAlloca:
			size := lanes(r, in.a)[l]
			if in.e == 4 {
				size = uint64(uint32(size))
			}
			al := uint64(in.aux)
			p := (w.dsp[l] + al - 1) &^ (al - 1)
			static := fb[l] + uint64(in.imm)
			limit := uint64(c.l.Config.StackBytes)
			if size > limit || p+size > limit || static+p+size > limit || p+size > winSize-dynBase {
				c.fault = &fault{kind: fStack, warp: w.id, lane: l, pc: c.pc,
					msg: sprintf("stack overflow: alloca of %d bytes needs %d bytes of dynamic stack above %d bytes of frames, the limit is %d (soft.Options.StackBytes)", size, p+size, static, limit)}
				return false
			}
			if p+size > w.dstride {
				c.growDyn(w, p+size)
			}
			w.dsp[l] = p + size
			lanes(r, in.d)[l] = dynBase + p
		case skSave:
			lanes(r, in.d)[l] = dynBase + w.dsp[l]
		case skRestore:
			a := lanes(r, in.a)[l]
			if in.e == 4 {
				a = uint64(uint32(a))
			}
			var entry uint64
			if fs := w.frames[l]; len(fs) > 0 {
				entry = fs[len(fs)-1].dsp
			}
			if a < dynBase+entry || a > dynBase+w.dsp[l] {
				c.fault = &fault{kind: fStack, warp: w.id, lane: l, pc: c.pc,
					msg: sprintf("stackrestore to %#x, which is not a stack pointer stacksave returned in this function (the function's dynamic stack is [%#x, %#x])", a, dynBase+entry, dynBase+w.dsp[l])}
				return false
			}
			w.dsp[l] = a - dynBase
		}
	}
	return true
}

// growDyn enlarges every lane's dynamic stack so need bytes fit.
func (c *cta) growDyn(w *warp, need uint64) {
	ns := max(w.dstride*2, 256)
	for ns < need {
		ns *= 2
	}
	nd := make([]uint64, 32*ns/8)
	for l := 0; l < 32 && w.dstride > 0; l++ {
		copy(nd[uint64(l)*ns/8:], w.dyn[uint64(l)*w.dstride/8:uint64(l+1)*w.dstride/8])
	}
	w.dyn, w.dstride = nd, ns
}

// dynPtr resolves local address addr (dynBase or above) for an access of n
// bytes by lane l: it must lie below the lane's dynamic stack pointer (in
// a program that has alloca: another program's warp state may be stale).
func (c *cta) dynPtr(w *warp, addr, n uint64, write bool, l int) unsafe.Pointer {
	off := addr - dynBase
	if top := w.dsp[l]; !c.p.usesAlloca || off >= top || n > top-off {
		c.memFault(addr, n, spLocal, write, l, sprintf("local address %#x is outside the thread's dynamic stack (alloca memory [%#x, %#x))", addr, uint64(dynBase), dynBase+top))
		return nil
	}
	return unsafe.Add(unsafe.Pointer(&w.dyn[0]), uint64(l)*w.dstride+off)
}
