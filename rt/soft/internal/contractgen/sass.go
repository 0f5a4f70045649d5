package contractgen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// SASSInstr is one instruction of a cuobjdump -sass listing.
type SASSInstr struct {
	Addr  int
	Guard string // "P0", "!P1", "" when unguarded
	Op    string // "FFMA"
	Mods  []string
	Args  []string
}

var (
	sassFunc  = regexp.MustCompile(`^\s*Function : (\S+)`)
	sassInstr = regexp.MustCompile(`^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;`)
)

// ParseSASS splits a cuobjdump -sass listing into its functions' code.
func ParseSASS(text string) map[string][]SASSInstr {
	out := map[string][]SASSInstr{}
	fn := ""
	for _, line := range strings.Split(text, "\n") {
		if m := sassFunc.FindStringSubmatch(line); m != nil {
			fn = m[1]
			continue
		}
		m := sassInstr.FindStringSubmatch(line)
		if m == nil || fn == "" {
			continue
		}
		addr, _ := strconv.ParseInt(m[1], 16, 64)
		in := SASSInstr{Addr: int(addr)}
		s := strings.TrimSpace(m[2])
		if strings.HasPrefix(s, "@") {
			g, rest, _ := strings.Cut(s[1:], " ")
			in.Guard, s = g, strings.TrimSpace(rest)
		}
		opm, rest, _ := strings.Cut(s, " ")
		parts := strings.Split(opm, ".")
		in.Op, in.Mods = parts[0], parts[1:]
		for _, a := range strings.Split(rest, ",") {
			if a = strings.TrimSpace(a); a != "" {
				in.Args = append(in.Args, strings.TrimSuffix(a, ".reuse"))
			}
		}
		out[fn] = append(out[fn], in)
	}
	return out
}

func hasMod(mods []string, m string) bool {
	for _, x := range mods {
		if x == m {
			return true
		}
	}
	return false
}

// sassEval is the symbolic state of one function's evaluation.
type sassEval struct {
	t      Type
	reg    map[string]slot
	mem    map[string]*Node // local/shared memory by address text
	pver   map[string]int   // predicate versions, so a guard names one value
	sels   map[[2]*Node]*Node
	stored []*Node
	all    []*Node
	cond   bool // inside a region a forward branch may skip
}

// slot is a 32-bit register: a value, or one half of a 64-bit value.
type slot struct {
	n    *Node
	half byte // 0, 'l' or 'h'
}

// SummarizeSASS evaluates a function's SASS symbolically: loads from global
// memory are the inputs (by offset), stores to it the outputs.
func SummarizeSASS(code []SASSInstr, t Type) Summary {
	e := &sassEval{t: t, reg: map[string]slot{}, mem: map[string]*Node{}, pver: map[string]int{}, sels: map[[2]*Node]*Node{}}
	exits := map[int]bool{}
	for _, in := range code {
		if in.Op == "EXIT" && in.Guard == "" || in.Op == "RET" && in.Guard == "" {
			exits[in.Addr] = true
		}
	}
	// A forward branch makes the code up to its target conditional, unless
	// the target only exits.
	condUntil := -1
	for _, in := range code {
		e.cond = in.Addr < condUntil
		if in.Op == "BRA" && len(in.Args) > 0 {
			if tgt, err := strconv.ParseInt(strings.TrimPrefix(in.Args[len(in.Args)-1], "0x"), 16, 64); err == nil && int(tgt) > in.Addr && !exits[int(tgt)] {
				if int(tgt) > condUntil {
					condUntil = int(tgt)
				}
			}
			continue
		}
		e.step(in)
	}
	return summarize(e.stored, e.all)
}

func regNum(r string) (string, int, bool) {
	for _, p := range []string{"UR", "R"} {
		if strings.HasPrefix(r, p) {
			n, err := strconv.Atoi(r[len(p):])
			if err == nil {
				return p, n, true
			}
		}
	}
	return "", 0, false
}

func isReg(r string) bool {
	_, _, ok := regNum(r)
	return ok || r == "RZ" || r == "URZ"
}

