// The decoder: a kernel's PTX, with every function it calls, becomes one
// program of bytecode at load time. This half walks functions and blocks,
// lays out parameters, shared memory and frames, allocates register slots
// and resolves operands; decode_instr.go is the instruction half, one PTX
// instruction at a time. The bytecode's format is in ops.go.

package exec

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/cugen/cugen/parse/ptx"
)

// decodeError is a load-time failure at a PTX position.
type decodeError struct {
	pos ptx.Pos
	msg string
}

func (e *decodeError) Error() string { return e.pos.String() + ": " + e.msg }

// Symbol kinds in a function's scope.
type symKind uint8

const (
	skReg symKind = iota
	skPred
	skLocal       // .local variable: frame offset
	skFrameParam  // .func parameter / return value / call-sequence .param: frame offset
	skKernelParam // .entry parameter: parameter-buffer offset
	skShared      // static shared: offset
	skGlobal      // module .global/.const: var index
	skFunc
)

type sym struct {
	kind symKind
	slot uint32 // register offset or predicate index
	off  uint32
	typ  ptx.Type
	vi   int // module var index (skGlobal)
	fn   *ptx.Func
	v    *ptx.Var
}

type scope struct {
	parent *scope
	names  map[string]*sym
}

func (s *scope) lookup(n string) *sym {
	for ; s != nil; s = s.parent {
		if v, ok := s.names[n]; ok {
			return v
		}
	}
	return nil
}

// decoder turns one kernel (and the functions it calls) into a program.
type decoder struct {
	lib *Module
	p   *Program

	funcs  map[string]*ptx.Func
	infos  map[*ptx.Func]*funcInfo
	order  []*funcInfo // decoding order; [0] is the kernel
	module *scope

	consts   map[uint64]uint32
	syms     map[int]uint32
	specials map[int]uint32
	kparams  map[kparam]uint32
	shared   map[*ptx.Var]uint32

	// fixed holds the slots set before a CTA's first instruction runs and
	// never written by one: the program slots (constants, symbols, special
	// registers, kernel parameters) and the registers specialise turned
	// into one. perCTA are those of them that change from CTA to CTA;
	// uniform those that hold one value in all 32 lanes of a warp (all but
	// %tid and the like, and what is computed from them), which an op may
	// read from lane 0 (aluUniformB).
	fixed, perCTA, uniform map[uint32]bool

	// The kernel's uniform candidates (uniform.go): the registers, the
	// ones found not to qualify, and their definitions.
	uniRegs map[string]bool
	uniBad  map[string]bool
	uniRecs []uniRec

	// per function
	cur    *ptx.Instr            // the instruction being decoded
	single map[*ptx.Instr]string // singleDefs of the function
	fi     *funcInfo
	protos map[string]*ptx.CallProto
	labels map[string]int32
	fixups []fixup
	tlists map[string]*ptx.Targets // .branchtargets lists declared so far
}

// fixup resolves a label once its function is decoded: into the aux of
// the instruction at pc, or, for a brx.idx target list, into p.brx[pc].
type fixup struct {
	pc    int32
	label string
	pos   ptx.Pos
	brx   bool
}

func align(v, a uint32) uint32 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) / a * a
}

// VarSize is a declaration's size in bytes (-1 if unsized).
func VarSize(v *ptx.Var) int {
	n := v.Elems()
	if n < 0 {
		return -1
	}
	return n * v.Type.Size()
}

func varAlign(v *ptx.Var) uint32 {
	if v.Align > 0 {
		return uint32(v.Align)
	}
	a := v.Type.Size()
	if v.Vector > 0 {
		a *= v.Vector
	}
	if a < 1 {
		a = 1
	}
	return uint32(a)
}

func ParamSize(p *ptx.Param) (size, al uint32) {
	n := p.Type.Size()
	if p.Vector > 0 {
		n *= p.Vector
	}
	al = uint32(n)
	if p.Align > 0 {
		al = uint32(p.Align)
	}
	if p.ArrayLen > 0 {
		n *= p.ArrayLen
	}
	if al == 0 {
		al = 1
	}
	return uint32(n), al
}

// LayoutParams lays parameters out as the PTX ABI does: each at its
// alignment, in order.
func LayoutParams(ps []*ptx.Param, start uint32) (offs []uint32, end uint32) {
	end = start
	for _, p := range ps {
		n, a := ParamSize(p)
		end = align(end, a)
		offs = append(offs, end)
		end += n
	}
	return offs, end
}

// moduleScope is the module's variables and functions by name (a variable
// wins over a function of the same name), made at the module's first
// decode.
func (lib *Module) moduleScope() *scope {
	lib.scopeOnce.Do(func() {
		names := make(map[string]*sym, len(lib.Vars)+len(lib.PTX.Funcs))
		for i, v := range lib.Vars {
			names[v.Name] = &sym{kind: skGlobal, vi: i, typ: v.Type, v: v}
		}
		for _, f := range lib.PTX.Funcs {
			if names[f.Name] == nil {
				names[f.Name] = &sym{kind: skFunc, fn: f}
			}
		}
		lib.scope = &scope{names: names}
	})
	return lib.scope
}

