package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
)

// newestPTX is the image the driver chooses among the library's compute_50,
// compute_70 and compute_80 PTX for compute capability cc.
func newestPTX(cc int) int {
	for _, t := range []int{80, 70, 50} {
		if t <= cc {
			return t
		}
	}
	return 0
}

// TestImageChoice runs the kernels on the default backend (rt/soft in CI,
// the GPU under CUGEN_BACKEND=cuda) and checks that the device runs the
// image the driver chooses for it: the newest of the three PTX targets not
// above its compute capability (compute_80 on sm_90).
func TestImageChoice(t *testing.T) {
	d, err := rt.Default()
	if err != nil {
		t.Fatal(err)
	}
	check(t, d)
}

// TestImageChoiceSoft: rt/soft chooses as a GPU of its emulated compute
// capability would.
func TestImageChoiceSoft(t *testing.T) {
	for _, cc := range []int{90, 86, 75, 70, 61} {
		t.Run(fmt.Sprintf("sm_%d", cc), func(t *testing.T) { check(t, soft.New(soft.Options{ComputeCapability: cc})) })
	}
}

func check(t *testing.T, d rt.Driver) {
	t.Helper()
	var out bytes.Buffer
	if err := run(&out, d); err != nil {
		t.Fatal(err)
	}
	os.Stdout.Write(out.Bytes())
	devs, _ := rt.DevicesOf(d)
	major, minor, err := devs[0].ComputeCapability()
	if err != nil {
		t.Fatal(err)
	}
	cc := 10*major + minor
	want := fmt.Sprintf("from compute_%d PTX as sm_%d code", newestPTX(cc), cc)
	if !strings.Contains(out.String(), want) {
		t.Errorf("%s: %s, want %q", d.Name(), strings.TrimSpace(out.String()), want)
	}
}
