package soft

import (
	"testing"

	"github.com/cugen/cugen/rt"
)

// FuzzLoad feeds mutated PTX to LibraryLoad: it may fail, never panic. The
// seeds are the small modules of the tests: with the 15 KB testdata files as
// seeds the fuzzer spent its time minimizing (6 executions in 90 s).
func FuzzLoad(f *testing.F) {
	f.Add([]byte(factPTX))
	f.Add([]byte(globalsPTX))
	d := New(Options{})
	f.Fuzz(func(t *testing.T, src []byte) {
		if h, err := d.LibraryLoad(src, rt.LoadOptions{}); err == nil {
			_ = d.LibraryUnload(h)
		}
	})
}
