// The decoder's tensor-core half: mma.sync (dense and sparse), wmma.load,
// wmma.store and wmma.mma, ldmatrix, stmatrix and movmatrix become one
// opTensor each, their forms checked against what PTX ISA 8.x offers on
// sm_90 and their shapes, types and layouts resolved into a spec
// (tensor_mma.go) at load time; so do wgmma.fence, wgmma.commit_group,
// wgmma.wait_group and the dense and sparse wgmma.mma_async forms
// (tensor_wgmma.go runs them).

package exec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// Kinds of opTensor (its fl).
const (
	tcMMA = iota
	tcWMMALoad
	tcWMMAStore
	tcLdmatrix
	tcStmatrix
	tcMovmatrix
	tcCvtTF32 // cvt to tf32: aux = rounding (rnRN, rnRZ, or -1 for .rna), e: 1 for .satfinite, 2 for .relu
)

// tensorOps holds a program's decoded tensor-core forms, indexed by aux.
type tensorOps struct {
	mma []*mmaSpec
	mem []*wmmaMem
	ldm []ldmSpec
	wg  []*wgSpec // wgmma.mma_async (below)
	sp  []*spSpec // mma.sp (mma_sp.go)
}

// tcMods is an instruction's modifiers sorted into what tensor-core forms
// are made of.
type tcMods struct {
	shape    string
	layouts  []string
	types    []mmaType
	space    int
	hasSpace bool
	sat      bool
	bop      int
	rnd      int
	hasRnd   bool
	rest     []string
	num      int
	trans    bool
	abcd     string
}

func (dc *decoder) tcMods(in *ptx.Instr) tcMods {
	m := tcMods{space: spGeneric, rnd: gpumath.RN}
	for _, f := range in.Mods {
		switch {
		case f == "sync" || f == "aligned":
		case f == "row" || f == "col":
			m.layouts = append(m.layouts, f)
		case mmaShapes[f] != (mmaShape{}) || f == "m8n8" || f == "m16n16" || f == "m8n16" || f == "m16n8":
			m.shape = f
		case lookupMMAType(f) != mtNone:
			m.types = append(m.types, lookupMMAType(f))
		case f == "b16":
			m.types = append(m.types, mtNone)
		case f == "b8" || f == "b8x16" || f == "b6x16_p32" || f == "b4x16_p64":
			m.types = append(m.types, mtU8) // the sm_100 ldmatrix/stmatrix element types
		case f == "global":
			m.space, m.hasSpace = spGlobal, true
		case f == "shared" || f == "shared::cta":
			m.space, m.hasSpace = spShared, true
		case f == "satfinite":
			m.sat = true
		case f == "xor":
			m.bop = popcXor
		case f == "and":
			m.bop = popcAnd
		case f == "popc":
		case f == "rn" || f == "rz" || f == "rm" || f == "rp":
			m.rnd, m.hasRnd = map[string]int{"rn": gpumath.RN, "rz": gpumath.RZ, "rm": gpumath.RM, "rp": gpumath.RP}[f], true
		case f == "x1" || f == "x2" || f == "x4":
			m.num = int(f[1] - '0')
		case f == "trans":
			m.trans = true
		case f == "a" || f == "b" || f == "c" || f == "d" || f == "load" || f == "store" || f == "mma":
			if f != "mma" || m.abcd == "" {
				m.abcd += f + "."
			}
		default:
			m.rest = append(m.rest, f)
		}
	}
	return m
}

// tensor decodes a tensor-core instruction.
func (dc *decoder) tensor(in *ptx.Instr, sc *scope, x inst) {
	m := dc.tcMods(in)
	x.op = opTensor
	if isSparseMMA(in, m) {
		dc.mmaSp(in, sc, m, x)
		return
	}
	if len(m.rest) > 0 {
		dc.failIn(in, "modifier .%s is not supported", m.rest[0])
	}
	switch {
	case in.Op == "mma":
		dc.mma(in, sc, m, x)
	case in.Op == "wmma" && strings.HasPrefix(m.abcd, "mma."):
		dc.wmmaMMA(in, sc, m, x)
	case in.Op == "wmma" && (strings.HasPrefix(m.abcd, "load.") || strings.HasPrefix(m.abcd, "store.")):
		dc.wmmaMem(in, sc, m, x)
	case in.Op == "ldmatrix" || in.Op == "stmatrix" || in.Op == "movmatrix":
		dc.ldmatrix(in, sc, m, x)
	default:
		dc.failIn(in, "unknown tensor-core instruction")
	}
}

