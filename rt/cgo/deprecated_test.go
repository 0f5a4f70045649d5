package cgo

import (
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestLinkJIT: LinkOptions' deprecated fields reach the link where JIT
// leaves them zero, and JIT's own settings win.
func TestLinkJIT(t *testing.T) {
	got := linkJIT(rt.LinkOptions{MaxRegisters: 32, OptLevel: 2, Verbose: true, LineInfo: true})
	if want := (rt.JITOptions{MaxRegisters: 32, OptLevel: 2, Verbose: true, LineInfo: true}); got != want {
		t.Errorf("deprecated fields: %+v, want %+v", got, want)
	}
	got = linkJIT(rt.LinkOptions{JIT: rt.JITOptions{MaxRegisters: 64, OptLevel: 3, Debug: true}, MaxRegisters: 32, OptLevel: 1})
	if want := (rt.JITOptions{MaxRegisters: 64, OptLevel: 3, Debug: true}); got != want {
		t.Errorf("JIT set: %+v, want %+v", got, want)
	}
}
