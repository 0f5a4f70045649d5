package main

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse"
	"github.com/cugen/cugen/parse/hostile"
	"github.com/klauspost/compress/zstd"
)

// synthLibrary is a host shared object shaped like a toolkit library: a
// .nv_fatbin section of n zstd-compressed cubins per target (sm_90 if none
// is given), each a real cubin (parse/cubin's b.cubin, its two kernels
// renamed apart, the same names for every target) padded to about size
// bytes with data that compresses about 4:1, as code does.
func synthLibrary(t testing.TB, n, size int, arches ...uint32) []byte {
	base, err := os.ReadFile("../../parse/cubin/testdata/b.cubin")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	if len(arches) == 0 {
		arches = []uint32{90}
	}
	var es [][]byte
	for _, arch := range arches {
		for i := range n {
			c := bytes.ReplaceAll(base, []byte("_Z4kbig3BigPi"), []byte(fmt.Sprintf("_Z4k%03x3BigPi", i%4096)))
			c = bytes.ReplaceAll(c, []byte("_Z6ksmall6float4Pd3Big"), []byte(fmt.Sprintf("_Z6k%05x6float4Pd3Big", i)))
			for len(c) < size {
				c = append(c, "acgt"[r.IntN(4)])
			}
			es = append(es, hostile.Entry(hostile.KindELF, arch, hostile.FlagZstd, enc.EncodeAll(c, nil), uint64(len(c))))
		}
	}
	return hostile.ELF(hostile.Section{Name: ".nv_fatbin", Flags: elf.SHF_ALLOC, Data: hostile.Fatbin(es...)})
}

// TestListReadsEntriesOneByOne: cugen -list of a library reads its fatbin
// entries as it decodes them, so that its heap holds a few entries, not
// the file (issue 27: -list peaked at 3.7 times cuobjdump on cuRAND, at
// the file read whole, its section copied, and the garbage of every entry
// on top). 320 entries of 256 KiB: a 25 MB file listed in a heap of a few
// MB; read whole, the heap held more than twice the file.
func TestListReadsEntriesOneByOne(t *testing.T) {
	lib := synthLibrary(t, 320, 256<<10)
	path := filepath.Join(t.TempDir(), "libsynth.so")
	if err := os.WriteFile(path, lib, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	var status int
	peak := hostile.PeakHeap(func() { status = run([]string{"-list", "-json", path}, &out, &errs) })
	if status != 0 {
		t.Fatalf("cugen -list: status %d: %s", status, errs.String())
	}
	if !strings.Contains(out.String(), `"_Z6k0009f6float4Pd3Big"`) || strings.Count(out.String(), `"name": "_Z`) != 640 {
		t.Fatalf("the listing lacks kernels:\n%.2000s", out.String())
	}
	t.Logf("heap peak %d KB listing a %d KB file of %d MB of entries", peak>>10, len(lib)>>10, 320*256>>10)
	if peak > uint64(len(lib))/2 {
		t.Errorf("listing a %d KB library peaks at %d KB of heap: more than half the file (the entries are not read one at a time)", len(lib)>>10, peak>>10)
	}
}

// TestListMergesAsItDecodes: -list merges each entry's model into the
// library's as it is decoded and lets it go (issue 27: with every entry's
// model held until the merge, a library of many small kernels for several
// targets peaked at 1.2 times cuobjdump, libnppitc). The same 2400 kernels
// for eight targets cost little more heap than for one (3.4 times as much
// when the models were held, 1.5 now): the merged model holds each kernel
// once, with a layout per target.
func TestListMergesAsItDecodes(t *testing.T) {
	peak := func(arches ...uint32) uint64 {
		path := filepath.Join(t.TempDir(), "libsynth.so")
		if err := os.WriteFile(path, synthLibrary(t, 1200, 4<<10, arches...), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errs bytes.Buffer
		var status int
		p := hostile.PeakHeap(func() { status = run([]string{"-list", "-json", path}, &out, &errs) })
		if status != 0 {
			t.Fatalf("cugen -list: status %d: %s", status, errs.String())
		}
		if n := strings.Count(out.String(), `"name": "_Z`); n != 2400 {
			t.Fatalf("the listing has %d kernels, want 2400", n)
		}
		return p
	}
	one, eight := peak(90), peak(75, 80, 86, 87, 89, 90, 100, 120)
	t.Logf("heap peak %d KB for one target, %d KB for eight", one>>10, eight>>10)
	if eight > one*9/4 {
		t.Errorf("listing 2400 kernels for eight targets peaks at %d KB of heap, for one at %d KB: more than 2.25 times (the entries' models are held until the merge)", eight>>10, one>>10)
	}
}

// TestWriteJSONIsEncoder: -list -json, written a kernel at a time, is byte
// for byte what json.Encoder with two-space indentation makes of the whole
// listing (the form it had), for modules with and without kernels,
// globals, per-target layouts and warnings, and for none.
func TestWriteJSONIsEncoder(t *testing.T) {
	var mods []*parse.Module
	for _, f := range []string{"../../parse/fatbin/testdata/k.so", "../../parse/fatbin/testdata/kr.o",
		"../../parse/testdata/field11/field11.default.fatbin", "../../parse/testdata/field11/field11_sm80.ptx", "testdata/k.ptx"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := parse.Read(f, data, parse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		mods = append(mods, m)
	}
	noCode, err := parse.Read("libnone.so", hostile.ELF(hostile.Section{Name: ".text", Data: []byte{0}}), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mods = append(mods, noCode)
	var kernels, globals, layouts, warnings int
	for _, m := range mods {
		kernels += len(m.Kernels)
		globals += len(m.Globals)
		warnings += len(m.Warnings)
		for _, k := range m.Kernels {
			layouts += len(k.Layouts)
		}
	}
	if kernels == 0 || globals == 0 || layouts == 0 || warnings == 0 {
		t.Fatalf("the inputs have %d kernels, %d globals, %d per-target layouts, %d warnings: want some of each", kernels, globals, layouts, warnings)
	}
	for _, ms := range [][]*parse.Module{mods, mods[:1], nil} {
		want := []jsonModule{}
		for _, m := range ms {
			j := jsonModule{Source: m.Source, Format: m.Format.String(), Arches: m.Arches, Warnings: m.Warnings,
				Kernels: []jsonKernel{}, Globals: []jsonGlobal{}}
			if j.Arches == nil {
				j.Arches = []string{}
			}
			for _, k := range m.Kernels {
				j.Kernels = append(j.Kernels, kernelJSON(k))
			}
			for _, g := range m.Globals {
				j.Globals = append(j.Globals, globalJSON(g))
			}
			want = append(want, j)
		}
		var enc, got bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetIndent("", "  ")
		if err := e.Encode(want); err != nil {
			t.Fatal(err)
		}
		if err := writeJSON(&got, ms); err != nil {
			t.Fatal(err)
		}
		if got.String() != enc.String() {
			i := 0
			for i < min(got.Len(), enc.Len()) && got.Bytes()[i] == enc.Bytes()[i] {
				i++
			}
			t.Fatalf("%d modules: writeJSON differs from json.Encoder at byte %d:\n got %q\nwant %q", len(ms), i,
				got.String()[max(0, i-80):min(got.Len(), i+80)], enc.String()[max(0, i-80):min(enc.Len(), i+80)])
		}
	}
}