func isPred(r string) bool {
	r = strings.TrimPrefix(r, "!")
	return (strings.HasPrefix(r, "P") || strings.HasPrefix(r, "UP")) && r != "PT" && r != "UPT"
}

func nextReg(r string) string {
	p, n, _ := regNum(r)
	return fmt.Sprintf("%s%d", p, n+1)
}

// guardKey names a guard's predicate value: "P0#2", "!P0#2".
func (e *sassEval) guardKey(g string) string {
	if g == "" || g == "PT" {
		return ""
	}
	p := strings.TrimPrefix(g, "!")
	return g + "#" + strconv.Itoa(e.pver[p])
}

// resolve picks a selection's side when the reading instruction runs under
// the guard that made it (or its negation).
func resolve(n *Node, guard string) *Node {
	for n.Op == "sel" && n.Pred != "" && guard != "" {
		switch {
		case n.Pred == guard:
			n = n.Args[0]
		case n.Pred == negGuard(guard):
			n = n.Args[1]
		default:
			return n
		}
	}
	return n
}

func negGuard(g string) string {
	if strings.HasPrefix(g, "!") {
		return g[1:]
	}
	return "!" + g
}

// operand evaluates a source operand (with -, |…| modifiers); wide reads a
// 64-bit register pair.
func (e *sassEval) operand(a string, wide bool, guard string) *Node {
	neg := false
	if strings.HasPrefix(a, "-") && !isNumber(a) {
		neg, a = true, a[1:]
	}
	abs := false
	if strings.HasPrefix(a, "|") && strings.HasSuffix(a, "|") {
		abs, a = true, a[1:len(a)-1]
	}
	var n *Node
	switch {
	case a == "RZ" || a == "URZ":
		n = &Node{Op: "k"}
	case isReg(a):
		n = e.read(a, wide)
	case strings.HasPrefix(a, "c["):
		if strings.HasPrefix(a, "c[0x0]") {
			n = unknown() // kernel parameters and launch sizes
		} else {
			n = &Node{Op: "k", Pool: true} // the compiler's literal pool
		}
	case isNumber(a):
		n = &Node{Op: "k", Neg: strings.HasPrefix(a, "-")}
		if v, err := strconv.ParseInt(strings.TrimPrefix(a, "0x"), 16, 64); err == nil && strings.HasPrefix(a, "0x") {
			n.Off = v // an integer immediate, for address arithmetic
		}
	default:
		n = unknown()
	}
	n = resolve(n, guard)
	if abs {
		n = &Node{Op: "abs", Args: []*Node{n}}
	}
	if neg {
		n = &Node{Op: "neg", Args: []*Node{n}}
	}
	return n
}

// read returns a register's value: a 32-bit one, or the 64-bit value whose
// halves a pair holds.
func (e *sassEval) read(r string, wide bool) *Node {
	s, ok := e.reg[r]
	if !ok {
		s = slot{n: unknown()}
		e.reg[r] = s
	}
	if !wide {
		if s.half != 0 {
			return unknown()
		}
		return s.n
	}
	h := e.reg[nextReg(r)]
	switch {
	case s.half == 'l' && h.half == 'h' && s.n == h.n:
		return s.n
	case s.half == 0 && h.half == 0 && s.n.Op == "k" && h.n != nil && h.n.Op == "k":
		return &Node{Op: "k", Neg: h.n.Neg} // a constant built from two immediates
	}
	return unknown()
}

func isNumber(a string) bool {
	a = strings.TrimLeft(a, "+-")
	if strings.HasPrefix(a, "0x") {
		_, err := strconv.ParseUint(a[2:], 16, 64)
		return err == nil
	}
	if a == "INF" || a == "QNAN" || a == "NAN" {
		return true
	}
	_, err := strconv.ParseFloat(a, 64)
	return err == nil
}

// sel is the selection between two values, one node per pair, so that the
// two halves of a 64-bit selection make one value again.
func (e *sassEval) sel(a, b *Node, pred string) *Node {
	k := [2]*Node{a, b}
	if n := e.sels[k]; n != nil {
		return n
	}
	n := &Node{Op: "sel", Args: []*Node{a, b}, Pred: pred}
	e.sels[k] = n
	return n
}