// mmaTypes resolves mma's type list: .dtype.ctype for f16 multiplicands,
// else .dtype.atype.btype.ctype.
func (dc *decoder) mmaTypes(in *ptx.Instr, m tcMods) (a, b, c, d mmaType) {
	switch len(m.types) {
	case 2:
		return mtF16, mtF16, m.types[1], m.types[0]
	case 4:
		return m.types[1], m.types[2], m.types[3], m.types[0]
	}
	dc.failIn(in, "expected the D and C types, or the D, A, B and C types")
	return
}

// mmaValid reports whether mma.sync offers the form on sm_90 (PTX ISA 8.7).
func mmaValid(s string, a, b, c, d mmaType, arow, brow, sat bool, bop int) bool {
	rowcol := arow && !brow
	f32 := c == mtF32 && d == mtF32
	switch a {
	case mtF16:
		switch s {
		case "m8n8k4":
			return b == mtF16 && (c == mtF16 || d == mtF32) && !sat
		case "m16n8k8", "m16n8k16":
			return b == mtF16 && c == d && rowcol && !sat
		}
	case mtBF16:
		return (s == "m16n8k8" || s == "m16n8k16") && b == a && f32 && rowcol && !sat
	case mtTF32:
		return (s == "m16n8k4" || s == "m16n8k8") && b == a && f32 && rowcol && !sat
	case mtE4M3, mtE5M2:
		return (s == "m16n8k32" || s == "m16n8k16") && (b == mtE4M3 || b == mtE5M2) && c == d && (c == mtF32 || c == mtF16) && rowcol && !sat
	case mtF64:
		return (s == "m8n8k4" || s == "m16n8k4" || s == "m16n8k8" || s == "m16n8k16") && b == a && c == a && d == a && rowcol && !sat
	case mtS8, mtU8:
		return (s == "m8n8k16" || s == "m16n8k16" || s == "m16n8k32") && (b == mtS8 || b == mtU8) && c == mtS32 && d == mtS32 && rowcol
	case mtS4, mtU4:
		return (s == "m8n8k32" || s == "m16n8k32" || s == "m16n8k64") && (b == mtS4 || b == mtU4) && c == mtS32 && d == mtS32 && rowcol
	case mtB1:
		return (s == "m8n8k128" || s == "m16n8k128" || s == "m16n8k256") && b == a && c == mtS32 && d == mtS32 && rowcol && bop != 0 && !sat
	}
	return false
}

func (dc *decoder) mma(in *ptx.Instr, sc *scope, m tcMods, x inst) {
	a, b, c, d := dc.mmaTypes(in, m)
	if len(m.layouts) != 2 || m.hasSpace || m.hasRnd || m.num != 0 || m.trans {
		dc.failIn(in, "expected mma.sync.aligned.shape.alayout.blayout with types")
	}
	arow, brow := m.layouts[0] == "row", m.layouts[1] == "row"
	if !mmaValid(m.shape, a, b, c, d, arow, brow, m.sat, m.bop) {
		dc.failIn(in, "this mma form (shape, layouts and types) does not exist on sm_90")
	}
	s := newMMASpec(mmaShapes[m.shape], a, b, c, d, arow, brow)
	s.sat, s.bop = m.sat, m.bop
	dc.mmaOperands(in, sc, s, x)
}

func (dc *decoder) wmmaMMA(in *ptx.Instr, sc *scope, m tcMods, x inst) {
	a, b, c, d := dc.mmaTypes(in, m)
	shape, ok := mmaShapes[m.shape]
	if !ok || len(m.layouts) != 2 || m.hasSpace || m.num != 0 || m.trans || a != b || !wmmaValid(m.shape, a, c, d) ||
		m.sat && (a.isFloat() || a == mtB1) || (m.bop != 0) != (a == mtB1) || m.hasRnd && a != mtF64 ||
		(a == mtS4 || a == mtU4 || a == mtB1) && (m.layouts[0] != "row" || m.layouts[1] != "col") {
		dc.failIn(in, "this wmma.mma form does not exist on sm_90")
	}
	s := newWMMASpec(shape, a, c, d)
	s.sat, s.bop, s.rnd = m.sat, m.bop, m.rnd
	dc.mmaOperands(in, sc, s, x)
}

// wmmaValid reports whether wmma offers the shape with the multiplicand
// and accumulator types.
func wmmaValid(shape string, a, c, d mmaType) bool {
	ext := shape == "m16n16k16" || shape == "m32n8k16" || shape == "m8n32k16"
	switch a {
	case mtF16:
		return ext && (c == mtF16 || c == mtF32) && (d == mtF16 || d == mtF32)
	case mtBF16:
		return ext && c == mtF32 && d == mtF32
	case mtTF32:
		return shape == "m16n16k8" && c == mtF32 && d == mtF32
	case mtF64:
		return shape == "m8n8k4" && c == mtF64 && d == mtF64
	case mtS8, mtU8:
		return ext && c == mtS32 && d == mtS32
	case mtS4, mtU4:
		return shape == "m8n8k32" && c == mtS32 && d == mtS32
	case mtB1:
		return shape == "m8n8k128" && c == mtS32 && d == mtS32
	}
	return false
}

