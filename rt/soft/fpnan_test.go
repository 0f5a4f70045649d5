package soft

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// The NaN table: every floating-point instruction that can see a NaN, run
// over all combinations of a small set of special values per type (quiet
// and signalling NaNs of both signs with distinct payloads, zeros,
// infinities, a subnormal, a normal and a large value). The H100's results
// are in testdata/fpnan.txt.gz; TestNaNTable replays them bit-exact. To
// record on a GPU machine:
//
//	go test -tags cudarecord -c -o x.test ./rt/soft
//	./x.test -test.run TestNaNTable -nan.record=fpnan.txt.gz   (in rt/soft)
var nanRecord = flag.String("nan.record", "", "run the NaN table on the recording backend and write the observed values to this file")

// Special values per scalar type. The first four are NaNs: +quiet, -quiet,
// +signalling, -signalling, each with its own payload.
var nanVals = map[string][]uint64{
	"f64": {0x7ff8000000000123, 0xfff80000000abcde, 0x7ff0000000000456, 0xfff4000000000001,
		0x3ff8000000000000, 0xc000000000000000, 0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000,
		0x0000000000000003, 0x7e37e43c8800759c},
	"f32": {0x7fc00123, 0xffc0abcd, 0x7f800456, 0xff900001,
		0x3fc00000, 0xc0000000, 0, 0x80000000, 0x7f800000, 0xff800000, 0x00000003, 0x7f000000},
	"f16": {0x7e12, 0xfe34, 0x7c56, 0xfd01,
		0x3e00, 0xc000, 0, 0x8000, 0x7c00, 0xfc00, 0x0003, 0x7bff},
	"bf16": {0x7fc3, 0xffc5, 0x7f83, 0xff81,
		0x3fc0, 0xc000, 0, 0x8000, 0x7f80, 0xff80, 0x0003, 0x7f7f},
}

// nanValsFew is the smaller set used for three-operand instructions.
var nanValsFew = []int{0, 1, 2, 3, 4, 5, 6, 8}

type nanOp struct {
	ptx string   // one instruction over %a0.. into %d0
	in  []string // operand types
	out string
}

