package exec

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

var mmaRecord = flag.String("mma.record", "", "pack the GPU outputs in this record.py output directory (with -mma.bundle) into testdata/mma")

// The recordings are split by family so that each file stays small.
var mmaArchives = []struct{ file, prefix string }{
	{"mma.zip", "mma."},
	{"wmma-mma.zip", "wmma.mma"},
	{"wmma-ldst.zip", "wmma.l"},
	{"wmma-store.zip", "wmma.s"},
	{"ldmatrix.zip", ""}, // ldmatrix, stmatrix, movmatrix
}

func archiveOf(name string) string {
	for _, a := range mmaArchives {
		if a.prefix != "" && strings.HasPrefix(name, a.prefix) {
			return a.file
		}
	}
	return "ldmatrix.zip"
}

// TestMMAPack writes testdata/mma/*.zip from a GPU run (-mma.record DIR
// -mma.bundle DIR): each form's inputs and the GPU's outputs.
func TestMMAPack(t *testing.T) {
	if *mmaRecord == "" || *mmaBundle == "" {
		t.Skip("packing recordings needs -mma.record and -mma.bundle")
	}
	man := readManifest(t, *mmaBundle)
	forms := map[string]*recForm{}
	for _, f := range allRecForms() {
		forms[f.Name] = f
	}
	bufs := map[string]*zip.Writer{}
	files := map[string]*bytes.Buffer{}
	for _, e := range man {
		in, err := os.ReadFile(filepath.Join(*mmaBundle, e.File+".in"))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.ReadFile(filepath.Join(*mmaRecord, e.File+".out"))
		if err != nil {
			t.Logf("%s: no output (%v)", e.Name, err)
			continue
		}
		if f := forms[e.Name]; f == nil || !bytes.Equal(f.In, in) {
			t.Fatalf("%s: the bundle does not match the generator", e.Name)
		}
		if n := maxCases(e.Name); e.Grid > n {
			// Random register-level and memory-level wmma cases: two of
			// each are recorded (the arithmetic is the mma.sync one).
			in, out = in[:len(in)/e.Grid*n], out[:len(out)/e.Grid*n]
		}
		a := archiveOf(e.Name)
		if bufs[a] == nil {
			files[a] = &bytes.Buffer{}
			bufs[a] = zip.NewWriter(files[a])
		}
		for _, part := range []struct {
			ext  string
			data []byte
		}{{".in", in}, {".out", out}} {
			w, err := bufs[a].Create(e.Name + part.ext)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(part.data)
		}
	}
	for a, z := range bufs {
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "mma", a), files[a].Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// maxCases is how many of a form's cases (CTAs) the recordings keep.
func maxCases(name string) int {
	if strings.HasPrefix(name, "wmma.mma") {
		return 2
	}
	return 1 << 30
}

// mmaRecording is one form's recorded inputs and GPU outputs.
type mmaRecording struct{ in, out []byte }

func loadRecordings(t *testing.T) map[string]*mmaRecording {
	recs := map[string]*mmaRecording{}
	for _, a := range mmaArchives {
		z, err := zip.OpenReader(filepath.Join("testdata", "mma", a.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range z.File {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			name, ext := strings.TrimSuffix(f.Name, filepath.Ext(f.Name)), filepath.Ext(f.Name)
			if recs[name] == nil {
				recs[name] = &mmaRecording{}
			}
			if ext == ".in" {
				recs[name].in = data
			} else {
				recs[name].out = data
			}
		}
		z.Close()
	}
	return recs
}

// TestMMARecordings runs every tensor-core form recorded on the H100 in
// soft, with the recorded inputs, and compares the outputs bit for bit.
func TestMMARecordings(t *testing.T) {
	recs := loadRecordings(t)
	forms := allRecForms()
	if len(recs) != len(forms) {
		t.Errorf("%d recordings for %d forms", len(recs), len(forms))
	}
	e := newEnv(t, Config{})
	// Under -race every fourth form (the full replay runs in go test).
	for _, f := range softtest.Strided(forms, softtest.Sample(4)) {
		rec := recs[f.Name]
		if rec == nil {
			t.Errorf("%s: not recorded", f.Name)
			continue
		}
		if len(rec.out)%f.OutSize != 0 || len(rec.out) == 0 {
			t.Errorf("%s: recording of %d bytes", f.Name, len(rec.out))
			continue
		}
		if got := runRecForm(e, f, rec.in, len(rec.out)/f.OutSize); got == nil {
			t.Errorf("%s: did not run", f.Name)
		} else if d := firstDiff(got, rec.out); d >= 0 {
			t.Errorf("%s: differs from the H100 from byte %d of %d (%s)", f.Name, d, len(got), diffAt(got, rec.out, d, f.OutSize))
		}
	}
}

// runRecForm runs a form in soft; nil (and a reported error) if it fails.
func runRecForm(e *env, f *recForm, in []byte, grid int) []byte {
	e.t.Helper()
	h, err := e.loadNamed([]byte(f.ptx), f.Name+".ptx")
	if err != nil {
		e.t.Errorf("%s: %v", f.Name, err)
		return nil
	}
	defer e.unload(h)
	k := e.kernel(h, "k")
	inp := e.buf(in)
	out := bytes.Repeat([]byte{recFill}, grid*f.OutSize)
	outp := e.buf(out)
	if err := e.launchErr(k, rt.Dim3{X: uint32(grid), Y: 1, Z: 1}, rt.Dim3{X: uint32(f.Block), Y: 1, Z: 1}, 0, inp, outp); err != nil {
		e.t.Errorf("%s: %v", f.Name, err)
		return nil
	}
	e.get(outp, out)
	e.free(inp)
	e.free(outp)
	return out
}

func firstDiff(a, b []byte) int {
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func diffAt(got, want []byte, at, perCTA int) string {
	n := 0
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			n++
		}
	}
	lo := at &^ 3
	hi := min(lo+8, len(got), len(want))
	return fmt.Sprintf("CTA %d, %d bytes differ; got % x, want % x", at/max(perCTA, 1), n, got[lo:hi], want[lo:hi])
}

// TestMMARefused: forms sm_90 does not have, sparse mma and malformed
// operands fail at load with the PTX position and a reason.
func TestMMARefused(t *testing.T) {
	e := newEnv(t, Config{})
	for _, c := range []struct{ instr, want string }{
		{"mma.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%f4,%f5,%f6,%f7}", "does not exist on sm_90"},
		{"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2}, {%r4,%r5}, {%f4,%f5,%f6,%f7}", "vector of 4 registers"},
		{"mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%f4,%f5,%f6,%f7}", "does not exist on sm_90"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32 {%r0,%r1}, {%r0,%r1}, {%r4,%r5}, {%f4,%f5,%f6,%f7}, %r6, 0x0", "mma.sp form is not supported"},
		{"mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%f4,%f5,%f6,%f7}", "does not exist on sm_90"},
		{"wmma.load.a.sync.aligned.col.m8n8k32.s4 {%r0}, [%rd0]", "does not exist on sm_90"},
		{"wmma.load.a.sync.aligned.row.m16n16k8.f16 {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, [%rd0]", "does not exist on sm_90"},
		{"wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r0,%r1}, {%r2}, {%r3}, {%r4,%r5}", "does not exist on sm_90"},
		{"wmma.mma.sync.aligned.row.col.m16n16k16.rz.f32.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}", "does not exist on sm_90"},
		{"ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r0,%r1}, [%rd0]", "only the .m8n8 .b16 forms"},
		{"ldmatrix.sync.aligned.m8n8.x4.global.b16 {%r0,%r1,%r2,%r3}, [%rd0]", ".shared state space"},
		{"stmatrix.sync.aligned.m8n8.x2.shared.b16 [%rd0], {%r0}", "vector of 2 registers"},
		{"movmatrix.sync.aligned.m8n8.b16 %r0, %r1", "movmatrix.sync.aligned.m8n8.trans.b16"},
		{"cvt.rn.satfinite.tf32.f32 %r0, %f0", "requires sm_100"},
	} {
		src := ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" +
			"\t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<2>;\n\t" + c.instr + ";\n\tret;\n}\n"
		_, err := e.loadNamed([]byte(src), "bad.ptx")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.ptx:9:") {
			t.Errorf("%s:\n\tgot %v\n\twant an error at bad.ptx:9 mentioning %q", c.instr, err, c.want)
		}
	}
}

// readManifest reads a recording bundle's manifest.json (TestMMAPack,
// TestWGMMAPack).
func readManifest(t *testing.T, dir string) []bundleEntry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man []bundleEntry
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	return man
}
