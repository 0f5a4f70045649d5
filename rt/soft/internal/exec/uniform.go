package exec

import (
	"math/bits"
	"sync"

	"github.com/cugen/cugen/parse/ptx"
)

// Warp-uniform registers that specialise cannot fix because they change as
// the kernel runs: a loop counter computed from %ntid (s = ntid/2; s >>= 1)
// and the comparisons and shifts of it. Each definition of such a register
// is an integer or compare op whose sources are uniform; when every lane
// of the warp that has not exited runs it and its sources hold one value
// in all those lanes, it is one lane's computation copied to the others
// (uniDef). Whether a register holds one value is tracked per warp at run
// time (warp.nonuni), since a definition that only some lanes run (after a
// divergent branch) leaves it differing by lane.

// opUniDef runs p.unis[aux2]: a definition of a uniform candidate.
const opUniDef opcode = opALU - 32

// uniDef is a definition of a uniform candidate register or predicate.
type uniDef struct {
	x    inst   // the op as decoded
	bit  uint64 // the destination's bit in warp.nonuni
	srcs uint64 // the bits of the sources that are candidates themselves
	pred bool   // x is a comparison writing predicate x.d
}

// uniformScalar lets uniDef compute one lane for all; tests turn it off to
// compare with the lane-by-lane path.
var uniformScalar = true

// uniOps are the PTX operations a candidate's definitions may be.
var uniOps = map[string]bool{"add": true, "sub": true, "mul": true, "mad": true, "shl": true, "shr": true,
	"and": true, "or": true, "xor": true, "not": true, "min": true, "max": true, "neg": true, "setp": true, "mov": true}

// uniCandidates finds the registers of a function body whose every
// definition is an unguarded uniOps instruction that names the register as
// its first operand and writes nothing else, declared once and never a
// call operand: every write to them is one that noteUniDef sees.
func uniCandidates(body *ptx.Block) map[string]bool {
	bad := map[string]bool{}
	for _, st := range instrsOf(body) {
		for i, o := range st.Operands {
			eachReg(o, func(n string) {
				switch {
				case st.Op == "call":
					bad[n] = true
				case i == 0 || !writesFirstOnly[st.Op]:
					// A write: it must be a simple one.
					if r, ok := o.(*ptx.Reg); !ok || i != 0 || r.Comp != "" || !uniOps[st.Op] || st.Guard != "" {
						bad[n] = true
					}
				}
			})
		}
	}
	out := map[string]bool{}
	for n, k := range regDecls(body) {
		if k == 1 && !bad[n] {
			out[n] = true
		}
	}
	return out
}

// uniRec is a candidate's definition found while decoding.
type uniRec struct {
	pc   int32
	name string
}

// noteUniDef records the instruction decoded at pc for src when it defines
// a candidate, or drops the candidate when its definition did not become
// one op of the kind uniDef runs.
func (dc *decoder) noteUniDef(src *ptx.Instr, sc *scope, pc int) {
	if len(dc.uniRegs) == 0 || len(src.Operands) == 0 || src.Op == "st" {
		return
	}
	eachReg(src.Operands[0], func(n string) {
		if !dc.uniRegs[n] {
			return
		}
		s := sc.lookup(n)
		if len(dc.p.code) != pc+1 || s == nil || s.typ == ptx.B128 {
			dc.uniBad[n] = true
			return
		}
		x := &dc.p.code[pc]
		switch {
		case x.op == opNop:
			return // specialise fixed the register: it is uniform or not for good
		case x.gp >= 0:
			dc.uniBad[n] = true
		case s.kind == skReg && (x.op == opMov || x.op >= opALU && x.op < opCmp) && x.d == s.slot:
		case s.kind == skPred && x.op >= opCmp && x.fl&(3|setpQ) == 0 && x.d == s.slot:
		default:
			dc.uniBad[n] = true
			return
		}
		dc.uniRecs = append(dc.uniRecs, uniRec{int32(pc), n})
	})
}

