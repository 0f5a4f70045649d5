package exec

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

var (
	wgBundle = flag.String("wgmma.bundle", "", "write the wgmma recording kernels and inputs to this directory (for testdata/mma/record.py)")
	wgRecord = flag.String("wgmma.record", "", "with -wgmma.bundle: the GPU's outputs, to pack into testdata/wgmma")
)

// wgRec is a recorded form: the kernel, its generated cases and inputs.
type wgRec struct {
	f     wgForm
	cases []*wgCase
	in    []byte
	probe bool // a layout probe (its output shows where each element came from)
}

func (r *wgRec) name() string { return r.f.name() }

func (r *wgRec) recForm() *recForm {
	return &recForm{Name: r.name(), Grid: len(r.cases), Block: 128, OutSize: 128 * r.f.nd() * 4, In: r.in, ptx: r.f.ptx(), minVer: r.f.ptxVersion()}
}

// Layout probes: shared memory holds distinct f16 values (slot i holds
// bits i+1) and the other operand is the identity, so D shows which slot
// the GPU read each element from.
func probeRecs() []*wgRec {
	var out []*wgRec
	const sm = 40 << 10
	raw := make([]byte, sm)
	for i := 0; i < sm/2; i++ {
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(i+1))
	}
	one := uint64(0x3c00)
	// B probes: A (registers) is the identity on each 16 rows.
	for _, n := range []int{64, 256} {
		for _, tr := range []bool{false, true} {
			f := wgForm{n: n, a: mtF16, b: mtF16, d: mtF32, transB: tr, smem: sm, tag: "probe"}
			var ls []wgLayout
			if !tr {
				ls = []wgLayout{{lbo: 128, sbo: 256}, {lbo: 128 * uint64(n/8), sbo: 128}, {lbo: 256, sbo: 128 * 3},
					{lbo: 16, sbo: 256, swz: swz32}, {lbo: 16, sbo: 512, swz: swz64}, {lbo: 16, sbo: 1024, swz: swz128},
					{lbo: 4096, sbo: 1024, swz: swz128}, {start: 32, lbo: 16, sbo: 1024, swz: swz128}, {start: 96, lbo: 16, sbo: 1024, swz: swz128},
					{start: 384, lbo: 16, sbo: 1024, swz: swz128}, {start: 384, lbo: 16, sbo: 1024, swz: swz128, base: 3},
					{start: 384, lbo: 16, sbo: 1024, swz: swz128, base: 5}, {start: 32, lbo: 16, sbo: 512, swz: swz64},
					{start: 128, lbo: 16, sbo: 512, swz: swz64, base: 1}, {start: 128, lbo: 16, sbo: 256, swz: swz32},
					{start: 2048 + 16, lbo: 128, sbo: 256}}
			} else {
				mb := uint64(2 * n)
				ls = []wgLayout{{lbo: 128, sbo: 256}, {lbo: 128 * mb / 16, sbo: 128}, {lbo: 2048, sbo: 256},
					{lbo: 512, sbo: 256, swz: swz32}, {lbo: 256, sbo: mb / 32 * 256, swz: swz32},
					{lbo: 1024, sbo: 512, swz: swz64}, {lbo: 512, sbo: mb / 64 * 512, swz: swz64},
					{lbo: 2048, sbo: 1024, swz: swz128}, {lbo: 1024, sbo: max(mb/128, 1) * 1024, swz: swz128},
					{start: 128, lbo: 2048, sbo: 1024, swz: swz128}, {start: 128, lbo: 2048, sbo: 1024, swz: swz128, base: 1},
					{start: 2048, lbo: 2048, sbo: 1024, swz: swz128}}
			}
			r := &wgRec{f: f, probe: true}
			for _, l := range ls {
				c := &wgCase{lb: l, raw: raw, A: make([]uint64, 64*16)}
				for i := 0; i < 64; i++ {
					c.A[i*16+i%16] = one
				}
				r.cases = append(r.cases, c)
			}
			out = append(out, r)
		}
	}
	// A probes: B (descriptor, K-major, no swizzle, at 20 KiB) is the
	// identity.
	for _, tr := range []bool{false, true} {
		f := wgForm{n: 16, a: mtF16, b: mtF16, d: mtF32, aDesc: true, transA: tr, smem: sm, tag: "probe"}
		var ls []wgLayout
		if !tr {
			ls = []wgLayout{{lbo: 128, sbo: 256}, {lbo: 1024, sbo: 128}, {lbo: 16, sbo: 256, swz: swz32},
				{lbo: 16, sbo: 512, swz: swz64}, {lbo: 16, sbo: 1024, swz: swz128}, {start: 64, lbo: 16, sbo: 1024, swz: swz128},
				{start: 256, lbo: 16, sbo: 1024, swz: swz128, base: 2}}
		} else {
			ls = []wgLayout{{lbo: 128, sbo: 256}, {lbo: 1024, sbo: 128}, {lbo: 1024, sbo: 256, swz: swz32},
				{lbo: 1024, sbo: 512, swz: swz64}, {lbo: 2048, sbo: 1024, swz: swz128}, {lbo: 4096, sbo: 1024, swz: swz128}}
		}
		r := &wgRec{f: f, probe: true}
		for _, l := range ls {
			c := &wgCase{la: l, lb: wgLayout{start: 20 << 10, lbo: 128, sbo: 256}, raw: raw, B: make([]uint64, 16*16)}
			for k := 0; k < 16; k++ {
				c.B[k*16+k] = one
			}
			r.cases = append(r.cases, c)
		}
		out = append(out, r)
	}
	return out
}

