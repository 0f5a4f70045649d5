package contractgen

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Node is a value in a kernel's dataflow, as the symbolic evaluators of PTX
// and SASS build it. Only floating-point arithmetic is modelled exactly;
// anything else is a leaf ("?" unknown, "k" a constant, an input letter) or
// a selection between values.
type Node struct {
	Op   string // "in", "k", "?", "mul", "add", "fma", "neg", "abs", "sel"
	Mods string // ".ftz", ".sat", ".rz", … in that order
	Args []*Node
	In   int    // input index, for "in"
	Neg  bool   // a negative constant, for "k"
	Pool bool   // a constant of unknown sign (SASS literal pool), for "k"
	Pred string // for "sel" made by a guarded write: the guard that picks Args[0]

	// Address arithmetic, so that loads and stores can be located: an
	// integer value is Base + Off, where Base is the node the chain of
	// immediate additions started from (itself if none).
	Base *Node
	Off  int64
}

var unknown = func() *Node { return &Node{Op: "?"} }

func (n *Node) isArith() bool { return n.Op == "mul" || n.Op == "add" || n.Op == "fma" }

// addrOf returns n as base+offset.
func addrOf(n *Node) (*Node, int64) {
	if n.Base != nil {
		return n.Base, n.Off
	}
	return n, 0
}

func offsetBy(n *Node, d int64) *Node {
	b, off := addrOf(n)
	return &Node{Op: "?", Base: b, Off: off + d}
}

// String is the canonical form of the expression: commutative operands
// sorted, negations folded into products (-(a*b) = (-a)*b exactly; the sign
// of a sum is not moved, since x-y and -(y-x) differ in the sign of zero),
// constants written "k", anything that is not floating-point arithmetic
// "?", and "±" where a sign is not known (a constant from the SASS literal
// pool, whose value the listing does not show).
func (n *Node) String() string {
	s, core := n.norm()
	return signText(s) + core
}

// sign is +1, -1, or 0 for unknown.
type sign int

func signText(s sign) string {
	switch s {
	case -1:
		return "-"
	case 0:
		return "±"
	}
	return ""
}

func (n *Node) norm() (sign, string) {
	switch n.Op {
	case "in":
		return 1, string(rune('a' + n.In))
	case "k":
		switch {
		case n.Pool:
			return 0, "k"
		case n.Neg:
			return -1, "k"
		}
		return 1, "k"
	case "neg":
		s, c := n.Args[0].norm()
		return -s, c
	case "abs":
		return 1, "abs(" + n.Args[0].String() + ")"
	case "mul":
		s1, c1 := n.Args[0].norm()
		s2, c2 := n.Args[1].norm()
		return s1 * s2, "mul" + n.Mods + "(" + sortedJoin(c1, c2, ",") + ")"
	case "fma":
		s1, c1 := n.Args[0].norm()
		s2, c2 := n.Args[1].norm()
		return 1, "fma" + n.Mods + "(" + signText(s1*s2) + sortedJoin(c1, c2, "*") + "," + n.Args[2].String() + ")"
	case "add":
		return 1, "add" + n.Mods + "(" + sortedJoin(n.Args[0].String(), n.Args[1].String(), ",") + ")"
	case "sel":
		var s []string
		for _, a := range n.Args {
			s = append(s, a.String())
		}
		sort.Strings(s)
		return 1, "sel(" + strings.Join(s, ",") + ")"
	}
	return 1, "?"
}

// sortedJoin joins two commutative operands in a fixed order that does not
// depend on their signs (a sign the SASS leaves open must not reorder them).
func sortedJoin(a, b, sep string) string {
	ka, kb := strings.TrimLeft(a, "-±"), strings.TrimLeft(b, "-±")
	if kb < ka || kb == ka && b < a {
		a, b = b, a
	}
	return a + sep + b
}

// Shallow is the canonical form one level deep: an operand that is itself
// arithmetic is written as its operation ("mul", "-fma"), a selection as
// "sel". Unlike String it does not depend on what a register held before a
// conditional write, which the evaluators can only guess at.
func (n *Node) Shallow() string {
	// leaf renders an operand: its sign, and its core one level deep.
	leaf := func(a *Node) (sign, string) {
		s := sign(1)
		for a.Op == "neg" {
			s, a = -s, a.Args[0]
		}
		switch a.Op {
		case "mul":
			s1, _ := a.Args[0].norm()
			s2, _ := a.Args[1].norm()
			return s * s1 * s2, "mul" + a.Mods
		case "add", "fma":
			return s, a.Op + a.Mods
		case "sel":
			return s, "sel"
		case "abs":
			return s, "abs(" + a.Args[0].Shallow() + ")"
		}
		s1, c := a.norm()
		return s * s1, c
	}
	text := func(a *Node) string {
		s, c := leaf(a)
		return signText(s) + c
	}
	switch n.Op {
	case "mul":
		s1, c1 := leaf(n.Args[0])
		s2, c2 := leaf(n.Args[1])
		return signText(s1*s2) + "mul" + n.Mods + "(" + sortedJoin(c1, c2, ",") + ")"
	case "fma":
		s1, c1 := leaf(n.Args[0])
		s2, c2 := leaf(n.Args[1])
		return "fma" + n.Mods + "(" + signText(s1*s2) + sortedJoin(c1, c2, "*") + "," + text(n.Args[2]) + ")"
	case "add":
		return "add" + n.Mods + "(" + sortedJoin(text(n.Args[0]), text(n.Args[1]), ",") + ")"
	}
	return text(n)
}