// decodeKernel decodes a kernel, with every function it can call, into a
// program; the error is a *decodeError at the first thing it cannot run.
func decodeKernel(lib *Module, entry *ptx.Func) (p *Program, err error) {
	dc := &decoder{lib: lib, funcs: lib.funcs, infos: map[*ptx.Func]*funcInfo{},
		consts: map[uint64]uint32{}, syms: map[int]uint32{}, specials: map[int]uint32{}, kparams: map[kparam]uint32{},
		shared: map[*ptx.Var]uint32{}}
	p = &Program{Module: lib, Name: entry.Name, Func: entry, NSlots: 2, npreds: 1,
		ReqNTID: entry.ReqNTID, MaxNTID: entry.MaxNTID}
	dc.p = p
	defer func() {
		if r := recover(); r != nil {
			if de, ok := r.(*decodeError); ok {
				p, err = nil, de
				return
			}
			// A decoder bug must not take the process down: report it
			// at the instruction being decoded.
			pos := entry.Pos
			if dc.cur != nil {
				pos = dc.cur.Pos
			}
			p, err = nil, &decodeError{pos: pos, msg: fmt.Sprintf("internal error decoding this instruction: %v", r)}
		}
	}()
	// The kernel's own names (its shared variables' offsets) over the
	// module's, which are made once per module: a module of n kernels
	// decodes in O(n), not O(n²).
	dc.module = &scope{parent: lib.moduleScope(), names: map[string]*sym{}}
	dc.walkCalls(entry)
	dc.addIndirectTargets()
	dc.findRecursion()
	dc.layoutShared(entry)
	for _, v := range lib.PTX.Vars {
		if v.Space == ptx.SpaceShared {
			off, ok := dc.shared[v]
			if !ok {
				off = p.DynSharedOff
			}
			dc.module.names[v.Name] = &sym{kind: skShared, off: off, typ: v.Type, v: v}
		}
	}
	for _, fi := range dc.order {
		dc.layoutFrame(fi)
	}
	// Static stack need: the deepest non-recursive call chain.
	var depth func(fi *funcInfo, seen map[*funcInfo]bool) uint32
	depth = func(fi *funcInfo, seen map[*funcInfo]bool) uint32 {
		best := fi.frame
		if seen[fi] {
			return best
		}
		seen[fi] = true
		for _, c := range fi.calls {
			if d := fi.out + depth(c, seen); d > best {
				best = d
			}
		}
		delete(seen, fi)
		return best
	}
	p.Stack = depth(dc.order[0], map[*funcInfo]bool{})
	p.frame = dc.order[0].frame
	for _, fi := range dc.order {
		if fi.builtin != 0 {
			continue
		}
		dc.decodeFunc(fi)
	}
	dc.uniformDefs()
	dc.laneCompares()
	dc.shflAdds()
	for _, sv := range p.specials {
		if isCTASpecial(int(sv.val)) {
			p.ctaSpecials = append(p.ctaSpecials, sv)
		}
	}
	// Resolve call targets now that every entry pc is known.
	for pc := range p.code {
		in := &p.code[pc]
		if in.op == opCall {
			in.aux = p.funcs[in.aux2].entry
		}
	}
	for _, fi := range dc.order {
		if fi.rec {
			p.recursive = true
			for _, o := range dc.order {
				if o.scc == fi.scc && o.builtin == 0 {
					fi.saveRegs = append(fi.saveRegs, o.slots...)
					fi.savePred = append(fi.savePred, o.preds...)
				}
			}
		}
	}
	return p, nil
}

func (dc *decoder) fail(pos ptx.Pos, format string, args ...any) {
	panic(&decodeError{pos: pos, msg: fmt.Sprintf(format, args...)})
}

func instName(in *ptx.Instr) string {
	if len(in.Mods) == 0 {
		return in.Op
	}
	return in.Op + "." + strings.Join(in.Mods, ".")
}

func (dc *decoder) failIn(in *ptx.Instr, format string, args ...any) {
	dc.fail(in.Pos, "%s: %s", instName(in), fmt.Sprintf(format, args...))
}

// info returns (creating) the funcInfo of a call target.
func (dc *decoder) info(f *ptx.Func, pos ptx.Pos) *funcInfo {
	if fi := dc.infos[f]; fi != nil {
		return fi
	}
	fi := &funcInfo{f: f, name: f.Name, locals: map[string]uint32{}}
	dc.infos[f] = fi
	if f.Body == nil {
		def := dc.funcs[f.Name]
		if def != nil && def.Body != nil {
			dc.infos[def] = fi
			fi.f = def
			f = def
		} else if b := builtins[f.Name]; b != 0 {
			fi.builtin = b
		} else {
			dc.fail(pos, "call to %s, which has no body in this module (the soft backend does not link separate device code)", f.Name)
		}
	}
	fi.sig = layoutSig(f.Returns, f.Params)
	fi.retOff, fi.argSize = LayoutParams(f.Returns, 0)
	fi.parOff, fi.argSize = LayoutParams(f.Params, align(fi.argSize, 8))
	for _, p := range append(append([]*ptx.Param{}, f.Returns...), f.Params...) {
		if p.Space == ptx.SpaceReg {
			dc.fail(p.Pos, "%s: register parameters (.reg) of device functions are not supported", f.Name)
		}
	}
	p := dc.p
	fi.entry = -1
	if f.Entry {
		// The kernel's parameters live in the launch's parameter buffer.
		_, end := LayoutParams(f.Params, 0)
		p.ParamSize = int(end)
		fi.retOff, fi.parOff, fi.argSize = nil, nil, 0
	}
	p.funcs = append(p.funcs, fi)
	dc.order = append(dc.order, fi)
	return fi
}

// walkCalls builds the call graph reachable from f.
func (dc *decoder) walkCalls(f *ptx.Func) {
	fi := dc.info(f, f.Pos)
	if fi.builtin != 0 || fi.f.Body == nil {
		return
	}
	seen := map[*funcInfo]bool{}
	var walk func(b *ptx.Block)
	walk = func(b *ptx.Block) {
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ptx.Block:
				walk(s)
			case *ptx.Instr:
				if s.Op != "call" {
					continue
				}
				_, t, _, _ := callParts(s)
				if _, ok := t.(*ptx.Reg); ok {
					fi.indirect = true
					continue
				}
				target, ok := t.(*ptx.Sym)
				if !ok {
					dc.failIn(s, "call without a target")
				}
				ms := dc.module.lookup(target.Name)
				if ms == nil || ms.kind != skFunc {
					dc.failIn(s, "call to unknown function %s", target.Name)
				}
				known := dc.infos[ms.fn] != nil
				ci := dc.info(ms.fn, s.Pos)
				if !seen[ci] {
					seen[ci] = true
					fi.calls = append(fi.calls, ci)
				}
				if !known {
					dc.walkCalls(ci.f)
				}
			}
		}
	}
	walk(fi.f.Body)
}