func nanOps() []nanOp {
	var ops []nanOp
	add := func(ptx, out string, in ...string) { ops = append(ops, nanOp{ptx, in, out}) }
	rn := []string{".rn", ".rz", ".rm", ".rp"}
	for _, t := range []string{"f64", "f32"} {
		for _, r := range append([]string{""}, rn...) {
			for _, op := range []string{"add", "sub", "mul"} {
				add(fmt.Sprintf("%s%s.%s %%d0, %%a0, %%a1;", op, r, t), t, t, t)
			}
		}
		for _, r := range rn {
			add(fmt.Sprintf("fma%s.%s %%d0, %%a0, %%a1, %%a2;", r, t), t, t, t, t)
			add(fmt.Sprintf("div%s.%s %%d0, %%a0, %%a1;", r, t), t, t, t)
			add(fmt.Sprintf("rcp%s.%s %%d0, %%a0;", r, t), t, t)
			add(fmt.Sprintf("sqrt%s.%s %%d0, %%a0;", r, t), t, t)
		}
		add("mad.rn."+t+" %d0, %a0, %a1, %a2;", t, t, t, t)
		for _, op := range []string{"min", "max"} {
			add(op+"."+t+" %d0, %a0, %a1;", t, t, t)
		}
		for _, op := range []string{"abs", "neg"} {
			add(op+"."+t+" %d0, %a0;", t, t)
		}
		add("copysign."+t+" %d0, %a0, %a1;", t, t, t)
		for _, r := range []string{".rni", ".rzi", ".rmi", ".rpi"} {
			add("cvt"+r+"."+t+"."+t+" %d0, %a0;", t, t)
		}
	}
	// f64 only
	for _, op := range []string{"rcp.approx.ftz", "rsqrt.approx", "rsqrt.approx.ftz"} {
		add(op+".f64 %d0, %a0;", "f64", "f64")
	}
	for _, r := range rn {
		add("cvt"+r+".f32.f64 %d0, %a0;", "f32", "f64")
	}
	add("cvt.rn.ftz.f32.f64 %d0, %a0;", "f32", "f64")
	add("cvt.rn.sat.f32.f64 %d0, %a0;", "f32", "f64")
	add("cvt.f64.f32 %d0, %a0;", "f64", "f32")
	add("cvt.ftz.f64.f32 %d0, %a0;", "f64", "f32")
	add("cvt.rn.f16.f64 %d0, %a0;", "f16", "f64")
	add("cvt.rz.f16.f64 %d0, %a0;", "f16", "f64")
	add("cvt.f64.f16 %d0, %a0;", "f64", "f16")
	add("cvt.f64.bf16 %d0, %a0;", "f64", "bf16")
	add("cvt.rn.bf16.f64 %d0, %a0;", "bf16", "f64")
	// f32 only
	for _, m := range []string{".ftz", ".sat", ".rn.ftz.sat"} {
		for _, op := range []string{"add", "sub", "mul"} {
			add(op+m+".f32 %d0, %a0, %a1;", "f32", "f32", "f32")
		}
	}
	add("fma.rn.ftz.f32 %d0, %a0, %a1, %a2;", "f32", "f32", "f32", "f32")
	add("fma.rn.sat.f32 %d0, %a0, %a1, %a2;", "f32", "f32", "f32", "f32")
	for _, op := range []string{"div.rn.ftz", "div.approx", "div.approx.ftz", "div.full", "div.full.ftz"} {
		add(op+".f32 %d0, %a0, %a1;", "f32", "f32", "f32")
	}
	for _, op := range []string{"rcp.rn.ftz", "sqrt.rn.ftz", "rcp.approx", "rcp.approx.ftz", "sqrt.approx", "sqrt.approx.ftz",
		"rsqrt.approx", "rsqrt.approx.ftz", "ex2.approx", "ex2.approx.ftz", "lg2.approx", "lg2.approx.ftz",
		"sin.approx", "cos.approx", "tanh.approx", "abs.ftz", "neg.ftz"} {
		add(op+".f32 %d0, %a0;", "f32", "f32")
	}
	for _, op := range []string{"min", "max"} {
		for _, m := range []string{".ftz", ".NaN", ".ftz.NaN"} {
			add(op+m+".f32 %d0, %a0, %a1;", "f32", "f32", "f32")
		}
	}
	for _, c := range []string{"cvt.rn.f16.f32", "cvt.rz.f16.f32", "cvt.rn.bf16.f32", "cvt.rz.bf16.f32"} {
		out := strings.Split(c, ".")[len(strings.Split(c, "."))-2]
		add(c+" %d0, %a0;", out, "f32")
	}
	add("cvt.rn.f16x2.f32 %d0, %a0, %a1;", "f16x2", "f32", "f32")
	add("cvt.rn.bf16x2.f32 %d0, %a0, %a1;", "bf16x2", "f32", "f32")
	add("cvt.f32.f16 %d0, %a0;", "f32", "f16")
	add("cvt.f32.bf16 %d0, %a0;", "f32", "bf16")
	add("cvt.rna.tf32.f32 %d0, %a0;", "b32", "f32")
	add("cvt.sat.f32.f32 %d0, %a0;", "f32", "f32")
	add("cvt.ftz.sat.f32.f32 %d0, %a0;", "f32", "f32")
	add("cvt.rni.ftz.f32.f32 %d0, %a0;", "f32", "f32")
	// halves
	for _, t := range []string{"f16", "f16x2", "bf16", "bf16x2"} {
		mods := []string{"", ".rn"}
		if !strings.HasPrefix(t, "bf") {
			mods = append(mods, ".ftz", ".sat", ".rn.ftz.sat")
		}
		for _, m := range mods {
			for _, op := range []string{"add", "sub", "mul"} {
				add(op+m+"."+t+" %d0, %a0, %a1;", t, t, t)
			}
		}
		fm := []string{".rn"}
		if !strings.HasPrefix(t, "bf") {
			fm = append(fm, ".rn.ftz", ".rn.sat")
		}
		for _, m := range fm {
			add("fma"+m+"."+t+" %d0, %a0, %a1, %a2;", t, t, t, t)
		}
		mm := []string{"", ".NaN"}
		if !strings.HasPrefix(t, "bf") {
			mm = append(mm, ".ftz", ".ftz.NaN")
		}
		for _, m := range mm {
			for _, op := range []string{"min", "max"} {
				add(op+m+"."+t+" %d0, %a0, %a1;", t, t, t)
			}
		}
		for _, op := range []string{"neg", "abs"} {
			add(op+"."+t+" %d0, %a0;", t, t)
		}
		if strings.HasPrefix(t, "bf") {
			add("ex2.approx.ftz."+t+" %d0, %a0;", t, t)
		} else {
			add("ex2.approx."+t+" %d0, %a0;", t, t)
		}
		add("tanh.approx."+t+" %d0, %a0;", t, t)
	}
	return ops
}