// wgTypes are the multiplicand and accumulator types recorded.
var wgTypes = [][3]mmaType{
	{mtF16, mtF16, mtF32}, {mtF16, mtF16, mtF16}, {mtBF16, mtBF16, mtF32}, {mtTF32, mtTF32, mtF32},
	{mtE4M3, mtE4M3, mtF32}, {mtE4M3, mtE5M2, mtF32}, {mtE5M2, mtE4M3, mtF32}, {mtE5M2, mtE5M2, mtF32},
	{mtE4M3, mtE4M3, mtF16}, {mtE5M2, mtE5M2, mtF16}, {mtE4M3, mtE5M2, mtF16},
	{mtS8, mtS8, mtS32}, {mtU8, mtU8, mtS32}, {mtS8, mtU8, mtS32}, {mtU8, mtS8, mtS32}, {mtB1, mtB1, mtS32},
}

func numericRecs() []*wgRec {
	var out []*wgRec
	add := func(f wgForm, fill func(r *wgRec)) {
		f.smem = f.smemNeed()
		r := &wgRec{f: f}
		fill(r)
		out = append(out, r)
	}
	for _, ty := range wgTypes {
		a, b, d := ty[0], ty[1], ty[2]
		fl := a.isFloat()
		base := wgForm{n: 64, a: a, b: b, d: d, aDesc: true}
		random := func(nr, nw, nc int) func(r *wgRec) {
			return func(r *wgRec) {
				rnd := formRand(r.name())
				for i := 0; i < nr+nw+nc; i++ {
					var c *wgCase
					switch {
					case i < nr:
						c = r.f.randomCase(rnd, 6, 4)
					case i < nr+nw:
						c = r.f.randomCase(rnd, 20, 20)
						if a == mtE4M3 || a == mtE5M2 {
							c = r.f.randomCase(rnd, 8, 20)
						}
					default:
						c = r.f.cancelCase(rnd)
					}
					if i == 0 {
						c.scaleD = false
					}
					r.cases = append(r.cases, c)
				}
			}
		}
		nc := 2
		if !fl {
			nc = 0
		}
		add(base, func(r *wgRec) {
			random(3, 2, nc)(r)
			if a != mtB1 && (a == b || d == mtF32 || !fl) {
				r.cases = append(r.cases, r.f.designedCases(formRand("d"+r.name()))...)
			}
		})
		rA := base
		rA.aDesc = false
		add(rA, random(2, 1, nc))
		for _, n := range []int{8, 24, 256} {
			f := base
			f.n, f.aDesc = n, n != 8
			add(f, random(1, 0, 0))
		}
		if !fl {
			sat := base
			sat.sat = true
			if a != mtB1 {
				add(sat, func(r *wgRec) {
					random(2, 0, 0)(r)
					r.cases = append(r.cases, r.f.designedCases(formRand("d"+r.name()))...)
				})
			}
			continue
		}
		for _, neg := range [][2]bool{{true, false}, {false, true}, {true, true}} {
			f := base
			f.negA, f.negB = neg[0], neg[1]
			add(f, random(1, 0, 1))
			f.aDesc = false
			add(f, random(1, 0, 0))
		}
		if a == mtF16 || a == mtBF16 {
			for _, tr := range [][2]bool{{true, false}, {false, true}, {true, true}} {
				f := base
				f.transA, f.transB = tr[0], tr[1]
				add(f, random(3, 0, 0))
				f.n = 256
				add(f, random(1, 0, 0))
			}
			f := base
			f.aDesc, f.transB = false, true
			add(f, random(2, 0, 0))
		}
		if d == mtF32 && (a == mtF16 || a == mtTF32 || a == mtE4M3) {
			f := base
			f.chain = true
			add(f, random(3, 0, 0))
		}
	}
	return out
}

