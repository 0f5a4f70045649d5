package contractgen

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Threads is how many threads every recorded launch runs: Blocks of
// BlockSize, one input set each.
const (
	BlockSize = 128
	Blocks    = 2
	Threads   = BlockSize * Blocks
)

// Targets are the architectures the corpus is compiled for.
var Targets = []string{"sm_75", "sm_80", "sm_90"}

// regs assigns PTX registers to a body's names.
type regs struct {
	t     Type
	kind  map[string]byte // 'f' float, 'k' integer, 'p' predicate
	num   map[string]int
	next  map[byte]int
	taken map[string]bool
}

func (k Kernel) regs(stmts []stmt) (*regs, error) {
	r := &regs{t: k.Type, kind: map[string]byte{}, num: map[string]int{}, next: map[byte]int{'f': 10, 'k': 10, 'p': 2}, taken: map[string]bool{}}
	for _, s := range stmts {
		if s.guard != "" {
			r.kind[s.guard] = 'p'
		}
		if s.op == "setp" && len(s.args) > 0 {
			r.kind[s.args[0]] = 'p'
		}
		if s.op == "selp" && len(s.args) == 4 {
			r.kind[s.args[3]] = 'p'
		}
	}
	for _, s := range stmts {
		for _, a := range s.args {
			if isConst(a) || inputIndex(a) >= 0 || r.kind[a] == 'p' {
				continue
			}
			switch a {
			case "beta": // the kernel's scalar parameter
				r.kind[a], r.num[a] = 'f', 60
				continue
			case "nthreads": // the kernel's thread count
				r.kind[a], r.num[a] = 'k', 1
				continue
			}
			if strings.HasPrefix(a, "k") {
				r.kind[a] = 'k'
			} else if _, isLabel := labelOf(stmts, a); !isLabel {
				r.kind[a] = 'f'
			}
		}
	}
	// explicit %N names first, so automatic numbers avoid them
	for name, kd := range r.kind {
		if strings.HasPrefix(name, "%") {
			n, err := strconv.Atoi(name[1:])
			if err != nil || kd != 'f' {
				return nil, fmt.Errorf("%s: bad explicit register %s", k.Name(), name)
			}
			r.num[name] = n
			r.taken[fmt.Sprint(n)] = true
		}
	}
	for _, s := range stmts {
		for _, a := range s.args {
			kd, ok := r.kind[a]
			if !ok || strings.HasPrefix(a, "%") || a == "beta" || a == "nthreads" {
				continue
			}
			if _, done := r.num[a]; done {
				continue
			}
			n := r.next[kd]
			for kd == 'f' && r.taken[fmt.Sprint(n)] {
				n++
			}
			r.num[a] = n
			r.next[kd] = n + 1
			if kd == 'f' {
				r.taken[fmt.Sprint(n)] = true
			}
		}
		if s.guard != "" {
			if _, done := r.num[s.guard]; !done {
				r.num[s.guard] = r.next['p']
				r.next['p']++
			}
		}
	}
	return r, nil
}

func labelOf(stmts []stmt, name string) (string, bool) {
	for _, s := range stmts {
		if s.label == name {
			return name, true
		}
	}
	return "", false
}

func isConst(a string) bool {
	_, err := strconv.ParseFloat(a, 64)
	return err == nil
}

func (r *regs) fprefix() string {
	if r.t == F64 {
		return "%fd"
	}
	return "%f"
}

// operand renders a body name as a PTX operand.
func (r *regs) operand(a string, intCtx bool) string {
	if i := inputIndex(a); i >= 0 {
		return fmt.Sprintf("%s%d", r.fprefix(), i+1)
	}
	if isConst(a) {
		v, _ := strconv.ParseFloat(a, 64)
		if intCtx {
			return strconv.Itoa(int(v))
		}
		return FloatLit(r.t, v)
	}
	switch r.kind[a] {
	case 'k':
		return fmt.Sprintf("%%r%d", r.num[a])
	case 'p':
		return fmt.Sprintf("%%p%d", r.num[a])
	case 'f':
		return fmt.Sprintf("%s%d", r.fprefix(), r.num[a])
	}
	return "$L_" + a // a label
}

// FloatLit is the PTX hex literal of v in t.
func FloatLit(t Type, v float64) string {
	if t == F64 {
		return fmt.Sprintf("0d%016X", math.Float64bits(v))
	}
	return fmt.Sprintf("0f%08X", math.Float32bits(float32(v)))
}

var roundings = map[string]bool{"rn": true, "rz": true, "rm": true, "rp": true}

