package contractgen

import (
	"strconv"

	"github.com/cugen/cugen/parse/ptx"
)

// SummarizePTX evaluates a kernel's PTX symbolically, as SummarizeSASS does
// its SASS: an add or mul without a rounding modifier is one rounding, as it
// would be if nothing fused it, so that run on PTX that rt/soft has
// contracted, the result is what soft computes.
func SummarizePTX(f *ptx.Func, t Type) Summary {
	e := &ptxEval{t: t, reg: map[string]*Node{}, pver: map[string]int{}}
	var code []ptx.Stmt
	flattenStmts(f.Body, &code)
	labels := map[string]int{}
	for i, s := range code {
		if l, ok := s.(*ptx.Label); ok {
			labels[l.Name] = i
		}
	}
	exits := map[int]bool{}
	for i, s := range code {
		if l, ok := s.(*ptx.Label); ok {
			for j := i + 1; j < len(code); j++ {
				if in, ok := code[j].(*ptx.Instr); ok {
					exits[labels[l.Name]] = (in.Op == "ret" || in.Op == "exit") && in.Guard == ""
					break
				}
			}
		}
	}
	condUntil := -1
	for i, s := range code {
		in, ok := s.(*ptx.Instr)
		if !ok {
			continue
		}
		e.cond = i < condUntil
		if in.Op == "bra" {
			if sym, ok := in.Operands[0].(*ptx.Sym); ok {
				if tgt, ok := labels[sym.Name]; ok && tgt > i && !exits[tgt] && tgt > condUntil {
					condUntil = tgt
				}
			}
			continue
		}
		e.step(in)
	}
	return summarize(e.stored, e.all)
}

func flattenStmts(b *ptx.Block, out *[]ptx.Stmt) {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			flattenStmts(s, out)
		case *ptx.Instr, *ptx.Label:
			*out = append(*out, s)
		}
	}
}

type ptxEval struct {
	t      Type
	reg    map[string]*Node
	pver   map[string]int // predicate versions, as in sassEval
	guard  string         // the current instruction's guard key
	stored []*Node
	all    []*Node
	cond   bool
}

func (e *ptxEval) guardKey(in *ptx.Instr) string {
	if in.Guard == "" {
		return ""
	}
	g := in.Guard + "#" + strconv.Itoa(e.pver[in.Guard])
	if in.GuardNeg {
		g = "!" + g
	}
	return g
}

func (e *ptxEval) operand(o ptx.Operand) *Node {
	switch o := o.(type) {
	case *ptx.Reg:
		if o.Comp != "" {
			return unknown()
		}
		n := e.reg[o.Name]
		if n == nil {
			n = unknown()
			e.reg[o.Name] = n
		}
		return resolve(n, e.guard)
	case *ptx.FImm:
		neg := o.Val < 0
		switch o.BitsLen {
		case 32:
			neg = o.Bits>>31 != 0
		case 64:
			neg = o.Bits>>63 != 0
		}
		return &Node{Op: "k", Neg: neg}
	case *ptx.Imm:
		return &Node{Op: "k", Off: int64(o.Val)}
	}
	return unknown()
}

func (e *ptxEval) write(o ptx.Operand, n *Node, guarded bool) {
	r, ok := o.(*ptx.Reg)
	if !ok {
		return
	}
	if guarded || e.cond {
		if old := e.reg[r.Name]; old != nil && old.Op != "?" && old != n {
			n = &Node{Op: "sel", Args: []*Node{n, old}, Pred: e.guard}
		}
	}
	e.reg[r.Name] = n
}

func fpType(mods []string) bool {
	for _, m := range mods {
		if m == "f32" || m == "f64" {
			return true
		}
	}
	return false
}

