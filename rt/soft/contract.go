package soft

import (
	"fmt"
	"strings"

	"github.com/cugen/cugen/parse/ptx"
)

// contractFMA does what ptxas does to a floating-point multiply whose PTX
// names no rounding mode: the ISA lets the code generator fuse such a mul and
// an add that consumes it into one fma, rounding once, and ptxas does so
// whenever the dataflow allows. On the H100 (rt/soft/contract_test.go run
// with -corpus.backend=cuda) it fused an inline-asm mul.f16 and add.f16, a
// product that had a second use, a pair with a label between, and a pair in
// a ".target sm_90, debug" module. nvcc's own f32 code spells its choice out
// (fma.rn, or mul.rn/add.rn under -fmad=false), so this matters for
// hand-written and inline PTX; without it soft would round twice where the
// GPU rounds once.
//
// The rule: an unguarded add.{f16,f16x2,f32,f64}[.ftz] with no rounding mode
// and no .sat, one of whose operands is a register defined exactly once, by a
// mul of the same type and flags, becomes fma.rn of the mul's sources (as
// copied right after the mul) and the add's other operand. The mul stays for
// any other use of its product. ptxas also forwards a product stored to and
// reloaded from local memory before contracting; soft does not follow values
// through memory, so there it rounds twice where the GPU rounds once.
//
// A module with DWARF sections (nvcc -G) is left alone: the H100 rounded
// twice in the corpus's -G build, where a mul.f32 and add.f32 stand side by
// side, as unoptimized code would.
func contractFMA(m *ptx.Module) {
	if hasDWARF(m) {
		return
	}
	for _, f := range m.Funcs {
		if f.Body == nil {
			continue
		}
		defs := map[string]int{}
		def := map[string]*ptx.Instr{}
		countDefs(f.Body, defs, def)
		var seq []*ptx.Instr
		flatten(f.Body, &seq)
		snap := map[*ptx.Instr][]ptx.Operand{} // a mul's sources, as copied right after it
		for _, add := range seq {
			if !contractible(add, "add") {
				continue
			}
			for i, j := 1, 2; i <= 2; i, j = i+1, j-1 {
				r, ok := add.Operands[i].(*ptx.Reg)
				if !ok || r.Comp != "" || r.Not || defs[r.Name] != 1 {
					continue
				}
				mul := def[r.Name]
				if mul == nil || !contractible(mul, "mul") || !sameMods(mul, add) || !plain(mul.Operands[1]) || !plain(mul.Operands[2]) {
					continue
				}
				srcs, ok := snap[mul]
				if !ok {
					srcs = snapshot(f, mul, len(snap))
					snap[mul] = srcs
				}
				// add d, p, c  with  p = a*b   becomes   fma.rn d, a', b', c
				add.Op = "fma"
				add.Mods = append([]string{"rn"}, add.Mods...)
				add.Operands = []ptx.Operand{add.Operands[0], srcs[0], srcs[1], add.Operands[j]}
				break
			}
		}
	}
}

// snapshot copies a mul's register sources into fresh registers right after
// it, so that an fma placed at a later add reads the values the mul read,
// even if the registers are written again in between (ptxas reasons in SSA
// form: the H100 fused such a pair with the original values).
func snapshot(f *ptx.Func, mul *ptx.Instr, n int) []ptx.Operand {
	typ := mul.Mods[len(mul.Mods)-1]
	regType, movType := typ, typ
	switch typ {
	case "f16":
		regType, movType = "b16", "b16"
	case "f16x2":
		regType, movType = "b32", "b32"
	}
	t, _ := ptx.LookupType(regType)
	out := make([]ptx.Operand, 2)
	var movs []ptx.Stmt
	for k, o := range mul.Operands[1:3] {
		r, ok := o.(*ptx.Reg)
		if !ok {
			out[k] = o // an immediate cannot change
			continue
		}
		name := fmt.Sprintf("%%__cugen_fma%d_%d", n, k)
		f.Body.Stmts = append([]ptx.Stmt{&ptx.Var{Pos: mul.Pos, Space: ptx.SpaceReg, Type: t, Name: name}}, f.Body.Stmts...)
		tmp := &ptx.Reg{Pos: r.Pos, Name: name}
		movs = append(movs, &ptx.Instr{Pos: mul.Pos, Op: "mov", Mods: []string{movType}, Operands: []ptx.Operand{tmp, r}})
		out[k] = tmp
	}
	insertAfter(f.Body, mul, movs)
	return out
}

