package soft

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/contractgen"
	"github.com/cugen/cugen/rt/soft/internal/exec"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

// a*b+c with a = b = 1+2^-12, c = -(1+2^-11): rounding the product first
// gives 0, one rounding (fma) gives 2^-24.
func TestContractMulAdd(t *testing.T) {
	kernel := func(target, body, tail string) string {
		return fmt.Sprintf(`.version 8.0
.target %s
.address_size 64
.visible .entry k(.param .u64 out, .param .f32 a, .param .f32 b, .param .f32 c)
{
	.reg .f32 %%f<8>;
	.reg .b64 %%rd<2>;
	ld.param.u64 %%rd1, [out];
	ld.param.f32 %%f1, [a];
	ld.param.f32 %%f2, [b];
	ld.param.f32 %%f3, [c];
%s
	st.global.f32 [%%rd1], %%f5;
	ret;
}
%s`, target, body, tail)
	}
	a := math.Float32frombits(0x3f800800)  // 1+2^-12
	c := -math.Float32frombits(0x3f801000) // -(1+2^-11)
	fused, twice := float32(math.Ldexp(1, -24)), float32(0)
	for _, tc := range []struct {
		name, target, body string
		want               float32
		tail               string
	}{
		{"contracted", "sm_90", "\tmul.f32 %f4, %f1, %f2;\n\tadd.f32 %f5, %f4, %f3;", fused, ""},
		{"inline-asm blocks", "sm_90", "\t{mul.f32 %f4, %f1, %f2;\n}\n\t{add.f32 %f5, %f3, %f4;\n}", fused, ""},
		{"explicit rounding", "sm_90", "\tmul.rn.f32 %f4, %f1, %f2;\n\tadd.rn.f32 %f5, %f4, %f3;", twice, ""},
		// What the H100 does with these (rt/soft/contract_test.go -corpus.backend=cuda):
		{"product used twice", "sm_90", "\tmul.f32 %f4, %f1, %f2;\n\tadd.f32 %f5, %f4, %f3;\n\tadd.f32 %f6, %f4, %f4;", fused, ""},
		{"label between", "sm_90", "\tmul.f32 %f4, %f1, %f2;\nL1:\n\tadd.f32 %f5, %f4, %f3;", fused, ""},
		{"source redefined", "sm_90", "\tmul.f32 %f4, %f1, %f2;\n\tmov.f32 %f1, 0f00000000;\n\tadd.f32 %f5, %f4, %f3;", fused, ""},
		{"with DWARF, as nvcc -G emits", "sm_90, debug", "\tmul.f32 %f4, %f1, %f2;\n\tadd.f32 %f5, %f4, %f3;", twice, ".section .debug_abbrev { .b8 0 }"},
		// The H100 forwards the store to the load and fuses (0x1p-24); soft
		// does not follow values through memory and rounds twice.
		{"through memory (soft only)", "sm_90", "\t.local .f32 t;\n\tmul.f32 %f4, %f1, %f2;\n\tst.local.f32 [t], %f4;\n\tld.local.f32 %f6, [t];\n\tadd.f32 %f5, %f6, %f3;", twice, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if *corpusBackend != "" && strings.HasSuffix(tc.name, "(soft only)") {
				t.Skip("a known difference: the GPU fuses through local memory, soft does not")
			}
			e := newCorpusEnv(t, Options{Deterministic: true}) // -corpus.backend=cuda: the H100 decides
			lib := e.loadSrc("contract.ptx", kernel(tc.target, tc.body, tc.tail))
			out := e.buf(make([]float32, 1))
			e.launch(e.kernel(lib, "k"), rt.D1(1), rt.D1(1), 0, out, a, a, c)
			got := make([]float32, 1)
			e.get(out, got)
			if got[0] != tc.want {
				t.Errorf("a*b+c = %g, want %g", got[0], tc.want)
			}
		})
	}
}

// ptxas refuses ".target ..., debug" without DWARF sections; so does soft.
func TestDebugTargetNeedsDWARF(t *testing.T) {
	e := newCorpusEnv(t, Options{})
	src := ".version 8.0\n.target sm_90, debug\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n"
	lib, err := e.loadNamed([]byte(src), "nodwarf.ptx")
	if err == nil { // CUDA compiles lazily: the kernel lookup reports it
		_, err = e.r.LibraryKernel(lib, "k")
	}
	if err == nil || !strings.Contains(err.Error(), "Debug information not found in presence of .target debug") {
		t.Fatalf("err = %v", err)
	}
}

