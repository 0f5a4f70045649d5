package soft

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// The per-instruction table lives in testdata/insts.json: each case is a
// PTX snippet over inputs %a0.. and outputs %d0.., each row one thread.
// Its expected values are exact-math references; on a GPU machine the
// same harness records hardware values instead:
//
//	go test -tags cudarecord -c -o x.test ./rt/soft
//	./x.test -test.run TestInstrTable -instr.record=insts.json   (on the GPU)
//
// and the recorded file replaces testdata/insts.json.
var instrRecord = flag.String("instr.record", "", "run the instruction table on the recording backend and write the observed values to this file")

// recordBackend names the rt backend the table is recorded with
// (record_cuda_test.go sets "cuda" under the cudarecord build tag).
var recordBackend = "soft"

type instTable struct {
	Doc    string     `json:"doc"`
	Source string     `json:"source"`
	Cases  []instCase `json:"cases"`
}

type instCase struct {
	Name      string         `json:"name"`
	PTX       string         `json:"ptx"`
	In        []string       `json:"in"`
	Out       []string       `json:"out"`
	Rows      []instRow      `json:"rows"`
	Tolerance map[string]any `json:"tolerance,omitempty"`
	Block     int            `json:"block,omitempty"`
}

type instRow struct {
	Args     []string `json:"args"`
	Expected []string `json:"expected"`
}

func regDecl(t string) string {
	switch t {
	case "f16", "bf16":
		return "b16"
	case "f16x2", "bf16x2":
		return "b32"
	}
	return t
}