// nanBase is the scalar type whose special values feed an operand type.
func nanBase(t string) string { return strings.TrimSuffix(t, "x2") }

// nanInputs returns the operands of every case of op: all combinations of
// the special values (of the smaller set for three operands), the first
// operand varying fastest. A packed operand k holds the values of operands
// k and k+1 (mod the arity) in its low and high halves.
func nanInputs(op nanOp) [][]uint64 {
	r := len(op.in)
	idx := make([]int, 12)
	for i := range idx {
		idx[i] = i
	}
	if r == 3 {
		idx = nanValsFew
	}
	n := len(idx)
	total := 1
	for range r {
		total *= n
	}
	var rows [][]uint64
	for c := 0; c < total; c++ {
		ks := make([]int, r)
		for k, x := 0, c; k < r; k++ {
			ks[k] = idx[x%n]
			x /= n
		}
		row := make([]uint64, r)
		for k, t := range op.in {
			v := nanVals[nanBase(t)]
			row[k] = v[ks[k]]
			if strings.HasSuffix(t, "x2") {
				hi := ks[(k+1)%r]
				if r == 1 {
					hi = (ks[0] + 5) % 12
				}
				row[k] |= v[hi] << 16
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// nanKernel is op as a kernel t(in, out, n) over n threads, 8-byte slots.
func nanKernel(op nanOp) string {
	var b strings.Builder
	b.WriteString(ptxHeader)
	b.WriteString(".visible .entry t(.param .u64 pin, .param .u64 pout, .param .u32 pn)\n{\n")
	b.WriteString("\t.reg .b64 %rdi, %rdo, %rdt;\n\t.reg .b32 %rt, %rn, %rc;\n\t.reg .pred %p;\n")
	for i, t := range op.in {
		fmt.Fprintf(&b, "\t.reg .%s %%a%d;\n", regDecl(t), i)
	}
	fmt.Fprintf(&b, "\t.reg .%s %%d0;\n", regDecl(op.out))
	b.WriteString("\tmov.u32 %rt, %tid.x;\n\tmov.u32 %rc, %ctaid.x;\n\tmad.lo.u32 %rt, %rc, 256, %rt;\n")
	b.WriteString("\tld.param.u32 %rn, [pn];\n\tsetp.ge.u32 %p, %rt, %rn;\n\t@%p bra END;\n")
	b.WriteString("\tld.param.u64 %rdi, [pin];\n\tld.param.u64 %rdo, [pout];\n")
	fmt.Fprintf(&b, "\tmul.wide.u32 %%rdt, %%rt, %d;\n\tadd.s64 %%rdi, %%rdi, %%rdt;\n", 8*len(op.in))
	b.WriteString("\tmul.wide.u32 %rdt, %rt, 8;\n\tadd.s64 %rdo, %rdo, %rdt;\n")
	for i, t := range op.in {
		fmt.Fprintf(&b, "\tld.global.%s %%a%d, [%%rdi+%d];\n", regDecl(t), i, 8*i)
	}
	b.WriteString("\t" + op.ptx + "\n")
	fmt.Fprintf(&b, "\tst.global.%s [%%rdo], %%d0;\n", regDecl(op.out))
	b.WriteString("END:\n\tret;\n}\n")
	return b.String()
}

func runNaNOp(d rt.Driver, ctx rt.CtxHandle, op nanOp) ([]uint64, error) {
	return runRows(d, ctx, op, nanInputs(op))
}

// runRows runs op once per row of operands and returns the results.
func runRows(d rt.Driver, ctx rt.CtxHandle, op nanOp, rows [][]uint64) ([]uint64, error) {
	lib, err := d.LibraryLoad([]byte(nanKernel(op)), rt.LoadOptions{})
	if err != nil {
		return nil, err
	}
	defer d.LibraryUnload(lib)
	k, err := d.LibraryKernel(lib, "t")
	if err != nil {
		return nil, err
	}
	n := len(rows)
	var in []uint64
	for _, r := range rows {
		in = append(in, r...)
	}
	pin, err := d.MemAlloc(ctx, uint64(8*len(in)))
	if err != nil {
		return nil, err
	}
	defer d.MemFree(ctx, pin)
	pout, err := d.MemAlloc(ctx, uint64(8*n))
	if err != nil {
		return nil, err
	}
	defer d.MemFree(ctx, pout)
	if err := d.MemcpyHtoD(ctx, pin, unsafe.Pointer(&in[0]), uint64(8*len(in)), 0, false); err != nil {
		return nil, err
	}
	if err := d.MemsetD8(ctx, pout, 0, uint64(8*n), 0, false); err != nil {
		return nil, err
	}
	p := params(pin, pout, uint32(n))
	if err := d.Launch(k, rt.LaunchArgs{Ctx: ctx, Grid: rt.D1((n + 255) / 256), Block: rt.D1(256),
		Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}); err != nil {
		return nil, err
	}
	out := make([]uint64, n)
	if err := d.MemcpyDtoH(ctx, unsafe.Pointer(&out[0]), pout, uint64(8*n), 0, false); err != nil {
		return nil, err
	}
	m := gpumath.Mask(uint(typeBits(op.out)))
	for i := range out {
		out[i] &= m
	}
	return out, nil
}

// readNaNTable reads testdata/fpnan.txt.gz: after comment lines, one line
// per instruction, "ptx<TAB>results", the results in hex, space-separated,
// in nanInputs order.
func readNaNTable(t *testing.T) map[string][]uint64 {
	b, err := readTestdata("fpnan.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tab := map[string][]uint64{}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		ptx, res, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("fpnan.txt.gz: bad line %.60q", line)
		}
		var v []uint64
		for _, f := range strings.Fields(res) {
			x, err := strconv.ParseUint(f, 16, 64)
			if err != nil {
				t.Fatalf("fpnan.txt.gz: %s: %v", ptx, err)
			}
			v = append(v, x)
		}
		tab[ptx] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestNaNTable(t *testing.T) {
	ops := nanOps()
	if *nanRecord != "" {
		d, err := rt.Open(recordBackend)
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := d.PrimaryCtxRetain(0)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		name, _ := d.DeviceName(0)
		fmt.Fprintf(&buf, "# NaN table (fpnan_test.go) recorded on %s (backend %s)\n", name, recordBackend)
		for _, op := range ops {
			out, err := runNaNOp(d, ctx, op)
			if err != nil {
				fmt.Fprintf(&buf, "# refused: %s: %v\n", op.ptx, strings.ReplaceAll(err.Error(), "\n", " "))
				t.Logf("%s: %v", op.ptx, err)
				continue
			}
			buf.WriteString(op.ptx + "\t")
			for i, x := range out {
				if i > 0 {
					buf.WriteByte(' ')
				}
				buf.WriteString(strconv.FormatUint(x, 16))
			}
			buf.WriteByte('\n')
		}
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		zw.Write(buf.Bytes())
		zw.Close()
		if err := os.WriteFile(*nanRecord, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	tab := readNaNTable(t)
	d := New(Options{Deterministic: true})
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		t.Fatal(err)
	}
	cases, bad := 0, 0
	for _, op := range ops {
		want, ok := tab[op.ptx]
		if !ok {
			t.Errorf("%s: not in fpnan.txt.gz", op.ptx)
			continue
		}
		got, err := runNaNOp(d, ctx, op)
		if err != nil {
			t.Errorf("%s: %v", op.ptx, err)
			continue
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d results, recorded %d", op.ptx, len(got), len(want))
			continue
		}
		rows := nanInputs(op)
		nbad := 0
		for i := range got {
			cases++
			if got[i] != want[i] {
				bad++
				if nbad++; nbad <= 4 {
					t.Errorf("%s %x: got %#x, H100 %#x", op.ptx, rows[i], got[i], want[i])
				}
			}
		}
		if nbad > 4 {
			t.Errorf("%s: %d of %d differ", op.ptx, nbad, len(got))
		}
	}
	t.Logf("%d instructions, %d cases, %d differ from the H100", len(ops), cases, bad)
}