// The contraction corpus (rt/soft/internal/contractgen) as the H100 ran it:
// every kernel, every sm_90 build, from the cubin and through the driver's
// JIT. Soft must give the same bits.
func TestContractRecorded(t *testing.T) {
	results := readContractResults(t)
	entries := map[string]contractgen.Entry{}
	for _, e := range contractgen.Entries() {
		entries[e.Src+"/"+e.Kernel] = e
	}
	e := newEnv(t, Options{Deterministic: true})
	libs := map[string]rt.LibHandle{}
	var nans, checked, exact int
	// Under -race every other kernel (still more than 1000 launches); all
	// of them in go test.
	for _, r := range softtest.Strided(results, softtest.Sample(2)) {
		ent, ok := entries[r.Src+"/"+r.Kernel]
		if !ok {
			t.Errorf("%s/%s: recorded but not in the corpus", r.Src, r.Kernel)
			continue
		}
		for _, build := range contractgen.Builds[r.Src] {
			var want []contractgen.Outcome
			for _, o := range r.Outs {
				for _, run := range o.Runs {
					if strings.HasPrefix(run, build+"/") {
						want = append(want, o)
						break
					}
				}
			}
			if len(want) == 0 {
				t.Errorf("%s/%s %s: no recording", r.Src, r.Kernel, build)
				continue
			}
			if len(want) > 1 {
				t.Errorf("%s/%s %s: cubin and JIT disagree (%v, %v)", r.Src, r.Kernel, build, want[0].Runs, want[1].Runs)
			}
			name := ent.PTXPath("sm_90", build)
			lib, ok := libs[name]
			if !ok {
				lib = e.loadSrc(name, string(contractPTX(t, ent, "sm_90", build)))
				libs[name] = lib
			}
			got := runContract(e, lib, ent)
			exp, err := base64.StdEncoding.DecodeString(want[0].Out)
			if err != nil {
				t.Fatal(err)
			}
			n, bad := compareContract(ent, got, exp)
			nans += n
			checked++
			if bad == "" {
				exact++
			}
			why, known := knownContractDiffs[r.Src+"/"+r.Kernel]
			switch {
			case known && build == "O3" && bad == "":
				t.Errorf("%s/%s %s: now bit-exact; remove it from knownContractDiffs", r.Src, r.Kernel, build)
			case known && build == "O3":
				t.Logf("%s/%s %s: known difference (%s): %s", r.Src, r.Kernel, build, why, bad)
			case bad != "":
				t.Errorf("%s/%s %s (%s): %s", r.Src, r.Kernel, build, want[0].Runs[0], bad)
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d recorded launches checked", checked)
	}
	t.Logf("%d of %d recorded launches bit-exact; %d f64 NaN results among them, payloads included", exact, checked, nans)
}

func readContractResults(t *testing.T) []contractgen.Result {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "contract", "results.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []contractgen.Result
	dec := json.NewDecoder(zr)
	for {
		var r contractgen.Result
		if err := dec.Decode(&r); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

// contractPTX is the PTX of ent's build for target: generated for the
// hand-written kernels, nvcc's output (testdata) for the others. nvcc's PTX
// for sm_75 and sm_80 differs from sm_90's only in the .target line, so
// only sm_90's is kept.
func contractPTX(t *testing.T, ent contractgen.Entry, target, build string) []byte {
	t.Helper()
	if ent.Src == contractgen.SrcHand {
		if contractKernels == nil {
			contractKernels = map[string]contractgen.Kernel{}
			for _, k := range contractgen.Kernels() {
				contractKernels[k.Name()] = k
			}
		}
		k, ok := contractKernels[ent.Kernel]
		if !ok {
			t.Fatalf("no kernel %s", ent.Kernel)
		}
		src, err := k.PTX(target, build == "G")
		if err != nil {
			t.Fatal(err)
		}
		return []byte(src)
	}
	name := ent.Src + "_sm_90_" + build + ".ptx"
	src, ok := contractModules[name]
	if !ok {
		f, err := os.Open(filepath.Join("testdata", "contract", "ptx", name+".gz"))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err == nil {
			src, err = io.ReadAll(zr)
		}
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		contractModules[name] = src
	}
	return bytes.Replace(src, []byte(".target sm_90"), []byte(".target "+target), 1)
}

// runContract launches a corpus kernel as contractgen's recorder does.
func runContract(e *env, lib rt.LibHandle, ent contractgen.Entry) []byte {
	in := contractgen.Inputs(ent.Key, ent.Type, ent.NIn)
	out := make([]byte, contractgen.Threads*ent.NOut*ent.Type.Size())
	for i := range out {
		out[i] = 0xA5
	}
	din, dout := e.buf(in), e.buf(out)
	args := []any{din, dout, uint32(contractgen.Threads)}
	if ent.Beta && ent.Type == contractgen.F64 {
		args = append(args, float64(contractgen.Beta))
	} else if ent.Beta {
		args = append(args, float32(contractgen.Beta))
	}
	e.launch(e.kernel(lib, ent.Kernel), rt.D1(contractgen.Blocks), rt.D1(contractgen.BlockSize), 0, args...)
	e.get(dout, out)
	if err := e.r.MemFree(e.ctx, din); err != nil {
		e.t.Fatal(err)
	}
	if err := e.r.MemFree(e.ctx, dout); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// compareContract compares outputs bit for bit, f64 NaNs' payloads
// included (gpumath's fp.go propagates them as the H100 does), and counts the f64
// NaNs the GPU recorded.
func compareContract(ent contractgen.Entry, got, want []byte) (nans int, bad string) {
	if len(got) != len(want) {
		return 0, fmt.Sprintf("%d output bytes, want %d", len(got), len(want))
	}
	size := ent.Type.Size()
	wrong, first := 0, ""
	for i := 0; i < len(got); i += size {
		var g, w uint64
		if size == 8 {
			g, w = binary.LittleEndian.Uint64(got[i:]), binary.LittleEndian.Uint64(want[i:])
		} else {
			g, w = uint64(binary.LittleEndian.Uint32(got[i:])), uint64(binary.LittleEndian.Uint32(want[i:]))
		}
		if size == 8 && math.IsNaN(math.Float64frombits(w)) {
			nans++
		}
		if g == w {
			continue
		}
		if wrong == 0 {
			v := i / size
			th, slot := v/ent.NOut, v%ent.NOut
			first = fmt.Sprintf("thread %d (input class %d) out %d: soft %#x, GPU %#x", th, th%8, slot, g, w)
		}
		wrong++
	}
	if wrong > 0 {
		return nans, fmt.Sprintf("%d of %d values differ; first: %s", wrong, len(got)/size, first)
	}
	return nans, ""
}

// FuzzContract loads mutated contraction kernels (loops, calls, guards,
// chains of products): contraction may leave a module alone, never panic.
func FuzzContract(f *testing.F) {
	for _, name := range []string{"loop4_acc_f32", "call_between_f64", "guard_select_ftz", "sub_pq_movq_f32", "rand076_f64", "br_diamond_sub_f32"} {
		for _, k := range contractgen.Kernels() {
			if k.Name() == name {
				src, err := k.PTX("sm_90", false)
				if err != nil {
					f.Fatal(err)
				}
				f.Add([]byte(src))
			}
		}
	}
	d := New(Options{})
	f.Fuzz(func(t *testing.T, src []byte) {
		if h, err := d.LibraryLoad(src, rt.LoadOptions{}); err == nil {
			_ = d.LibraryUnload(h)
		}
	})
}

// TestContractAcrossDivision: a product of loaded values computed before a
// div.rn.f32 is not fused into an add after it (the rule that makes the CUDA
// sample BlackScholes bit-exact, see callLike), while without the division
// it is. With -corpus.backend=cuda the H100 decides.
func TestContractAcrossDivision(t *testing.T) {
	kernel := func(between string) string {
		return `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
	.reg .f32 %f<10>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	ld.global.f32 %f1, [%rd2];
	ld.global.f32 %f2, [%rd2+4];
	ld.global.f32 %f3, [%rd2+8];
	ld.global.f32 %f6, [%rd2+12];
	mul.f32 %f4, %f1, %f2;
` + between + `
	add.f32 %f5, %f4, %f3;
	st.global.f32 [%rd1], %f5;
	st.global.f32 [%rd1+4], %f7;
	ret;
}
`
	}
	a := math.Float32frombits(0x3f800800)  // 1+2^-12
	c := -math.Float32frombits(0x3f801000) // -(1+2^-11)
	fused, twice := float32(math.Ldexp(1, -24)), float32(0)
	for _, tc := range []struct {
		name, between string
		want          float32
	}{
		{"no division", "\tadd.f32 %f7, %f6, %f6;", fused},
		{"div.rn.f32 between", "\tdiv.rn.f32 %f7, %f6, %f3;", twice},
		{"div.approx.f32 between", "\tdiv.approx.f32 %f7, %f6, %f3;", fused},
		{"div.full.f32 between", "\tdiv.full.f32 %f7, %f6, %f3;", fused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newCorpusEnv(t, Options{Deterministic: true})
			lib := e.loadSrc("contractdiv.ptx", kernel(tc.between))
			in := e.buf([]float32{a, a, c, 3})
			out := e.buf(make([]float32, 2))
			e.launch(e.kernel(lib, "k"), rt.D1(1), rt.D1(1), 0, out, in)
			got := make([]float32, 2)
			e.get(out, got)
			if got[0] != tc.want {
				t.Errorf("a*b+c = %g, want %g", got[0], tc.want)
			}
		})
	}
}

// The fusion decisions ptxas made for sm_75, sm_80 and sm_90 (read off the
// SASS, testdata/contract/sass.txt) are the ones soft makes on the PTX: the
// same fused products, with the same operands and signs, one level deep
// (contractgen.Summary). -G builds are compared by their count of FMAs.
func TestContractSASS(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "contract", "sass.txt"))
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]contractgen.Entry{}
	for _, e := range contractgen.Entries() {
		entries[e.Src+"/"+e.Kernel] = e
	}
	mods := map[string]*ptx.Module{}
	listed := map[string]bool{}
	compared := 0
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, sum, _ := strings.Cut(line, "\t")
		f := strings.Fields(key)
		if len(f) != 4 {
			t.Fatalf("sass.txt:%d: bad line", i+1)
		}
		src, target, build, kernel := f[0], f[1], f[2], f[3]
		ent, ok := entries[src+"/"+kernel]
		if !ok {
			t.Errorf("sass.txt:%d: %s/%s is not in the corpus", i+1, src, kernel)
			continue
		}
		want, err := contractgen.ParseSummary(sum)
		if err != nil {
			t.Fatalf("sass.txt:%d: %v", i+1, err)
		}
		name := ent.PTXPath(target, build)
		m, ok := mods[name]
		if !ok {
			m, err = ptx.Parse(name, contractPTX(t, ent, target, build))
			if err != nil {
				t.Fatal(err)
			}
			exec.Contract(m)
			mods[name] = m
		}
		fn := findFunc(m, kernel)
		if fn == nil {
			t.Errorf("sass.txt:%d: no kernel %s in %s", i+1, kernel, name)
			continue
		}
		skip, countOnly := sassUncomparable(fn)
		if _, known := sassKnownDiffs[kernel]; known {
			listed[kernel] = true
			skip = "known"
		}
		if sassOpsUnreadable[kernel] != "" {
			listed[kernel] = true
		}
		if skip != "" {
			continue
		}
		got := contractgen.SummarizePTX(fn, ent.Type)
		compared++
		opsToo := build != "G" && sassOpsUnreadable[kernel] == "" && countOnly == ""
		if got.FMA != want.FMA || opsToo && !contractgen.OpsMatch(want.Ops, got.Ops) {
			t.Errorf("%s %s %s %s:\n\tptxas: fma=%d %s\n\tsoft:  fma=%d %s", src, target, build, kernel,
				want.FMA, strings.Join(want.Ops, " "), got.FMA, strings.Join(got.Ops, " "))
		}
	}
	if compared < 5000 {
		t.Errorf("only %d kernels compared", compared)
	}
	for _, m := range []map[string]string{sassOpsUnreadable, sassKnownDiffs} {
		for k := range m {
			if !listed[k] {
				t.Errorf("%s is listed as an exception but not in sass.txt", k)
			}
		}
	}
}