// allWGRecs lists the recorded wgmma forms, each with its cases packed.
func buildAllWGRecs() []*wgRec {
	rs := append(probeRecs(), numericRecs()...)
	sort.Slice(rs, func(i, j int) bool { return rs[i].name() < rs[j].name() })
	for i, r := range rs {
		if i > 0 && r.name() == rs[i-1].name() {
			panic("two wgmma forms named " + r.name())
		}
		var in []byte
		for _, c := range r.cases {
			in = append(in, r.f.pack(c)...)
		}
		r.in = in
	}
	return rs
}

// allWGRecs is buildAllWGRecs, built once: the forms are the same for every test
// (and their generation, under -race, most of a test's time).
var allWGRecs = sync.OnceValue(buildAllWGRecs)

// TestWGMMABundle writes the recording bundle when -wgmma.bundle is given;
// otherwise it checks that every kernel soft runs loads.
func TestWGMMABundle(t *testing.T) {
	recs := allWGRecs()
	if *wgBundle == "" {
		e := newEnv(t, Config{})
		for _, r := range softtest.Strided(recs, softtest.Sample(8)) { // (all but under -race)
			h, err := e.loadNamed([]byte(r.f.ptx()), r.name()+".ptx")
			if err != nil {
				t.Errorf("%s: %v", r.name(), err)
				continue
			}
			e.unload(h)
		}
		return
	}
	dir := *wgBundle
	if err := os.MkdirAll(filepath.Join(dir, "k"), 0o755); err != nil {
		t.Fatal(err)
	}
	var man []bundleEntry
	total := 0
	fs := spRecForms()
	for _, r := range recs {
		fs = append(fs, r.recForm())
	}
	for i, f := range fs {
		file := fmt.Sprintf("k/%03d", i)
		if err := os.WriteFile(filepath.Join(dir, file+".ptx"), []byte(f.ptx), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file+".in"), f.In, 0o644); err != nil {
			t.Fatal(err)
		}
		total += len(f.In) + f.Grid*f.OutSize
		man = append(man, bundleEntry{f.Name, file, f.Grid, f.Block, f.OutSize})
	}
	b, _ := json.MarshalIndent(man, "", " ")
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Shapes whose existence the PTX ISA text is unclear about: compiled
	// only, to see what ptxas accepts.
	os.MkdirAll(filepath.Join(dir, "compile"), 0o755)
	for _, f := range []wgForm{{n: 256, a: mtS8, b: mtS8, d: mtS32}, {n: 240, a: mtS8, b: mtS8, d: mtS32}, {n: 40, a: mtS8, b: mtS8, d: mtS32},
		{n: 256, a: mtB1, b: mtB1, d: mtS32}, {n: 40, a: mtB1, b: mtB1, d: mtS32}, {n: 40, a: mtF16, b: mtF16, d: mtF16, aDesc: true, transA: true}} {
		f.aDesc, f.smem = true, 1024
		os.WriteFile(filepath.Join(dir, "compile", f.name()+".ptx"), []byte(f.ptx()), 0o644)
	}
	t.Logf("%d forms, %d cases, %d bytes of inputs and outputs", len(recs), len(man), total)
}