// fpOpcode spells op with its modifiers in PTX order (rounding, ftz, sat)
// and the type; the F32FTZ variant adds .ftz to mul, add, sub and fma.
func fpOpcode(t Type, op string, mods []string) string {
	var rnd, ftz, sat string
	for _, m := range mods {
		switch {
		case roundings[m]:
			rnd = "." + m
		case m == "ftz":
			ftz = ".ftz"
		case m == "sat":
			sat = ".sat"
		}
	}
	if op == "fma" && rnd == "" {
		rnd = ".rn"
	}
	if t == F32FTZ && (op == "mul" || op == "add" || op == "sub" || op == "fma") {
		ftz = ".ftz"
	}
	return op + rnd + ftz + sat + "." + t.PTXType()
}

// body renders the statements as PTX lines; store renders "out slot, v".
func (k Kernel) body(stmts []stmt, r *regs, store func(slot int, v string) string) ([]string, error) {
	var lines []string
	for _, s := range stmts {
		if s.label != "" {
			lines = append(lines, "$L_"+s.label+":")
			continue
		}
		g := ""
		if s.guard != "" {
			g = "@" + map[bool]string{true: "!"}[s.neg] + r.operand(s.guard, false) + " "
		}
		isInt := len(s.args) > 0 && r.kind[s.args[0]] == 'k'
		ops := func(intCtx bool) string {
			var o []string
			for _, a := range s.args {
				o = append(o, r.operand(a, intCtx))
			}
			return strings.Join(o, ", ")
		}
		var line string
		switch s.op {
		case "mul", "add", "sub", "fma", "neg", "abs":
			if isInt {
				line = s.op + ".s32 " + ops(true)
			} else {
				line = fpOpcode(k.Type, s.op, s.mods) + " " + ops(false)
			}
		case "mov":
			if isInt {
				line = "mov.u32 " + ops(true)
			} else {
				line = "mov." + k.Type.PTXType() + " " + ops(false)
			}
		case "setp":
			if len(s.args) != 3 || len(s.mods) != 1 {
				return nil, fmt.Errorf("%s: bad setp", k.Name())
			}
			if r.kind[s.args[1]] == 'k' {
				line = "setp." + s.mods[0] + ".s32 " + ops(true)
			} else {
				line = "setp." + s.mods[0] + "." + k.Type.PTXType() + " " + ops(false)
			}
		case "selp":
			line = "selp." + k.Type.PTXType() + " " + ops(false)
		case "bra":
			line = "bra " + ops(false)
		case "shr":
			line = "shr.u32 " + ops(true)
		case "bar":
			line = "bar.sync 0"
		case "nounroll":
			line = `.pragma "nounroll"`
		case "callid", "callmul":
			// a call of a .func (callFuncs), the way NVVM spells one
			bt := fmt.Sprintf("b%d", 8*k.Type.Size())
			var b strings.Builder
			fmt.Fprintf(&b, "{\n\t.param .%s r0;\n", bt)
			for i, a := range s.args[1:] {
				fmt.Fprintf(&b, "\t.param .%s p%d;\n\tst.param.%s [p%d], %s;\n", bt, i, bt, i, r.operand(a, false))
			}
			params := "p0"
			if s.op == "callmul" {
				params = "p0, p1"
			}
			fmt.Fprintf(&b, "\tcall.uni (r0), __cg_%s, (%s);\n\tld.param.%s %s, [r0];\n\t}", s.op, params, bt, r.operand(s.args[0], false))
			lines = append(lines, b.String())
			continue
		case "out":
			line = store(s.outSlot, r.operand(s.args[0], false))
		default:
			return nil, fmt.Errorf("%s: unknown op %q", k.Name(), s.op)
		}
		lines = append(lines, g+line+";")
	}
	return lines, nil
}

