package soft

import (
	"regexp"
	"strings"
	"testing"
)

// TestSurfForms: soft loads the sust.p and sured forms ptxas (CUDA 13.0)
// accepts and refuses, with the position, those it refuses: every sured
// form of testdata/tex/probe-forms.txt, plus forms checked against the PTX
// ISA's rules.
func TestSurfForms(t *testing.T) {
	probe, err := readTestdata("tex/probe-forms.txt")
	if err != nil {
		t.Fatal(err)
	}
	type form struct {
		instr string
		ok    bool
	}
	var forms []form
	re := regexp.MustCompile(`^(sured\.[bp]\.[a-z]+\.2d\.[a-z0-9]+)\s+ptxas: (ok|ERR)`)
	for _, line := range strings.Split(string(probe), "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v := "%r3"
		if strings.HasSuffix(m[1], "64") {
			v = "%rd1"
		}
		forms = append(forms, form{m[1] + ".trap [%rd0, {%r1, %r2}], " + v, m[2] == "ok"})
	}
	if len(forms) < 40 {
		t.Fatalf("%d sured forms in probe-forms.txt, want the 44 probed", len(forms))
	}
	forms = append(forms,
		form{"sust.p.2d.v4.b32.clamp [%rd0, {%r1, %r2}], {%r3, %r4, %r5, %r6}", true},
		form{"sust.p.1d.b32.trap [%rd0, {%r1}], {%r3}", true},
		form{"sust.p.3d.v2.b32.zero [%rd0, {%r1, %r2, %r3, %r3}], {%r3, %r4}", true},
		form{"sust.p.a2d.b32.zero [%rd0, {%r1, %r2, %r3, %r3}], {%r3}", true},
		form{"sust.p.2d.b8.clamp [%rd0, {%r1, %r2}], {%r3}", false},
		form{"sust.p.2d.v2.b64.clamp [%rd0, {%r1, %r2}], {%rd1, %rd1}", false},
		form{"suld.p.2d.b32.clamp {%r3}, [%rd0, {%r1, %r2}]", false},
		form{"sured.b.add.1d.u32.zero [%rd0, {%r1}], %r3", true},
		form{"sured.b.max.3d.s64.clamp [%rd0, {%r1, %r2, %r3, %r3}], %rd1", true},
		form{"sured.p.max.2d.b64.clamp [%rd0, {%r1, %r2}], %rd1", true},
		form{"sured.p.max.2d.b32 [%rd0, {%r1, %r2}], %r3", true},
		form{"sured.b.add.a1d.u32.clamp [%rd0, {%r1, %r2}], %r3", false},
		form{"sured.b.xor.2d.b32.clamp [%rd0, {%r1, %r2}], %r3", false},
		form{"sured.b.2d.u32.clamp [%rd0, {%r1, %r2}], %r3", false},
		form{"sured.b.add.2d.u32.clamp [%rd0, {%r1}], %r3", false},
		form{"sured.b.add.2d.v2.u32.clamp [%rd0, {%r1, %r2}], {%r3, %r4}", false},
	)
	e := newEnv(t, Options{})
	accepted := 0
	for _, c := range forms {
		src := ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" +
			"\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<2>;\n\tmov.u64 %rd0, 0;\n\t" + c.instr + ";\n\tret;\n}\n"
		_, err := e.loadNamed([]byte(src), "bad.ptx")
		if c.ok {
			if err != nil {
				t.Errorf("%s: ptxas takes it, soft: %v", c.instr, err)
			}
			accepted++
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "bad.ptx:9:") {
			t.Errorf("%s:\n\tgot %v\n\twant an error at bad.ptx:9 (ptxas refuses it)", c.instr, err)
		}
	}
	t.Logf("%d forms: %d taken, %d refused", len(forms), accepted, len(forms)-accepted)
}