// sassOpsUnreadable lists kernels whose SASS the evaluator reads wrongly,
// so that only their FMA count is compared.
var sassOpsUnreadable = map[string]string{
	"guard_both_f64": "ptxas does the guarded add unconditionally and selects the result with FSEL pairs",
	// ptxas compiles mul.ftz x, 1.0 to a flush (FADD.FTZ x, -RZ), which
	// an FFMA.FTZ then reads through: the same values, different trees.
	"rand023_ftz": "mul.ftz by 1.0 compiled to a flush",
	"rand236_ftz": "mul.ftz by 1.0 compiled to a flush",
	"rand053_ftz": "mul.ftz by 1.0 compiled to a flush",
}

// sassKnownDiffs lists kernels where ptxas fuses what soft does not, and
// why; their FMA counts differ too.
var sassKnownDiffs = map[string]string{
	// b * -2.0 is exact: ptxas moves it into a conditional block and fuses
	// it there, which changes no value (the results agree).
	"rand076_f64": "an exact multiplication by -2.0 fused across blocks",
}

// knownContractDiffs are the kernels where soft and the H100 differ, and why.
// The test fails if one of them starts to match, so the list stays true.
var knownContractDiffs = map[string]string{}

var (
	contractModules = map[string][]byte{}
	contractKernels map[string]contractgen.Kernel
)