// findRecursion marks the functions on call cycles (Tarjan's SCCs).
func (dc *decoder) findRecursion() {
	index := map[*funcInfo]int{}
	low := map[*funcInfo]int{}
	on := map[*funcInfo]bool{}
	var stack []*funcInfo
	n, scc := 0, 0
	var strong func(v *funcInfo)
	strong = func(v *funcInfo) {
		index[v], low[v] = n, n
		n++
		stack = append(stack, v)
		on[v] = true
		for _, w := range v.calls {
			if _, ok := index[w]; !ok {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []*funcInfo
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				w.scc = scc
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			rec := len(comp) > 1
			for _, c := range v.calls {
				if c == v {
					rec = true
				}
			}
			for _, w := range comp {
				w.rec = rec
			}
			scc++
		}
	}
	for _, fi := range dc.order {
		if _, ok := index[fi]; !ok {
			strong(fi)
		}
	}
	if dc.order[0].rec {
		dc.fail(dc.order[0].f.Pos, "kernel %s calls itself", dc.order[0].name)
	}
}

// layoutShared places the static shared variables of the module and of
// every reachable function, then the dynamic (.extern) area. As on the
// H100, the first sharedPerBlockRes bytes of a CTA's shared window are the
// system's (cooperative groups keep scratch there, at the
// %reserved_smem_offset_* addresses): static shared memory starts after
// them, dynamic after static, 16-aligned (or as aligned as its .extern
// declarations ask).
func (dc *decoder) layoutShared(entry *ptx.Func) {
	off := uint32(ReservedShared)
	dynAlign := uint32(16)
	place := func(v *ptx.Var) {
		if v.Space != ptx.SpaceShared {
			return
		}
		if v.Linkage == ptx.LinkExtern || VarSize(v) < 0 {
			if a := varAlign(v); a > dynAlign {
				dynAlign = a
			}
			return
		}
		off = align(off, varAlign(v))
		dc.shared[v] = off
		off += uint32(VarSize(v))
	}
	for _, v := range dc.lib.PTX.Vars {
		place(v)
	}
	var walk func(b *ptx.Block)
	walk = func(b *ptx.Block) {
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ptx.Block:
				walk(s)
			case *ptx.Var:
				place(s)
			}
		}
	}
	for _, fi := range dc.order {
		if fi.f.Body != nil {
			walk(fi.f.Body)
		}
	}
	dc.p.SharedSize = off - ReservedShared
	dc.p.DynSharedOff = align(off, dynAlign)
}

// layoutFrame places a function's .local variables and its outgoing area.
func (dc *decoder) layoutFrame(fi *funcInfo) {
	off := fi.argSize
	if fi.f.Body != nil {
		var walk func(b *ptx.Block)
		walk = func(b *ptx.Block) {
			for _, s := range b.Stmts {
				switch s := s.(type) {
				case *ptx.Block:
					walk(s)
				case *ptx.Var:
					if s.Space == ptx.SpaceLocal {
						n := VarSize(s)
						if n < 0 {
							dc.fail(s.Pos, "unsized .local variable %s", s.Name)
						}
						off = align(off, varAlign(s))
						fi.locals[s.Name+fmt.Sprintf("@%p", s)] = off
						off += uint32(n)
					}
				}
			}
		}
		walk(fi.f.Body)
	}
	fi.out = align(off, 16)
	var maxArg uint32
	for _, c := range fi.calls {
		maxArg = max(maxArg, c.argSize)
	}
	fi.frame = align(fi.out+maxArg, 16)
}

func (dc *decoder) localOff(fi *funcInfo, v *ptx.Var) uint32 {
	return fi.locals[v.Name+fmt.Sprintf("@%p", v)]
}

// Register slots.

func (dc *decoder) newSlot() uint32 {
	s := uint32(dc.p.NSlots) * 32
	dc.p.NSlots++
	if dc.fi != nil {
		dc.fi.slots = append(dc.fi.slots, s)
	}
	return s
}

func (dc *decoder) newPred() uint32 {
	i := dc.p.npreds
	dc.p.npreds++
	if dc.fi != nil {
		dc.fi.preds = append(dc.fi.preds, int32(i))
	}
	return uint32(i)
}

// programSlot allocates a slot that lives for the whole program, not one
// function: constants, symbols, special registers, kernel parameters.
func (dc *decoder) programSlot() uint32 {
	s := uint32(dc.p.NSlots) * 32
	dc.p.NSlots++
	if dc.fixed == nil {
		dc.fixed, dc.perCTA, dc.uniform = map[uint32]bool{}, map[uint32]bool{}, map[uint32]bool{}
	}
	dc.fixed[s] = true
	dc.uniform[s] = true // but for the specials that differ by lane
	return s
}

func (dc *decoder) constSlot(v uint64) uint32 {
	if s, ok := dc.consts[v]; ok {
		return s
	}
	s := dc.programSlot()
	dc.consts[v] = s
	dc.p.consts = append(dc.p.consts, slotVal{s, v})
	return s
}

func (dc *decoder) symSlot(vi int) uint32 {
	if s, ok := dc.syms[vi]; ok {
		return s
	}
	s := dc.programSlot()
	dc.syms[vi] = s
	dc.p.syms = append(dc.p.syms, slotVal{s, uint64(vi)})
	dc.p.UsesVars = true
	return s
}

func (dc *decoder) specialSlot(k int) uint32 {
	if s, ok := dc.specials[k]; ok {
		return s
	}
	s := dc.programSlot()
	dc.specials[k] = s
	dc.perCTA[s] = isCTASpecial(k)
	dc.uniform[s] = warpUniformSpecial(k)
	dc.p.specials = append(dc.p.specials, slotVal{s, uint64(k)})
	return s
}

// kparamSlot returns the slot preloaded with a scalar kernel parameter.
func (dc *decoder) kparamSlot(k kparam) uint32 {
	if s, ok := dc.kparams[k]; ok {
		return s
	}
	s := dc.programSlot()
	dc.kparams[k] = s
	k.slot = s
	dc.p.kparams = append(dc.p.kparams, k)
	return s
}

const fbSlot = 32 // slot 1: the lane's frame base in local memory

// emit appends an instruction for source in and returns its pc.
func (dc *decoder) emit(src *ptx.Instr, in inst) int32 {
	pc := int32(len(dc.p.code))
	dc.p.code = append(dc.p.code, in)
	dc.p.src = append(dc.p.src, src)
	return pc
}

