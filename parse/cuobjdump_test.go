package parse

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestAgainstCuobjdump compares the model of real binaries with NVIDIA's
// cuobjdump -elf: the same set of kernels in the cubins, the same parameter
// sizes and offsets for every kernel. It needs the CUDA toolkit, so it runs
// on the GPU machine (rt/cgo/gpu-test.sh sets CUGEN_CUOBJDUMP_FILES to e.g.
// /usr/local/cuda/lib64/libcurand.so); elsewhere it skips and says why.
func TestAgainstCuobjdump(t *testing.T) {
	files := os.Getenv("CUGEN_CUOBJDUMP_FILES")
	if files == "" {
		t.Skip("set CUGEN_CUOBJDUMP_FILES=lib1.so:lib2.so (needs cuobjdump, from the CUDA toolkit)")
	}
	if _, err := exec.LookPath("cuobjdump"); err != nil {
		t.Skip("cuobjdump not on PATH: ", err)
	}
	for _, f := range strings.Split(files, ":") {
		t.Run(f, func(t *testing.T) { compareWithCuobjdump(t, f) })
	}
}

var (
	paramRE = regexp.MustCompile(`Ordinal\s*:\s*0x([0-9a-f]+)\s+Offset\s*:\s*0x([0-9a-f]+)\s+Size\s*:\s*0x([0-9a-f]+)`)
	elfRE   = regexp.MustCompile(`^\d+-bit ELF: .*\bsm=(\d+)`)
	archRE  = regexp.MustCompile(`^arch\s*=\s*(\S+)`)
)

// dumpLayouts reads cuobjdump -elf output: for every kernel (a .nv.info.NAME
// section) and cubin target ("name sm_90"), the distinct parameter layouts.
// A cubin starts at its "Fatbin elf code:" header (with an "arch = sm_90"
// line), or at its "64-bit ELF: ... sm=90" line in a cubin's own listing.
func dumpLayouts(out []byte) (cubins int, layouts map[string]map[string]bool) {
	layouts = map[string]map[string]bool{}
	type param struct{ ord, off, size int }
	var cur, arch string
	header := false
	var params []param
	flush := func() {
		if cur == "" {
			return
		}
		cur += " " + arch
		sort.Slice(params, func(i, j int) bool { return params[i].ord < params[j].ord })
		var b strings.Builder
		for _, p := range params {
			fmt.Fprintf(&b, "%d:%d ", p.off, p.size)
		}
		if layouts[cur] == nil {
			layouts[cur] = map[string]bool{}
		}
		layouts[cur][b.String()] = true
		cur, params = "", nil
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Fatbin elf code:"):
			flush()
			cubins++
			arch, header = "", true
		case archRE.MatchString(line) && header:
			arch = archRE.FindStringSubmatch(line)[1]
		case elfRE.MatchString(line):
			flush()
			if !header {
				cubins++
			}
			if !header || arch == "" {
				arch = "sm_" + elfRE.FindStringSubmatch(line)[1]
			}
			header = false
		case strings.HasPrefix(line, ".nv.info."):
			flush()
			cur = strings.TrimPrefix(line, ".nv.info.")
		case strings.HasPrefix(line, ".") || strings.HasPrefix(line, "Fatbin "):
			flush()
		case cur != "":
			if m := paramRE.FindStringSubmatch(line); m != nil {
				o, _ := strconv.ParseInt(m[1], 16, 64)
				off, _ := strconv.ParseInt(m[2], 16, 64)
				sz, _ := strconv.ParseInt(m[3], 16, 64)
				params = append(params, param{int(o), int(off), int(sz)})
			}
		}
	}
	flush()
	return cubins, layouts
}

func compareWithCuobjdump(t *testing.T, file string) {
	out, err := exec.Command("cuobjdump", "-elf", file).Output()
	if err != nil {
		t.Fatalf("cuobjdump -elf %s: %v", file, err)
	}
	cubins, want := dumpLayouts(out)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(file, data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{} // "name sm_90" → layout
	for _, k := range m.Kernels {
		for arch := range k.Regs { // the cubin targets: cuobjdump -elf shows cubins
			offsets, _ := k.Layout(arch)
			var b strings.Builder
			for i, p := range k.Params {
				fmt.Fprintf(&b, "%d:%d ", offsets[i], p.Size)
			}
			got[k.Name+" "+arch] = b.String()
		}
	}
	missing, extra, differ, params := 0, 0, 0, 0
	for name, ls := range want {
		g, ok := got[name]
		if !ok {
			missing++
			if missing <= 5 {
				t.Errorf("kernel %s: in cuobjdump, not in cugen", name)
			}
			continue
		}
		params += strings.Count(g, ":")
		if len(ls) != 1 || !ls[g] {
			differ++
			if differ <= 5 {
				t.Errorf("kernel %s: cugen %q, cuobjdump %v", name, g, ls)
			}
		}
	}
	for name := range got {
		if want[name] == nil {
			extra++
			if extra <= 5 {
				t.Errorf("kernel %s: in cugen, not in cuobjdump", name)
			}
		}
	}
	t.Logf("%s: %d cubins; cuobjdump %d kernels, cugen %d; %d params compared; missing %d, extra %d, differing %d; warnings %d",
		file, cubins, len(want), len(got), params, missing, extra, differ, len(m.Warnings))
	fmt.Printf("CUOBJDUMP-CMP %s cubins=%d kernels_cuobjdump=%d kernels_cugen=%d params=%d missing=%d extra=%d differ=%d\n",
		file, cubins, len(want), len(got), params, missing, extra, differ)
}

// The dump reader itself, on the committed listing of k.cu's sm_90 cubin.
func TestDumpLayouts(t *testing.T) {
	out, err := os.ReadFile("cubin/testdata/k90.elf.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, layouts := dumpLayouts(out)
	if got := layouts["k1 sm_90"]; len(got) != 1 || !got["0:8 8:4 16:24 40:8 "] {
		t.Errorf("k1 layouts %v", got)
	}
	if len(layouts) != 5 {
		t.Errorf("%d kernels in k90.elf.txt, want 5", len(layouts))
	}
}

// The model's per-target layouts are cuobjdump's, on field11's cubins.
func TestCubinLayoutsMatchCuobjdump(t *testing.T) {
	for _, arch := range []string{"sm_80", "sm_90"} {
		out := mustRead(t, "../cmd/cugen/testdata/lib64/field11_"+strings.ReplaceAll(arch, "_", "")+".elf.txt")
		_, want := dumpLayouts(out)
		m := readFile(t, "testdata/field11/field11.default.fatbin", Options{NoImage: true})
		n := 0
		for _, k := range m.Kernels {
			offsets, _ := k.Layout(arch)
			var b strings.Builder
			for i, p := range k.Params {
				fmt.Fprintf(&b, "%d:%d ", offsets[i], p.Size)
			}
			if ls := want[k.Name+" "+arch]; len(ls) != 1 || !ls[b.String()] {
				t.Errorf("%s %s: cugen %q, cuobjdump %v", k.Name, arch, b.String(), ls)
			}
			n++
		}
		if n != len(want) || n != 15 {
			t.Errorf("%s: %d kernels, cuobjdump %d", arch, n, len(want))
		}
	}
}
