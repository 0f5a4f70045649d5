package cgo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestLinkInputKinds links link_a.ptx (callTwice, which calls twice) with
// twice() given in each other form the CUDA linker takes: a relocatable
// cubin, a fatbin, a host object and an archive, as nvcc writes them
// (testdata/link/make.sh). TestLink covers PTX with PTX. The images are
// sm_90 code, so the link targets sm_90 explicitly (LinkOptions.Target),
// and a link for sm_80 must fail: that shows Target reaches the linker.
func TestLinkInputKinds(t *testing.T) {
	f := setup(t)
	var linker rt.Linker = f.d
	major, err := f.d.DeviceAttribute(0, rt.AttrComputeCapabilityMajor)
	must(t, err)
	if major != 9 {
		t.Skipf("the recorded inputs are sm_90 code; device 0 is sm_%d", major*10)
	}
	inputs := []struct {
		kind rt.LinkInputKind
		file string
	}{
		{rt.LinkCubin, "link_b.cubin"},
		{rt.LinkFatbin, "link_b.fatbin"},
		{rt.LinkObject, "link_b.o"},
		{rt.LinkLibrary, "liblink_b.a"},
	}
	for _, in := range inputs {
		t.Run(in.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "link", in.file))
			must(t, err)
			link := func(target int) ([]byte, string, error) {
				return linker.Link([]rt.LinkInput{
					{Kind: rt.LinkPTX, Name: "link_a.ptx", Data: linkAPTX},
					{Kind: in.kind, Name: in.file, Data: data},
				}, rt.LinkOptions{Ctx: f.a, Target: target})
			}
			image, log, err := link(90)
			must(t, err)
			t.Logf("LINK %s: %d-byte image; info log %q", in.file, len(image), strings.TrimSpace(log))
			if got := callTwice(t, f, image, 21); got != 42 {
				t.Fatalf("callTwice(21) linked with %s = %d, want 42", in.file, got)
			}
			if _, _, err := link(80); err == nil {
				t.Errorf("linking sm_90 %s for sm_80 succeeded: LinkOptions.Target did not reach the linker", in.file)
			} else {
				t.Logf("LINK %s for sm_80: %v", in.file, err)
			}
		})
	}
}