// decodeFunc decodes one function's body at the end of the program.
func (dc *decoder) decodeFunc(fi *funcInfo) {
	dc.fi = fi
	dc.labels = map[string]int32{}
	dc.fixups = nil
	dc.tlists = map[string]*ptx.Targets{}
	fi.entry = int32(len(dc.p.code))
	f := fi.f
	sc := &scope{parent: dc.module, names: map[string]*sym{}}
	if f.Entry {
		offs, _ := LayoutParams(f.Params, 0)
		for i, pr := range f.Params {
			sc.names[pr.Name] = &sym{kind: skKernelParam, off: offs[i], typ: pr.Type}
		}
	} else {
		for i, pr := range f.Returns {
			sc.names[pr.Name] = &sym{kind: skFrameParam, off: fi.retOff[i], typ: pr.Type}
		}
		for i, pr := range f.Params {
			sc.names[pr.Name] = &sym{kind: skFrameParam, off: fi.parOff[i], typ: pr.Type}
		}
	}
	dc.single = singleDefs(f.Body)
	if f.Entry && len(dc.order) == 1 {
		dc.uniRegs, dc.uniBad = uniCandidates(f.Body), map[string]bool{}
	}
	dc.block(f.Body, sc)
	dc.single, dc.uniRegs = nil, nil
	// A body that falls off its end returns.
	end := &ptx.Instr{Pos: f.Body.End, Op: "ret"}
	if f.Entry {
		dc.emit(end, inst{op: opExit, gp: -1})
	} else {
		dc.emit(end, inst{op: opRet, gp: -1})
	}
	for _, fx := range dc.fixups {
		t, ok := dc.labels[fx.label]
		if !ok {
			dc.fail(fx.pos, "branch to unknown label %s", fx.label)
		}
		if fx.brx {
			dc.p.brx[fx.pc] = t
		} else {
			dc.p.code[fx.pc].aux = t
		}
	}
	dc.fuse(fi.entry, f)
	dc.fi = nil
}

// fuse marks superinstructions in the function f starting at pc start: the
// tiled-matmul inner loop's "ld.shared, ld.shared, fma" runs as one
// dispatch, and a run of them chained through the sum as one more
// (chain.go). The original instructions stay in place (the fused op reads
// its partners at pc+1 and pc+2), so branch targets, error positions and
// the fallback path are unchanged.
func (dc *decoder) fuse(start int32, f *ptx.Func) {
	targets := map[int32]bool{}
	for _, pc := range dc.labels {
		targets[pc] = true
	}
	code := dc.p.code
	for i := int(start); i+2 < len(code); i++ {
		a, b, f := &code[i], &code[i+1], &code[i+2]
		if a.op != opLdS32 || b.op != opLdS32 || f.op != opFmaF32Rn || a.gp >= 0 || b.gp >= 0 || f.gp >= 0 ||
			targets[int32(i+1)] || targets[int32(i+2)] || a.d == a.a || b.d == b.a || b.a == a.d || a.d == b.d {
			continue
		}
		a.op = opLdLdFma
	}
	dc.foldAddr(start, f, targets)
	dc.chains(start, f, targets)
	dc.copies(start, f, targets)
}

func (dc *decoder) block(b *ptx.Block, parent *scope) {
	sc := &scope{parent: parent, names: map[string]*sym{}}
	for _, s := range b.Stmts {
		if cp, ok := s.(*ptx.CallProto); ok {
			if dc.protos == nil {
				dc.protos = map[string]*ptx.CallProto{}
			}
			dc.protos[cp.Name] = cp
		}
	}
	// A call sequence declares the callee's parameters in its block: bind
	// them to the callee frame's slots, which start at this function's
	// outgoing area.
	for _, s := range b.Stmts {
		in, ok := s.(*ptx.Instr)
		if !ok || in.Op != "call" {
			continue
		}
		rets, t, args, proto := callParts(in)
		var ci *funcInfo
		var tname string
		switch t := t.(type) {
		case *ptx.Sym:
			ci, tname = dc.infos[dc.module.lookup(t.Name).fn], t.Name
		case *ptx.Reg:
			cp := dc.protos[proto]
			if cp == nil {
				dc.failIn(in, "indirect call without a .callprototype (%q)", proto)
			}
			// The prototype's layout, which every callee must share.
			ci, tname = &funcInfo{}, proto
			ci.retOff, ci.argSize = LayoutParams(cp.Returns, 0)
			ci.parOff, _ = LayoutParams(cp.Params, align(ci.argSize, 8))
		default:
			continue
		}
		target := &ptx.Sym{Name: tname}
		bind := func(list []ptx.Operand, offs []uint32) {
			for i, o := range list {
				r, ok := o.(*ptx.Sym)
				if !ok {
					if rr, ok := o.(*ptx.Reg); ok {
						r = &ptx.Sym{Pos: rr.Pos, Name: rr.Name}
					} else {
						dc.failIn(in, "call arguments must be .param variables")
					}
				}
				if i >= len(offs) {
					dc.failIn(in, "%s takes %d values here, the call passes %d", target.Name, len(offs), len(list))
				}
				sc.names[r.Name] = &sym{kind: skFrameParam, off: dc.fi.out + offs[i]}
			}
		}
		if ci.builtin != 0 {
			// Builtins use the standard layout of their prototype.
			bind(rets, ci.retOff)
			bind(args, ci.parOff)
		} else {
			bind(rets, ci.retOff)
			bind(args, ci.parOff)
		}
	}
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Var:
			dc.declare(s, sc)
		case *ptx.Label:
			dc.labels[s.Name] = int32(len(dc.p.code))
		case *ptx.Block:
			dc.block(s, sc)
		case *ptx.Instr:
			pc := len(dc.p.code)
			dc.instr(s, sc)
			dc.specialise(s, sc, pc)
			dc.noteUniDef(s, sc, pc)
		case *ptx.Targets:
			dc.targetList(s)
		case *ptx.Pragma, *ptx.CallProto:
		}
	}
}

func splitCall(in *ptx.Instr) (rets []ptx.Operand, target *ptx.Sym, args []ptx.Operand) {
	for i, o := range in.Operands {
		if s, ok := o.(*ptx.Sym); ok && target == nil {
			target = s
			if i > 0 {
				if l, ok := in.Operands[0].(*ptx.List); ok {
					rets = l.Elems
				}
			}
			if i+1 < len(in.Operands) {
				if l, ok := in.Operands[i+1].(*ptx.List); ok {
					args = l.Elems
				}
			}
		}
	}
	return
}

