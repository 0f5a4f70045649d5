package exec

import (
	"github.com/cugen/cugen/parse/ptx"
)

// Fusion regions: ptxas fuses a mul and an add only inside one basic block
// of its own control-flow graph, which is not quite the PTX's. It merges a
// block into its only predecessor when that predecessor leads nowhere else
// (a "bra L; L:" pair is no boundary), and it fully unrolls a short counted
// loop, so that the loop, the code before it and the code after it become
// one block. A call is a boundary it never fuses across. The numbers below
// are what the H100's ptxas (CUDA 13.0) was seen to do; see Contract.
const (
	unrollMaxTrips = 64  // the longest loop seen fully unrolled
	unrollMaxInstr = 256 // trips × body instructions, the most seen unrolled
)

// callLike reports whether ptxas fuses nothing across in: a call, or an
// f32 division with an IEEE rounding mode, which ptxas expands into a fast
// path and a call of a slow-path subroutine. The division's rule comes from
// code written elsewhere: the CUDA sample BlackScholes gives the H100's bits
// only if no product computed before a div.rn.f32 is fused into an add
// after it (4M options, every output; see the package doc). SASS sweeps of
// products of kernel parameters were fused across every such division,
// which ptxas can recompute after it; the sweeps had no division between a
// product of loaded values and its add, which is BlackScholes' case.
func callLike(in *ptx.Instr) bool {
	if in.Op == "call" {
		return true
	}
	if in.Op != "div" {
		return false
	}
	f32, ieee := false, false
	for _, m := range in.Mods {
		switch m {
		case "f32":
			f32 = true
		case "rn", "rz", "rm", "rp":
			ieee = true
		}
	}
	return f32 && ieee
}

// block is a basic block of the PTX: sites[first:last+1].
type block struct {
	first, last int
	label       string // the branch target that starts it, if any
	succ        []int
	pred        []int
}

// split lists the sites of code and cuts them into basic blocks, each
// site numbered with its block.
func (c *contraction) split(code []ptx.Stmt) {
	targets := map[string]bool{}
	lists := map[string][]string{} // .branchtargets lists, for brx.idx
	for _, s := range code {
		switch s := s.(type) {
		case *ptx.Instr:
			for _, o := range s.Operands {
				if sym, ok := o.(*ptx.Sym); ok {
					targets[sym.Name] = true
				}
			}
		case *ptx.Targets:
			for _, t := range s.Targets {
				targets[t] = true
			}
			if s.Kind == "branchtargets" {
				lists[s.Name] = s.Targets
			}
		}
	}
	// Split at branch targets and after control transfers and calls.
	var blocks []*block
	byLabel := map[string]int{}
	nounroll := map[int]bool{}
	open := func(label string) {
		blocks = append(blocks, &block{first: len(c.sites), last: len(c.sites) - 1, label: label})
		if label != "" {
			byLabel[label] = len(blocks) - 1
		}
	}
	open("")
	ended := false
	for _, s := range code {
		switch s := s.(type) {
		case *ptx.Label:
			if targets[s.Name] || ended {
				open(s.Name)
				ended = false
			}
		case *ptx.Pragma:
			nounroll[len(blocks)-1] = nounroll[len(blocks)-1] || s.Text == "nounroll"
		case *ptx.Instr:
			if ended {
				open("")
				ended = false
			}
			st := c.newSite(s, len(blocks)-1)
			blocks[len(blocks)-1].last = st.idx
			ended = endsBlock(s) || callLike(s)
		}
	}
	c.blocks, c.nounroll = blocks, nounroll
	// Edges.
	for i, b := range blocks {
		var last *ptx.Instr
		if b.last >= b.first {
			last = c.sites[b.last].in
		}
		falls := last == nil || !(last.Guard == "" && (last.Op == "bra" || last.Op == "brx" || last.Op == "ret" || last.Op == "exit" || last.Op == "trap"))
		if last != nil && last.Op == "bra" && len(last.Operands) > 0 {
			if sym, ok := last.Operands[0].(*ptx.Sym); ok {
				if t, ok := byLabel[sym.Name]; ok {
					b.succ = append(b.succ, t)
				}
			}
		}
		if last != nil && last.Op == "brx" {
			// brx.idx: every label of its list (each once).
			var list []string
			if len(last.Operands) == 2 {
				if sym, ok := last.Operands[1].(*ptx.Sym); ok {
					list = lists[sym.Name]
				}
			}
			seen := map[int]bool{}
			for _, l := range list {
				t, ok := byLabel[l]
				if !ok {
					t = -1
				}
				if !seen[t] {
					seen[t] = true
					b.succ = append(b.succ, t)
				}
			}
			if len(list) == 0 {
				b.succ = append(b.succ, -1) // unknown successors
			}
		}
		if falls && i+1 < len(blocks) {
			b.succ = append(b.succ, i+1)
		}
		for _, s := range b.succ {
			if s >= 0 {
				blocks[s].pred = append(blocks[s].pred, i)
			}
		}
	}
}

