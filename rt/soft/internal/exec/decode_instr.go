// The decoder's instruction half: instr turns one PTX instruction into
// bytecode, with a helper for each family that takes more than a few lines
// (mov, ld/st, atom, setp/set, predicate logic, cvt, shfl, bar, the carry
// ops). The other half, decode.go, walks a kernel and its callees, lays out
// parameters, shared memory and frames, and provides what instr builds on:
// register slots, operand resolution (dst, src, pred, memAddr) and emit.

package exec

import (
	"math"
	"strings"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

var atomOps = map[string]int{"add": gpumath.AtAdd, "min": gpumath.AtMin, "max": gpumath.AtMax, "inc": gpumath.AtInc, "dec": gpumath.AtDec,
	"cas": gpumath.AtCas, "exch": gpumath.AtExch, "and": gpumath.AtAnd, "or": gpumath.AtOr, "xor": gpumath.AtXor}

var atomClasses = map[ptx.Type]int{ptx.U32: gpumath.AcU32, ptx.B32: gpumath.AcU32, ptx.S32: gpumath.AcS32, ptx.U64: gpumath.AcU64, ptx.B64: gpumath.AcU64,
	ptx.S64: gpumath.AcS64, ptx.F32: gpumath.AcF32, ptx.F64: gpumath.AcF64, ptx.F16: gpumath.AcF16, ptx.F16x2: gpumath.AcF16x2, ptx.BF16: gpumath.AcBF16,
	ptx.BF16x2: gpumath.AcBF16x2, ptx.B16: gpumath.AcB16, ptx.U16: gpumath.AcB16}

var noOps = map[string]bool{"membar": true, "fence": true, "prefetch": true, "prefetchu": true,
	"nanosleep": true, "pmevent": true, "discard": true, "applypriority": true, "griddepcontrol": true,
	"setmaxnreg": true}

// instr decodes one PTX instruction into bytecode.
func (dc *decoder) instr(in *ptx.Instr, sc *scope) {
	dc.cur = in
	m := mods(in)
	var x inst
	dc.guard(in, sc, &x)
	ops := in.Operands
	op := in.Op
	emit := func(y inst) {
		y.gp, y.gx = x.gp, x.gx
		dc.emit(in, y)
	}
	if dc.extInstr(in, sc, m, x) { // aluforms.go: fp8, packing, scalar video, tensormap.replace, …
		return
	}
	switch op {
	case "bra":
		dc.nops(in, 1)
		l, ok := ops[0].(*ptx.Sym)
		if !ok {
			dc.failIn(in, "the target of bra must be a label (an indirect branch is brx.idx with a .branchtargets list)")
		}
		x.op = opBra
		pc := dc.emit(in, x)
		dc.fixups = append(dc.fixups, fixup{pc, l.Name, in.Pos, false})
		return
	case "brx":
		dc.brxInstr(in, sc, x)
		return
	case "ret":
		if dc.fi.f.Entry {
			x.op = opExit
		} else {
			x.op = opRet
		}
		dc.emit(in, x)
		return
	case "exit":
		x.op = opExit
		dc.emit(in, x)
		return
	case "trap", "brkpt":
		x.op = opTrap
		dc.emit(in, x)
		return
	case "call":
		if _, t, _, _ := callParts(in); t != nil {
			if _, ok := t.(*ptx.Reg); ok {
				dc.indirectCall(in, sc, x)
				return
			}
		}
		_, target, _ := splitCall(in)
		ci := dc.infos[dc.module.lookup(target.Name).fn]
		idx := -1
		for i, f := range dc.p.funcs {
			if f == ci {
				idx = i
			}
		}
		if ci.builtin != 0 {
			x.op, x.aux, x.aux2, x.imm = opBuiltin, int32(ci.builtin), int32(idx), int64(dc.fi.out)
			if ci.builtin == biVprintf {
				dc.p.usesPrintf = true
			}
		} else {
			x.op, x.aux2, x.imm = opCall, int32(idx), int64(dc.fi.out)
		}
		dc.emit(in, x)
		return
	case "mov":
		dc.mov(in, sc, m, x)
		return
	case "ld", "ldu":
		dc.ldst(in, sc, m, x, true)
		return
	case "tex", "tld4", "txq", "suld", "sust", "sured", "suq":
		dc.texInstrDecode(in, sc, x)
		return
	case "st":
		if m.flags["async"] {
			dc.asyncStoreInstr(in, sc, m, x)
			return
		}
		dc.ldst(in, sc, m, x, false)
		return
	case "atom", "red":
		if m.flags["async"] {
			dc.asyncStoreInstr(in, sc, m, x)
			return
		}
		dc.atom(in, sc, m, x)
		return
	case "wgmma":
		dc.wgmma(in, sc, x)
		return
	case "multimem":
		dc.failIn(in, "multimem instructions need multicast memory objects (NVLink SHARP), which the soft backend does not have")
	case "tensormap":
		dc.tensormapInstr(in, sc, m, x)
		return
	case "cvta":
		dc.nops(in, 2)
		t := m.typ()
		to := m.flags["to"]
		var win uint64
		switch {
		case m.flags["global"], m.flags["const"]:
		case m.flags["shared"], m.flags["shared::cta"], m.flags["shared::cluster"]:
			win = sharedWin
		case m.flags["local"]:
			win = localWin
		case m.flags["param"]:
			win = paramWin
		default:
			dc.failIn(in, "unsupported state space")
		}
		a := dc.src(in, sc, ops[1], t)
		if win == 0 {
			x.op, x.d, x.a = opMov, dc.dst(in, sc, ops[0]), a
		} else {
			if to {
				win = -win
			}
			x.op = opAdd64
			if t.Size() == 4 {
				x.op = opAdd32
			}
			x.d, x.a, x.b = dc.dst(in, sc, ops[0]), a, dc.constSlot(win)
		}
		dc.emit(in, x)
		return
	case "isspacep":
		dc.nops(in, 2)
		if len(m.types) > 0 {
			// ptxas: "Unexpected instruction types specified for 'isspacep'"
			// (recorded in rt/soft/testdata/isa8.json.gz)
			dc.failIn(in, "isspacep takes a state space and no type (.%s)", m.types[0])
		}
		sp, _ := spaceOf(m)
		if sp < 0 {
			dc.failIn(in, "isspacep.param is not supported")
		}
		if sp == spCluster {
			sp = spShared // any CTA's shared memory is in the shared window
		}
		p, _ := dc.pred(in, sc, ops[0])
		x.op, x.d, x.a, x.aux2 = opIsspacep, p, dc.src(in, sc, ops[1], ptx.U64), int32(sp)
		dc.emit(in, x)
		return
	case "setp":
		dc.setp(in, sc, m, x)
		return
	case "set":
		dc.set(in, sc, m, x)
		return
	case "selp":
		dc.nops(in, 4)
		t := m.typ()
		c, neg := dc.pred(in, sc, ops[3])
		x.op, x.d, x.a, x.b, x.c = opSelp, dc.dst(in, sc, ops[0]), dc.src(in, sc, ops[1], t), dc.src(in, sc, ops[2], t), c
		if neg {
			x.a, x.b = x.b, x.a
		}
		dc.emit(in, x)
		return
	case "slct":
		dc.nops(in, 4)
		if len(m.types) != 2 {
			dc.failIn(in, "expected two types")
		}
		p := dc.newPred()
		ct := m.types[1]
		key := "setp.ge." + ct.String()
		if m.flags["ftz"] && ct == ptx.F32 {
			key = "setp.ge.ftz.f32"
		}
		g := genOps[key]
		emit(inst{op: g.op, d: p, a: dc.src(in, sc, ops[3], ct), b: dc.constSlot(0)})
		t := m.types[0]
		emit(inst{op: opSelp, d: dc.dst(in, sc, ops[0]), a: dc.src(in, sc, ops[1], t), b: dc.src(in, sc, ops[2], t), c: p})
		return
	case "cvt":
		dc.cvt(in, sc, m, x)
		return
	case "shfl":
		dc.shfl(in, sc, m, x)
		return
	case "vote":
		n := len(ops)
		if n != 2 && n != 3 {
			dc.nops(in, 3)
		}
		a, neg := dc.pred(in, sc, ops[1])
		x.op, x.a = opVote, a
		switch {
		case m.flags["all"]:
			x.fl = voteAll
		case m.flags["any"]:
			x.fl = voteAny
		case m.flags["uni"]:
			x.fl = voteUni
		case m.flags["ballot"]:
			x.fl = voteBallot
		default:
			dc.failIn(in, "unknown vote mode")
		}
		if x.fl == voteBallot {
			x.d = dc.dst(in, sc, ops[0])
		} else {
			x.d, _ = dc.pred(in, sc, ops[0])
		}
		if neg {
			x.fl |= 16
		}
		if n == 3 { // membermask: lanes may pass different ones
			x.b = dc.src(in, sc, ops[2], ptx.U32)
		} else {
			x.b = dc.constSlot(0xffffffff)
		}
		dc.emit(in, x)
		return
	case "match":
		dc.nops(in, 3)
		x.op = opMatch
		if m.flags["all"] {
			x.fl = 1
		} else if !m.flags["any"] {
			dc.failIn(in, "unknown match mode")
		}
		t := m.typ()
		if t.Size() == 8 {
			x.fl |= 2
		}
		d := ops[0]
		if pr, ok := d.(*ptx.Pair); ok {
			d = pr.First
			x.aux, _ = dc.predU(in, sc, pr.Second)
		}
		x.d, x.a = dc.dst(in, sc, d), dc.src(in, sc, ops[1], t)
		dc.emit(in, x)
		return
	case "redux":
		dc.nops(in, 3)
		x.op = opRedux
		t := m.typ()
		kinds := map[string]uint16{"add": rdAdd, "min": rdMin, "max": rdMax, "and": rdAnd, "or": rdOr, "xor": rdXor}
		found := false
		for k, v := range kinds {
			if m.flags[k] {
				x.fl, found = v, true
			}
		}
		if !found || t.Size() != 4 || t.IsFloat() {
			dc.failIn(in, "unsupported redux form")
		}
		if t.IsSigned() {
			x.fl |= 16
		}
		x.d, x.a = dc.dst(in, sc, ops[0]), dc.src(in, sc, ops[1], t)
		x.b = dc.src(in, sc, ops[2], ptx.U32) // membermask: lanes may pass different ones
		dc.emit(in, x)
		return
	case "activemask":
		dc.nops(in, 1)
		x.op, x.d = opActMask, dc.dst(in, sc, ops[0])
		dc.emit(in, x)
		return
	case "elect":
		dc.nops(in, 2)
		x.op = opElect
		d := ops[0]
		if pr, ok := d.(*ptx.Pair); ok {
			d = pr.First
			x.aux, _ = dc.predU(in, sc, pr.Second)
		}
		x.d = dc.dst(in, sc, d)
		dc.emit(in, x)
		return
	case "bar", "barrier":
		if m.flags["cluster"] {
			dc.clusterInstr(in, sc, m, x)
			return
		}
		dc.bar(in, sc, m, x)
		return
	case "mma", "wmma", "ldmatrix", "stmatrix", "movmatrix":
		dc.tensor(in, sc, x)
		return
	case "vadd2", "vadd4", "vsub2", "vsub4", "vavrg2", "vavrg4", "vabsdiff2", "vabsdiff4", "vmin2", "vmin4",
		"vmax2", "vmax4", "vset2", "vset4", "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset":
		dc.videoInstr(in, sc, m, x)
		return
	case "mapa", "getctarank":
		dc.clusterInstr(in, sc, m, x)
		return
	case "mbarrier":
		dc.mbarrierInstr(in, sc, m, x)
		return
	case "createpolicy":
		x.op, x.d, x.a = opMov, dc.dst(in, sc, ops[0]), dc.constSlot(0)
		dc.emit(in, x)
		return
	case "cp":
		if m.flags["mbarrier"] {
			dc.mbarrierInstr(in, sc, m, x)
			return
		}
		if m.flags["bulk"] {
			dc.bulkInstr(in, sc, m, x)
			return
		}
		// cp.async copies complete immediately, so the group waits have
		// nothing to wait for.
		if m.flags["async"] && (m.flags["commit_group"] || m.flags["wait_group"] || m.flags["wait_all"]) {
			x.op = opNop
			dc.emit(in, x)
			return
		}
		if m.flags["async"] && !m.flags["bulk"] && (m.flags["shared"] || m.flags["shared::cta"]) && m.flags["global"] {
			if len(ops) < 3 || len(ops) > 5 {
				dc.failIn(in, "wrong number of operands")
			}
			size, ok := ops[2].(*ptx.Imm)
			if !ok || size.Val != 4 && size.Val != 8 && size.Val != 16 {
				dc.failIn(in, "cp-size must be 4, 8 or 16")
			}
			x.op, x.fl = opCpAsync, uint16(size.Val)
			x.a, x.imm, _ = dc.memAddr(in, sc, ops[0], spShared)
			var soff int64
			x.b, soff, _ = dc.memAddr(in, sc, ops[1], spGlobal)
			x.c = dc.constSlot(uint64(soff))
			x.d = dc.constSlot(size.Val)
			// An optional src-size (the rest is zero-filled) precedes the
			// optional cache policy of .L2::cache_hint.
			if len(ops) == 5 || len(ops) == 4 && !m.flags["L2::cache_hint"] {
				x.d = dc.src(in, sc, ops[3], ptx.U32)
			}
			dc.emit(in, x)
			return
		}
	case "and", "or", "xor", "not", "cnot":
		if m.typ() == ptx.Pred {
			dc.predLogic(in, sc, x)
			return
		}
	}
	if noOps[op] {
		x.op = opNop
		dc.emit(in, x)
		return
	}
	if m.flags["cc"] || op == "addc" || op == "subc" || op == "madc" {
		dc.carry(in, sc, m, x)
		return
	}
	// Generated arithmetic forms.
	if op == "prmt" {
		modes := map[string]uint16{"f4e": gpumath.PrmtF4E, "b4e": gpumath.PrmtB4E, "rc8": gpumath.PrmtRC8, "ecl": gpumath.PrmtECL, "ecr": gpumath.PrmtECR, "rc16": gpumath.PrmtRC16}
		for k, v := range modes {
			if m.flags[k] {
				x.fl = v
				delete(m.flags, k)
				m.list = removeStr(m.list, k)
			}
		}
	}
	key := dc.genKey(in, m)
	g, ok := genOps[key]
	if !ok {
		dc.failIn(in, "instruction form %s is not supported by the soft backend", key)
	}
	srcs := strings.Split(g.srcs, ",")
	nsrc := len(srcs)
	if op == "lop3" {
		dc.nops(in, 5)
		lut, ok := ops[4].(*ptx.Imm)
		if !ok {
			dc.failIn(in, "lop3's lookup table must be an immediate")
		}
		x.imm = int64(lut.Val & 0xff)
	} else {
		dc.nops(in, 1+nsrc)
	}
	x.op = g.op
	if g.op >= opCmp {
		p, _ := dc.pred(in, sc, ops[0])
		x.d = p
	} else {
		x.d = dc.dst(in, sc, ops[0])
	}
	fields := []*uint32{&x.a, &x.b, &x.c, &x.e}
	for i, s := range srcs {
		t, _ := ptx.LookupType(s)
		*fields[i] = dc.src(in, sc, ops[1+i], t)
	}
	dc.emit(in, x)
}

func removeStr(l []string, s string) []string {
	var out []string
	for _, v := range l {
		if v != s {
			out = append(out, v)
		}
	}
	return out
}

// predU is pred for an operand that may not be negated, returning int32.
func (dc *decoder) predU(in *ptx.Instr, sc *scope, o ptx.Operand) (int32, bool) {
	p, neg := dc.pred(in, sc, o)
	return int32(p), neg
}

func (dc *decoder) mov(in *ptx.Instr, sc *scope, m modset, x inst) {
	dc.nops(in, 2)
	ops := in.Operands
	t := m.typ()
	if t == ptx.Pred {
		if r, ok := ops[1].(*ptx.Reg); ok && r.Name == "%is_explicit_cluster" && sc.lookup(r.Name) == nil {
			// The one predicate special register.
			d, _ := dc.pred(in, sc, ops[0])
			x.op, x.d, x.a, x.b = genOps["setp.ne.u32"].op, d, dc.specialSlot(spClExplicit), dc.constSlot(0)
			dc.emit(in, x)
			return
		}
		d, _ := dc.pred(in, sc, ops[0])
		a, neg := dc.pred(in, sc, ops[1])
		x.op, x.d, x.a = opMovPred, d, a
		if neg {
			x.e = 1
		}
		dc.emit(in, x)
		return
	}
	if t == ptx.B128 {
		dc.movB128(in, sc, x)
		return
	}
	if v, ok := ops[1].(*ptx.Vec); ok { // pack
		n := len(v.Elems)
		if n != 2 && n != 4 || t.Size()*8%n != 0 {
			dc.failIn(in, "unsupported vector move")
		}
		bits := t.Size() * 8 / n
		et := map[int]ptx.Type{8: ptx.B8, 16: ptx.B16, 32: ptx.B32}[bits]
		regs := dc.vecRegs(in, sc, v, et, false)
		x.op, x.d, x.aux, x.e, x.fl = opPack, dc.dst(in, sc, ops[0]), dc.vecIndex(regs), uint32(n), uint16(bits)
		dc.emit(in, x)
		return
	}
	if v, ok := ops[0].(*ptx.Vec); ok { // unpack
		n := len(v.Elems)
		if n != 2 && n != 4 || t.Size()*8%n != 0 {
			dc.failIn(in, "unsupported vector move")
		}
		regs := dc.vecRegs(in, sc, v, t, true)
		x.op, x.a, x.aux, x.e, x.fl = opUnpack, dc.src(in, sc, ops[1], t), dc.vecIndex(regs), uint32(n), uint16(t.Size()*8/n)
		dc.emit(in, x)
		return
	}
	if r, ok := ops[1].(*ptx.Reg); ok {
		if ks, ok := specialNames[r.Name]; ok && sc.lookup(r.Name) == nil && isDynamicSpecial(ks[0]) {
			x.op, x.d, x.aux = opSpecial, dc.dst(in, sc, ops[0]), int32(ks[0])
			dc.emit(in, x)
			return
		}
	}
	x.op, x.d = opMov, dc.dst(in, sc, ops[0])
	x.a = dc.src(in, sc, ops[1], t)
	// A narrower move truncates (mov.u16 of a wider immediate, say); values
	// in registers are already their width.
	dc.emit(in, x)
}

func (dc *decoder) ldst(in *ptx.Instr, sc *scope, m modset, x inst, load bool) {
	ops := in.Operands
	if len(ops) < 2 || len(ops) > 3 {
		dc.nops(in, 2)
	}
	t := m.typ()
	wide := t == ptx.B128 // two 64-bit halves (b128.go)
	if wide {
		t = ptx.B64
	}
	if t == ptx.TypeNone || t.Size() == 0 || t.Size() > 8 {
		dc.failIn(in, "unsupported element type")
	}
	n := 1
	for _, v := range []struct {
		f string
		n int
	}{{"v2", 2}, {"v4", 4}, {"v8", 8}} {
		if m.flags[v.f] {
			n = v.n
		}
	}
	space, _ := spaceOf(m)
	for _, f := range m.list {
		switch f {
		case "global", "shared", "shared::cta", "shared::cluster", "local", "const", "param", "v2", "v4", "v8":
		case "volatile", "relaxed", "acquire", "release":
			x.fl |= memAtomic
		default:
			if !ignorable[f] {
				dc.failIn(in, "modifier .%s is not supported", f)
			}
		}
	}
	addrOp, valOp := ops[1], ops[0]
	if !load {
		addrOp, valOp = ops[0], ops[1]
	}
	x.fl |= uint16(t.Size())
	var regs []uint32
	if wide {
		regs = dc.b128Regs(in, sc, valOp, load, n)
		n *= 2
	} else if load {
		regs = dc.vecRegs(in, sc, valOp, t, true)
		if t.IsSigned() {
			if w := regWidth(dc.regType(sc, firstElem(valOp))); w > t.Size() {
				x.fl |= memSext
				x.c = uint32(w)
			}
		}
	} else {
		regs = dc.vecRegs(in, sc, valOp, t, false)
	}
	if len(regs) != n {
		dc.failIn(in, "expected %d values, got %d", n, len(regs))
	}
	x.e = uint32(n)
	if n == 1 {
		x.d = regs[0]
	} else {
		x.aux = dc.vecIndex(regs)
	}
	if space < 0 { // .param
		a, ok := addrOp.(*ptx.Addr)
		if !ok {
			dc.failIn(in, "expected an address")
		}
		if r, ok := a.Base.(*ptx.Reg); ok {
			// A register holding a kernel parameter's address (-G builds
			// copy by-value structs this way).
			if !dc.fi.f.Entry || !load {
				dc.failIn(in, "register-based .param addresses are only supported for loads of kernel parameters")
			}
			x.a, x.imm, x.aux2 = dc.src(in, sc, r, ptx.U64), a.Offset, spParam
			x.op = opLd
			dc.emit(in, x)
			return
		}
		s, ok := a.Base.(*ptx.Sym)
		if !ok {
			dc.failIn(in, "unsupported .param address")
		}
		ps := dc.resolve(sc, s.Name, s.Pos)
		switch ps.kind {
		case skKernelParam:
			if !load {
				dc.failIn(in, "kernel parameters are read-only")
			}
			x.op, x.imm = opLdParam, int64(ps.off)+a.Offset
			if n == 1 && x.imm >= 0 {
				k := kparam{off: uint32(x.imm), size: uint16(t.Size())}
				if x.fl&memSext != 0 {
					k.sext = uint16(x.c)
				}
				x.op, x.a = opMov, dc.kparamSlot(k)
			}
			dc.emit(in, x)
			return
		case skFrameParam:
			x.a, x.imm, x.aux2 = fbSlot, int64(ps.off)+a.Offset, spLocal
		default:
			dc.failIn(in, "%s is not a parameter", s.Name)
		}
	} else {
		var sp int
		x.a, x.imm, sp = dc.memAddr(in, sc, addrOp, space)
		x.aux2 = int32(sp)
	}
	x.op = opSt
	if load {
		x.op = opLd
	} else if x.aux2 == spConst {
		dc.failIn(in, "constant memory is read-only")
	}
	if n == 1 && t.Size() == 4 && x.fl&(memSext|memAtomic) == 0 && (x.aux2 == spGlobal || x.aux2 == spShared) {
		x.op = map[[2]bool]opcode{{true, true}: opLdG32, {true, false}: opLdS32, {false, true}: opStG32, {false, false}: opStS32}[[2]bool{load, x.aux2 == spGlobal}]
	}
	dc.emit(in, x)
}

func firstElem(o ptx.Operand) ptx.Operand {
	if v, ok := o.(*ptx.Vec); ok && len(v.Elems) > 0 {
		return v.Elems[0]
	}
	return o
}

func (dc *decoder) atom(in *ptx.Instr, sc *scope, m modset, x inst) {
	ops := in.Operands
	red := in.Op == "red"
	kind := -1
	vec := 1
	for _, f := range m.list {
		if k, ok := atomOps[f]; ok {
			kind = k
			continue
		}
		switch f {
		case "global", "shared", "shared::cta", "shared::cluster":
		case "v2", "v4", "v8":
			vec = int(f[1] - '0')
		default:
			if !ignorable[f] {
				dc.failIn(in, "modifier .%s is not supported", f)
			}
		}
	}
	t := m.typ()
	if t == ptx.B128 {
		dc.atomB128(in, sc, m, x, kind, vec, red)
		return
	}
	cls, ok := atomClasses[t]
	if kind < 0 || !ok {
		dc.failIn(in, "unsupported atomic operation")
	}
	switch {
	case cls == gpumath.AcF32 || cls == gpumath.AcF64:
		if kind != gpumath.AtAdd && kind != gpumath.AtExch && kind != gpumath.AtMin && kind != gpumath.AtMax && kind != gpumath.AtCas {
			dc.failIn(in, "unsupported float atomic")
		}
	case cls >= gpumath.AcF16 && cls <= gpumath.AcBF16x2:
		if kind != gpumath.AtAdd && kind != gpumath.AtMin && kind != gpumath.AtMax {
			dc.failIn(in, "unsupported half atomic")
		}
	case cls == gpumath.AcB16:
		if kind != gpumath.AtCas && kind != gpumath.AtExch {
			dc.failIn(in, "unsupported 16-bit atomic")
		}
	}
	space, _ := spaceOf(m)
	if space < 0 || space == spLocal || space == spConst {
		dc.failIn(in, "atomics on this state space are not supported")
	}
	if vec > 1 {
		// sm_90's vector atomics: .v2/.v4 f32 and .v2/.v4/.v8 packed
		// halves, add (and min/max for halves), on global memory.
		if space != spGlobal && space != spGeneric || !(cls == gpumath.AcF32 && kind == gpumath.AtAdd && vec <= 4 ||
			(cls == gpumath.AcF16x2 || cls == gpumath.AcBF16x2 || cls == gpumath.AcF16 || cls == gpumath.AcBF16) && kind != gpumath.AtCas && kind != gpumath.AtExch) {
			dc.failIn(in, "unsupported vector atomic")
		}
		dc.atomVec(in, sc, m, x, kind, cls, vec, space, red)
		return
	}
	x.op, x.fl = opAtom, uint16(kind|cls<<4)
	i := 0
	if !red {
		x.d = dc.dst(in, sc, ops[0])
		i = 1
	}
	need := i + 2
	if kind == gpumath.AtCas {
		need++
	}
	if len(ops) < need || len(ops) > need+1 {
		dc.failIn(in, "wrong number of operands")
	}
	var sp int
	x.a, x.imm, sp = dc.memAddr(in, sc, ops[i], space)
	x.aux2 = int32(sp)
	x.b = dc.src(in, sc, ops[i+1], t)
	if kind == gpumath.AtCas {
		x.c = dc.src(in, sc, ops[i+2], t)
	}
	dc.emit(in, x)
}

var cmpOps = map[string]bool{"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"lo": true, "ls": true, "hi": true, "hs": true, "equ": true, "neu": true, "ltu": true, "leu": true,
	"gtu": true, "geu": true, "num": true, "nan": true}

// cmpKey parses setp/set modifiers into the generated compare key (without
// the lo/hi half suffix) and the boolean combination.
func (dc *decoder) cmpParts(in *ptx.Instr, m modset, t ptx.Type) (cmp string, ftz bool, boolOp uint16) {
	for _, f := range m.list {
		switch {
		case cmpOps[f]:
			cmp = f
		case f == "and":
			boolOp = setpAnd
		case f == "or":
			boolOp = setpOr
		case f == "xor":
			boolOp = setpXor
		case f == "ftz":
			ftz = true
		default:
			if !ignorable[f] {
				dc.failIn(in, "modifier .%s is not supported", f)
			}
		}
	}
	if cmp == "" {
		dc.failIn(in, "missing comparison")
	}
	return
}

func cmpKey(cmp string, ftz bool, half string, t ptx.Type) string {
	k := "setp." + cmp
	if ftz {
		k += ".ftz"
	}
	if half != "" {
		k += "." + half
	}
	return k + "." + t.String()
}

func (dc *decoder) setp(in *ptx.Instr, sc *scope, m modset, x inst) {
	ops := in.Operands
	if len(ops) != 3 && len(ops) != 4 {
		dc.nops(in, 3)
	}
	t := m.typ()
	cmp, ftz, boolOp := dc.cmpParts(in, m, t)
	if boolOp != 0 && len(ops) != 4 || boolOp == 0 && len(ops) != 3 {
		dc.failIn(in, "wrong number of operands")
	}
	var p, q uint32
	hasQ := false
	if pr, ok := ops[0].(*ptx.Pair); ok {
		p, _ = dc.pred(in, sc, pr.First)
		q, _ = dc.pred(in, sc, pr.Second)
		hasQ = true
	} else {
		p, _ = dc.pred(in, sc, ops[0])
	}
	x.fl = boolOp
	if boolOp != 0 {
		c, neg := dc.pred(in, sc, ops[3])
		x.c = c
		if neg {
			x.fl |= setpNegC
		}
	}
	halves := []string{""}
	if t == ptx.F16x2 || t == ptx.BF16x2 {
		halves = []string{"lo", "hi"}
	}
	for i, h := range halves {
		key := cmpKey(cmp, ftz, h, t)
		g, ok := genOps[key]
		if !ok {
			dc.failIn(in, "comparison %s is not supported", key)
		}
		y := x
		y.op = g.op
		st, _ := ptx.LookupType(strings.Split(g.srcs, ",")[0])
		y.a, y.b = dc.src(in, sc, ops[1], st), dc.src(in, sc, ops[2], st)
		if h == "" {
			y.d = p
			if hasQ {
				y.e, y.fl = q, y.fl|setpQ
			}
		} else {
			// Packed halves: the low half sets p, the high half q.
			y.d = p
			if i == 1 {
				if !hasQ {
					dc.failIn(in, "packed comparison needs two destination predicates")
				}
				y.d = q
			}
		}
		dc.emit(in, y)
	}
}

func (dc *decoder) set(in *ptx.Instr, sc *scope, m modset, x inst) {
	ops := in.Operands
	if len(m.types) != 2 {
		dc.failIn(in, "expected destination and source types")
	}
	dt, st := m.types[0], m.types[1]
	m.types = m.types[1:]
	cmp, ftz, boolOp := dc.cmpParts(in, m, st)
	if boolOp != 0 && len(ops) != 4 || boolOp == 0 && len(ops) != 3 {
		dc.failIn(in, "wrong number of operands")
	}
	var c uint32
	negC := false
	if boolOp != 0 {
		c, negC = dc.pred(in, sc, ops[3])
	}
	// compare emits the comparison of one half ("" for a scalar) into a
	// new predicate, combined with c by the boolean operation.
	compare := func(half string) uint32 {
		g, ok := genOps[cmpKey(cmp, ftz, half, st)]
		if !ok {
			dc.failIn(in, "comparison is not supported")
		}
		p := dc.newPred()
		y := x
		y.op, y.d, y.fl = g.op, p, boolOp
		if negC {
			y.fl |= setpNegC
		}
		y.c = c
		y.a, y.b = dc.src(in, sc, ops[1], st), dc.src(in, sc, ops[2], st)
		dc.emit(in, y)
		return p
	}
	if st == ptx.F16x2 || st == ptx.BF16x2 {
		// Each half's result in its half of d: 1.0 in the source's
		// format for an .f16x2/.bf16x2 destination, 0xffff for .u32/.s32.
		var one uint64
		switch dt {
		case st:
			one = 0x3c00
			if st == ptx.BF16x2 {
				one = 0x3f80
			}
		case ptx.U32, ptx.S32:
			one = 0xffff
		default:
			dc.failIn(in, "set on %s sources takes a %s, .u32 or .s32 destination", st, st)
		}
		lo, hi := compare("lo"), compare("hi")
		t := dc.newSlot()
		d := dc.dst(in, sc, ops[0])
		x.op, x.d, x.a, x.b, x.c = opSelp, t, dc.constSlot(one), dc.constSlot(0), lo
		dc.emit(in, x)
		x.op, x.d, x.a, x.b, x.c = opSelp, d, dc.constSlot(one<<16), dc.constSlot(0), hi
		dc.emit(in, x)
		x.op, x.d, x.a, x.b, x.c = genOps["or.b32"].op, d, d, t, 0
		dc.emit(in, x)
		return
	}
	p := compare("")
	one := uint64(0xffffffff)
	switch dt {
	case ptx.F32:
		one = uint64(math.Float32bits(1))
	case ptx.F16:
		one = 0x3c00
	case ptx.BF16:
		one = 0x3f80
	case ptx.F16x2, ptx.BF16x2:
		dc.failIn(in, "set with a %s destination takes %s sources", dt, dt)
	}
	x.op, x.d, x.a, x.b, x.c = opSelp, dc.dst(in, sc, ops[0]), dc.constSlot(one), dc.constSlot(0), p
	dc.emit(in, x)
}

func (dc *decoder) predLogic(in *ptx.Instr, sc *scope, x inst) {
	ops := in.Operands
	switch in.Op {
	case "not":
		dc.nops(in, 2)
		d, _ := dc.pred(in, sc, ops[0])
		a, neg := dc.pred(in, sc, ops[1])
		x.op, x.d, x.a, x.e = opMovPred, d, a, 1
		if neg {
			x.e = 0
		}
	case "and", "or", "xor":
		dc.nops(in, 3)
		d, _ := dc.pred(in, sc, ops[0])
		a, na := dc.pred(in, sc, ops[1])
		b, nb := dc.pred(in, sc, ops[2])
		x.op = map[string]opcode{"and": opPredAnd, "or": opPredOr, "xor": opPredXor}[in.Op]
		x.d, x.a, x.b = d, a, b
		if na {
			x.fl |= 1
		}
		if nb {
			x.fl |= 2
		}
	default:
		dc.failIn(in, "unsupported predicate operation")
	}
	dc.emit(in, x)
}

func (dc *decoder) cvt(in *ptx.Instr, sc *scope, m modset, x inst) {
	ops := in.Operands
	if len(m.types) != 2 {
		dc.failIn(in, "expected destination and source types")
	}
	dt, st := m.types[0], m.types[1]
	if dt == ptx.TF32 {
		dc.cvtTF32(in, sc, m, x)
		return
	}
	if dt == ptx.F16x2 || dt == ptx.BF16x2 {
		// cvt.rn.f16x2.f32 d, a, b: a goes to the upper half.
		dc.nops(in, 3)
		key := "cvt." + strings.Join(m.list, ".") + "." + dt.String() + "." + st.String()
		g, ok := genOps[key]
		if !ok {
			dc.failIn(in, "conversion %s is not supported", key)
		}
		x.op, x.d = g.op, dc.dst(in, sc, ops[0])
		x.a, x.b = dc.src(in, sc, ops[1], st), dc.src(in, sc, ops[2], st)
		dc.emit(in, x)
		return
	}
	dc.nops(in, 2)
	var rnd string
	ftz, sat := false, false
	for _, f := range m.list {
		switch f {
		case "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi":
			rnd = f
		case "ftz":
			ftz = true
		case "sat":
			sat = true
		default:
			dc.failIn(in, "modifier .%s is not supported", f)
		}
	}
	isInt := func(t ptx.Type) bool { return t.IsSigned() || t.IsUnsigned() || t.IsBits() }
	d := dc.dst(in, sc, ops[0])
	switch {
	case isInt(dt) && isInt(st):
		// Integer conversions: one parameterised op.
		sb, db := st.Size()*8, dt.Size()*8
		spec := int64(sb) | int64(db)<<8
		if st.IsSigned() {
			spec |= 1 << 16
		}
		if dt.IsSigned() {
			spec |= 1 << 17
		}
		if sat {
			spec |= 1 << 18
		}
		// A destination register wider than the type gets the result
		// sign- or zero-extended to its width.
		rw := max(regWidth(dc.regType(sc, ops[0])), dt.Size())
		spec |= int64(rw*8) << 24
		x.op, x.d, x.a, x.imm = opCvtII, d, dc.src(in, sc, ops[1], st), spec
		dc.emit(in, x)
		return
	case isInt(st): // int → float
		if rnd == "" {
			rnd = "rn"
		}
		sg := "u"
		if st.IsSigned() {
			sg = "s"
		}
		key := "cvt." + rnd + "." + dt.String() + "." + sg
		dc.cvtEmit(in, sc, x, key, d, st, uint16(st.Size()*8))
		if ftz || sat {
			dc.failIn(in, ".ftz/.sat on an integer-to-float conversion is not supported")
		}
		return
	case isInt(dt): // float → int
		switch rnd {
		case "rn", "rz", "rm", "rp":
			rnd += "i"
		case "":
			rnd = "rzi"
		}
		sg := "u"
		if dt.IsSigned() {
			sg = "s"
		}
		key := "cvt." + rnd
		if ftz {
			key += ".ftz"
		}
		key += "." + sg + "." + st.String()
		dc.cvtEmit(in, sc, x, key, d, st, uint16(dt.Size()*8))
		return
	}
	key := "cvt"
	if rnd != "" {
		key += "." + rnd
	}
	if ftz {
		key += ".ftz"
	}
	if sat {
		key += ".sat"
	}
	key += "." + dt.String() + "." + st.String()
	dc.cvtEmit(in, sc, x, key, d, st, 0)
}

func (dc *decoder) cvtEmit(in *ptx.Instr, sc *scope, x inst, key string, d uint32, st ptx.Type, fl uint16) {
	g, ok := genOps[key]
	if !ok {
		dc.failIn(in, "conversion %s is not supported", key)
	}
	x.op, x.d, x.fl = g.op, d, fl
	x.a = dc.src(in, sc, in.Operands[1], st)
	dc.emit(in, x)
}

func (dc *decoder) shfl(in *ptx.Instr, sc *scope, m modset, x inst) {
	ops := in.Operands
	if len(ops) != 4 && len(ops) != 5 {
		dc.nops(in, 5)
	}
	x.op = opShfl
	switch {
	case m.flags["up"]:
		x.fl = shflUp
	case m.flags["down"]:
		x.fl = shflDown
	case m.flags["bfly"]:
		x.fl = shflBfly
	case m.flags["idx"]:
		x.fl = shflIdx
	default:
		dc.failIn(in, "unknown shuffle mode")
	}
	d := ops[0]
	if pr, ok := d.(*ptx.Pair); ok {
		d = pr.First
		x.aux, _ = dc.predU(in, sc, pr.Second)
	}
	t := ptx.B32
	x.d = dc.dst(in, sc, d)
	x.a, x.b, x.c = dc.src(in, sc, ops[1], t), dc.src(in, sc, ops[2], t), dc.src(in, sc, ops[3], t)
	if len(ops) == 5 {
		x.e = dc.src(in, sc, ops[4], t)
	} else {
		x.e = dc.constSlot(0xffffffff)
	}
	if dc.isConstSlot(x.b) && dc.isConstSlot(x.c) {
		x.fl |= shflUniform
	}
	dc.emit(in, x)
}

// isConstSlot reports whether slot s holds an immediate (constSlot), the
// same value in every lane, never written.
func (dc *decoder) isConstSlot(s uint32) bool {
	for _, cv := range dc.p.consts {
		if cv.slot == s {
			return true
		}
	}
	return false
}

func (dc *decoder) bar(in *ptx.Instr, sc *scope, m modset, x inst) {
	ops := in.Operands
	x.op = opBar
	red := m.flags["red"]
	switch {
	case m.flags["warp"]:
		x.op = opNop // bar.warp.sync: lanes at one pc already run together
		dc.emit(in, x)
		return
	case m.flags["arrive"]:
		x.fl |= barArrive
	case m.flags["sync"] || red || len(m.list) == 0:
	case m.flags["cluster"]:
		dc.failIn(in, "cluster barriers are not supported")
	default:
		dc.failIn(in, "unsupported barrier form")
	}
	i := 0
	if red {
		switch {
		case m.flags["popc"]:
			x.fl |= barRedPopc
			x.d = dc.dst(in, sc, ops[0])
		case m.flags["and"]:
			x.fl |= barRedAnd
			x.d, _ = dc.pred(in, sc, ops[0])
		case m.flags["or"]:
			x.fl |= barRedOr
			x.d, _ = dc.pred(in, sc, ops[0])
		default:
			dc.failIn(in, "unsupported barrier reduction")
		}
		i = 1
		c, neg := dc.pred(in, sc, ops[len(ops)-1])
		x.c = c
		if neg {
			x.fl |= barRedNeg
		}
		ops = ops[:len(ops)-1]
	}
	rest := ops[i:]
	switch len(rest) {
	case 0:
		x.a = dc.constSlot(0)
	case 1:
		x.a = dc.src(in, sc, rest[0], ptx.U32)
	case 2:
		x.a = dc.src(in, sc, rest[0], ptx.U32)
		x.b = dc.src(in, sc, rest[1], ptx.U32)
		x.fl |= barCount
	default:
		dc.failIn(in, "wrong number of operands")
	}
	if x.fl&barArrive != 0 && x.fl&barCount == 0 {
		dc.failIn(in, "bar.arrive needs a thread count")
	}
	dc.emit(in, x)
}

func (dc *decoder) carry(in *ptx.Instr, sc *scope, m modset, x inst) {
	ops := in.Operands
	t := m.typ()
	if t.Size() != 4 && t.Size() != 8 || t.IsFloat() {
		dc.failIn(in, "unsupported carry form")
	}
	x.op = opAddCC
	if m.flags["cc"] {
		x.fl |= ccOut
	}
	if t.Size() == 8 {
		x.fl |= cc64
	}
	n := 3
	switch in.Op {
	case "add":
		x.fl |= ccAdd
	case "addc":
		x.fl |= ccAdd | ccIn
	case "sub":
		x.fl |= ccSub
	case "subc":
		x.fl |= ccSub | ccIn
	case "mad", "madc":
		n = 4
		switch {
		case m.flags["lo"]:
			x.fl |= ccMadLo
		case m.flags["hi"]:
			x.fl |= ccMadHi
		default:
			dc.failIn(in, "unsupported carry form")
		}
		if in.Op == "madc" {
			x.fl |= ccIn
		}
	default:
		dc.failIn(in, "unsupported carry form")
	}
	dc.nops(in, n)
	x.d = dc.dst(in, sc, ops[0])
	x.a, x.b = dc.src(in, sc, ops[1], t), dc.src(in, sc, ops[2], t)
	if n == 4 {
		x.c = dc.src(in, sc, ops[3], t)
	}
	dc.emit(in, x)
}
