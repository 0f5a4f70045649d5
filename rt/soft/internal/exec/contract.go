package exec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cugen/cugen/parse/ptx"
)

// Contract fuses mul and add pairs as ptxas does, by the rules the
// package doc states under "Contraction" (evidence: rt/soft/testdata/contract, read
// by contract_test.go). It rewrites the module in place, once, at load: a
// fused add becomes fma.rn (with a neg in front where a product or addend
// enters negated), the mul and any mov or neg it passed through disappear,
// and a mul's sources are copied where the PTX writes them again before
// the fma reads them, since ptxas reasons in SSA form. Regions are in
// contract_region.go.
func Contract(m *ptx.Module) {
	for _, t := range m.Target {
		if t == "debug" {
			return
		}
	}
	for _, f := range m.Funcs {
		if f.Body != nil {
			foldMulOne(f.Body)
			newContraction(f).run()
		}
	}
}

// foldMulOne turns mul.f32/f64 d, x, 1.0 into mov d, x, as ptxas does: the
// H100 then stores a NaN x with its payload, where a multiply would return
// the canonical NaN. (A mul.ftz by 1.0 flushes; ptxas keeps that, and so
// does soft.)
func foldMulOne(b *ptx.Block) {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			foldMulOne(s)
		case *ptx.Instr:
			if s.Op != "mul" || len(s.Operands) != 3 || len(s.Mods) != 1 || (s.Mods[0] != "f32" && s.Mods[0] != "f64") {
				continue
			}
			for i := 1; i <= 2; i++ {
				if isOne(s.Operands[i]) && plain(s.Operands[3-i]) {
					s.Op = "mov"
					s.Operands = []ptx.Operand{s.Operands[0], s.Operands[3-i]}
					break
				}
			}
		}
	}
}

func isOne(o ptx.Operand) bool {
	f, ok := o.(*ptx.FImm)
	if !ok {
		return false
	}
	switch f.BitsLen {
	case 32:
		return f.Bits == 0x3f800000
	case 64:
		return f.Bits == 0x3ff0000000000000
	}
	return f.Val == 1
}

// site is one instruction, where it sits, and what contraction decides
// about it.
type site struct {
	in    *ptx.Instr
	idx   int   // program order
	block int   // basic block number, then fusion region
	srcs  []int // the registers it reads (srcRegs), interned
	dsts  []int // the registers it writes (destRegs)
	dest  int   // its only destination register, or -1
	dead  bool  // nothing live reads what it computes

	plan   *fused // the fma it becomes
	taken  bool   // an add that a product is fused into
	remove bool   // a mul or link whose every reader became an fma
	seen   int    // absorbers' walk generation
	before []ptx.Stmt
	after  []ptx.Stmt
}

type contraction struct {
	f     *ptx.Func
	sites []*site
	ids   map[string]int // register names, interned
	defs  [][]*site      // writers of each register
	reads [][]*site      // live readers of each register (a reader reading twice appears twice)
	all   [][]*site      // every reader, dead ones too
	temps int
	decls []ptx.Stmt // the registers rewrite adds
	gen   int
	store []site   // backing for sites
	idBuf []int    // backing for sites' srcs
	names []string // scratch for srcRegs

	blocks    []*block
	nounroll  map[int]bool // blocks holding a .pragma "nounroll"
	looping   map[int]bool // regions holding an unrolled loop
	regionEnd map[int]int  // each region's last site
}

func newContraction(f *ptx.Func) *contraction {
	c := &contraction{f: f, ids: map[string]int{}}
	var code []ptx.Stmt
	flattenCode(f.Body, &code)
	c.store = make([]site, 0, len(code))
	c.sites = make([]*site, 0, len(code))
	c.split(code)
	n := len(c.ids)
	c.defs = c.index(n, func(st *site) []int { return st.dsts })
	c.merge()
	c.findDead()
	c.all = c.index(n, func(st *site) []int { return st.srcs })
	c.reads = c.index(n, func(st *site) []int {
		if st.dead {
			return nil
		}
		return st.srcs
	})
	return c
}

