package soft

import (
	"testing"

	"github.com/cugen/cugen/rt"
)

// FuzzLoad feeds mutated PTX to LibraryLoad: it may fail, never panic.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"typical_sm90.ptx", "more_sm90.ptx"} {
		b, err := readTestdata(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(factPTX))
	f.Add([]byte(globalsPTX))
	d := New(Options{})
	f.Fuzz(func(t *testing.T, src []byte) {
		if h, err := d.LibraryLoad(src, rt.LoadOptions{}); err == nil {
			_ = d.LibraryUnload(h)
		}
	})
}