// write sets a destination; under a guard, or inside a conditional region,
// the old value may survive, so the result selects between them.
func (e *sassEval) write(d string, n *Node, wide bool, guard string) {
	if !isReg(d) || d == "RZ" || d == "URZ" {
		return
	}
	if guard != "" || e.cond {
		if old := e.read(d, wide); old.Op != "?" && old != n {
			n = e.sel(n, old, guard)
		}
	}
	if wide {
		e.reg[d] = slot{n, 'l'}
		e.reg[nextReg(d)] = slot{n, 'h'}
		return
	}
	e.reg[d] = slot{n: n}
}

// memOperand parses "desc[UR4][R2.64+0x8]", "[R2.64+0x8]", "[R2+0x10]" or
// "[R1+0x8]" into the base register and the offset.
func memOperand(a string) (base string, off int64) {
	i := strings.LastIndex(a, "[")
	if i < 0 {
		return "", 0
	}
	inner := strings.TrimSuffix(a[i+1:], "]")
	for _, sep := range []string{"+", "-"} {
		if b, o, ok := strings.Cut(inner, sep); ok {
			v, _ := strconv.ParseInt(strings.TrimPrefix(o, "0x"), 16, 64)
			if sep == "-" {
				v = -v
			}
			inner, off = b, v
			break
		}
	}
	return strings.TrimSuffix(inner, ".64"), off
}

func (e *sassEval) step(in SASSInstr) {
	guard := e.guardKey(in.Guard)
	defer func() {
		// predicates written by comparisons get a new version
		for i := 0; i < len(in.Args) && i < 2; i++ {
			if p := in.Args[i]; isPred(p) && !strings.HasPrefix(p, "!") && (strings.HasSuffix(in.Op, "SETP") || in.Op == "PLOP3" || i == 0) {
				e.pver[p]++
			}
		}
	}()
	wideOp := strings.HasPrefix(in.Op, "D")
	src := func(i int) *Node { return e.operand(in.Args[i], wideOp, guard) }
	arith := func(op string, args []*Node) {
		n := &Node{Op: op, Mods: arithMods(in.Mods), Args: args}
		e.all = append(e.all, n)
		e.write(in.Args[0], n, wideOp, guard)
	}
	switch in.Op {
	case "FADD", "DADD", "FADD32I":
		a, b := src(1), src(2)
		if in.Args[1] == "-RZ" {
			a, b = b, a
		}
		if in.Args[1] == "-RZ" || in.Args[2] == "-RZ" {
			// x + -0 is x, bit for bit: a move, or with .FTZ/.SAT the
			// flush or clamp that abs.ftz and cvt.sat compile to
			if arithMods(in.Mods) != "" {
				a = &Node{Op: "?", Args: []*Node{a}}
			}
			e.write(in.Args[0], a, wideOp, guard)
			return
		}
		arith("add", []*Node{a, b})
		return
	case "FMUL", "DMUL", "FMUL32I":
		arith("mul", []*Node{src(1), src(2)})
		return
	case "FFMA", "DFMA", "FFMA32I":
		a, b := src(1), src(2)
		if in.Args[3] == "-RZ" { // a*b + -0 is a*b rounded once
			arith("mul", []*Node{a, b})
			return
		}
		arith("fma", []*Node{a, b, src(3)})
		return
	case "MOV", "MOV32I", "UMOV", "IMAD":
		if in.Op == "IMAD" && !(hasMod(in.Mods, "MOV") && len(in.Args) == 4) {
			break
		}
		s := in.Args[len(in.Args)-1]
		if isReg(s) && s != "RZ" && s != "URZ" {
			if _, ok := e.reg[s]; !ok {
				e.read(s, false)
			}
			if guard == "" && !e.cond {
				e.reg[in.Args[0]] = e.reg[s] // a half moves as a half
				return
			}
		}
		e.write(in.Args[0], e.operand(s, false, guard), false, guard)
		return
	case "FSEL", "SEL":
		a, b := e.slotOf(in.Args[1], guard), e.slotOf(in.Args[2], guard)
		half := a.half
		if half == 0 {
			half = b.half
		}
		if (a.half == 0 || a.half == half) && (b.half == 0 || b.half == half) {
			e.reg[in.Args[0]] = slot{e.sel(a.n, b.n, e.guardKey(in.Args[3])), half}
			return
		}
		e.write(in.Args[0], unknown(), false, "")
		return
	case "IADD3", "VIADD", "IADD":
		// base + immediate, carried for address arithmetic
		var regs []string
		var imm int64
		for _, a := range in.Args[1:] {
			switch {
			case isPred(a):
			case a == "RZ" || a == "URZ":
			case isReg(a):
				regs = append(regs, a)
			case strings.HasPrefix(a, "0x") || strings.HasPrefix(a, "-0x"):
				v, _ := strconv.ParseInt(strings.Replace(a, "0x", "", 1), 16, 64)
				imm += v
			default:
				regs = append(regs, "?")
			}
		}
		if len(regs) == 1 && regs[0] != "?" && !hasMod(in.Mods, "X") {
			e.write(in.Args[0], offsetBy(e.operand(regs[0], false, ""), imm), false, guard)
			return
		}
	}
	if strings.HasPrefix(in.Op, "LD") && in.Op != "LDC" && in.Op != "LDSM" {
		e.load(in, guard)
		return
	}
	if strings.HasPrefix(in.Op, "ST") && in.Op != "STSM" {
		e.store(in)
		return
	}
	// Anything else that writes a register yields an unknown value that
	// depends on the registers it reads (so that what feeds it stays live).
	if len(in.Args) > 0 && isReg(in.Args[0]) {
		n := unknown()
		for _, a := range in.Args[1:] {
			if isReg(strings.Trim(a, "-|")) {
				n.Args = append(n.Args, e.operand(a, false, guard))
			}
		}
		wide := hasMod(in.Mods, "64") || hasMod(in.Mods, "WIDE")
		e.write(in.Args[0], n, wide, "")
	}
}

