package parse

import (
	"testing"
)

// A vector global's lanes are counted once: .v4 .u32 v[3] is 48 bytes.
func TestGlobalsFromPTX(t *testing.T) {
	src := `.version 8.0
.target sm_90
.address_size 64
.global .v4 .u32 v[3];
.global .v2 .f32 w = {0f3F800000, -1.5};
`
	m, err := Read("g.ptx", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name                  string
		elemSize, count, size int
		init                  string
	}{
		{"v", 16, 3, 48, ""},
		{"w", 8, 1, 8, "\x00\x00\x80\x3f\x00\x00\xc0\xbf"},
	} {
		g := m.Global(c.name)
		if g == nil {
			t.Fatalf("%s: missing", c.name)
		}
		if g.ElemSize != c.elemSize || g.Count != c.count || g.Size != c.size || string(g.Init) != c.init {
			t.Errorf("%s: elem %d count %d size %d init %x, want %d %d %d %x",
				c.name, g.ElemSize, g.Count, g.Size, g.Init, c.elemSize, c.count, c.size, c.init)
		}
	}
}
