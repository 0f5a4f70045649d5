package pipeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
)

const targetsDir = "testdata/targets"

// funcLines are the generated file's function and kernel declarations:
// what a package's callers see.
func funcLines(src []byte) []string {
	var out []string
	for _, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, "func ") || regexp.MustCompile(`^\t[A-Za-z0-9]+Kernel = `).MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// TestTargetSet: per-target PTX files of one kernel file, as a code base
// ships them, generate one library with the functions one of them alone
// generates; its image is a fatbin of all of them, from which the driver
// and rt/soft load the newest PTX the device can take.
func TestTargetSet(t *testing.T) {
	var ins []Input
	for _, a := range []string{"80", "50", "70"} { // any order
		ins = append(ins, input(t, filepath.Join(targetsDir, "madd3_"+a+".ptx")))
	}
	src := []File{source(t, filepath.Join(targetsDir, "madd3.cu"))}
	set := run(t, &Request{Inputs: ins, Sources: src})
	one := run(t, &Request{Inputs: ins[:1], Sources: src})
	if got, want := funcLines(set.Go.Data), funcLines(one.Go.Data); !slices.Equal(got, want) || len(got) == 0 {
		t.Errorf("the target set's functions differ from one input's:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(set.Images) != 1 || filepath.Base(set.Images[0].Name) != "madd3.fatbin" {
		t.Fatalf("images %v, want one madd3.fatbin", set.Images)
	}
	mustContain(t, set.Go.Data, `var Library = rt.NewLibrary("madd3.fatbin", image)`,
		"built from madd3_50.ptx, madd3_70.ptx, madd3_80.ptx", "func Madd3(cfg rt.Config, dstx rt.Ptr[float32]")
	fb, err := fatbin.Parse(set.Images[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, e := range fb.Entries {
		targets = append(targets, e.Target())
	}
	if !slices.Equal(targets, []string{"compute_50", "compute_70", "compute_80"}) {
		t.Errorf("the fatbin holds %v", targets)
	}
	for cc, want := range map[int]string{90: "compute_80", 75: "compute_70", 61: "compute_50"} {
		if e := fatbin.Select(fb.Entries, cc); e == nil || e.Target() != want {
			t.Errorf("on sm_%d the driver loads %v, want %s", cc, e, want)
		}
	}
	for _, e := range fb.Entries {
		d, _ := e.Data()
		orig, _ := os.ReadFile(filepath.Join(targetsDir, "madd3_"+strings.TrimPrefix(e.Target(), "compute_")+".ptx"))
		if !bytes.Equal(bytes.TrimRight(d, "\x00"), orig) {
			t.Errorf("%s: the entry is not the input's PTX", e.Target())
		}
	}

	// -separate: a library each.
	sep := run(t, &Request{Inputs: ins, Sources: src, Separate: true})
	if len(sep.Images) != 3 || !bytes.Contains(sep.Go.Data, []byte("var Madd380Library = ")) {
		t.Errorf("-separate: %d images", len(sep.Images))
	}

	// Two libraries of two sets in one package, named after the sets.
	other := make([]Input, len(ins))
	for i, in := range ins {
		other[i] = Input{Name: strings.Replace(in.Name, "madd3_", "other.sm_", 1), Data: in.Data}
	}
	two := run(t, &Request{Inputs: append(slices.Clone(ins), other...), Sources: src})
	mustContain(t, two.Go.Data, `var Madd3Library = rt.NewLibrary("madd3.fatbin", madd3Image)`, `var OtherLibrary = rt.NewLibrary("other.fatbin", otherImage)`)
	if len(two.Images) != 2 {
		t.Errorf("%d images, want 2", len(two.Images))
	}
}

// TestTargetSetDiffers: per-target files whose kernels differ are an
// error naming the kernel and the files.
func TestTargetSetDiffers(t *testing.T) {
	a := input(t, filepath.Join(targetsDir, "madd3_50.ptx"))
	b := input(t, filepath.Join(targetsDir, "madd3_70.ptx"))
	for _, c := range []struct {
		what      string
		from, to  string
		wantParts []string
	}{
		{"a kernel renamed", ".entry normalize(", ".entry normalise(", []string{"kernel normalize is in testdata/targets/madd3_50.ptx, not in testdata/targets/madd3_70.ptx"}},
		{"a parameter widened", ".param .u32 normalize_param_3", ".param .u64 normalize_param_3", []string{"kernel normalize: parameter 3 is 4 bytes in testdata/targets/madd3_50.ptx, 8 in testdata/targets/madd3_70.ptx"}},
	} {
		if !bytes.Contains(b.Data, []byte(c.from)) {
			t.Fatalf("%s: madd3_70.ptx has no %q", c.what, c.from)
		}
		bad := Input{Name: b.Name, Data: bytes.Replace(b.Data, []byte(c.from), []byte(c.to), 1)}
		_, err := Run(&Request{Inputs: []Input{a, bad}, Output: filepath.Join(t.TempDir(), "out.go")})
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Fatalf("%s: %v, want an *InputError", c.what, err)
		}
		for _, w := range append(c.wantParts, "madd3_NN.ptx", "-separate") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant it to say %q", c.what, err, w)
			}
		}
	}
	// Two files of one name for one target are not a target set.
	_, err := Run(&Request{Inputs: []Input{a, {Name: "other/madd3_50.ptx", Data: a.Data}}, Output: filepath.Join(t.TempDir(), "out.go")})
	if err == nil || !strings.Contains(err.Error(), "give the inputs different names") {
		t.Errorf("two madd3_50.ptx: %v", err)
	}
}

// TestTargetSetNames: only a suffix that names the file's own target makes
// a set; files of one stem in per-target directories are one too.
func TestTargetSetNames(t *testing.T) {
	a := input(t, filepath.Join(targetsDir, "madd3_50.ptx"))
	b := input(t, filepath.Join(targetsDir, "madd3_70.ptx"))
	// conv_3 and conv_5: numbers, not targets: two libraries.
	r := run(t, &Request{Inputs: []Input{{Name: "conv_3.ptx", Data: a.Data}, {Name: "conv_5.ptx", Data: b.Data}}})
	mustContain(t, r.Go.Data, "var Conv3Library", "var Conv5Library")
	// sm_50/madd3.ptx and sm_70/madd3.ptx: one set.
	r = run(t, &Request{Inputs: []Input{{Name: "sm_50/madd3.ptx", Data: a.Data}, {Name: "sm_70/madd3.ptx", Data: b.Data}}})
	mustContain(t, r.Go.Data, `var Library = rt.NewLibrary("madd3.fatbin", image)`, "built from sm_50/madd3.ptx, sm_70/madd3.ptx")
}