// insertAfter places stmts right after target in whichever block holds it.
func insertAfter(b *ptx.Block, target *ptx.Instr, stmts []ptx.Stmt) bool {
	for i, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Instr:
			if s == target {
				rest := append(append([]ptx.Stmt{}, stmts...), b.Stmts[i+1:]...)
				b.Stmts = append(b.Stmts[:i+1], rest...)
				return true
			}
		case *ptx.Block:
			if insertAfter(s, target, stmts) {
				return true
			}
		}
	}
	return false
}

// plain reports a register (no component, no negation) or an immediate.
func plain(o ptx.Operand) bool {
	switch o := o.(type) {
	case *ptx.Reg:
		return o.Comp == "" && !o.Not && o.Name != "_"
	case *ptx.Imm, *ptx.FImm:
		return true
	}
	return false
}

// contractible reports an unguarded op.{f16,f16x2,f32,f64}[.ftz] with no
// rounding mode and no saturation.
func contractible(in *ptx.Instr, op string) bool {
	if in.Op != op || in.Guard != "" || len(in.Operands) != 3 {
		return false
	}
	typed := false
	for _, m := range in.Mods {
		switch m {
		case "ftz":
		case "f16", "f16x2", "f32", "f64":
			typed = true
		default:
			return false // rounding modes, .sat, .lo/.hi/.wide (integers)
		}
	}
	return typed
}

func sameMods(a, b *ptx.Instr) bool {
	if len(a.Mods) != len(b.Mods) {
		return false
	}
	for i := range a.Mods {
		if a.Mods[i] != b.Mods[i] {
			return false
		}
	}
	return true
}

// writesFirst reports instructions whose first operand is a destination.
func writesFirst(in *ptx.Instr) bool {
	switch in.Op {
	case "st", "red", "bra", "ret", "exit", "bar", "barrier", "membar", "fence", "prefetch", "trap", "call":
		return false
	}
	return len(in.Operands) > 0
}

// countDefs counts, per register, the instructions that write it, and keeps
// the writer of each. Registers written by a call's return list, a vector or
// a pair destination are counted too, so a rewrite never trusts them wrongly.
func countDefs(b *ptx.Block, defs map[string]int, def map[string]*ptx.Instr) {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			countDefs(s, defs, def)
		case *ptx.Instr:
			if s.Op == "call" && len(s.Operands) > 0 {
				if l, ok := s.Operands[0].(*ptx.List); ok {
					for _, e := range l.Elems {
						markDef(e, s, defs, def)
					}
				}
				continue
			}
			if writesFirst(s) {
				markDef(s.Operands[0], s, defs, def)
			}
		}
	}
}

func markDef(o ptx.Operand, in *ptx.Instr, defs map[string]int, def map[string]*ptx.Instr) {
	switch o := o.(type) {
	case *ptx.Reg:
		defs[o.Name]++
		def[o.Name] = in
	case *ptx.Vec:
		for _, e := range o.Elems {
			markDef(e, in, defs, def)
		}
	case *ptx.Pair:
		markDef(o.First, in, defs, def)
		markDef(o.Second, in, defs, def)
	}
}

// flatten lists a body's instructions in program order.
func flatten(b *ptx.Block, out *[]*ptx.Instr) {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			flatten(s, out)
		case *ptx.Instr:
			*out = append(*out, s)
		}
	}
}

// hasDWARF reports DWARF sections (.section .debug_*), which nvcc -G emits.
func hasDWARF(m *ptx.Module) bool {
	for _, s := range m.Sections {
		if strings.HasPrefix(s, ".debug") {
			return true
		}
	}
	return false
}