func findFunc(m *ptx.Module, name string) *ptx.Func {
	for _, f := range m.Funcs {
		if f.Name == name && f.Body != nil {
			return f
		}
	}
	return nil
}

// sassUncomparable names what keeps a kernel out of the SASS table test
// (the recorded results still cover it): ptxas expands div.rn and sqrt.rn
// into FFMA sequences of its own, folds a saturating cvt into the
// instruction before it, and unrolls loops, so that the SASS has several
// copies of what the PTX has once. countOnly names what limits the test
// to the count of FMAs: the PTX evaluator does not follow values through
// calls, the SASS one does.
func sassUncomparable(f *ptx.Func) (skip, countOnly string) {
	var code []ptx.Stmt
	flattenStmts(f.Body, &code)
	seen := map[string]bool{}
	for _, s := range code {
		switch s := s.(type) {
		case *ptx.Label:
			seen[s.Name] = true
		case *ptx.Instr:
			switch s.Op {
			case "div", "sqrt", "rcp", "rsqrt":
				return s.Op + " expands to FFMAs", ""
			case "cvt":
				for _, m := range s.Mods {
					if m == "sat" {
						return "ptxas folds cvt.sat into the FFMA that feeds it", ""
					}
				}
			case "bra":
				if sym, ok := s.Operands[0].(*ptx.Sym); ok && seen[sym.Name] {
					return "a loop", ""
				}
			case "call":
				countOnly = "a call"
			}
		}
	}
	return "", countOnly
}