// caseKernel wraps a case's snippet into a kernel t(in, out): thread i reads
// its inputs from in[i*nin..] and writes its outputs to out[i*nout..], one
// 8-byte slot per value.
func caseKernel(c *instCase) string {
	var b strings.Builder
	b.WriteString(ptxHeader)
	b.WriteString(".visible .entry t(.param .u64 pin, .param .u64 pout)\n{\n")
	b.WriteString("\t.reg .b64 %rdi, %rdo, %rdt;\n\t.reg .b32 %rt, %rv;\n")
	decl := func(prefix string, types []string) {
		for i, t := range types {
			fmt.Fprintf(&b, "\t.reg .%s %s%d;\n", regDecl(t), prefix, i)
		}
	}
	decl("%a", c.In)
	decl("%d", c.Out)
	fmt.Fprintf(&b, "\tmov.u32 %%rt, %%tid.x;\n\tld.param.u64 %%rdi, [pin];\n\tld.param.u64 %%rdo, [pout];\n")
	fmt.Fprintf(&b, "\tmul.wide.u32 %%rdt, %%rt, %d;\n\tadd.s64 %%rdi, %%rdi, %%rdt;\n", 8*max(len(c.In), 1))
	fmt.Fprintf(&b, "\tmul.wide.u32 %%rdt, %%rt, %d;\n\tadd.s64 %%rdo, %%rdo, %%rdt;\n", 8*max(len(c.Out), 1))
	for i, t := range c.In {
		if t == "pred" {
			fmt.Fprintf(&b, "\tld.global.u32 %%rv, [%%rdi+%d];\n\tsetp.ne.u32 %%a%d, %%rv, 0;\n", 8*i, i)
		} else {
			fmt.Fprintf(&b, "\tld.global.%s %%a%d, [%%rdi+%d];\n", regDecl(t), i, 8*i)
		}
	}
	b.WriteString("\t" + strings.ReplaceAll(c.PTX, "; ", ";\n\t") + "\n")
	for i, t := range c.Out {
		if t == "pred" {
			fmt.Fprintf(&b, "\tselp.u32 %%rv, 1, 0, %%d%d;\n\tst.global.u32 [%%rdo+%d], %%rv;\n", i, 8*i)
		} else {
			fmt.Fprintf(&b, "\tst.global.%s [%%rdo+%d], %%d%d;\n", regDecl(t), 8*i, i)
		}
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

func parseHex(s string) (uint64, bool) {
	if s == "*" {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		panic(err)
	}
	return v, true
}

func typeBits(t string) int {
	if t == "pred" {
		return 32
	}
	ty, ok := ptx.LookupType(t)
	if !ok {
		panic("unknown type " + t)
	}
	return ty.Size() * 8
}

// runCase runs one case on d and returns the observed bits per row/output.
func runCase(t *testing.T, d rt.Driver, ctx rt.CtxHandle, c *instCase) ([][]uint64, error) {
	lib, err := d.LibraryLoad([]byte(caseKernel(c)), rt.LoadOptions{})
	if err != nil {
		return nil, err
	}
	defer d.LibraryUnload(lib)
	k, err := d.LibraryKernel(lib, "t")
	if err != nil {
		return nil, err
	}
	n := len(c.Rows)
	nin, nout := max(len(c.In), 1), max(len(c.Out), 1)
	in := make([]uint64, n*nin)
	for i, r := range c.Rows {
		for j, a := range r.Args {
			in[i*nin+j], _ = parseHex(a)
		}
	}
	pin, err := d.MemAlloc(ctx, uint64(8*len(in)))
	if err != nil {
		return nil, err
	}
	defer d.MemFree(ctx, pin)
	pout, err := d.MemAlloc(ctx, uint64(8*n*nout))
	if err != nil {
		return nil, err
	}
	defer d.MemFree(ctx, pout)
	if err := d.MemcpyHtoD(ctx, pin, unsafe.Pointer(&in[0]), uint64(8*len(in)), 0, false); err != nil {
		return nil, err
	}
	if err := d.MemsetD8(ctx, pout, 0, uint64(8*n*nout), 0, false); err != nil {
		return nil, err
	}
	p := params(pin, pout)
	block := n
	if c.Block > 0 {
		block = c.Block
	}
	if err := d.Launch(k, rt.LaunchArgs{Ctx: ctx, Grid: rt.D1(1), Block: rt.D1(block), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}); err != nil {
		return nil, err
	}
	out := make([]uint64, n*nout)
	if err := d.MemcpyDtoH(ctx, unsafe.Pointer(&out[0]), pout, uint64(8*len(out)), 0, false); err != nil {
		return nil, err
	}
	res := make([][]uint64, n)
	for i := range res {
		for j, ty := range c.Out {
			res[i] = append(res[i], out[i*nout+j]&gpumath.Mask(uint(typeBits(ty))))
		}
	}
	return res, nil
}

// close reports whether got is within the case's tolerance of want.
func withinTolerance(ty string, got, want uint64, tol map[string]any) bool {
	if got == want {
		return true
	}
	if tol == nil {
		return false
	}
	var g, w float64
	switch ty {
	case "f32":
		g, w = float64(math.Float32frombits(uint32(got))), float64(math.Float32frombits(uint32(want)))
		if u, ok := tol["ulp"].(float64); ok {
			return math.Abs(float64(int64(int32(got))-int64(int32(want)))) <= u
		}
	case "f64":
		g, w = math.Float64frombits(got), math.Float64frombits(want)
	default:
		return false
	}
	if a, ok := tol["abs"].(float64); ok && math.Abs(g-w) <= a {
		return true
	}
	if r, ok := tol["rel"].(float64); ok && math.Abs(g-w) <= r*math.Abs(w) {
		return true
	}
	return false
}

func loadTable(t *testing.T) *instTable {
	b, err := readTestdata("insts.json")
	if err != nil {
		t.Fatal(err)
	}
	var tab instTable
	if err := json.Unmarshal(b, &tab); err != nil {
		t.Fatal(err)
	}
	return &tab
}

func TestInstrTable(t *testing.T) {
	tab := loadTable(t)
	var d rt.Driver = New(Options{Deterministic: true})
	if *instrRecord != "" {
		var err error
		if d, err = rt.Open(recordBackend); err != nil {
			t.Fatal(err)
		}
	}
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		t.Fatal(err)
	}
	failures := 0
	for ci := range tab.Cases {
		c := &tab.Cases[ci]
		got, err := runCase(t, d, ctx, c)
		if err != nil {
			t.Errorf("%s: %v\n%s", c.Name, err, caseKernel(c))
			continue
		}
		for i, r := range c.Rows {
			for j, e := range r.Expected {
				want, ok := parseHex(e)
				if *instrRecord != "" {
					tab.Cases[ci].Rows[i].Expected[j] = fmt.Sprintf("%#x", got[i][j])
					continue
				}
				if ok && !withinTolerance(c.Out[j], got[i][j], want, c.Tolerance) {
					failures++
					t.Errorf("%s: row %d (args %v) output %d: got %#x, want %#x", c.Name, i, r.Args, j, got[i][j], want)
				}
			}
		}
	}
	if *instrRecord != "" {
		name, _ := d.DeviceName(0)
		tab.Source = "gpu: " + name
		b, _ := json.MarshalIndent(tab, "", " ")
		if err := os.WriteFile(*instrRecord, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
