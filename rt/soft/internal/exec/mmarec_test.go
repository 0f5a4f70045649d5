package exec

// The tensor-core recordings: every mma, wmma, ldmatrix, stmatrix and
// movmatrix form is a small PTX kernel with deterministic inputs (random
// ones and designed ones that expose the accumulation order and rounding).
// `go test ./rt/soft -run TestMMABundle -mma.bundle DIR` writes the kernels
// and inputs for testdata/mma/record.py to run on a GPU; its outputs,
// committed in testdata/mma, are what TestMMARecordings checks soft
// against, bit for bit.

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
)

// recForm is one recorded kernel: launched with Grid CTAs of Block threads
// as k(in, out); the output buffer is pre-filled with 0xA5 bytes.
type recForm struct {
	Name    string
	Grid    int
	Block   int
	OutSize int // bytes per CTA
	In      []byte
	ptx     string
	minVer  string // PTX ISA version the form needs
}

const recFill = 0xa5

// Kinds of instruction a register-level form tests.
type regForm struct {
	instr        string // the instruction with its modifiers
	win, wout    int    // register width in bytes (4 or 8)
	nd, na, nb   int    // registers of D, A, B
	nc           int    // registers of C (0: none, as in movmatrix)
	extra        string // operands after c (mma.sp metadata and selector)
	nextra       int    // input registers the extra operands read
	dtype, ctype mmaType
}

// ptxHeader opens a recording kernel k(in, out).
func recHeader(ver string) string {
	return ".version " + ver + "\n.target sm_90\n.address_size 64\n\n" +
		".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n" +
		"\t.reg .b32 %utid;\n\t.reg .b32 %ucta;\n\t.reg .b32 %lane;\n\t.reg .b32 %st;\n\t.reg .b32 %w;\n\t.reg .b32 %off;\n\t.reg .b64 %in;\n\t.reg .b64 %out;\n\t.reg .b64 %t;\n\t.reg .b64 %s;\n\t.reg .b64 %g;\n\t.reg .pred %p;\n\t.reg .f32 %fa;\n"
}

// recInit loads the kernel parameters and the thread and CTA ids (after
// the declarations).
const recInit = "\tld.param.u64 %in, [k_in];\n\tld.param.u64 %out, [k_out];\n\tcvta.to.global.u64 %in, %in;\n\tcvta.to.global.u64 %out, %out;\n\tmov.u32 %utid, %tid.x;\n\tmov.u32 %ucta, %ctaid.x;\n\tand.b32 %lane, %utid, 31;\n"

// advance adds cta*perCTA + tid*perLane to a base pointer register.
func advance(b *strings.Builder, reg string, perCTA, perLane int) {
	if perCTA != 0 {
		fmt.Fprintf(b, "\tmul.wide.u32 %%t, %%ucta, %d;\n\tadd.u64 %s, %s, %%t;\n", perCTA, reg, reg)
	}
	if perLane != 0 {
		fmt.Fprintf(b, "\tmul.wide.u32 %%t, %%utid, %d;\n\tadd.u64 %s, %s, %%t;\n", perLane, reg, reg)
	}
}

func regList(prefix string, from, n int) string {
	var s []string
	for i := 0; i < n; i++ {
		s = append(s, fmt.Sprintf("%s%d", prefix, from+i))
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// ptx of a register-level form: each lane loads its A, B, C (and extra)
// registers, runs the instruction and stores D.
func (f regForm) ptx(ver string) string {
	var b strings.Builder
	b.WriteString(recHeader(ver))
	nin := f.na + f.nb + f.nc + f.nextra
	rp, dp := "%r", "%q"
	if f.win == 8 {
		rp = "%rd"
	}
	if f.wout == 8 {
		dp = "%qd"
	}
	fmt.Fprintf(&b, "\t.reg .b%d %s<%d>;\n\t.reg .b%d %s<%d>;\n", f.win*8, rp, nin, f.wout*8, dp, f.nd)
	b.WriteString(recInit)
	advance(&b, "%in", nin*f.win*32, nin*f.win)
	advance(&b, "%out", f.nd*f.wout*32, f.nd*f.wout)
	for i := 0; i < nin; i++ {
		fmt.Fprintf(&b, "\tld.global.b%d %s%d, [%%in+%d];\n", f.win*8, rp, i, i*f.win)
	}
	var ops []string
	if strings.HasPrefix(f.instr, "cvt.") { // cvt reads an .f32 register
		fmt.Fprintf(&b, "\tmov.b32 %%fa, %s0;\n", rp)
		ops = []string{dp + "0", "%fa"}
	} else if f.nb == 0 && f.nc == 0 { // movmatrix: plain registers
		ops = []string{dp + "0", rp + "0"}
	} else {
		ops = []string{regList(dp, 0, f.nd), regList(rp, 0, f.na), regList(rp, f.na, f.nb), regList(rp, f.na+f.nb, f.nc)}
	}
	line := f.instr + " " + strings.Join(ops, ", ")
	if f.extra != "" {
		line += ", " + strings.ReplaceAll(f.extra, "$E", fmt.Sprintf("%s%d", rp, f.na+f.nb+f.nc))
	}
	fmt.Fprintf(&b, "\t%s;\n", line)
	for i := 0; i < f.nd; i++ {
		fmt.Fprintf(&b, "\tst.global.b%d [%%out+%d], %s%d;\n", f.wout*8, i*f.wout, dp, i)
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

func newRegForm(name string, f regForm, ver string, cases [][]byte) *recForm {
	in := []byte{}
	for _, c := range cases {
		if len(c) != 32*(f.na+f.nb+f.nc+f.nextra)*f.win {
			panic(fmt.Sprintf("%s: case of %d bytes", name, len(c)))
		}
		in = append(in, c...)
	}
	return &recForm{Name: name, Grid: len(cases), Block: 32, OutSize: 32 * f.nd * f.wout, In: in, ptx: f.ptx(ver), minVer: ver}
}

// allRecForms lists every recorded form, deterministically.
func buildAllRecForms() []*recForm {
	var fs []*recForm
	fs = append(fs, mmaRecForms()...)
	fs = append(fs, wmmaRecForms()...)
	fs = append(fs, ldmatrixRecForms()...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Name < fs[j].Name })
	// Families share some loads and stores (the f32 accumulator of f16
	// and bf16): keep one.
	out := fs[:0]
	for i, f := range fs {
		if i > 0 && f.Name == fs[i-1].Name {
			if f.ptx != fs[i-1].ptx {
				panic("two different forms named " + f.Name)
			}
			continue
		}
		out = append(out, f)
	}
	return out
}

// allRecForms is buildAllRecForms, built once: the forms are the same for every test
// (and their generation, under -race, most of a test's time).
var allRecForms = sync.OnceValue(buildAllRecForms)

// formRand is a form's own deterministic random source.
func formRand(name string) *rand.Rand {
	var h int64 = 1469598103934665603
	for _, c := range []byte(name) {
		h = (h ^ int64(c)) * 1099511628211
	}
	return rand.New(rand.NewSource(h))
}