// slotOf is a selection operand as a slot (registers keep their halves).
func (e *sassEval) slotOf(a, guard string) slot {
	if isReg(a) && a != "RZ" && a != "URZ" {
		e.read(a, false)
		s := e.reg[a]
		return slot{resolve(s.n, guard), s.half}
	}
	return slot{n: e.operand(a, false, guard)}
}

func width(mods []string) int {
	switch {
	case hasMod(mods, "128"):
		return 4
	case hasMod(mods, "64"):
		return 2
	}
	return 1
}

func (e *sassEval) load(in SASSInstr, guard string) {
	if len(in.Args) < 2 {
		return
	}
	d := in.Args[0]
	words := width(in.Mods)
	base, off := memOperand(in.Args[1])
	if in.Op == "LDL" || in.Op == "LDS" {
		key := base + fmt.Sprint(off)
		n := e.mem[key]
		if n == nil {
			n = unknown()
		}
		e.write(d, n, words == 2 && e.t == F64, guard)
		return
	}
	_, boff := addrOf(e.operand(base, false, ""))
	off += boff
	p, dn, _ := regNum(d)
	size := int64(e.t.Size())
	for w := 0; w < words; {
		r := fmt.Sprintf("%s%d", p, dn+w)
		n := &Node{Op: "in", In: int((off + int64(w)*4) / size)}
		if e.t == F64 {
			e.write(r, n, true, guard)
			w += 2
		} else {
			e.write(r, n, false, guard)
			w++
		}
	}
}

func (e *sassEval) store(in SASSInstr) {
	if len(in.Args) < 2 {
		return
	}
	base, off := memOperand(in.Args[0])
	src := in.Args[1]
	words := width(in.Mods)
	wide := e.t == F64
	if in.Op == "STL" || in.Op == "STS" {
		e.mem[base+fmt.Sprint(off)] = e.operand(src, words == 2 && wide, "")
		return
	}
	p, dn, _ := regNum(src)
	step := 1
	if wide {
		step = 2
	}
	for w := 0; w < words; w += step {
		r := fmt.Sprintf("%s%d", p, dn+w)
		if src == "RZ" {
			r = "RZ"
		}
		e.stored = append(e.stored, e.operand(r, wide, ""))
	}
}
