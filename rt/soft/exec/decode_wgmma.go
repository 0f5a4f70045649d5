// The decoder's half of wgmma (warpgroup MMA, sm_90a): wgmma.fence,
// wgmma.commit_group, wgmma.wait_group and the dense and sparse (.sp)
// wgmma.mma_async forms of PTX ISA 8.x become opTensor instructions;
// wgmma.go runs them.

package exec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// Kinds of opTensor for wgmma (after those of decode_mma.go).
const (
	tcWGFence  = 100 + iota // wgmma.fence: orders register accesses; nothing to do
	tcWGCommit              // wgmma.commit_group
	tcWGWait                // wgmma.wait_group imm: imm = N
	tcWGMMA                 // wgmma.mma_async: aux = spec, aux2 = vec (D then A registers), a/b = descriptors, c = scale-d predicate (e&1: negated, e&2: constant, e&4: its value)
)

// wgmmaValidN reports whether the n of a dense wgmma shape exists for the
// multiplicand type (PTX ISA 8.x: every multiple of 8 up to 256 for the
// floating-point types; for s8/u8 and b1 multiples of 8 up to 32, then of
// 16 up to 256).
func wgmmaValidN(a mmaType, n int) bool {
	if n < 8 || n > 256 || n%8 != 0 {
		return false
	}
	if a == mtS8 || a == mtU8 || a == mtB1 {
		return n <= 32 || n%16 == 0
	}
	return true
}

// wgmmaK is the k of a wgmma by multiplicand type: 32 bytes of a row.
func wgmmaK(a mmaType) int { return 256 / a.bits() }

func (dc *decoder) wgmma(in *ptx.Instr, sc *scope, x inst) {
	x.op = opTensor
	var rest []string
	sync, aligned := false, false
	for _, f := range in.Mods[1:] {
		switch f {
		case "sync":
			sync = true
		case "aligned":
			aligned = true
		default:
			rest = append(rest, f)
		}
	}
	if len(in.Mods) == 0 || !sync || !aligned {
		dc.failIn(in, "expected wgmma.{fence,commit_group,wait_group,mma_async}.sync.aligned")
	}
	switch in.Mods[0] {
	case "fence", "commit_group":
		if len(rest) > 0 || len(in.Operands) != 0 {
			dc.failIn(in, "takes no modifiers or operands beyond .sync.aligned")
		}
		x.fl = tcWGFence
		if in.Mods[0] == "commit_group" {
			x.fl = tcWGCommit
		}
	case "wait_group":
		dc.nops(in, 1)
		v, ok := in.Operands[0].(*ptx.Imm)
		if len(rest) > 0 || !ok || v.Val > 1<<20 {
			dc.failIn(in, "expected wgmma.wait_group.sync.aligned N with an integer constant N")
		}
		x.fl, x.imm = tcWGWait, int64(v.Val)
	case "mma_async":
		dc.wgmmaMMA(in, sc, rest, x)
		return
	default:
		dc.failIn(in, "unknown wgmma instruction")
	}
	dc.emit(in, x)
}