// PTX is the kernel as a complete PTX module for target (e.g. "sm_90");
// debug adds ".target …, debug" and a DWARF section, as nvcc -G emits.
func (k Kernel) PTX(target string, debug bool) (string, error) {
	stmts, err := parseBody(k.Body)
	if err != nil {
		return "", err
	}
	r, err := k.regs(stmts)
	if err != nil {
		return "", err
	}
	size := k.Type.Size()
	typ := k.Type.PTXType()
	lines, err := k.body(stmts, r, func(slot int, v string) string {
		return fmt.Sprintf("st.global.%s [%%rd8+%d], %s", typ, slot*size, v)
	})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	tgt := target
	if debug {
		tgt += ", debug"
	}
	fmt.Fprintf(&b, "//\n// contractgen: shape %s (%s), type %s\n//\n\n.version 8.0\n.target %s\n.address_size 64\n\n", k.Shape.Name, k.Family, k.Type, tgt)
	b.WriteString(callFuncs(k, stmts))
	beta := ""
	if k.UsesBeta() {
		beta = ",\n\t.param ." + typ + " beta"
	}
	fmt.Fprintf(&b, ".visible .entry %s(\n\t.param .u64 in,\n\t.param .u64 out,\n\t.param .u32 n%s\n)\n{\n", k.Name(), beta)
	maxF := 10
	for _, n := range r.num {
		if n+1 > maxF {
			maxF = n + 1
		}
	}
	fmt.Fprintf(&b, "\t.reg .pred %%p<%d>;\n\t.reg .b32 %%r<%d>;\n\t.reg .b64 %%rd<9>;\n\t.reg .%s %s<%d>;\n\n", r.next['p'], r.next['k'], typ, r.fprefix(), maxF)
	b.WriteString("\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\tld.param.u32 %r1, [n];\n")
	if k.UsesBeta() {
		fmt.Fprintf(&b, "\tld.param.%s %s60, [beta];\n", typ, r.fprefix())
	}
	b.WriteString("\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ntid.x;\n\tmov.u32 %r4, %tid.x;\n\tmad.lo.s32 %r5, %r2, %r3, %r4;\n")
	b.WriteString("\tsetp.ge.u32 %p1, %r5, %r1;\n\t@%p1 bra $L_done;\n")
	b.WriteString("\tcvta.to.global.u64 %rd3, %rd1;\n\tcvta.to.global.u64 %rd4, %rd2;\n")
	fmt.Fprintf(&b, "\tmul.wide.u32 %%rd5, %%r5, %d;\n\tadd.s64 %%rd6, %%rd3, %%rd5;\n", k.NumInputs()*size)
	fmt.Fprintf(&b, "\tmul.wide.u32 %%rd7, %%r5, %d;\n\tadd.s64 %%rd8, %%rd4, %%rd7;\n", k.NumOutputs()*size)
	for i := 0; i < k.NumInputs(); i++ {
		fmt.Fprintf(&b, "\tld.global.%s %s%d, [%%rd6+%d];\n", typ, r.fprefix(), i+1, i*size)
	}
	for _, l := range lines {
		if strings.HasSuffix(l, ":") {
			b.WriteString(l + "\n")
		} else {
			b.WriteString("\t" + l + "\n")
		}
	}
	b.WriteString("$L_done:\n\tret;\n}\n")
	if debug {
		b.WriteString("\n.section .debug_abbrev\n{\n.b8 0\n}\n")
	}
	return b.String(), nil
}

// UsesBeta reports a body that reads the scalar kernel parameter "beta",
// which every launch sets to Beta.
func (k Kernel) UsesBeta() bool {
	stmts, _ := parseBody(k.Body)
	for _, s := range stmts {
		for _, a := range s.args {
			if a == "beta" {
				return true
			}
		}
	}
	return false
}

// Beta is the value of every kernel's "beta" parameter: small, so that
// 1-beta rounds.
const Beta = 0.001

// callFuncs defines the .funcs a body calls: __cg_callid returns its
// argument, __cg_callmul the product of its two.
func callFuncs(k Kernel, stmts []stmt) string {
	bt := fmt.Sprintf("b%d", 8*k.Type.Size())
	pre := "%f"
	if k.Type == F64 {
		pre = "%fd"
	}
	var b strings.Builder
	done := map[string]bool{}
	for _, s := range stmts {
		if done[s.op] {
			continue
		}
		switch s.op {
		case "callid":
			fmt.Fprintf(&b, ".func (.param .%s r) __cg_callid(.param .%s x)\n{\n\t.reg .%s %s<2>;\n\tld.param.%s %s1, [x];\n\tst.param.%s [r], %s1;\n\tret;\n}\n\n",
				bt, bt, k.Type.PTXType(), pre, bt, pre, bt, pre)
		case "callmul":
			fmt.Fprintf(&b, ".func (.param .%s r) __cg_callmul(.param .%s x, .param .%s y)\n{\n\t.reg .%s %s<4>;\n\tld.param.%s %s1, [x];\n\tld.param.%s %s2, [y];\n\t%s %s3, %s1, %s2;\n\tst.param.%s [r], %s3;\n\tret;\n}\n\n",
				bt, bt, bt, k.Type.PTXType(), pre, bt, pre, bt, pre, fpOpcode(k.Type, "mul", nil), pre, pre, pre, bt, pre)
		default:
			continue
		}
		done[s.op] = true
	}
	return b.String()
}