// wgInHash names a form's inputs in the archive, so that a changed
// generator shows as a missing recording rather than a false failure.
func wgInHash(in []byte) string {
	h := sha256.Sum256(in)
	return fmt.Sprintf("%x", h[:8])
}

const wgArchive = "testdata/wgmma/wgmma.zip"

// TestWGMMAPack packs the GPU's outputs (only: the inputs are regenerated)
// into testdata/wgmma. A form the GPU gave no output for keeps its archived
// recording (same name and inputs); one recorded again must match its
// archived output byte for byte, or nothing is written.
func TestWGMMAPack(t *testing.T) {
	if *wgRecord == "" || *wgBundle == "" {
		t.Skip("packing recordings needs -wgmma.record and -wgmma.bundle")
	}
	man := readManifest(t, *wgBundle)
	recs := map[string]*recForm{}
	for _, r := range allWGRecs() {
		recs[r.name()] = r.recForm()
	}
	for _, f := range spRecForms() {
		recs[f.Name] = f
	}
	old := loadWGRecordings(t)
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	fresh, added, kept, missing := 0, 0, 0, 0
	for _, e := range man {
		r := recs[e.Name]
		if r == nil {
			t.Fatalf("%s: not generated", e.Name)
		}
		key := e.Name + "." + wgInHash(r.In)
		prev, had := old[key]
		out, err := os.ReadFile(filepath.Join(*wgRecord, e.File+".out"))
		switch {
		case err != nil && had:
			t.Logf("%s: no output (%v); the archived recording kept", e.Name, err)
			out = prev
			kept++
		case err != nil:
			t.Logf("%s: no output (%v); not recorded", e.Name, err)
			missing++
			continue
		case len(out) != r.Grid*r.OutSize:
			t.Errorf("%s: %d bytes of output, want %d (%d CTAs of %d)", e.Name, len(out), r.Grid*r.OutSize, r.Grid, r.OutSize)
		case had && !bytes.Equal(out, prev):
			t.Errorf("%s: recorded again, differs from the archived recording from byte %d", e.Name, firstDiff(out, prev))
		case !had:
			added++
			fresh++
		default:
			fresh++
		}
		w, err := z.Create(key + ".out")
		if err != nil {
			t.Fatal(err)
		}
		w.Write(out)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if t.Failed() {
		t.Fatalf("%s not written", wgArchive)
	}
	t.Logf("%d forms recorded (%d of them new), %d kept from the archive, %d without a recording", fresh, added, kept, missing)
	os.MkdirAll(filepath.Dir(wgArchive), 0o755)
	if err := os.WriteFile(wgArchive, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadWGRecordings reads testdata/wgmma: name.hash → output.
func loadWGRecordings(t *testing.T) map[string][]byte {
	zr, err := zip.OpenReader(wgArchive)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(f.Name, ".out")] = b
	}
	return out
}

// TestWGMMARecordings runs every recorded wgmma form in soft and compares
// D with the H100's, bit for bit.
func TestWGMMARecordings(t *testing.T) {
	recs := loadWGRecordings(t)
	e := newEnv(t, Config{})
	n, cases, fp8 := 0, 0, 0
	// Under -race every eighth form; all of them in go test.
	for _, r := range softtest.Strided(allWGRecs(), softtest.Sample(8)) {
		want, ok := recs[r.name()+"."+wgInHash(r.in)]
		if !ok {
			t.Errorf("%s: not recorded (or its inputs changed)", r.name())
			continue
		}
		f := r.recForm()
		if r.f.a == mtE4M3 || r.f.a == mtE5M2 {
			fp8++
		}
		got := runRecForm(e, f, f.In, f.Grid)
		if got == nil {
			continue
		}
		if d := firstDiff(got, want); d >= 0 {
			t.Errorf("%s: differs from the H100 from byte %d of %d (%s)", r.name(), d, len(got), diffAt(got, want, d, f.OutSize))
		}
		n++
		cases += f.Grid
	}
	t.Logf("%d forms (%d of them fp8), %d cases checked bit for bit", n, fp8, cases)
}

// TestWGMMARefused: forms that do not exist and malformed operands (dense
// and sparse) fail at load with the PTX position and a reason.
func TestWGMMARefused(t *testing.T) {
	e := newEnv(t, Config{})
	d4 := "{%f0,%f1,%f2,%f3}"
	for _, c := range []struct{ instr, want string }{
		{"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 + ", %rd0, %rd1, %p0, 1, 1, 0, 0", ""},
		{"wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 " + d4 + ", %rd0, %rd1, %p0, 1, 1, 0, 0", "does not exist on sm_90a"},
		{"wgmma.mma_async.sync.aligned.m64n8k8.f32.f16.f16 " + d4 + ", %rd0, %rd1, %p0, 1, 1, 0, 0", "does not exist on sm_90a"},
		{"wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0,%r1,%r2,%r3}, %rd0, %rd1, %p0", "does not exist on sm_90a"},
		{"wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f0,%f1,%f2}, %rd0, %rd1, %p0, 1, 1, 0, 0", "vector of 4 registers"},
		{"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 + ", %rd0, %rd1, %p0, 1, 1, 0", "expected 8 operands"},
		{"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 + ", %rd0, %rd1, %p0, 2, 1, 0, 0", "imm-scale-a"},
		{"wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 " + d4 + ", %rd0, %rd1, %p0, 1, 1, 0, 0", "expected 6 operands"},
		{"wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 " + d4 + ", %rd0, %rd1, %p0, 1, 1", ""},
		{"wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e4m3 {%r0,%r1}, %rd0, %rd1, %p0, 1, 1", ""},
		{"wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 " + d4 + ", %rd0, %rd1, %p0, 1, 1, 0, 0", "expected 6 operands"},
		{"wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.f16 " + d4 + ", %rd0, %rd1, %p0, 1, 1", "does not exist on sm_90a"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + d4 + ", %rd0, %rd1, %r0, 0, %p0, 1, 1, 0, 0", ""},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16 " + d4 + ", {%r0,%r1,%r2,%r3}, %rd1, %r4, 1, %p0, 1, -1, 1", ""},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.u8 {%r0,%r1,%r2,%r3}, %rd0, %rd1, %r4, 0, %p0", ""},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.f16.f16 " + d4 + ", %rd0, %rd1, %r0, 0, %p0, 1, 1, 0, 0", "does not exist on sm_90a"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k512.s32.b1.b1.and.popc {%r0,%r1,%r2,%r3}, %rd0, %rd1, %r0, 0, %p0", "does not exist on sm_90a"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + d4 + ", %rd0, %rd1, %r0, 2, %p0, 1, 1, 0, 0", "out of range"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3 " + d4 + ", %rd0, %rd1, %r0, 1, %p0, 1, 1", "out of range"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + d4 + ", %rd0, %rd1, %r0, %r1, %p0, 1, 1, 0, 0", "integer constant"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + d4 + ", %rd0, %rd1, %r0, 0, %p0, 1, 1, 0", "expected 10 operands"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + d4 + ", %rd0, %rd1, %r0", "sp-meta, sp-sel"},
		{"wgmma.fence.aligned", "expected wgmma."},
		{"wgmma.wait_group.sync.aligned %r0", "integer constant N"},
	} {
		src := ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n" +
			"\t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p0;\n" + c.instr + ";\n\tret;\n}\n"
		_, err := e.loadNamed([]byte(src), "bad.ptx")
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.instr, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.ptx:10:") {
			t.Errorf("%s:\n\tgot %v\n\twant an error at bad.ptx:10 mentioning %q", c.instr, err, c.want)
		}
	}
}
