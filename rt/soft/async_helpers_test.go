package soft

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// The recordings of testdata/async: what record.cu wrote on the H100, one
// line per result, "name hex hex ...".

// readRecording reads testdata/async/file (gzip-compressed if it ends in
// .gz) into its named lines of 32-bit words.
func readRecording(t *testing.T, file string) map[string][]uint32 {
	t.Helper()
	lines := readRecordingLines(t, file)
	out := map[string][]uint32{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		var vs []uint32
		for _, x := range f[1:] {
			v, err := strconv.ParseUint(x, 16, 32)
			if err != nil {
				t.Fatalf("%s: %s: %v", file, f[0], err)
			}
			vs = append(vs, uint32(v))
		}
		out[f[0]] = vs
	}
	return out
}

func readRecordingLines(t *testing.T, file string) []string {
	t.Helper()
	fh, err := os.Open(filepath.Join("testdata", "async", file))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var r io.Reader = fh
	if strings.HasSuffix(file, ".gz") {
		z, err := gzip.NewReader(fh)
		if err != nil {
			t.Fatal(err)
		}
		r = z
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// lcg is record.cu's generator of inputs.
type lcg uint32

func (s *lcg) next() uint32 {
	*s = *s*1664525 + 1013904223
	return uint32(*s)
}

// recorded fetches a recording's line, failing the test without it.
func recorded(t *testing.T, rec map[string][]uint32, name string) []uint32 {
	t.Helper()
	v, ok := rec[name]
	if !ok {
		t.Fatalf("the recording has no %q", name)
	}
	return v
}

// compareWords reports the first differences between soft's and the H100's
// words.
func compareWords(t *testing.T, what string, got, want []uint32) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d words, the H100 wrote %d", what, len(got), len(want))
		return
	}
	bad := 0
	for i := range got {
		if got[i] != want[i] {
			if bad < 5 {
				t.Errorf("%s[%d] = %#x, the H100 wrote %#x", what, i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d words differ", what, bad, len(got))
	}
}

// launchEx launches with a cluster dimension (zero: none) and a parameter
// buffer made by the caller.
func (e *env) launchEx(k rt.KernelHandle, grid, block, cluster rt.Dim3, smem uint32, p []byte) error {
	la := rt.LaunchArgs{Ctx: e.ctx, Grid: grid, Block: block, Cluster: cluster, SharedMem: smem, ParamSize: uintptr(len(p))}
	if len(p) > 0 {
		la.Params = unsafe.Pointer(&p[0])
	}
	if err := e.r.Launch(k, la); err != nil {
		return err
	}
	return e.r.CtxSynchronize(e.ctx)
}

func u32s(n int) []uint32 { return make([]uint32, n) }
