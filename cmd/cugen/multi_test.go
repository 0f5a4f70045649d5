package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"text/template"
)

// multiTest exercises every kernel and variable of scale.ptx and shift.ptx
// (testdata/multi) on rt/soft, by the names the package gives them.
const multiTest = `package {{.Pkg}}_test

import (
	"encoding/binary"
	"math"
	"testing"

	"scratch/{{.Pkg}}"
	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/soft"
)

func TestKernels(t *testing.T) {
	devs, err := rt.Devices()
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		t.Fatal(err)
	}
	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	buf, err := rt.AllocFrom(ctx, []float32{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	cfg := rt.Linear(3, 32).On(s)
	if err := {{.Pkg}}.{{.Scale}}(cfg, buf.Ptr, 2, 3); err != nil {
		t.Fatal(err)
	}
	if err := {{.Pkg}}.{{.Shift}}(cfg, buf.Ptr, 3, 3); err != nil {
		t.Fatal(err)
	}
	var p {{.Pkg}}.{{.Pair}}
	binary.LittleEndian.PutUint32(p.Bytes()[0:], math.Float32bits(5))
	binary.LittleEndian.PutUint32(p.Bytes()[4:], math.Float32bits(3))
	sums, err := rt.Alloc[float32](ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	one := rt.Linear(1, 1).On(s)
	if err := {{.Pkg}}.{{.ScalePairSum}}(one, p, sums.Ptr); err != nil {
		t.Fatal(err)
	}
	var q {{.Pkg}}.{{.ShiftPair}}
	copy(q.Bytes(), p.Bytes())
	if err := {{.Pkg}}.{{.ShiftPairSum}}(one, q, sums.Ptr.Add(1)); err != nil {
		t.Fatal(err)
	}
	counts := []func(rt.Config) error{
		{{.Pkg}}.{{.ScaleCount}}, {{.Pkg}}.{{.ShiftCount}}, {{.Pkg}}.{{.ShiftCount}},
	}
	for _, count := range counts {
		if err := count(one); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	got, _ := buf.ToHost()
	if got[0] != 6 || got[1] != 12 || got[2] != 18 {
		t.Errorf("scaled by 2 then by 3: %v", got)
	}
	if got, _ := sums.ToHost(); got[0] != 8 || got[1] != 2 {
		t.Errorf("pair sums: %v, want [8 2]", got)
	}
	a, _ := {{.Pkg}}.{{.ScaleCounter}}.Get(ctx)
	b, _ := {{.Pkg}}.{{.ShiftCounter}}.Get(ctx)
	if a != 1 || b != 20 {
		t.Errorf("counters %d and %d, want 1 and 20", a, b)
	}
}
`

// TestSeveralInputsBuildAndRun: a package generated from two inputs whose
// names collide, in one run and in two runs into one directory, compiles,
// vets and runs on rt/soft; generating again changes nothing.
func TestSeveralInputsBuildAndRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated packages with the go tool; skipped in -short mode")
	}
	mod := scratchModule(t)
	for _, d := range []string{"multi", "runs"} {
		if err := os.Mkdir(filepath.Join(mod, d), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"scale.ptx", "shift.ptx"} {
			os.WriteFile(filepath.Join(mod, d, f), mustRead(t, "multi/"+f), 0o644)
		}
	}
	gen := func(dir string, args ...string) {
		t.Helper()
		t.Chdir(filepath.Join(mod, dir))
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%s: cugen %v: exit %d: %s", dir, args, code, stderr)
		}
	}
	gen("multi", "-pkg", "multi", "scale.ptx", "shift.ptx")
	gen("runs", "-pkg", "runs", "scale.ptx")
	gen("runs", "shift.ptx")
	// Generated again beside shift_cugen.go, scale_cugen.go names its
	// library after its input too (ScaleLibrary), whichever ran first.
	gen("runs", "-pkg", "runs", "scale.ptx")
	if src, _ := os.ReadFile(filepath.Join(mod, "runs", "scale_cugen.go")); !bytes.Contains(src, []byte("var ScaleLibrary = ")) {
		t.Errorf("runs/scale_cugen.go keeps Library beside another generated file")
	}
	tmpl := template.Must(template.New("").Parse(multiTest))
	for _, names := range []map[string]string{
		{"Pkg": "multi", "Scale": "ScaleScale", "Shift": "ShiftScale", "ScaleCount": "ScaleCount", "ShiftCount": "ShiftCount",
			"ScalePairSum": "ScalePairSum", "ShiftPairSum": "ShiftPairSum", "Pair": "Pair", "ShiftPair": "Pair", "ScaleCounter": "ScaleCounter", "ShiftCounter": "ShiftCounter"},
		// The second run avoids the first one's names.
		{"Pkg": "runs", "Scale": "Scale", "Shift": "ShiftScale", "ScaleCount": "Count", "ShiftCount": "ShiftCount",
			"ScalePairSum": "PairSum", "ShiftPairSum": "ShiftPairSum", "Pair": "Pair", "ShiftPair": "PairType", "ScaleCounter": "Counter", "ShiftCounter": "CounterVar"},
	} {
		var test bytes.Buffer
		if err := tmpl.Execute(&test, names); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(mod, names["Pkg"], "kernels_test.go"), test.Bytes(), 0o644)
	}

	goCmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = mod
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
	goCmd("vet", "./...")
	goCmd("test", "-count=1", "./...")

	// Generating again, in either order, changes nothing.
	before := map[string][]byte{}
	for _, f := range []string{"multi/multi_cugen.go", "runs/scale_cugen.go", "runs/shift_cugen.go"} {
		before[f], _ = os.ReadFile(filepath.Join(mod, f))
	}
	gen("runs", "shift.ptx")
	gen("runs", "-pkg", "runs", "scale.ptx")
	gen("multi", "-pkg", "multi", "scale.ptx", "shift.ptx")
	for f, old := range before {
		if now, _ := os.ReadFile(filepath.Join(mod, f)); !bytes.Equal(now, old) {
			t.Errorf("%s changed when generated again", f)
		}
	}
}