// mmaOperands resolves {d}, {a}, {b}, {c} and emits the instruction.
func (dc *decoder) mmaOperands(in *ptx.Instr, sc *scope, s *mmaSpec, x inst) {
	if len(in.Operands) != 4 {
		dc.failIn(in, "expected the operands d, a, b, c")
	}
	var regs []uint32
	for i, o := range in.Operands {
		op := []int{3, 0, 1, 2}[i]
		v, ok := o.(*ptx.Vec)
		if !ok || len(v.Elems) != s.nregs[op] {
			dc.failIn(in, "operand %s must be a vector of %d registers", "dabc"[i:i+1], s.nregs[op])
		}
		regs = append(regs, dc.vecRegs(in, sc, v, ptx.B32, i == 0)...)
	}
	x.fl, x.aux, x.aux2 = tcMMA, int32(len(dc.p.tc.mma)), dc.vecIndex(regs)
	dc.p.tc.mma = append(dc.p.tc.mma, s)
	dc.emit(in, x)
}

// wmmaMem is a decoded wmma.load or wmma.store.
type wmmaMem struct {
	t      mmaType
	row    bool // row-major in memory
	space  int
	nregs  int
	pos    []int32 // [lane*elems+i] → row<<16 | col of the element
	stride int64   // default stride (elements), when none is given
}

func (dc *decoder) wmmaMem(in *ptx.Instr, sc *scope, m tcMods, x inst) {
	store := strings.HasPrefix(m.abcd, "store.")
	shape, ok := mmaShapes[m.shape]
	op := map[string]int{"load.a.": opA, "load.b.": opB, "load.c.": opC, "store.d.": opC}[m.abcd]
	if !ok || len(m.layouts) != 1 || len(m.types) != 1 || m.sat || m.bop != 0 || m.hasRnd || m.num != 0 || m.trans ||
		m.abcd != "load.a." && m.abcd != "load.b." && m.abcd != "load.c." && m.abcd != "store.d." {
		dc.failIn(in, "expected wmma.load.{a,b,c} or wmma.store.d with a layout, a shape and a type")
	}
	t := m.types[0]
	row := m.layouts[0] == "row"
	ab, valid := wmmaMemType(m.shape, op, t)
	if !valid || op == opA && (t == mtS4 || t == mtU4 || t == mtB1) && !row || op == opB && (t == mtS4 || t == mtU4 || t == mtB1) && row {
		dc.failIn(in, "this wmma.%s form does not exist on sm_90", strings.TrimSuffix(m.abcd, "."))
	}
	ops := in.Operands
	if len(ops) != 2 && len(ops) != 3 {
		dc.failIn(in, "wrong number of operands")
	}
	w := &wmmaMem{t: t, row: row, space: m.space, nregs: wmmaRegs(shape, op, t)}
	rows, cols := shape.dims(op)
	if row {
		w.stride = int64(cols)
	} else {
		w.stride = int64(rows)
	}
	n := w.nregs * t.perReg()
	w.pos = make([]int32, 32*n)
	for lane := 0; lane < 32; lane++ {
		for e := 0; e < n; e++ {
			r, c := wmmaFragPos(shape, op, ab, t, lane, e)
			w.pos[lane*n+e] = int32(r<<16 | c)
		}
	}
	addrOp, regOp := ops[1], ops[0]
	if store {
		addrOp, regOp = ops[0], ops[1]
	}
	v, ok := regOp.(*ptx.Vec)
	if !ok || len(v.Elems) != w.nregs {
		dc.failIn(in, "the fragment must be a vector of %d registers", w.nregs)
	}
	regs := dc.vecRegs(in, sc, v, ptx.B32, !store)
	var sp int
	x.a, x.imm, sp = dc.memAddr(in, sc, addrOp, m.space)
	x.aux2 = int32(sp)
	if len(ops) == 3 {
		x.b = dc.src(in, sc, ops[2], ptx.U32)
	} else {
		x.b = dc.constSlot(uint64(w.stride))
	}
	x.fl = tcWMMALoad
	if store {
		x.fl = tcWMMAStore
	}
	x.aux, x.e = int32(len(dc.p.tc.mem)), uint32(dc.vecIndex(regs))
	dc.p.tc.mem = append(dc.p.tc.mem, w)
	dc.emit(in, x)
}