// index lists, per register, the sites that name it in regs (once per
// mention), all in one backing array.
func (c *contraction) index(n int, regs func(*site) []int) [][]*site {
	start := make([]int, n+1)
	for _, st := range c.sites {
		for _, r := range regs(st) {
			start[r+1]++
		}
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	buf := make([]*site, start[n])
	next := append([]int(nil), start[:n]...)
	for _, st := range c.sites {
		for _, r := range regs(st) {
			buf[next[r]] = st
			next[r]++
		}
	}
	out := make([][]*site, n)
	for r := range out {
		out[r] = buf[start[r]:start[r+1]:start[r+1]]
	}
	return out
}

// id interns a register name.
func (c *contraction) id(name string) int {
	if i, ok := c.ids[name]; ok {
		return i
	}
	i := len(c.ids)
	c.ids[name] = i
	return i
}

// newSite records an instruction in program order. Sites and their
// register lists are carved out of shared arrays: a load contracts every
// instruction of a module, and allocations dominated its cost.
func (c *contraction) newSite(in *ptx.Instr, block int) *site {
	if len(c.store) == cap(c.store) {
		c.store = make([]site, 0, 64)
	}
	c.store = append(c.store, site{in: in, idx: len(c.sites), block: block, dest: -1})
	st := &c.store[len(c.store)-1]
	c.names = srcRegs(c.names[:0], in)
	start := len(c.idBuf)
	for _, r := range c.names {
		c.idBuf = append(c.idBuf, c.id(r))
	}
	st.srcs = c.idBuf[start:len(c.idBuf):len(c.idBuf)]
	c.names = destRegs(c.names[:0], in)
	start = len(c.idBuf)
	for _, r := range c.names {
		c.idBuf = append(c.idBuf, c.id(r))
	}
	st.dsts = c.idBuf[start:len(c.idBuf):len(c.idBuf)]
	if d, ok := soleDest(in); ok {
		st.dest = c.id(d)
	}
	c.sites = append(c.sites, st)
	return st
}

func endsBlock(in *ptx.Instr) bool {
	switch in.Op {
	case "bra", "brx", "ret", "exit", "trap":
		return true
	}
	return false
}

// findDead marks side-effect-free instructions whose results nothing live
// reads, as ptxas deletes them before it contracts.
func (c *contraction) findDead() {
	readers := make([]int, len(c.ids))
	for _, st := range c.sites {
		for _, r := range st.srcs {
			readers[r]++
		}
	}
	work := append([]*site{}, c.sites...)
	for len(work) > 0 {
		st := work[len(work)-1]
		work = work[:len(work)-1]
		if st.dead || st.dest < 0 || readers[st.dest] > 0 || !pureOp(st.in) || hasMod(st.in, "cc") {
			continue
		}
		st.dead = true
		for _, r := range st.srcs {
			readers[r]--
			if readers[r] == 0 {
				work = append(work, c.defs[r]...)
			}
		}
	}
}

// pureOp reports instructions that only compute a register from registers.
func pureOp(in *ptx.Instr) bool {
	switch in.Op {
	case "add", "sub", "mul", "mad", "fma", "neg", "abs", "min", "max", "mov", "cvt", "selp", "set", "setp",
		"and", "or", "xor", "not", "cnot", "shl", "shr", "sqrt", "rcp", "rsqrt", "copysign", "testp":
		return true
	}
	return false
}

func soleDest(in *ptx.Instr) (string, bool) {
	if len(in.Operands) == 0 || !writesFirst(in) {
		return "", false
	}
	r, ok := in.Operands[0].(*ptx.Reg)
	if !ok || r.Name == "_" {
		return "", false
	}
	return r.Name, true
}

// fused is one add's fate: it becomes an fma of mul's sources, the product
// negated or not, plus the add's other operand.
type fused struct {
	mul     *site
	operand int  // the add's operand (1 or 2) that carried the product
	negProd bool // the product enters negated (through neg, or as sub's subtrahend)
	last    int  // the last add the mul is fused into
}

func (c *contraction) run() {
	fusedAny := false
	for _, add := range c.sites {
		if add.taken || add.dead || !addLike(add.in) || !floatOperand(add.in.Operands[1]) || !floatOperand(add.in.Operands[2]) {
			continue
		}
		var best *site
		var bestAdds []*site
		for i := 1; i <= 2; i++ {
			mul, _, ok := c.product(add.in.Operands[i])
			if !ok || mul.block != add.block || !compatible(mul.in, add.in) {
				continue
			}
			adds, ok := c.absorbers(mul)
			if !ok {
				continue
			}
			free := true
			for _, a := range adds {
				free = free && !a.taken
			}
			if free && (best == nil || len(adds) < len(bestAdds)) {
				best, bestAdds = mul, adds
			}
		}
		if best == nil {
			for i := 1; i <= 2 && !add.taken; i++ {
				one, neg, ok := c.product(add.in.Operands[i])
				if !ok || one.block != add.block || !compatible(one.in, add.in) {
					continue
				}
				if m := c.ftzOneInner(one); m != nil {
					add.plan = &fused{mul: m, operand: i, negProd: neg, last: add.idx}
					add.taken = true
					fusedAny = true
				}
			}
			continue
		}
		last := bestAdds[len(bestAdds)-1].idx
		for _, a := range bestAdds {
			for i := 1; i <= 2; i++ {
				if m, neg, ok := c.product(a.in.Operands[i]); ok && m == best {
					a.plan = &fused{mul: best, operand: i, negProd: neg, last: last}
				}
			}
			a.taken = true
		}
		fusedAny = true
	}
	if fusedAny {
		c.rewrite()
	}
}

// ftzOneInner returns the mul whose product one, a mul.ftz by 1.0, flushes,
// when that product has no other reader. ptxas compiles the flush to an
// FADD.FTZ x, -0, absorbs the mul into it (an FFMA.FTZ a, b, -0, kept for
// one's other uses) and fuses that into an add reading one even where one
// has other uses, which the every-use rule (absorbers) would refuse: the
// add becomes an fma of the inner mul's sources (contract_test.go,
// hand/rand053_ftz, the one recorded case).
func (c *contraction) ftzOneInner(one *site) *site {
	in := one.in
	if !hasMod(in, "ftz") || len(in.Operands) != 3 {
		return nil
	}
	var x ptx.Operand
	switch {
	case isOne(in.Operands[2]):
		x = in.Operands[1]
	case isOne(in.Operands[1]):
		x = in.Operands[2]
	default:
		return nil
	}
	m, neg, ok := c.product(x)
	if !ok || neg || m.block != one.block || !compatible(m.in, in) || m.dest < 0 {
		return nil
	}
	if r, isReg := x.(*ptx.Reg); !isReg || c.ids[r.Name] != m.dest {
		return nil // only directly, not through movs
	}
	for _, u := range c.reads[m.dest] {
		if u != one {
			return nil
		}
	}
	return m
}

// addLike reports an add or sub that ptxas may turn into an fma.
func addLike(in *ptx.Instr) bool {
	if (in.Op != "add" && in.Op != "sub") || len(in.Operands) != 3 {
		return false
	}
	typed := false
	for _, m := range in.Mods {
		switch m {
		case "ftz", "sat":
		case "f16", "f16x2", "f32", "f64":
			typed = true
		default:
			return false // a rounding mode, or an integer add
		}
	}
	return typed
}

// floatOperand reports a plain register or a float immediate, the operands
// an fma can take (and that negated can still be).
func floatOperand(o ptx.Operand) bool {
	_, isImm := o.(*ptx.FImm)
	return isImm || plain(o) && !isIntImm(o)
}

func isIntImm(o ptx.Operand) bool {
	_, ok := o.(*ptx.Imm)
	return ok
}

// fusableMul reports an unguarded mul without rounding mode or .sat.
func fusableMul(in *ptx.Instr) bool {
	if in.Op != "mul" || in.Guard != "" || len(in.Operands) != 3 || !floatOperand(in.Operands[1]) || !floatOperand(in.Operands[2]) {
		return false
	}
	typed := false
	for _, m := range in.Mods {
		switch m {
		case "ftz":
		case "f16", "f16x2", "f32", "f64":
			typed = true
		default:
			return false
		}
	}
	return typed
}

// compatible: same type, same .ftz.
func compatible(mul, add *ptx.Instr) bool {
	return typeOf(mul) == typeOf(add) && hasMod(mul, "ftz") == hasMod(add, "ftz")
}

// typeOf is the float type of an instruction (addLike, fusableMul), "" if
// it names none.
func typeOf(in *ptx.Instr) string {
	for _, m := range in.Mods {
		switch m {
		case "f16", "f16x2", "f32", "f64":
			return m
		}
	}
	return ""
}

func hasMod(in *ptx.Instr, m string) bool {
	for _, x := range in.Mods {
		if x == m {
			return true
		}
	}
	return false
}

// product follows an operand back through single-definition movs and negs
// to a fusable mul, the only definition of its register.
func (c *contraction) product(o ptx.Operand) (mul *site, neg, ok bool) {
	for depth := 0; depth < 8; depth++ {
		r, isReg := o.(*ptx.Reg)
		if !isReg || r.Comp != "" || r.Not {
			return nil, false, false
		}
		id, known := c.ids[r.Name]
		if !known || len(c.defs[id]) != 1 {
			return nil, false, false
		}
		d := c.defs[id][0]
		switch {
		case fusableMul(d.in):
			return d, neg, true
		case chainLink(d.in):
			if d.in.Op == "neg" {
				neg = !neg
			}
			o = d.in.Operands[1]
		default:
			return nil, false, false
		}
	}
	return nil, false, false
}

// chainLink reports a mov or neg that passes a product on unchanged (but
// for its sign). (nvcc -ftz=true writes neg.ftz; the H100 fused through it.)
func chainLink(in *ptx.Instr) bool {
	if (in.Op != "mov" && in.Op != "neg") || in.Guard != "" || len(in.Operands) != 2 {
		return false
	}
	mods := in.Mods
	if in.Op == "neg" && len(mods) == 2 && mods[0] == "ftz" {
		mods = mods[1:]
	}
	if len(mods) != 1 {
		return false
	}
	switch mods[0] {
	case "f16", "f16x2", "f32", "f64", "b16", "b32", "b64":
		return in.Op == "mov" || mods[0][0] == 'f'
	}
	return false
}

// absorbers returns the adds that would take mul's product, in program
// order: every live use, followed through movs and negs, must be an add or
// sub in mul's region that reads it in one operand only.
func (c *contraction) absorbers(mul *site) ([]*site, bool) {
	var adds []*site
	c.gen++
	var walk func(reg, depth int) bool
	walk = func(reg, depth int) bool {
		if depth > 8 {
			return false
		}
		for _, u := range c.reads[reg] {
			if u.seen == c.gen {
				return false // read twice: a+a, or one add reading both through two paths
			}
			u.seen = c.gen
			switch {
			case chainLink(u.in) && u.block == mul.block:
				if u.dest < 0 || len(c.defs[u.dest]) != 1 || !walk(u.dest, depth+1) {
					return false
				}
			case addLike(u.in) && u.block == mul.block && compatible(mul.in, u.in):
				adds = append(adds, u)
			default:
				return false
			}
		}
		return true
	}
	if mul.dest < 0 || !walk(mul.dest, 0) || len(adds) == 0 {
		return nil, false
	}
	sort.Slice(adds, func(i, j int) bool { return adds[i].idx < adds[j].idx })
	return adds, true
}

// rewrite turns each planned add into an fma, deletes the muls and links
// that are left with no reader, and copies a mul's sources where they are
// written again before an fma reads them (ptxas reasons in SSA form).
func (c *contraction) rewrite() {
	srcs := map[*site][]ptx.Operand{}
	for _, add := range c.sites {
		p := add.plan
		if p == nil {
			continue
		}
		mul := p.mul
		s, ok := srcs[mul]
		if !ok {
			s = append([]ptx.Operand{}, mul.in.Operands[1:3]...)
			if c.writtenBetween(mul, p.last, s) {
				for k, o := range s {
					if r, isReg := o.(*ptx.Reg); isReg {
						tmp := c.temp(mul.in, r)
						mul.after = append(mul.after, &ptx.Instr{Pos: mul.in.Pos, Op: "mov", Mods: []string{movType(typeOf(mul.in))}, Operands: []ptx.Operand{tmp, r}})
						s[k] = tmp
					}
				}
			}
			srcs[mul] = s
		}
		a, b := s[0], s[1]
		other := add.in.Operands[3-p.operand]
		negProd := p.negProd != (add.in.Op == "sub" && p.operand == 2)
		negOther := add.in.Op == "sub" && p.operand == 1
		if negProd {
			a = c.negated(add, a)
		}
		if negOther {
			other = c.negated(add, other)
		}
		mods := []string{"rn"}
		for _, m := range add.in.Mods {
			if m == "ftz" || m == "sat" {
				mods = append(mods, m)
			}
		}
		add.in.Op = "fma"
		add.in.Mods = append(mods, typeOf(add.in))
		// ptxas's DFMA takes the mul's sources in the other order, which
		// shows where two operands are NaN: see gpumath.NaN3.
		add.in.Operands = []ptx.Operand{add.in.Operands[0], b, a, other}
	}
	// Muls and links whose every reader became an fma are gone.
	for _, mul := range c.sites {
		if _, ok := srcs[mul]; ok {
			c.removeIfUnread(mul)
		}
	}
	i := 0
	edit(c.f.Body, c.sites, &i)
	c.f.Body.Stmts = append(c.decls, c.f.Body.Stmts...)
}

// removeIfUnread deletes st when every instruction reading its result
// (dead ones included) was fused away or deleted, and then the links it fed.
func (c *contraction) removeIfUnread(st *site) bool {
	if st.dest < 0 {
		return false
	}
	for _, u := range c.all[st.dest] {
		if u == st || u.remove || u.plan != nil {
			// an fma now reads the mul's sources (an add that also read the
			// product as its other operand would have read it twice)
			continue
		}
		if chainLink(u.in) && c.removeIfUnread(u) {
			continue
		}
		return false
	}
	st.remove = true
	return true
}

// writtenBetween reports whether any of the mul's source registers is
// written after the mul and before the last add that fuses it (or anywhere
// after it in a region that loops).
func (c *contraction) writtenBetween(mul *site, last int, srcs []ptx.Operand) bool {
	if c.looping[mul.block] {
		// in an unrolled loop a write after the add reaches it on the next trip
		last = c.regionEnd[mul.block]
	}
	for _, o := range srcs {
		r, ok := o.(*ptx.Reg)
		if !ok {
			continue
		}
		for _, w := range c.defs[c.ids[r.Name]] {
			if w.idx > mul.idx && w.idx < last {
				return true
			}
		}
	}
	return false
}

// negated returns -o: a negated immediate, or a fresh register set by a
// neg placed before at.
func (c *contraction) negated(at *site, o ptx.Operand) ptx.Operand {
	switch v := o.(type) {
	case *ptx.FImm:
		n := *v
		n.Val = -n.Val
		switch n.BitsLen {
		case 32:
			n.Bits ^= 1 << 31
		case 64:
			n.Bits ^= 1 << 63
		}
		return &n
	}
	r := o.(*ptx.Reg) // floatOperand admits nothing else
	tmp := c.temp(at.in, r)
	at.before = append(at.before, &ptx.Instr{Pos: at.in.Pos, Op: "neg", Mods: []string{typeOf(at.in)}, Operands: []ptx.Operand{tmp, r}})
	return tmp
}

// temp declares a fresh register of the instruction's float type.
func (c *contraction) temp(in *ptx.Instr, like *ptx.Reg) *ptx.Reg {
	name := fmt.Sprintf("%%__cugen_fma%d", c.temps)
	c.temps++
	t, _ := ptx.LookupType(regType(typeOf(in)))
	c.decls = append(c.decls, &ptx.Var{Pos: in.Pos, Space: ptx.SpaceReg, Type: t, Name: name})
	return &ptx.Reg{Pos: like.Pos, Name: name}
}

// regType is how a register of a float type is declared; movType how it is
// copied.
func regType(t string) string {
	switch t {
	case "f16":
		return "b16"
	case "f16x2":
		return "b32"
	}
	return t
}

func movType(t string) string { return regType(t) }

// edit applies the sites' insertions and deletions to the blocks holding
// them; the walk meets the instructions in the order flattenCode lists them.
func edit(b *ptx.Block, sites []*site, i *int) {
	out := make([]ptx.Stmt, 0, len(b.Stmts))
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			edit(s, sites, i)
			out = append(out, s)
		case *ptx.Instr:
			st := sites[*i]
			*i++
			out = append(out, st.before...)
			if !st.remove {
				out = append(out, s)
			}
			out = append(out, st.after...)
		default:
			out = append(out, s)
		}
	}
	b.Stmts = out
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