// wgmmaMMA decodes wgmma.mma_async.sync.aligned.shape.dtype.atype.btype.
func (dc *decoder) wgmmaMMA(in *ptx.Instr, sc *scope, mods []string, x inst) {
	var types []mmaType
	shape, sat, and, sp := "", false, false, false
	for _, f := range mods {
		switch t := lookupMMAType(f); {
		case t != mtNone:
			types = append(types, t)
		case strings.HasPrefix(f, "m64n") && shape == "":
			shape = f
		case f == "satfinite":
			sat = true
		case f == "and":
			and = true
		case f == "popc":
		case f == "sp":
			sp = true
		default:
			dc.failIn(in, "modifier .%s is not supported", f)
		}
	}
	if len(types) != 3 {
		dc.failIn(in, "expected the D, A and B types")
	}
	d, a, b := types[0], types[1], types[2]
	var n, k int
	if _, err := fmt.Sscanf(shape, "m64n%dk%d", &n, &k); err != nil || shape != "m64n"+strconv.Itoa(n)+"k"+strconv.Itoa(k) {
		dc.failIn(in, "expected a shape .m64nNkK")
	}
	fl := a.isFloat()
	kc := wgmmaK(a) // the k of A as stored (all of it unless sparse)
	ok := wgmmaValidN(a, n) && k == kc*(1+int(gpumath.B2U(sp))) && !(sat && fl) && and == (a == mtB1) && !(a == mtB1 && sat) && !(sp && a == mtB1)
	switch a {
	case mtF16:
		ok = ok && b == a && (d == mtF16 || d == mtF32)
	case mtBF16, mtTF32:
		ok = ok && b == a && d == mtF32
	case mtE4M3, mtE5M2:
		ok = ok && (b == mtE4M3 || b == mtE5M2) && (d == mtF16 || d == mtF32)
	case mtS8, mtU8:
		ok = ok && (b == mtS8 || b == mtU8) && d == mtS32
	case mtB1:
		ok = ok && b == a && d == mtS32
	default:
		ok = false
	}
	if !ok {
		dc.failIn(in, "this wgmma.mma_async form (shape and types) does not exist on sm_90a")
	}
	c := d
	if !fl {
		c = mtS32
	}
	s := newWGSpec(n, kc, a, b, c, d)
	if sp {
		s.sparse(k)
	}
	s.mma.sat = sat
	if and {
		s.mma.bop = popcAnd
	}
	// Operands: d, a or a-desc, b-desc, (sparse: sp-meta, sp-sel,)
	// scale-d, then for the floating point types imm-scale-a, imm-scale-b
	// and, for f16/bf16, imm-trans-a (with a-desc only) and imm-trans-b.
	ops := in.Operands
	var meta ptx.Operand
	if sp {
		if len(ops) < 6 {
			dc.failIn(in, "expected the operands d, a, b-desc, sp-meta, sp-sel, scale-d and the immediates")
		}
		f, isImm := ops[4].(*ptx.Imm)
		if !isImm || f.Val > 3 {
			dc.failIn(in, "the sparsity selector must be an integer constant 0..3")
		}
		s.sp.sel = int(f.Val)
		if selMax := 4/s.sp.spThreads() - 1; s.sp.sel > selMax {
			dc.failIn(in, "sparsity selector %d is out of range for %s.%s (0..%d)", s.sp.sel, shape, a, selMax)
		}
		meta = ops[3]
		ops = append(append([]ptx.Operand{}, ops[:3]...), ops[5:]...)
	}
	if len(ops) < 4 {
		dc.failIn(in, "expected the operands d, a, b-desc, scale-d and the immediates")
	}
	_, aVec := ops[1].(*ptx.Vec)
	s.aDesc = !aVec
	want := 4
	if fl {
		want += 2
		if a == mtF16 || a == mtBF16 {
			want++
			if s.aDesc {
				want++
			}
		}
	}
	if len(ops) != want {
		extra := 0
		if sp {
			extra = 2
		}
		dc.failIn(in, "expected %d operands, got %d", want+extra, len(ops)+extra)
	}
	imm := func(i int, what string, vals ...int64) bool {
		v, ok := ops[i].(*ptx.Imm)
		if ok {
			for j, w := range vals {
				if int64(v.Val) == w || int32(v.Val) == int32(w) {
					return j == 0
				}
			}
		}
		dc.failIn(in, "%s must be the constant %d or %d", what, vals[0], vals[1])
		return false
	}
	if fl {
		s.negA = imm(4, "imm-scale-a", -1, 1)
		s.negB = imm(5, "imm-scale-b", -1, 1)
		if want > 6 {
			if s.aDesc {
				s.transA = imm(6, "imm-trans-a", 1, 0)
			}
			s.transB = imm(want-1, "imm-trans-b", 1, 0)
		}
	}
	dv, ok := ops[0].(*ptx.Vec)
	if !ok || len(dv.Elems) != s.nd {
		dc.failIn(in, "operand d must be a vector of %d registers", s.nd)
	}
	regs := dc.vecRegs(in, sc, dv, ptx.B32, true)
	if s.aDesc {
		x.a = dc.src(in, sc, ops[1], ptx.B64)
	} else {
		av := ops[1].(*ptx.Vec)
		if len(av.Elems) != 4 || s.transA {
			dc.failIn(in, "operand a must be a vector of 4 registers")
		}
		regs = append(regs, dc.vecRegs(in, sc, av, ptx.B32, false)...)
	}
	if sp {
		// The metadata register, last in the vector.
		regs = append(regs, dc.vecRegs(in, sc, meta, ptx.B32, false)...)
	}
	x.b = dc.src(in, sc, ops[2], ptx.B64)
	switch p := ops[3].(type) {
	case *ptx.Imm:
		if p.Val > 1 {
			dc.failIn(in, "scale-d must be a predicate or the constant 0 or 1")
		}
		x.e = 2 | uint32(p.Val)<<2
	default:
		slot, neg := dc.pred(in, sc, ops[3])
		x.c = slot
		if neg {
			x.e = 1
		}
	}
	x.fl, x.aux, x.aux2 = tcWGMMA, int32(len(dc.p.tc.wg)), dc.vecIndex(regs)
	dc.p.tc.wg = append(dc.p.tc.wg, s)
	dc.emit(in, x)
}