// merge renumbers each site with its fusion region: blocks ptxas would
// merge, as above, share one.
func (c *contraction) merge() {
	blocks, nounroll := c.blocks, c.nounroll
	parent := make([]int, len(blocks))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) { parent[find(b)] = find(a) }
	endsInCall := func(b *block) bool { return b.last >= b.first && callLike(c.sites[b.last].in) }
	// only reports a single edge p→b that is p's only way out and b's only way in
	only := func(p, b int) bool {
		return len(blocks[b].pred) == 1 && blocks[b].pred[0] == p && len(blocks[p].succ) == 1 && blocks[p].succ[0] == b && !endsInCall(blocks[p])
	}
	for i, b := range blocks {
		if i > 0 && len(b.pred) == 1 && only(b.pred[0], i) {
			union(b.pred[0], i)
		}
		// A single-block counted loop ptxas unrolls: merge it with the block
		// before it and the block after it.
		if !nounroll[i] && c.unrolled(b, i) {
			var pre []int
			for _, p := range b.pred {
				if p != i {
					pre = append(pre, p)
				}
			}
			if len(pre) == 1 && len(blocks[pre[0]].succ) == 1 && !endsInCall(blocks[pre[0]]) {
				union(pre[0], i)
			}
			if i+1 < len(blocks) && len(blocks[i+1].pred) == 1 {
				union(i, i+1)
			}
		}
	}
	c.looping = map[int]bool{}
	for i, b := range blocks {
		for _, p := range b.pred {
			if p >= i && find(p) == find(i) { // a back edge inside one region
				c.looping[find(i)] = true
			}
		}
	}
	c.regionEnd = map[int]int{}
	for _, st := range c.sites {
		st.block = find(st.block)
		c.regionEnd[st.block] = st.idx
	}
}

// unrolled reports a single-block loop (its last instruction a guarded
// branch back to its own label) that counts an integer register from a
// constant by a constant to a constant, in few enough trips for ptxas to
// unroll it fully.
func (c *contraction) unrolled(b *block, idx int) bool {
	if b.last < b.first || b.label == "" {
		return false
	}
	br := c.sites[b.last].in
	if br.Op != "bra" || br.Guard == "" || len(br.Operands) != 1 {
		return false
	}
	if sym, ok := br.Operands[0].(*ptx.Sym); !ok || sym.Name != b.label {
		return false
	}
	// the guard: setp.cmp p, k, limit in the loop
	var setp *ptx.Instr
	setpIdx := -1
	for i := b.first; i < b.last; i++ {
		in := c.sites[i].in
		if in.Op == "setp" && len(in.Operands) == 3 {
			if r, ok := in.Operands[0].(*ptx.Reg); ok && r.Name == br.Guard {
				setp, setpIdx = in, i
			}
		}
	}
	if g, ok := c.ids[br.Guard]; !ok || setp == nil || len(c.defs[g]) != 1 {
		return false
	}
	k, ok1 := setp.Operands[1].(*ptx.Reg)
	limit, ok2 := setp.Operands[2].(*ptx.Imm)
	if !ok1 || !ok2 || len(setp.Mods) != 2 {
		return false
	}
	switch setp.Mods[1] {
	case "s32", "u32", "s64", "u64", "b32", "b64":
	default:
		return false
	}
	// k: set once before the loop to a constant, stepped once inside it
	var init, step int64
	var haveInit, haveStep, stepFirst bool
	kid, ok := c.ids[k.Name]
	if !ok {
		return false
	}
	for _, d := range c.defs[kid] {
		in := d.in
		switch {
		case d.idx < b.first && in.Op == "mov" && in.Guard == "" && len(in.Operands) == 2:
			if v, ok := in.Operands[1].(*ptx.Imm); ok && !haveInit {
				init, haveInit = int64(int32(v.Val)), true
				continue
			}
			return false
		case d.idx >= b.first && d.idx <= b.last && (in.Op == "add" || in.Op == "sub") && in.Guard == "" && len(in.Operands) == 3:
			src, ok1 := in.Operands[1].(*ptx.Reg)
			v, ok2 := in.Operands[2].(*ptx.Imm)
			if !ok1 || !ok2 || src.Name != k.Name || haveStep {
				return false
			}
			step, haveStep = int64(int32(v.Val)), true
			stepFirst = d.idx < setpIdx
			if in.Op == "sub" {
				step = -step
			}
		default:
			return false
		}
	}
	if !haveInit || !haveStep || step == 0 {
		return false
	}
	// Run the counter: the body runs once, then again while the guard holds.
	lim := int64(int32(limit.Val))
	trips := 0
	for v := init; ; v += step {
		trips++
		if trips > unrollMaxTrips {
			return false
		}
		cmp := v // the value the setp sees
		if stepFirst {
			cmp += step
		}
		var cont bool
		switch setp.Mods[0] {
		case "lt":
			cont = cmp < lim
		case "le":
			cont = cmp <= lim
		case "gt":
			cont = cmp > lim
		case "ge":
			cont = cmp >= lim
		case "ne":
			cont = cmp != lim
		case "eq":
			cont = cmp == lim
		default:
			return false
		}
		if cont == br.GuardNeg {
			break
		}
	}
	return trips*(b.last-b.first+1) <= unrollMaxInstr
}