// writesFirst reports instructions whose first operand is a destination.
func writesFirst(in *ptx.Instr) bool {
	switch in.Op {
	case "st", "red", "bra", "brx", "ret", "exit", "bar", "barrier", "membar", "fence", "prefetch", "trap", "call", "cp":
		return false
	}
	return len(in.Operands) > 0
}

// destRegs appends the registers an instruction writes to out: its
// destination (vector and pair destinations too) or a call's return list.
func destRegs(out []string, in *ptx.Instr) []string {
	var add func(o ptx.Operand)
	add = func(o ptx.Operand) {
		switch o := o.(type) {
		case *ptx.Reg:
			out = append(out, o.Name)
		case *ptx.Vec:
			for _, e := range o.Elems {
				add(e)
			}
		case *ptx.Pair:
			add(o.First)
			add(o.Second)
		case *ptx.List:
			for _, e := range o.Elems {
				add(e)
			}
		}
	}
	if in.Op == "call" && len(in.Operands) > 0 {
		if l, ok := in.Operands[0].(*ptx.List); ok {
			add(l)
		}
		return out
	}
	if writesFirst(in) {
		add(in.Operands[0])
	}
	return out
}

// eachReg calls f with the name of every register o names, through
// vectors, lists, tuples, pairs and an address's base.
func eachReg(o ptx.Operand, f func(name string)) {
	switch o := o.(type) {
	case *ptx.Reg:
		f(o.Name)
	case *ptx.Addr:
		if o.Base != nil {
			eachReg(o.Base, f)
		}
	case *ptx.Vec:
		for _, e := range o.Elems {
			eachReg(e, f)
		}
	case *ptx.List:
		for _, e := range o.Elems {
			eachReg(e, f)
		}
	case *ptx.Tuple:
		for _, e := range o.Elems {
			eachReg(e, f)
		}
	case *ptx.Pair:
		eachReg(o.First, f)
		eachReg(o.Second, f)
	}
}