// AsmKernelName is the name of a shape's inline-PTX kernel in asm.cu.
func (k Kernel) AsmKernelName() string { return "asm_" + k.Name() }

// AsmC renders a straight-line shape as a CUDA C kernel whose body is one
// inline PTX statement, as users write it; NVVM passes it to ptxas in a
// { } block, with its operands in NVVM's registers.
func (k Kernel) AsmC() (string, error) {
	stmts, err := parseBody(k.Body)
	if err != nil {
		return "", err
	}
	r, err := k.regs(stmts)
	if err != nil {
		return "", err
	}
	nin, nout := k.NumInputs(), k.NumOutputs()
	ctype, cons := "float", "f"
	if k.Type == F64 {
		ctype, cons = "double", "d"
	}
	// Inside the asm, inputs are %nout.., outputs %0..; temporaries are
	// block-scoped .reg names.
	var temps []string
	names := map[string]string{}
	for name, kd := range r.kind {
		if kd == 'f' {
			names[name] = "t_" + name
			temps = append(temps, "t_"+name)
		}
	}
	sort.Strings(temps)
	op := func(a string) string {
		if i := inputIndex(a); i >= 0 {
			return fmt.Sprintf("%%%d", nout+i)
		}
		if isConst(a) {
			v, _ := strconv.ParseFloat(a, 64)
			return FloatLit(k.Type, v)
		}
		return names[a]
	}
	var body []string
	for _, s := range stmts {
		if s.label != "" || s.guard != "" || s.op == "bra" || s.op == "setp" || s.op == "selp" || s.op == "bar" {
			return "", fmt.Errorf("%s: not straight-line", k.Name())
		}
		var o []string
		for _, a := range s.args {
			o = append(o, op(a))
		}
		switch s.op {
		case "out":
			body = append(body, fmt.Sprintf("mov.%s %%%d, %s;", k.Type.PTXType(), s.outSlot, o[0]))
		case "mov":
			body = append(body, fmt.Sprintf("mov.%s %s;", k.Type.PTXType(), strings.Join(o, ", ")))
		default:
			body = append(body, fpOpcode(k.Type, s.op, s.mods)+" "+strings.Join(o, ", ")+";")
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "extern \"C\" __global__ void %s(const %s* __restrict__ in, %s* __restrict__ out, int n)\n{\n", k.AsmKernelName(), ctype, ctype)
	fmt.Fprintf(&b, "\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i >= n) return;\n")
	fmt.Fprintf(&b, "\tconst %s* x = in + (size_t)i * %d;\n\t%s* y = out + (size_t)i * %d;\n", ctype, nin, ctype, nout)
	var outs, ins []string
	for j := 0; j < nout; j++ {
		fmt.Fprintf(&b, "\t%s o%d;\n", ctype, j)
		outs = append(outs, fmt.Sprintf("\"=%s\"(o%d)", cons, j))
	}
	for j := 0; j < nin; j++ {
		ins = append(ins, fmt.Sprintf("\"%s\"(x[%d])", cons, j))
	}
	b.WriteString("\tasm(\"{\\n\\t\"\n")
	fmt.Fprintf(&b, "\t    \".reg .%s %s;\\n\\t\"\n", k.Type.PTXType(), strings.Join(temps, ", "))
	for _, l := range body {
		fmt.Fprintf(&b, "\t    \"%s\\n\\t\"\n", l)
	}
	fmt.Fprintf(&b, "\t    \"}\"\n\t    : %s\n\t    : %s);\n", strings.Join(outs, ", "), strings.Join(ins, ", "))
	for j := 0; j < nout; j++ {
		fmt.Fprintf(&b, "\ty[%d] = o%d;\n", j, j)
	}
	b.WriteString("}\n")
	return b.String(), nil
}

// AsmKernels lists the hand-written kernels that asm.cu holds.
func AsmKernels() []Kernel {
	var out []Kernel
	for _, k := range Kernels() {
		if k.Asm {
			out = append(out, k)
		}
	}
	return out
}

// AsmCU is asm.cu: every straight-line shape as inline PTX.
func AsmCU() (string, error) {
	var b strings.Builder
	b.WriteString("// Code generated by contractgen; DO NOT EDIT.\n// Every straight-line contraction shape as one inline PTX statement.\n\n")
	for i, k := range AsmKernels() {
		src, err := k.AsmC()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "#if (!defined(ONLY) || ONLY == %d) && !defined(SKIP_%d)\n%s#endif\n\n", i, i, src)
	}
	return b.String(), nil
}
