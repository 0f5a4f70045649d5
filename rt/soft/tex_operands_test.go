package soft

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/texunit"
)

// Round 6 (testdata/tex/NOTES.md; targeted.inc's t_tex6, forms 156-232 of
// genforms2.py, which writes tex_operands_gen_test.go): every combination of
// texel offsets, depth compare and residency predicate that soft refused
// after round 5. The recording, tex2-m.bin.zst, comes from the GPU run
// .gpu/tex6/run.sh (probe6.txt its probe of every form).

// texForm6 is one round-6 form: the instruction it ran and its PTX (for
// the kernel replay, as texForms3's).
type texForm6 struct {
	geom                   int
	tld4, level, grad, s32 bool
	offs, depth, resid     bool
	ptx                    string
}

// texRec6File is round 6's recording.
const texRec6File = "tex2-m.bin.zst"

// texRecRefused6 are the round-6 forms ptxas refused in the run's probe
// (testdata/tex/probe6.txt); the recorder was built without them and wrote
// no records for them: .s32 coordinates with a depth compare, with or
// without offsets and d|p (164-168, 209-212, 225: "Arguments mismatch for
// instruction 'tex'"), and tex.level.3d and tex.grad.3d with a depth compare
// (171, 178: "Illegal modifier '.3d' for instruction 'tex.level'", 'tex.grad').
var texRecRefused6 = map[uint32]bool{
	164: true, 165: true, 166: true, 167: true, 168: true,
	171: true, 178: true,
	209: true, 210: true, 211: true, 212: true,
	225: true,
}

// texRecForm6 is texRecForm for round 6's forms 156-232.
func texRecForm6(form uint32) texunit.Op {
	f, ok := texForms6[form]
	if !ok {
		return texunit.Op{Geom: -1}
	}
	return texunit.Op{Geom: f.geom, IntCoords: f.s32, Gather: f.tld4, Level: f.level, Offs: f.offs}
}

// texRecZero says whether a recorded form returns 0 in every channel
// (texinstr.go's texZeroResult: tex.grad.1d with a depth compare, forms
// 176 and 219), the sampler not asked.
func texRecZero(form uint32) bool {
	f, ok := texForms6[form]
	return ok && !f.tld4 && texunit.ZeroResult(f.geom, f.grad, f.depth, f.s32)
}

// texRecKey6 names a round-6 form for texRecKey: e.g. tex.grad+offsets+depth|p.
func texRecKey6(form uint32) string {
	f := texForms6[form]
	op := "tex"
	if f.tld4 {
		op = "tld4"
	}
	if f.level {
		op += ".level"
	}
	if f.grad {
		op += ".grad"
	}
	if f.s32 {
		op += "(int)"
	}
	if f.offs {
		op += "+offsets"
	}
	if f.depth {
		op += "+depth"
	}
	if f.resid {
		op += "|p"
	}
	return op
}

// TestTexForms6Table: the generated table is what genforms2.py's spec says
// in the ways the replay relies on (a form with offsets unpacks them, one
// with d|p stores the predicate, depth values are word w).
func TestTexForms6Table(t *testing.T) {
	if len(texForms6) != 232-156+1 {
		t.Errorf("%d round-6 forms, want %d (156-232)", len(texForms6), 232-156+1)
	}
	for form, f := range texForms6 {
		if got := texRecForm(form); got.Geom != f.geom || got.Offs != f.offs || got.Gather != f.tld4 {
			t.Errorf("form %d: texRecForm %+v, table %+v", form, got, f)
		}
		if texRecResidency(form) != f.resid {
			t.Errorf("form %d: texRecResidency %v, table %v", form, texRecResidency(form), f.resid)
		}
		co := [4]uint32{0, 0, 0, 0x7fc0fd07}
		op := texRecOperands(form, texRecForm(form), co)
		if f.offs && (op.Off[0] != 7 || op.Off[1] != -3 && f.geom != texunit.Geom1D && f.geom != texunit.GeomA1D) {
			t.Errorf("form %d: offsets %v from w %#x", form, op.Off, co[3])
		}
		if !f.offs && op.Off != [3]int32{} {
			t.Errorf("form %d: no offsets, got %v", form, op.Off)
		}
		if strings.HasPrefix(f.ptx, texB4) != f.offs || strings.Contains(f.ptx, "|%p2") != f.resid {
			t.Errorf("form %d: PTX %q does not unpack offsets or store d|p as the table says (%+v)", form, f.ptx, f)
		}
		instr := strings.TrimPrefix(f.ptx, texB4)
		name := texRecKey6(form)
		name = strings.NewReplacer("(int)", "", "+offsets", "", "+depth", "", "|p", "", "tld4", "tld4.r").Replace(name) + "." + texunit.GeomNames[f.geom] + ".v4.f32."
		if f.s32 {
			name += "s32 "
		} else {
			name += "f32 "
		}
		if !strings.HasPrefix(instr, name) {
			t.Errorf("form %d: PTX %q, want %q...", form, instr, name)
		}
	}
}