func (dc *decoder) declare(v *ptx.Var, sc *scope) {
	switch v.Space {
	case ptx.SpaceReg:
		names := []string{v.Name}
		if v.Range > 0 {
			names = names[:0]
			for i := 0; i < v.Range; i++ {
				names = append(names, fmt.Sprintf("%s%d", v.Name, i))
			}
		}
		if v.Vector > 0 || len(v.Dims) > 0 {
			dc.fail(v.Pos, "vector or array registers (%s) are not supported", v.Name)
		}
		for _, n := range names {
			if v.Type == ptx.Pred {
				sc.names[n] = &sym{kind: skPred, slot: dc.newPred(), typ: v.Type}
			} else if v.Type == ptx.B128 {
				// Two consecutive slots, low half first (b128.go).
				sc.names[n] = &sym{kind: skReg, slot: dc.newSlot(), typ: v.Type}
				dc.newSlot()
			} else {
				sc.names[n] = &sym{kind: skReg, slot: dc.newSlot(), typ: v.Type}
			}
		}
	case ptx.SpaceLocal:
		sc.names[v.Name] = &sym{kind: skLocal, off: dc.localOff(dc.fi, v), typ: v.Type, v: v}
	case ptx.SpaceShared:
		off, ok := dc.shared[v]
		if !ok { // .extern: dynamic shared memory
			off = dc.p.DynSharedOff
		}
		sc.names[v.Name] = &sym{kind: skShared, off: off, typ: v.Type, v: v}
	case ptx.SpaceParam:
		if sc.names[v.Name] == nil {
			dc.fail(v.Pos, ".param %s declared outside a call sequence", v.Name)
		}
	default:
		dc.fail(v.Pos, "%s variables inside a function body are not supported", v.Space)
	}
}

// modset splits an instruction's modifiers into types and flags.
type modset struct {
	types []ptx.Type
	flags map[string]bool
	list  []string
}

func mods(in *ptx.Instr) modset {
	m := modset{flags: map[string]bool{}}
	for _, s := range in.Mods {
		if t, ok := ptx.LookupType(s); ok {
			m.types = append(m.types, t)
			continue
		}
		m.flags[s] = true
		m.list = append(m.list, s)
	}
	return m
}

func (m modset) typ() ptx.Type {
	if len(m.types) == 0 {
		return ptx.TypeNone
	}
	return m.types[len(m.types)-1]
}

// ignorable modifiers: memory-ordering, scope and cache hints that the
// executor's sequentially consistent memory model already satisfies.
var ignorable = map[string]bool{
	"weak": true, "volatile": true, "relaxed": true, "acquire": true, "release": true, "acq_rel": true, "sc": true,
	"cta": true, "gpu": true, "sys": true, "cluster": true, "mmio": true,
	"ca": true, "cg": true, "cs": true, "lu": true, "cv": true, "wb": true, "wt": true, "nc": true,
	"L1::evict_normal": true, "L1::evict_unchanged": true, "L1::evict_first": true, "L1::evict_last": true,
	"L1::no_allocate": true, "L2::evict_normal": true, "L2::evict_first": true, "L2::evict_last": true,
	"L2::64B": true, "L2::128B": true, "L2::256B": true, "L2::cache_hint": true, "uni": true, "aligned": true,
	"sync": true, "noftz": true,
}

// orderedMods is the canonical modifier order of generated-op keys.
var orderedMods = []string{"lo", "hi", "wide", "l", "r", "wrap", "clamp", "shiftamt",
	"finite", "infinite", "number", "notanumber", "normal", "subnormal",
	"rn", "rz", "rm", "rp", "approx", "full", "ftz", "sat", "NaN",
	// Packed 16-bit integers (integer.go), which the type table lacks.
	"relu", "u16x2", "s16x2"}

var orderRank = func() map[string]int {
	m := map[string]int{}
	for i, s := range orderedMods {
		m[s] = i
	}
	return m
}()

// genKey builds the generated-op key of an arithmetic instruction.
func (dc *decoder) genKey(in *ptx.Instr, m modset) string {
	var ms []string
	for _, s := range m.list {
		if _, ok := orderRank[s]; ok {
			ms = append(ms, s)
		} else if !ignorable[s] {
			dc.failIn(in, "modifier .%s is not supported", s)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return orderRank[ms[i]] < orderRank[ms[j]] })
	k := in.Op
	for _, s := range ms {
		k += "." + s
	}
	for _, t := range m.types {
		k += "." + t.String()
	}
	return k
}

// Operands.

func (dc *decoder) resolve(sc *scope, name string, pos ptx.Pos) *sym {
	s := sc.lookup(name)
	if s == nil {
		dc.fail(pos, "undefined name %s", name)
	}
	return s
}

// dst returns the register a destination operand names (sink "_" → junk).
func (dc *decoder) dst(in *ptx.Instr, sc *scope, o ptx.Operand) uint32 {
	r, ok := o.(*ptx.Reg)
	if !ok {
		dc.failIn(in, "destination must be a register")
	}
	if r.Name == "_" {
		return 0
	}
	s := dc.resolve(sc, r.Name, r.Pos)
	if s.kind != skReg {
		dc.failIn(in, "%s is not a data register", r.Name)
	}
	if s.typ == ptx.B128 { // only b128.go's forms take one
		dc.failB128(in, r.Name)
	}
	return s.slot
}

func (dc *decoder) regType(sc *scope, o ptx.Operand) ptx.Type {
	if r, ok := o.(*ptx.Reg); ok && r.Name != "_" {
		if s := sc.lookup(r.Name); s != nil && (s.kind == skReg || s.kind == skPred) {
			return s.typ
		}
	}
	return ptx.TypeNone
}

// pred returns a predicate operand's index and whether it is negated.
func (dc *decoder) pred(in *ptx.Instr, sc *scope, o ptx.Operand) (uint32, bool) {
	switch r := o.(type) {
	case *ptx.Reg:
		if r.Name == "_" {
			return 0, false
		}
		s := dc.resolve(sc, r.Name, r.Pos)
		if s.kind != skPred {
			dc.failIn(in, "%s is not a predicate", r.Name)
		}
		return s.slot, r.Not
	case *ptx.Imm:
		// A constant predicate: a fresh predicate set once.
		p := dc.newPred()
		dc.emit(in, inst{op: opPredSet, gp: -1, d: p, imm: int64(r.Val)})
		return p, false
	}
	dc.failIn(in, "expected a predicate operand")
	return 0, false
}