// wmmaMemType checks a wmma.load/store type against its shape and matrix
// and returns the multiplicand type whose tiles lay the fragment out.
func wmmaMemType(shape string, op int, t mmaType) (mmaType, bool) {
	ext := shape == "m16n16k16" || shape == "m32n8k16" || shape == "m8n32k16"
	if op != opC {
		switch t {
		case mtF16, mtBF16, mtS8, mtU8:
			return t, ext
		case mtTF32:
			return t, shape == "m16n16k8"
		case mtF64:
			return t, shape == "m8n8k4"
		case mtS4, mtU4:
			return t, shape == "m8n8k32"
		case mtB1:
			return t, shape == "m8n8k128"
		}
		return t, false
	}
	switch {
	case ext && (t == mtF16 || t == mtF32):
		return mtF16, true
	case ext && t == mtS32:
		return mtS8, true
	case shape == "m16n16k8" && t == mtF32:
		return mtTF32, true
	case shape == "m8n8k4" && t == mtF64:
		return mtF64, true
	case (shape == "m8n8k32" || shape == "m8n8k128") && t == mtS32:
		return wmmaTileType(shape), true
	}
	return t, false
}

func wmmaTileType(shape string) mmaType {
	if shape == "m8n8k128" {
		return mtB1
	}
	return mtS4
}

// ldmSpec is a decoded ldmatrix, stmatrix or movmatrix.
type ldmSpec struct {
	num   int
	trans bool
}

func (dc *decoder) ldmatrix(in *ptx.Instr, sc *scope, m tcMods, x inst) {
	ops := in.Operands
	if len(m.types) != 1 || m.types[0] != mtNone || m.shape != "m8n8" || len(m.layouts) != 0 || m.sat || m.bop != 0 || m.hasRnd {
		dc.failIn(in, "only the .m8n8 .b16 forms exist on sm_90")
	}
	if len(ops) != 2 {
		dc.failIn(in, "wrong number of operands")
	}
	if in.Op == "movmatrix" {
		if !m.trans || m.num != 0 || m.hasSpace {
			dc.failIn(in, "expected movmatrix.sync.aligned.m8n8.trans.b16")
		}
		x.fl, x.d, x.a = tcMovmatrix, dc.dst(in, sc, ops[0]), dc.src(in, sc, ops[1], ptx.B32)
		dc.emit(in, x)
		return
	}
	if m.num == 0 || m.hasSpace && m.space != spShared {
		dc.failIn(in, "expected .x1, .x2 or .x4 and the .shared state space or none")
	}
	store := in.Op == "stmatrix"
	addrOp, regOp := ops[1], ops[0]
	if store {
		addrOp, regOp = ops[0], ops[1]
	}
	v, ok := regOp.(*ptx.Vec)
	if !ok || len(v.Elems) != m.num {
		dc.failIn(in, "expected a vector of %d registers", m.num)
	}
	regs := dc.vecRegs(in, sc, v, ptx.B32, !store)
	var sp int
	x.a, x.imm, sp = dc.memAddr(in, sc, addrOp, m.space)
	x.aux2 = int32(sp)
	x.fl = tcLdmatrix
	if store {
		x.fl = tcStmatrix
	}
	x.aux, x.e = int32(len(dc.p.tc.ldm)), uint32(dc.vecIndex(regs))
	dc.p.tc.ldm = append(dc.p.tc.ldm, ldmSpec{num: m.num, trans: m.trans})
	dc.emit(in, x)
}

// cvtTF32 decodes cvt{.rna,.rn,.rz}{.relu}{.satfinite}.tf32.f32, the
// conversion that feeds tf32 tensor-core operands.
func (dc *decoder) cvtTF32(in *ptx.Instr, sc *scope, m modset, x inst) {
	dc.nops(in, 2)
	if m.types[1] != ptx.F32 {
		dc.failIn(in, "tf32 is converted from f32 only")
	}
	x.aux = -2
	for _, f := range m.list {
		switch f {
		case "rna":
			x.aux = -1
		case "rn":
			x.aux = gpumath.RN
		case "rz":
			x.aux = gpumath.RZ
		case "satfinite":
			x.e |= 1
		case "relu":
			x.e |= 2
		default:
			dc.failIn(in, "modifier .%s is not supported", f)
		}
	}
	if x.aux == -2 {
		dc.failIn(in, "a rounding modifier (.rna, .rn or .rz) is required")
	}
	if x.e&1 != 0 && x.aux != -1 {
		dc.failIn(in, ".satfinite with .rn or .rz requires sm_100 or higher")
	}
	if x.e&2 != 0 && x.aux == -1 {
		dc.failIn(in, ".relu goes with .rn or .rz, not .rna")
	}
	x.op, x.fl = opTensor, tcCvtTF32
	x.d, x.a = dc.dst(in, sc, in.Operands[0]), dc.src(in, sc, in.Operands[1], ptx.F32)
	dc.emit(in, x)
}

// Kinds of opTensor for wgmma (after those above).
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