// TestTexRecorded6 replays round 6 (tex2-m) through the sampler: every
// sample must be exact, and every form the probe did not refuse must have
// records.
func TestTexRecorded6(t *testing.T) {
	path := filepath.Join("testdata/tex", texRec6File)
	tr, _, err := loadTexFiles("testdata/tex", texRec6File)
	if err != nil {
		t.Fatal(err)
	}
	per := map[uint32]int{}
	bad, n := 0, 0
	for _, r := range tr {
		h := r.hdr
		form := h[22]
		if _, ok := texForms6[form]; !ok {
			t.Fatalf("%s: form %d is not a round-6 form", path, form)
		}
		if h[21] != 0 {
			t.Errorf("%s: the driver refused the texture (error %d)", texRecKey(h), h[21])
			continue
		}
		v := texRecView(&r)
		for i, co := range r.coords {
			op := texRecOperands(form, texRecForm(form), co)
			var got [4]uint32
			switch {
			case texRecZero(form):
			case op.Gather:
				got = v.GatherOp(op, co)
			default:
				got = v.Sample(op, co)
			}
			if texRecResidency(form) {
				got[3] = 0
				if texunit.Resident {
					got[3] = 1
				}
			}
			n++
			per[form]++
			if got != r.res[i] {
				if bad++; bad <= 20 {
					t.Errorf("form %d, %s: coords %08x: got %08x, H100 %08x", form, texRecKey(h), co, got, r.res[i])
				}
			}
		}
	}
	var missing []int
	for form := range texForms6 {
		if per[form] == 0 && !texRecRefused6[form] {
			missing = append(missing, int(form))
		}
		if per[form] != 0 && texRecRefused6[form] {
			t.Errorf("form %d: marked refused, but %d samples recorded", form, per[form])
		}
	}
	sort.Ints(missing)
	if len(missing) > 0 {
		t.Errorf("forms with no records (refused in probe6.txt? then list them in texRecRefused6): %v", missing)
	}
	t.Logf("round 6: %d samples, %d differ", n, bad)
}

// TestTexForms6Decode: every round-6 form loads but those ptxas refused
// in the probe (probe6.txt, texRecRefused6), which soft refuses quoting
// ptxas's error.
func TestTexForms6Decode(t *testing.T) {
	probe, err := os.ReadFile("testdata/tex/probe6.txt")
	if err != nil {
		t.Fatal(err)
	}
	ptxasErr := map[uint32]string{} // form: ptxas's error, from the probe
	for _, line := range strings.Split(string(probe), "\n") {
		var form uint32
		if _, err := fmt.Sscanf(line, "form %d:", &form); err != nil {
			continue
		}
		if _, ok := texForms6[form]; !ok {
			t.Errorf("probe6.txt: %q: not a round-6 form", line)
		}
		_, msg, refused := strings.Cut(line, "error   : ")
		if msg, _, _ = strings.Cut(msg, " ptxas fatal"); refused {
			ptxasErr[form] = strings.TrimSpace(msg)
		} else if !strings.HasSuffix(line, ": ok") {
			t.Errorf("probe6.txt: %q: neither ok nor a ptxas error", line)
		}
	}
	for form := range texForms6 {
		if _, ok := ptxasErr[form]; ok != texRecRefused6[form] {
			t.Errorf("form %d: refused by ptxas in probe6.txt %v, in texRecRefused6 %v", form, ok, texRecRefused6[form])
		}
	}
	d, _, _ := graphEnv(t, Options{})
	forms := make([]int, 0, len(texForms6))
	for form := range texForms6 {
		forms = append(forms, int(form))
	}
	sort.Ints(forms)
	for _, form := range forms {
		f := texForms6[uint32(form)]
		src := ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 tex)\n{\n" +
			"\t.reg .pred %p<3>;\n\t.reg .b32 %r<24>;\n\t.reg .b64 %rd<4>;\n" +
			"\tld.param.u64 %rd1, [tex];\n\t" + f.ptx + "\n\tret;\n}\n"
		_, err := rt.NewLibrary("f6.ptx", []byte(src)).Load(d)
		msg, refused := ptxasErr[uint32(form)]
		switch {
		case !refused && err != nil:
			t.Errorf("form %d (%s): %v, want it to load", form, f.ptx, err)
		case refused && err == nil:
			t.Errorf("form %d (%s): loads, want it refused (ptxas: %s)", form, f.ptx, msg)
		case refused && (!strings.Contains(err.Error(), "ptxas refuses") || !strings.Contains(err.Error(), msg)):
			t.Errorf("form %d (%s): %v, want a refusal quoting ptxas: %q", form, f.ptx, err, msg)
		}
	}
}