// immBits encodes an immediate for an operand of PTX type t, converting it
// as the model and the loader convert initializers (ptx.IntBits,
// ptx.FloatBits).
func (dc *decoder) immBits(in *ptx.Instr, o ptx.Operand, t ptx.Type) uint64 {
	switch v := o.(type) {
	case *ptx.Imm:
		return v.Encode(t)
	case *ptx.FImm:
		if b, ok := v.Encode(t); ok {
			return b
		}
	}
	dc.failIn(in, "immediate cannot be used as a .%s operand", t)
	return 0
}

// src returns a register holding a source operand's value: a register, or a
// slot holding an immediate, special register or symbol address.
func (dc *decoder) src(in *ptx.Instr, sc *scope, o ptx.Operand, t ptx.Type) uint32 {
	switch v := o.(type) {
	case *ptx.Reg:
		if v.Name == "_" {
			return 0
		}
		if v.Not {
			dc.failIn(in, "negated operand !%s where a value is expected", v.Name)
		}
		if ks, ok := specialNames[v.Name]; ok && sc.lookup(v.Name) == nil {
			if in.Op != "mov" && in.Op != "cvt" {
				// ptxas refuses it ("Special register argument not allowed for
				// instruction 'setp'", seen on the H100): soft must too.
				dc.failIn(in, "special register %s is not allowed as an operand of %s; read it with mov first", v.Name, in.Op)
			}
			idx := 0
			switch v.Comp {
			case "", "x":
			case "y":
				idx = 1
			case "z":
				idx = 2
			default:
				dc.failIn(in, "unknown component %s.%s", v.Name, v.Comp)
			}
			if idx >= len(ks) {
				dc.failIn(in, "%s has no component .%s", v.Name, v.Comp)
			}
			k := ks[idx]
			if isDynamicSpecial(k) {
				t := dc.newSlot()
				dc.emit(in, inst{op: opSpecial, gp: -1, d: t, aux: int32(k)})
				return t
			}
			return dc.specialSlot(k)
		}
		if strings.HasPrefix(v.Name, "%envreg") || strings.HasPrefix(v.Name, "%reserved_smem") || strings.HasPrefix(v.Name, "%pm") {
			if sc.lookup(v.Name) == nil {
				switch v.Name {
				case "%envreg1", "%envreg2": // the grid-sync workspace (coop.go)
					return dc.specialSlot(spEnvreg1 + int(v.Name[7]-'1'))
				}
				return dc.specialSlot(spZero)
			}
		}
		s := dc.resolve(sc, v.Name, v.Pos)
		switch s.kind {
		case skReg:
			if s.typ == ptx.B128 { // only b128.go's forms take one
				dc.failB128(in, v.Name)
			}
			return s.slot
		case skPred:
			t := dc.newSlot()
			dc.emit(in, inst{op: opPredToR, gp: -1, d: t, a: s.slot})
			return t
		}
		dc.failIn(in, "%s is not a register", v.Name)
	case *ptx.Imm, *ptx.FImm:
		return dc.constSlot(dc.immBits(in, o, t))
	case *ptx.Sym:
		return dc.addrOf(in, sc, v.Name, v.Pos, 0)
	case *ptx.Addr:
		// [sym+off] as a value: the address expression.
		if s, ok := v.Base.(*ptx.Sym); ok {
			return dc.addrOf(in, sc, s.Name, s.Pos, v.Offset)
		}
	}
	dc.failIn(in, "unsupported operand %T", o)
	return 0
}

// addrOf returns a register holding the address of a named variable (in
// its own state space) plus off.
func (dc *decoder) addrOf(in *ptx.Instr, sc *scope, name string, pos ptx.Pos, off int64) uint32 {
	if name == "WARP_SZ" {
		return dc.constSlot(32)
	}
	s := dc.resolve(sc, name, pos)
	switch s.kind {
	case skShared:
		return dc.constSlot(uint64(int64(s.off) + off))
	case skGlobal:
		if off == 0 {
			return dc.symSlot(s.vi)
		}
		t := dc.newSlot()
		dc.emit(in, inst{op: opAdd64, gp: -1, d: t, a: dc.symSlot(s.vi), b: dc.constSlot(uint64(off))})
		return t
	case skLocal, skFrameParam:
		t := dc.newSlot()
		dc.emit(in, inst{op: opAdd64, gp: -1, d: t, a: fbSlot, b: dc.constSlot(uint64(int64(s.off) + off))})
		return t
	case skFunc:
		if off != 0 {
			dc.failIn(in, "an offset from a function's address")
		}
		return dc.constSlot(dc.lib.FuncAddr[name])
	case skKernelParam:
		// The parameter's address in the .param space (its offset in the
		// launch's parameter buffer); cvta.param makes it generic.
		return dc.constSlot(uint64(int64(s.off) + off))
	}
	dc.failIn(in, "%s has no address", name)
	return 0
}

// guard fills an instruction's guard from the PTX guard predicate.
func (dc *decoder) guard(in *ptx.Instr, sc *scope, x *inst) {
	x.gp = -1
	if in.Guard == "" {
		return
	}
	s := dc.resolve(sc, in.Guard, in.Pos)
	if s.kind != skPred {
		dc.failIn(in, "guard %s is not a predicate", in.Guard)
	}
	x.gp = int32(s.slot)
	if in.GuardNeg {
		x.gx = fullMask
	}
}

func (dc *decoder) nops(in *ptx.Instr, n ...int) {
	for _, k := range n {
		if len(in.Operands) == k {
			return
		}
	}
	dc.failIn(in, "wrong number of operands (%d)", len(in.Operands))
}

