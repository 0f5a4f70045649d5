package contractgen

import (
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/ptx"
)

// The sm_90 listing of sub_pq_f32 (a*b - c*d), as cuobjdump printed it.
const subPQSASS = `
	code for sm_90
		Function : sub_pq_f32
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0070*/               @P0 EXIT ;
        /*0080*/                   LDC.64 R2, c[0x0][0x210] ;
        /*00b0*/                   IMAD.WIDE.U32 R2, R7, 0x10, R2 ;
        /*00c0*/                   LDG.E R6, desc[UR4][R2.64+0x8] ;
        /*00d0*/                   LDG.E R11, desc[UR4][R2.64+0xc] ;
        /*00e0*/                   LDG.E R0, desc[UR4][R2.64] ;
        /*00f0*/                   LDG.E R9, desc[UR4][R2.64+0x4] ;
        /*0100*/                   IMAD.WIDE.U32 R4, R7, 0x4, R4 ;
        /*0110*/                   FMUL R11, R6, R11 ;
        /*0120*/                   FFMA R9, R0, R9, -R11 ;
        /*0130*/                   STG.E desc[UR4][R4.64], R9 ;
        /*0140*/                   EXIT ;
        /*0150*/                   BRA 0x150;
`

func TestSummarizeSASS(t *testing.T) {
	fns := ParseSASS(subPQSASS)
	code, ok := fns["sub_pq_f32"]
	if !ok || len(code) != 14 {
		t.Fatalf("parsed %d functions, sub_pq_f32 with %d instructions", len(fns), len(code))
	}
	if g := code[1]; g.Guard != "P0" || g.Op != "EXIT" {
		t.Errorf("guard: %+v", g)
	}
	got := SummarizeSASS(code, F32).String()
	want := "fma=1 | fma(a*b,-mul) mul(c,d) | fma(a*b,-mul(c,d))"
	if got != want {
		t.Errorf("summary\n got %s\nwant %s", got, want)
	}
}

// The same kernel's PTX, not contracted, and contracted by hand the other
// way round: the summaries tell the three apart.
func TestSummarizePTX(t *testing.T) {
	var k Kernel
	for _, kk := range Kernels() {
		if kk.Name() == "sub_pq_f32" {
			k = kk
		}
	}
	src, err := k.PTX("sm_90", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to, want string }{
		{"", "", "fma=0 | add(-mul,mul) mul(a,b) mul(c,d) | add(mul(a,b),-mul(c,d))"},
		{"sub.f32 %f12, %f10, %f11;", "neg.f32 %f13, %f11;\n\tfma.rn.f32 %f12, %f1, %f2, %f13;", "fma=1 | fma(a*b,-mul) mul(c,d) | fma(a*b,-mul(c,d))"},
		{"sub.f32 %f12, %f10, %f11;", "neg.f32 %f13, %f3;\n\tfma.rn.f32 %f12, %f13, %f4, %f10;", "fma=1 | fma(-c*d,mul) mul(a,b) | fma(-c*d,mul(a,b))"},
	} {
		text := strings.Replace(src, tc.from, tc.to, 1)
		text = strings.Replace(text, ".reg .f32 %f<13>;", ".reg .f32 %f<14>;", 1)
		m, err := ptx.Parse("k.ptx", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if got := SummarizePTX(m.Funcs[0], F32).String(); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.to, got, tc.want)
		}
	}
}

func TestOpsMatch(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"fma(a*b,-mul) mul(c,d)", "fma(a*b,-mul) mul(c,d)", true},
		{"fma(a*b,-mul) mul(c,d)", "fma(-a*b,mul) mul(c,d)", false},
		{"add(c,±mul) mul(a,k)", "add(c,-mul) mul(a,k)", true},
		{"add(c,±mul) mul(a,k)", "add(c,mul) mul(a,k)", true},
		{"add(c,±mul) mul(a,k)", "add(c,mul)", false},
	} {
		if got := OpsMatch(strings.Fields(tc.want), strings.Fields(tc.got)); got != tc.ok {
			t.Errorf("OpsMatch(%q, %q) = %v", tc.want, tc.got, got)
		}
	}
}

// Every kernel's inputs are a function of its name alone.
func TestInputsStable(t *testing.T) {
	a, b := Inputs("sub_pq_f32", F32, 4), Inputs("sub_pq_f32", F32, 4)
	if string(a) != string(b) || len(a) != Threads*4*4 {
		t.Fatalf("inputs differ between calls or have %d bytes", len(a))
	}
	if string(Inputs("sub_qp_f32", F32, 4)) == string(a) {
		t.Error("two kernels share inputs")
	}
}
