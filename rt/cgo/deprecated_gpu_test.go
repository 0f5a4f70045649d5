//go:build cgo

package cgo

import (
	"fmt"
	"testing"
	"time"

	"github.com/cugen/cugen/rt"
)

// TestDeprecatedNames (GPU): KernelParamSpecs answers as KernelParamInfo
// does, and LinkOptions' deprecated Verbose still asks the linker for its
// info log. Skips without a GPU.
func TestDeprecatedNames(t *testing.T) {
	f := setup(t)
	d := f.d
	vecAdd := kernelOf(t, d, f.lib, "vecAdd")
	info, err1 := d.KernelParamInfo(vecAdd)
	specs, err2 := d.KernelParamSpecs(vecAdd)
	if fmt.Sprint(info, err1) != fmt.Sprint(specs, err2) {
		t.Errorf("KernelParamSpecs %v, %v; KernelParamInfo %v, %v", specs, err2, info, err1)
	}
	// A comment unique to the run keeps a JIT cache from answering.
	b := append(append([]byte{}, linkBPTX...), fmt.Sprintf("\n// %s %d\n", t.Name(), time.Now().UnixNano())...)
	in := []rt.LinkInput{{Kind: rt.LinkPTX, Name: "link_a.ptx", Data: linkAPTX}, {Kind: rt.LinkPTX, Name: "link_b.ptx", Data: b}}
	_, quiet, err := d.Link(in, rt.LinkOptions{Ctx: f.a})
	must(t, err)
	_, verbose, err := d.Link(in, rt.LinkOptions{Ctx: f.a, Verbose: true})
	must(t, err)
	t.Logf("info log: %q verbose, %q without", verbose, quiet)
	if len(verbose) <= len(quiet) {
		t.Errorf("Verbose: true gave the info log %q (without: %q)", verbose, quiet)
	}
}
