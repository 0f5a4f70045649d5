package parse

import (
	"testing"
)

// Globals as the model records them: sizes from the declaration (vector
// lanes counted once, an unsized array sized by its initializer) and the
// initial bytes from ptx.Var.InitData, the evaluator rt/soft loads with.
func TestGlobalsFromPTX(t *testing.T) {
	src := `.version 8.0
.target sm_90
.address_size 64
.global .f16 h = 0f3F800000;
.global .v4 .u32 v[3];
.global .v2 .f32 w = {0f3F800000, -1.5};
.global .u32 idx[] = {2, 3, 5};
.global .u64 p = generic(idx);
.global .u32 z = 0;
.global .u32 none;
.extern .global .u32 ext[];
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
		{"h", 2, 1, 2, "\x00\x3c"}, // was empty: "initialized": false and no doc line
		{"v", 16, 3, 48, ""},
		{"w", 8, 1, 8, "\x00\x00\x80\x3f\x00\x00\xc0\xbf"},
		{"idx", 4, 3, 12, "\x02\x00\x00\x00\x03\x00\x00\x00\x05"},
		{"p", 8, 1, 8, "\x00\x00\x00\x00\x00\x00\x00\x00"}, // the loader writes the address
		{"z", 4, 1, 4, ""},
		{"none", 4, 1, 4, ""},
		{"ext", 4, 0, 0, ""},
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
	if _, err := Read("g.ptx", []byte(".global .u32 a[2] = {1, 2, 3};"), Options{}); err == nil || err.Error() != "g.ptx:1:28: variable a: too many initializers: the variable holds 2 elements" {
		t.Errorf("bad initializer: %v", err)
	}
}