func (e *ptxEval) step(in *ptx.Instr) {
	guarded := in.Guard != ""
	e.guard = e.guardKey(in)
	ops := in.Operands
	if in.Op == "setp" || in.Op == "set" {
		defer func() {
			for _, r := range regsOf(ops[0]) {
				e.pver[r]++
			}
		}()
	}
	if fpType(in.Mods) {
		arith := func(op string, args ...*Node) {
			n := &Node{Op: op, Mods: arithMods(in.Mods), Args: args}
			e.all = append(e.all, n)
			e.write(ops[0], n, guarded)
		}
		switch in.Op {
		case "mul":
			arith("mul", e.operand(ops[1]), e.operand(ops[2]))
			return
		case "add":
			arith("add", e.operand(ops[1]), e.operand(ops[2]))
			return
		case "sub":
			arith("add", e.operand(ops[1]), &Node{Op: "neg", Args: []*Node{e.operand(ops[2])}})
			return
		case "fma", "mad":
			arith("fma", e.operand(ops[1]), e.operand(ops[2]), e.operand(ops[3]))
			return
		case "neg", "abs":
			e.write(ops[0], &Node{Op: in.Op, Args: []*Node{e.operand(ops[1])}}, guarded)
			return
		case "mov":
			e.write(ops[0], e.operand(ops[1]), guarded)
			return
		case "selp":
			pred := ""
			if p, ok := ops[3].(*ptx.Reg); ok {
				pred = p.Name + "#" + strconv.Itoa(e.pver[p.Name])
				if p.Not {
					pred = "!" + pred
				}
			}
			e.write(ops[0], &Node{Op: "sel", Args: []*Node{e.operand(ops[1]), e.operand(ops[2])}, Pred: pred}, guarded)
			return
		}
	}
	switch in.Op {
	case "ld", "ldu":
		e.load(in, guarded)
		return
	case "st":
		e.store(in)
		return
	case "add":
		// base + immediate, carried for address arithmetic
		if len(ops) == 3 {
			if imm, ok := ops[2].(*ptx.Imm); ok {
				e.write(ops[0], offsetBy(e.operand(ops[1]), int64(imm.Val)), guarded)
				return
			}
		}
	case "mov", "cvta":
		if len(ops) == 2 {
			if _, ok := ops[1].(*ptx.Reg); ok {
				e.write(ops[0], e.operand(ops[1]), guarded)
				return
			}
		}
	}
	if len(ops) > 0 {
		switch in.Op {
		case "st", "red", "bar", "barrier", "membar", "fence", "ret", "exit", "call":
			return
		}
		// an unknown value that depends on what the instruction reads, so
		// that what feeds it stays live
		n := unknown()
		for _, o := range ops[1:] {
			if _, ok := o.(*ptx.Reg); ok {
				n.Args = append(n.Args, e.operand(o))
			}
		}
		for _, r := range regsOf(ops[0]) {
			e.write(&ptx.Reg{Name: r}, n, false)
		}
	}
}

// regsOf lists the registers a destination names.
func regsOf(o ptx.Operand) []string {
	switch o := o.(type) {
	case *ptx.Reg:
		return []string{o.Name}
	case *ptx.Vec:
		var out []string
		for _, e := range o.Elems {
			out = append(out, regsOf(e)...)
		}
		return out
	case *ptx.Pair:
		return append(regsOf(o.First), regsOf(o.Second)...)
	}
	return nil
}

func hasSpace(mods []string, spaces ...string) bool {
	for _, m := range mods {
		for _, s := range spaces {
			if m == s {
				return true
			}
		}
	}
	return false
}

func (e *ptxEval) load(in *ptx.Instr, guarded bool) {
	ops := in.Operands
	if hasSpace(in.Mods, "param", "local", "shared", "const") || !fpType(in.Mods) {
		if v, ok := ops[0].(*ptx.Vec); ok {
			for _, el := range v.Elems {
				e.write(el, unknown(), false)
			}
			return
		}
		e.write(ops[0], unknown(), false)
		return
	}
	a, ok := ops[1].(*ptx.Addr)
	if !ok {
		e.write(ops[0], unknown(), false)
		return
	}
	off := a.Offset
	if a.Base != nil {
		_, boff := addrOf(e.operand(a.Base))
		off += boff
	}
	size := int64(e.t.Size())
	dst := []ptx.Operand{ops[0]}
	if v, ok := ops[0].(*ptx.Vec); ok {
		dst = v.Elems
	}
	for i, d := range dst {
		e.write(d, &Node{Op: "in", In: int(off/size) + i}, guarded)
	}
}

func (e *ptxEval) store(in *ptx.Instr) {
	if hasSpace(in.Mods, "param", "local", "shared") {
		return
	}
	src := []ptx.Operand{in.Operands[1]}
	if v, ok := src[0].(*ptx.Vec); ok {
		src = v.Elems
	}
	for _, s := range src {
		e.stored = append(e.stored, e.operand(s))
	}
}