// BenchmarkContractLoad is the cost contraction adds to a load: nvcc's
// PTX of the 300 inline-PTX kernels, parsed and contracted.
func BenchmarkContractLoad(b *testing.B) {
	t := &testing.T{}
	src := contractPTX(t, contractgen.Entry{Src: contractgen.SrcAsm}, "sm_90", "O3")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		m, err := ptx.Parse("asm.ptx", src)
		if err != nil {
			b.Fatal(err)
		}
		exec.Contract(m)
	}
}

// The region model at its edges: what the H100 showed (rt/soft/testdata/
// contract: loop2..loop64_acc, loopn_acc, loop4_nounroll, bra_next,
// call_between, br_add), and where soft draws lines the corpus did not reach
// (more trips than unrollMaxTrips, a body too long to unroll).
func TestContractRegions(t *testing.T) {
	loop := func(trips, pad int) string {
		body := strings.Repeat("add x, x, d; ", pad)
		return fmt.Sprintf("mul p, a, b; mov r, c; mov x, d; mov k, 0; L1: %sadd r, r, p; add k, k, 1; setp.lt q, k, %d; @q bra L1; out 0, r; out 1, x", body, trips)
	}
	for _, tc := range []struct {
		name, body string
		fused      bool
	}{
		{"64 trips", loop(64, 0), true},
		{"65 trips", loop(65, 0), false},
		{"4 trips of 64", loop(4, 60), true},
		{"5 trips of 64", loop(5, 60), false},
		{"trips counted down", "mul p, a, b; mov r, c; mov k, 8; L1: add r, r, p; sub k, k, 2; setp.ne q, k, 0; @q bra L1; out 0, r", true},
		{"runtime trips", "shr kn, nthreads, 6; mul p, a, b; mov r, c; mov k, 0; L1: add r, r, p; add k, k, 1; setp.lt q, k, kn; @q bra L1; out 0, r", false},
		{"nounroll", "mul p, a, b; mov r, c; mov k, 0; L1: nounroll; add r, r, p; add k, k, 1; setp.lt q, k, 4; @q bra L1; out 0, r", false},
		{"after an unrolled loop", "mul p, a, b; mov k, 0; L1: add k, k, 1; setp.lt q, k, 4; @q bra L1; add r, p, c; out 0, r", true},
		{"bra to the next label", "mul p, a, b; bra L1; L1: add r, p, c; out 0, r", true},
		{"label no branch names", "mul p, a, b; L1: add r, p, c; out 0, r", true},
		{"call between", "mul p, a, b; callid t, e; add r, p, c; out 0, r; out 1, t", false},
		{"conditional block", "mul p, a, b; setp.gt q, e, 0.0; mov r, d; @!q bra L1; add r, p, c; L1: out 0, r", false},
		{"after a join", "mul p, a, b; setp.gt q, e, 0.0; mov w, d; @!q bra L1; add w, w, e; L1: add r, p, c; out 0, r; out 1, w", false},
	} {
		k := contractgen.Kernel{Shape: contractgen.Shape{Name: "k", Body: tc.body}, Type: contractgen.F32}
		src, err := k.PTX("sm_90", false)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ptx.Parse("k.ptx", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		exec.Contract(m)
		if got := contractgen.SummarizePTX(m.Funcs[len(m.Funcs)-1], contractgen.F32).FMA > 0; got != tc.fused {
			t.Errorf("%s: fused = %v, want %v", tc.name, got, tc.fused)
		}
	}
}

// TestBrxContractJoin: a label that brx.idx reaches is a join like any
// other branch target, so a product computed in the block that falls into
// it is not fused into an add after it (as "after a join" in
// TestContractRegions); with the brx.idx gone the two blocks are one
// region and the pair fuses.
func TestBrxContractJoin(t *testing.T) {
	body := func(brx string) string {
		return `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 o, .param .f32 a, .param .f32 b, .param .f32 c, .param .u32 i)
{
	.reg .f32 %f<6>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [o];
	ld.param.f32 %f1, [a];
	ld.param.f32 %f2, [b];
	ld.param.f32 %f3, [c];
	ld.param.u32 %r1, [i];
	tl: .branchtargets T, U;
	` + brx + `
U:
	mul.f32 %f4, %f1, %f2;
T:
	add.f32 %f5, %f4, %f3;
	st.global.f32 [%rd1], %f5;
	ret;
}
`
	}
	for _, c := range []struct {
		brx   string
		fused bool
	}{{"brx.idx %r1, tl;", false}, {"mov.u32 %r1, 0;", true}} {
		m, err := ptx.Parse("k.ptx", []byte(body(c.brx)))
		if err != nil {
			t.Fatal(err)
		}
		exec.Contract(m)
		if got := contractgen.SummarizePTX(m.Funcs[len(m.Funcs)-1], contractgen.F32).FMA > 0; got != c.fused {
			t.Errorf("%s: fused = %v, want %v", c.brx, got, c.fused)
		}
	}
}

// flattenStmts lists a body's instructions, labels, pragmas and
// branch-target lists in program order, as the contraction walks them.
func flattenStmts(b *ptx.Block, out *[]ptx.Stmt) {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			flattenStmts(s, out)
		case *ptx.Instr, *ptx.Label, *ptx.Targets, *ptx.Pragma:
			*out = append(*out, s)
		}
	}
}
