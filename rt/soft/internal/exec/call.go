// Calls and the stack: call and ret push and pop a frame per lane (saving
// and restoring registers around recursive functions), and a warp's local
// memory grows on demand up to Options.StackBytes. This is apart from the
// loop because frames belong to lanes while the loop runs groups; in
// exec.go the scheduler reads them (pick, before, sameStack) and exit and
// run clear them.

package exec

import (
	"math/bits"
	"unsafe"
)

type frame struct {
	ret int32
	fb  uint64
	dsp uint64 // the caller's dynamic stack pointer (alloca.go)
	fi  *funcInfo
}

// call pushes a frame for each lane of m.
func (c *cta) call(w *warp, m uint32, in *inst, fi *funcInfo, pc int32) bool {
	fb := lanes(w.r, fbSlot)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		if len(w.frames[l]) >= c.l.maxDepth {
			c.fault = c.l.depthFault(w.id, l, c.pc, fi.name)
			return false
		}
		nfb := fb[l] + uint64(in.imm)
		if nfb+uint64(fi.frame) > w.lstride && !c.growStack(w, nfb+uint64(fi.frame), l) {
			return false
		}
		if len(w.frames[l]) == 0 {
			w.calls++
		}
		w.frames[l] = append(w.frames[l], frame{ret: pc + 1, fb: fb[l], dsp: w.dsp[l], fi: fi})
		if fi.rec {
			s := w.saves[l]
			for _, o := range fi.saveRegs {
				s = append(s, w.r[o+uint32(l)])
			}
			for _, p := range fi.savePred {
				s = append(s, uint64(w.pr[p]>>l&1))
			}
			w.saves[l] = s
		}
		fb[l] = nfb
	}
	return true
}

// ret pops the frames of the lanes in m; lanes without a frame exit. cont
// reports that every lane of m returned to the same target.
func (c *cta) ret(w *warp, group, m uint32, pc int32) (target int32, cont bool) {
	fb := lanes(w.r, fbSlot)
	var exits uint32
	target = -1
	uniform := true
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		fs := w.frames[l]
		if len(fs) == 0 {
			exits |= 1 << l
			continue
		}
		f := fs[len(fs)-1]
		w.frames[l] = fs[:len(fs)-1]
		if len(fs) == 1 {
			w.calls--
		}
		if f.fi.rec {
			s := w.saves[l]
			np := len(f.fi.savePred)
			base := len(s) - len(f.fi.saveRegs) - np
			for i, o := range f.fi.saveRegs {
				w.r[o+uint32(l)] = s[base+i]
			}
			for i, p := range f.fi.savePred {
				setBit(&w.pr[p], l, s[base+len(f.fi.saveRegs)+i] != 0)
			}
			w.saves[l] = s[:base]
		}
		fb[l] = f.fb
		w.dsp[l] = f.dsp
		w.pc[l] = f.ret
		w.same = false
		if target < 0 {
			target = f.ret
		} else if target != f.ret {
			uniform = false
		}
	}
	if exits != 0 {
		c.exit(w, exits)
	}
	w.setPCs(group&^m, pc+1)
	return target, uniform && exits == 0 && target >= 0
}

// growStack enlarges every lane's local memory so need bytes fit.
func (c *cta) growStack(w *warp, need uint64, lane int) bool {
	limit := uint64(c.l.Config.StackBytes)
	if need > limit {
		c.fault = &fault{kind: fStack, warp: w.id, lane: lane, pc: c.pc,
			msg: sprintf("call stack overflow: %d bytes of local memory needed, the limit is %d (soft.Options.StackBytes)", need, limit)}
		return false
	}
	ns := w.lstride * 2
	if ns < 256 {
		ns = 256
	}
	for ns < need {
		ns *= 2
	}
	ns = min(ns, limit)
	nl := make([]uint64, 32*ns/8)
	for l := 0; l < 32 && w.lstride > 0; l++ {
		copy(nl[uint64(l)*ns/8:], w.local[uint64(l)*w.lstride/8:uint64(l+1)*w.lstride/8])
	}
	w.local, w.lstride = nl, ns
	w.lptr = unsafe.Pointer(&nl[0])
	return true
}