// OpsMatch reports whether two sorted lists of Shallow forms are the same
// multiset, where a "±" in want (a sign the SASS does not show) matches
// either sign.
func OpsMatch(want, got []string) bool {
	if len(want) != len(got) {
		return false
	}
	used := make([]bool, len(got))
	for _, w := range want {
		re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(w), "±", "-?") + "$")
		found := false
		for j, g := range got {
			if !used[j] && re.MatchString(g) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Summary is what a kernel's code does with its floating-point values, in a
// form that PTX (after rt/soft's contraction) and SASS (after ptxas) share.
type Summary struct {
	// Roots are the canonical trees of the live arithmetic results that no
	// other arithmetic consumes (looking through negation, abs and
	// selection), sorted: which products were fused, with which operands
	// and signs, shows in them.
	Roots []string
	// Ops are the distinct live arithmetic operations written one level
	// deep (Node.Shallow), sorted: what the table tests compare. (A set:
	// ptxas merges the copies of a product that NVVM put in both arms of
	// an if.)
	Ops []string
	// FMA counts fused multiply-adds, live or not.
	FMA int
}

// String is the summary as a line of text: the fma count, the operations
// and, where they are short, the trees.
func (s Summary) String() string {
	roots := strings.Join(s.Roots, " ; ")
	if len(roots) > 200 {
		roots = "…"
	}
	return fmt.Sprintf("fma=%d | %s | %s", s.FMA, strings.Join(s.Ops, " "), roots)
}

// ParseSummary reads what String wrote (without the trees).
func ParseSummary(line string) (Summary, error) {
	var s Summary
	parts := strings.SplitN(line, " | ", 3)
	if len(parts) < 2 {
		return s, fmt.Errorf("bad summary %q", line)
	}
	if _, err := fmt.Sscanf(parts[0], "fma=%d", &s.FMA); err != nil {
		return s, fmt.Errorf("bad summary %q: %v", line, err)
	}
	s.Ops = strings.Fields(parts[1])
	return s, nil
}

// summarize computes a Summary from the stored values and every arithmetic
// node created.
func summarize(stored []*Node, all []*Node) Summary {
	live := map[*Node]bool{}
	var mark func(n *Node)
	mark = func(n *Node) {
		if n == nil || live[n] {
			return
		}
		live[n] = true
		for _, a := range n.Args {
			mark(a)
		}
	}
	for _, n := range stored {
		mark(n)
	}
	inner := map[*Node]bool{}
	var under func(n *Node)
	under = func(n *Node) {
		for _, a := range n.Args {
			if inner[a] {
				continue
			}
			inner[a] = true
			if !a.isArith() {
				under(a)
			}
		}
	}
	var s Summary
	for _, n := range all {
		if n.Op == "fma" {
			s.FMA++
		}
		if live[n] && n.isArith() {
			under(n)
		}
	}
	seen := map[string]bool{}
	for _, n := range all {
		if live[n] && n.isArith() && !inner[n] {
			str := n.String()
			if !seen[str] {
				seen[str] = true
				s.Roots = append(s.Roots, str)
			}
		}
	}
	sort.Strings(s.Roots)
	ops := map[string]bool{}
	for _, n := range all {
		op := n.Shallow()
		if n.Op == "mul" {
			// -(a*b) is (-a)*b: where the sign goes is no fusion decision
			op = strings.TrimLeft(op, "-±")
		}
		if live[n] && !ops[op] {
			ops[op] = true
			s.Ops = append(s.Ops, op)
		}
	}
	sort.Strings(s.Ops)
	return s
}

// arithMods keeps the modifiers that change a result, in a fixed order
// (rounding to nearest is the default and is dropped).
func arithMods(mods []string) string {
	var ftz, sat, rnd string
	for _, m := range mods {
		switch strings.ToLower(m) {
		case "ftz":
			ftz = ".ftz"
		case "sat":
			sat = ".sat"
		case "rz", "rm", "rp":
			rnd = "." + strings.ToLower(m)
		}
	}
	return rnd + ftz + sat
}