// memAddr decodes a memory operand into a base register and an offset. For
// generic accesses a named variable yields its generic address.
func (dc *decoder) memAddr(in *ptx.Instr, sc *scope, o ptx.Operand, space int) (base uint32, off int64, sp int) {
	a, ok := o.(*ptx.Addr)
	if !ok {
		dc.failIn(in, "expected an address operand [..]")
	}
	sp = space
	switch b := a.Base.(type) {
	case nil:
		return dc.constSlot(0), a.Offset, sp
	case *ptx.Reg:
		s := dc.resolve(sc, b.Name, b.Pos)
		if s.kind != skReg || s.typ == ptx.B128 {
			dc.failIn(in, "address register %s is not a 32- or 64-bit data register", b.Name)
		}
		return s.slot, a.Offset, sp
	case *ptx.Sym:
		s := dc.resolve(sc, b.Name, b.Pos)
		switch s.kind {
		case skShared:
			if space == spGeneric {
				return dc.constSlot(0), int64(sharedWin) + int64(s.off) + a.Offset, sp
			}
			if space != spShared && space != spCluster {
				dc.failIn(in, "%s is a .shared variable", b.Name)
			}
			return dc.constSlot(0), int64(s.off) + a.Offset, sp
		case skGlobal:
			if space == spShared || space == spLocal {
				dc.failIn(in, "%s is not a .%s variable", b.Name, spaceNames[space])
			}
			return dc.symSlot(s.vi), a.Offset, sp
		case skLocal, skFrameParam:
			switch space {
			case spGeneric:
				return fbSlot, int64(localWin) + int64(s.off) + a.Offset, sp
			case spLocal:
				return fbSlot, int64(s.off) + a.Offset, sp
			}
			dc.failIn(in, "%s is a local/parameter variable", b.Name)
		}
		dc.failIn(in, "%s cannot be used as an address", b.Name)
	}
	dc.failIn(in, "unsupported address operand")
	return
}

func spaceOf(m modset) (int, bool) {
	switch {
	case m.flags["global"]:
		return spGlobal, true
	case m.flags["shared"] || m.flags["shared::cta"]:
		return spShared, true
	case m.flags["local"]:
		return spLocal, true
	case m.flags["const"]:
		return spConst, true
	case m.flags["param"]:
		return -1, true
	case m.flags["shared::cluster"]:
		return spCluster, true
	}
	return spGeneric, false
}

// vecRegs lists the registers of a {a, b, ...} operand (or one register).
func (dc *decoder) vecRegs(in *ptx.Instr, sc *scope, o ptx.Operand, t ptx.Type, dest bool) []uint32 {
	var elems []ptx.Operand
	if v, ok := o.(*ptx.Vec); ok {
		elems = v.Elems
	} else {
		elems = []ptx.Operand{o}
	}
	var out []uint32
	for _, e := range elems {
		if dest {
			out = append(out, dc.dst(in, sc, e))
		} else {
			out = append(out, dc.src(in, sc, e, t))
		}
	}
	return out
}

func (dc *decoder) vecIndex(regs []uint32) int32 {
	i := int32(len(dc.p.vec))
	dc.p.vec = append(dc.p.vec, regs...)
	return i
}

func regWidth(t ptx.Type) int {
	if t == ptx.TypeNone {
		return 8
	}
	return t.Size()
}

// isCTASpecial reports whether special register k changes from CTA to CTA
// (%ctaid, the cluster ids), so that start refreshes it.
func isCTASpecial(k int) bool {
	switch k {
	case spCtaidX, spCtaidY, spCtaidZ, spClCtaidX, spClCtaidY, spClCtaidZ, spClIDX, spClIDY, spClIDZ, spClRank:
		return true
	}
	return false
}

// specialise rewrites the one instruction decoded at pc for src when src
// is the single definition of its destination (singleDefs) and needs no
// lane to run it:
//
//   - a copy of a fixed slot (a mov of an immediate or a special register,
//     an ld.param of a scalar kernel parameter, a cvta to the global
//     window, or a copy of such a register): the register becomes that
//     slot, and its readers read the slot;
//   - a comparison of fixed slots that do not change from CTA to CTA
//     (%tid.x != 0, %tid.x < a kernel parameter), or integer arithmetic
//     on them (hoistALU: n-1, n*n, n*4 of a kernel parameter n): it runs
//     once per warp when newCTA sets up the register file
//     (Program.hoisted), in program order, so an op may use an earlier
//     one's result.
//
// The instruction stays as a nop, so pcs, error positions and instruction
// counts do not change. A use that runs before the definition reads an
// undefined register, so it may read the value early.
func (dc *decoder) specialise(src *ptx.Instr, sc *scope, pc int) {
	dc.hoist(src, sc, pc)
	if len(dc.p.code) == pc+1 {
		dc.uniformB(&dc.p.code[pc])
	}
}

// uniformB makes the generated op x read its second source from lane 0 when
// that source is uniform (swapping the sources of a commutative integer op
// whose first one is).
func (dc *decoder) uniformB(x *inst) {
	t, ok := aluUniformB[x.op]
	if !ok {
		return
	}
	switch {
	case dc.uniform[x.b]:
	case dc.uniform[x.a] && commutes[x.op]:
		x.a, x.b = x.b, x.a
	default:
		return
	}
	x.op = t
}

// commutes are the forms with a uniform-B twin whose first two sources
// may be swapped.
var commutes = map[opcode]bool{opAdd32: true, opAdd64: true, opMulLo32: true, opMulLo64: true, opMadLo32: true,
	opMadLo64: true, opMulWideS32: true, opMulWideU32: true, opAnd32: true, opAnd64: true}

// warpUniformSpecial reports whether special register k holds one value
// in every lane of a warp.
func warpUniformSpecial(k int) bool {
	switch k {
	case spNtidX, spNtidY, spNtidZ, spCtaidX, spCtaidY, spCtaidZ, spNctaidX, spNctaidY, spNctaidZ:
		return true
	}
	return false
}

// hoist is specialise's rewriting of a single definition.
func (dc *decoder) hoist(src *ptx.Instr, sc *scope, pc int) {
	name := dc.single[src]
	if name == "" || len(dc.p.code) != pc+1 {
		return
	}
	x := &dc.p.code[pc]
	s := sc.lookup(name)
	if x.gp >= 0 || s == nil || s.typ == ptx.B128 || s.slot != x.d {
		return
	}
	switch {
	case x.op == opMov && s.kind == skReg && dc.fixed[x.a]:
		s.slot = x.a
	case x.op >= opCmp && s.kind == skPred && x.fl&(3|setpQ) == 0 && dc.hoistable(x):
		dc.p.hoisted = append(dc.p.hoisted, *x)
	case s.kind == skReg && dc.fi != nil && dc.fi.f.Entry && hoistALU(x.op) && dc.hoistable(x):
		// Its value is the same from the launch's first instruction on:
		// the register becomes a fixed slot itself, so that the ops
		// computed from it (n*n, then its shift) are hoisted too.
		dc.p.hoisted = append(dc.p.hoisted, *x)
		dc.fixed[x.d] = true
		dc.uniform[x.d] = dc.allUniform(x)
	default:
		return
	}
	*x = inst{op: opNop, gp: -1}
}