// uniformDefs turns the definitions of the candidates whose sources are
// all uniform (program slots, or candidates) into opUniDef.
func (dc *decoder) uniformDefs() {
	type cand struct {
		pred bool
		slot uint32
		defs []int32
	}
	cands := map[string]*cand{}
	for _, r := range dc.uniRecs {
		if dc.uniBad[r.name] {
			continue
		}
		c := cands[r.name]
		if c == nil {
			x := &dc.p.code[r.pc]
			c = &cand{pred: x.op >= opCmp, slot: x.d}
			cands[r.name] = c
		}
		c.defs = append(c.defs, r.pc)
	}
	srcs := func(x *inst) []uint32 {
		if x.op == opMov {
			return []uint32{x.a}
		}
		y := *x
		if base, ok := uniformBBase()[x.op]; ok {
			y.op = base
		}
		return genSources(&y)
	}
	regs := map[uint32]string{}
	for n, c := range cands {
		if !c.pred {
			regs[c.slot] = n
		}
	}
	for changed := true; changed; {
		changed = false
		for n, c := range cands {
			ok := true
			for _, pc := range c.defs {
				ss := srcs(&dc.p.code[pc])
				if len(ss) == 0 {
					ok = false // not an op whose sources genSrcs knows
				}
				for _, s := range ss {
					if !dc.uniform[s] && cands[regs[s]] == nil {
						ok = false
					}
				}
			}
			if !ok {
				delete(cands, n)
				changed = true
			}
		}
	}
	if len(cands) == 0 || len(cands) > 64 {
		return
	}
	bit := map[string]uint64{}
	for n := range cands {
		bit[n] = 1 << len(bit)
	}
	for n, c := range cands {
		for _, pc := range c.defs {
			x := &dc.p.code[pc]
			u := uniDef{x: *x, bit: bit[n], pred: c.pred}
			for _, s := range srcs(x) {
				if m := regs[s]; cands[m] != nil {
					u.srcs |= bit[m]
				}
			}
			*x = inst{op: opUniDef, gp: -1, aux2: int32(len(dc.p.unis))}
			dc.p.unis = append(dc.p.unis, u)
		}
	}
}

// uniformBBase maps each uniform-B twin to the op it is a twin of.
var uniformBBase = sync.OnceValue(func() map[opcode]opcode {
	m := map[opcode]opcode{}
	for op, twin := range aluUniformB {
		m[twin] = op
	}
	return m
})

// uniDef runs definition u for the lanes in m: once for all of them when
// they are every lane of the warp that has not exited and u's sources hold
// one value in those lanes, lane by lane otherwise.
func (c *cta) uniDef(w *warp, u *uniDef, m uint32) {
	x, r := &u.x, w.r
	if uniformScalar && m == w.live&^w.exited && w.nonuni&u.srcs == 0 {
		l := bits.TrailingZeros32(m) & 31
		one := uint32(1) << l
		if u.pred {
			var t uint32
			if execCmp(x, r, one) != 0 {
				t = m
			}
			w.pr[x.d] = w.pr[x.d]&^m | t
		} else {
			var v uint64
			if x.op == opMov {
				v = r[x.a+uint32(l)]
			} else {
				execALUMask(x, r, one)
				v = r[x.d+uint32(l)]
			}
			d := lanes(r, x.d)
			if m == fullMask {
				splat(d, v)
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					d[bits.TrailingZeros32(mm)&31] = v
				}
			}
		}
		w.nonuni &^= u.bit
		return
	}
	switch {
	case u.pred:
		w.pr[x.d] = w.pr[x.d]&^m | execCmp(x, r, m)&m
	case x.op == opMov:
		d, a := lanes(r, x.d), lanes(r, x.a)
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm) & 31
			d[l] = a[l]
		}
	default:
		execALU(x, r, m)
	}
	w.nonuni |= u.bit
}