// srcRegs appends the registers an instruction reads to out, once per
// mention.
func srcRegs(out []string, in *ptx.Instr) []string {
	if in.Guard != "" {
		out = append(out, in.Guard)
	}
	add := func(o ptx.Operand) { eachReg(o, func(n string) { out = append(out, n) }) }
	ops := in.Operands
	if in.Op == "call" && len(ops) > 0 {
		if _, ok := ops[0].(*ptx.List); ok {
			ops = ops[1:]
		}
	} else if writesFirst(in) && len(ops) > 0 {
		if a, ok := ops[0].(*ptx.Addr); ok { // atom/ld-like forms never start with one, but be safe
			add(a)
		}
		ops = ops[1:]
	}
	for _, o := range ops {
		add(o)
	}
	return out
}

// flattenCode lists a body's instructions, labels, pragmas and
// branch-target lists in program order.
func flattenCode(b *ptx.Block, out *[]ptx.Stmt) {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			flattenCode(s, out)
		case *ptx.Instr, *ptx.Label, *ptx.Targets, *ptx.Pragma:
			*out = append(*out, s)
		}
	}
}

// hasDWARF reports DWARF sections (.section .debug_*), which nvcc -G and
// -lineinfo emit.
func hasDWARF(m *ptx.Module) bool {
	for _, s := range m.Sections {
		if strings.HasPrefix(s, ".debug") {
			return true
		}
	}
	return false
}