// hoistALU reports whether op is integer arithmetic that newCTA may run
// ahead of time for every warp (it is pure and cheap: no division, no
// table, nothing a kernel might avoid reaching for its cost): the
// address and size arithmetic compilers derive from kernel parameters.
func hoistALU(op opcode) bool {
	if op == opCvtII {
		return true
	}
	if op < opALU || op >= opCmp {
		return false
	}
	return hoistOps()[op]
}

var hoistOps = sync.OnceValue(func() map[opcode]bool {
	ok := map[opcode]bool{}
	for k, g := range genOps {
		f := strings.Split(k, ".")
		switch f[0] {
		case "add", "sub", "mul", "mad", "shl", "shr", "and", "or", "xor", "not", "min", "max", "neg":
		default:
			continue
		}
		switch f[len(f)-1] {
		case "u16", "u32", "u64", "s16", "s32", "s64", "b16", "b32", "b64":
			if len(f) == 2 || f[1] == "lo" || f[1] == "wide" {
				ok[g.op] = true
			}
		}
	}
	return ok
})

// hoistable reports whether generated op x (or cvtII) reads only fixed
// slots that do not change from CTA to CTA.
func (dc *decoder) hoistable(x *inst) bool {
	srcs := genSources(x)
	if len(srcs) == 0 {
		return false
	}
	for _, s := range srcs {
		if !dc.fixed[s] || dc.perCTA[s] {
			return false
		}
	}
	return true
}

// allUniform reports whether every source of x is uniform.
func (dc *decoder) allUniform(x *inst) bool {
	for _, s := range genSources(x) {
		if !dc.uniform[s] {
			return false
		}
	}
	return true
}

// genSources are the source registers of generated op x (or cvtII).
func genSources(x *inst) []uint32 {
	n := genSrcs()[x.op]
	if x.op == opCvtII {
		n = 1
	}
	return []uint32{x.a, x.b, x.c, x.e}[:n]
}

// genSrcs is the number of sources (a, b, c, e) of each generated opcode.
var genSrcs = sync.OnceValue(func() map[opcode]int {
	n := map[opcode]int{}
	for _, g := range genOps {
		n[g.op] = max(n[g.op], len(strings.Split(g.srcs, ",")))
	}
	return n
})

// singleDefs finds the registers of a function body that specialise may
// fix: it maps a register's one definition to the register's name. Such
// a register is declared once in the body, written by exactly one
// instruction, which mentions it only as its first operand and comes
// before every other mention of it in program text, and it is never a
// call operand (calls bind their operands' names to parameters).
//
// The scan is syntactic and conservative: an instruction writes its first
// operand's registers, and every register it names unless its opcode is
// one known to write only its first operand.
func singleDefs(body *ptx.Block) map[*ptx.Instr]string {
	type reg struct {
		defs int
		def  *ptx.Instr
		bad  bool // mentioned before its definition, by it as a source, or by a call
	}
	regs := map[string]*reg{}
	get := func(n string) *reg {
		r := regs[n]
		if r == nil {
			r = &reg{}
			regs[n] = r
		}
		return r
	}
	for _, st := range instrsOf(body) {
		if st.Guard != "" {
			if r := get(st.Guard); r.defs == 0 || r.def == st {
				r.bad = true
			}
		}
		for i, o := range st.Operands {
			eachReg(o, func(n string) {
				if n == "_" {
					return
				}
				r := get(n)
				switch {
				case st.Op == "call":
					r.bad = true
				case i == 0 || !writesFirstOnly[st.Op]:
					r.defs++
					r.def = st
				case r.defs == 0 || r.def == st:
					r.bad = true
				}
			})
		}
	}
	decls := regDecls(body)
	out := map[*ptx.Instr]string{}
	for n, r := range regs {
		if decls[n] != 1 || r.defs != 1 || r.bad || r.def.Guard != "" {
			continue
		}
		if d, ok := r.def.Operands[0].(*ptx.Reg); ok && d.Name == n {
			out[r.def] = n
		}
	}
	return out
}

// instrsOf lists a body's instructions in program order, those of nested
// blocks included.
func instrsOf(body *ptx.Block) []*ptx.Instr {
	var code []ptx.Stmt
	flattenCode(body, &code)
	ins := make([]*ptx.Instr, 0, len(code))
	for _, st := range code {
		if in, ok := st.(*ptx.Instr); ok {
			ins = append(ins, in)
		}
	}
	return ins
}

// regDecls counts the declarations of each register name in a function
// body, nested blocks included (%r<4> declares %r0 to %r3): a register
// the analyses of one name (singleDefs, uniCandidates) may treat as one
// is declared exactly once.
func regDecls(body *ptx.Block) map[string]int {
	n := map[string]int{}
	var walk func(b *ptx.Block)
	walk = func(b *ptx.Block) {
		for _, st := range b.Stmts {
			switch st := st.(type) {
			case *ptx.Var:
				if st.Space != ptx.SpaceReg {
					continue
				}
				if st.Range > 0 {
					for i := 0; i < st.Range; i++ {
						n[fmt.Sprintf("%s%d", st.Name, i)]++
					}
				} else {
					n[st.Name]++
				}
			case *ptx.Block:
				walk(st)
			}
		}
	}
	walk(body)
	return n
}

// writesFirstOnly lists the opcodes that write no register but those of
// their first operand (singleDefs).
var writesFirstOnly = map[string]bool{
	"mov": true, "cvta": true, "ld": true, "ldu": true, "st": true, "cvt": true,
	"add": true, "sub": true, "mul": true, "mad": true, "fma": true, "div": true, "rem": true,
	"abs": true, "neg": true, "min": true, "max": true, "shl": true, "shr": true,
	"and": true, "or": true, "xor": true, "not": true, "cnot": true, "setp": true,
	"selp": true, "set": true, "slct": true, "rcp": true, "sqrt": true, "rsqrt": true,
	"ex2": true, "lg2": true, "sin": true, "cos": true, "tanh": true, "bra": true,
	"bar": true, "barrier": true, "shfl": true, "popc": true, "clz": true, "brev": true,
	"bfe": true, "bfi": true, "prmt": true, "lop3": true, "mul24": true, "mad24": true,
	"atom": true, "red": true, "copysign": true, "testp": true, "ret": true, "exit": true,
}
