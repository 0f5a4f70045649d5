package soft

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
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
