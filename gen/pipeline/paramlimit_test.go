package pipeline

import (
	"regexp"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/hostile"
)

// Kernels whose parameter blocks no device takes (2^31-1 bytes, 8 x 1 GiB,
// 40,000) get no function, a line in the file's header and a warning each;
// the other kernels are generated as usual.
func TestParamBlockOverLimit(t *testing.T) {
	const gib = 1 << 30
	src := hostile.ParamPTX([]int{2147483647}, []int{gib, gib, gib, gib, gib, gib, gib, gib}, []int{40000}, []int{32764}, []int{8, 4})
	r := run(t, &Request{Inputs: []Input{{Name: "p.ptx", Data: src}}, Package: "p"})
	mustContain(t, r.Go.Data,
		"Kernels without a function, as no device can launch them:",
		"k0: parameter block of 2147483647 bytes, over CUDA's limit of 32764",
		"k1: parameter block of 8589934592 bytes",
		"k2: parameter block of 40000 bytes",
		`Library.Kernel("k3"`, `Library.Kernel("k4"`)
	for _, k := range []string{"k0", "k1", "k2"} {
		if strings.Contains(string(r.Go.Data), `Library.Kernel("`+k+`"`) {
			t.Errorf("%s is declared", k)
		}
	}
	if r.Warnings = typedWarnings(r.Warnings); len(r.Warnings) != 3 {
		t.Errorf("%d warnings: %v", len(r.Warnings), r.Warnings)
	}
	for i, w := range r.Warnings {
		if w.Input != "p.ptx" || !strings.Contains(w.Message, "kernel k"+string(rune('0'+i))+": parameter block of") {
			t.Errorf("warning %d: %v", i, w)
		}
	}
	// -kernels naming only a kernel over the limit is no error: the file
	// says why it has no function.
	r = run(t, &Request{Inputs: []Input{{Name: "p.ptx", Data: src}}, Package: "p", Kernels: regexp.MustCompile("^k2$")})
	mustContain(t, r.Go.Data, "k2: parameter block of 40000 bytes")
}
