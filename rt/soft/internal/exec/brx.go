// Indirect branches: brx.idx{.uni} index, tlist, where tlist names a
// "tlist: .branchtargets L0, L1, ...;" list declared earlier in the
// function. Each list is decoded into program.brx as the pcs of its labels
// (resolved by the function's label fixups); at run time each lane of the
// group jumps to the label its index picks. Lanes that pick different
// labels diverge as lanes of a conditional bra do: every lane gets its own
// pc and the scheduler's min-pc rule runs the lowest group first and
// merges the groups where their paths meet. An index past the end of the
// list (undefined in PTX) stops the launch with an illegal-instruction
// fault naming the lane, the index and the list. .uni, a promise that the
// lanes agree, changes nothing: lanes that disagree still diverge.

package exec

import (
	"math/bits"

	"github.com/cugen/cugen/parse/ptx"
)

// targetList records a .branchtargets list for the brx.idx instructions
// after it. Its labels are checked when a brx.idx uses it.
func (dc *decoder) targetList(t *ptx.Targets) {
	if _, dup := dc.tlists[t.Name]; dup {
		dc.fail(t.Pos, "target list %s is declared twice in %s", t.Name, dc.fi.name)
	}
	dc.tlists[t.Name] = t
}

// brxInstr decodes brx.idx{.uni} index, tlist.
func (dc *decoder) brxInstr(in *ptx.Instr, sc *scope, x inst) {
	mods := in.Mods
	if len(mods) > 0 && mods[len(mods)-1] == "uni" {
		mods = mods[:len(mods)-1]
	}
	if len(mods) != 1 || mods[0] != "idx" {
		dc.failIn(in, "unknown form of brx (PTX has brx.idx{.uni} index, tlist)")
	}
	dc.nops(in, 2)
	name, ok := in.Operands[1].(*ptx.Sym)
	if !ok {
		dc.failIn(in, "the second operand must name a .branchtargets list")
	}
	t := dc.tlists[name.Name]
	if t == nil {
		dc.failIn(in, "%s is not a .branchtargets list declared earlier in %s", name.Name, dc.fi.name)
	}
	if t.Kind != "branchtargets" {
		dc.failIn(in, "%s is a .%s list; brx.idx needs a .branchtargets list", name.Name, t.Kind)
	}
	if len(t.Targets) == 0 {
		dc.failIn(in, "target list %s is empty", name.Name)
	}
	if _, isReg := in.Operands[0].(*ptx.Reg); !isReg {
		dc.failIn(in, "the index must be a .u32 register")
	}
	x.op = opBrx
	x.a = dc.src(in, sc, in.Operands[0], ptx.U32)
	x.aux, x.e = int32(len(dc.p.brx)), uint32(len(t.Targets))
	for _, l := range t.Targets {
		dc.fixups = append(dc.fixups, fixup{int32(len(dc.p.brx)), l, t.Pos, true})
		dc.p.brx = append(dc.p.brx, -1)
	}
	dc.emit(in, x)
}

// brx sends each lane of m to the label its index picks. target is the pc
// when all of them pick the same label, else -1.
func (c *cta) brx(w *warp, in *inst, m uint32, pc int32) (target int32, ok bool) {
	idx := lanes(w.r, in.a)
	tab := c.p.brx[in.aux : in.aux+int32(in.e)]
	target = -1
	uniform := true
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		i := uint32(idx[l])
		if i >= in.e {
			list := ""
			if s := c.p.src[pc]; s != nil && len(s.Operands) == 2 {
				if sym, ok := s.Operands[1].(*ptx.Sym); ok {
					list = " " + sym.Name
				}
			}
			c.fault = &fault{kind: fInvalid, warp: w.id, lane: l, pc: pc,
				msg: sprintf("brx.idx index %d is out of range of target list%s (%d labels)", i, list, in.e)}
			return -1, false
		}
		t := tab[i]
		w.pc[l] = t
		w.same = false
		if target < 0 {
			target = t
		} else if target != t {
			uniform = false
		}
	}
	if !uniform {
		target = -1
	}
	return target, true
}
