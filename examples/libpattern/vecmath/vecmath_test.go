package vecmath_test

import (
	"testing"

	"github.com/cugen/cugen/examples/libpattern/vecmath"
	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/cgo"
	_ "github.com/cugen/cugen/rt/soft"
)

// The caller owns the contexts: it creates one, uses the library, destroys
// it, and does it again; the library needs no notice of either.
func TestCallerOwnsContexts(t *testing.T) {
	x := make([]float32, 1000)
	y := make([]float32, 1000)
	var want float32
	for i := range x {
		x[i], y[i] = float32(i%7), float32(i%5)
		want += x[i] * y[i]
	}
	for round := 0; round < 3; round++ {
		devs, err := rt.Devices()
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := devs[0].NewContext(0)
		if err != nil {
			t.Fatal(err)
		}
		r, err := vecmath.Axpby(ctx, 2, x, -1, y)
		if err != nil {
			t.Fatal(err)
		}
		for i := range r {
			if r[i] != 2*x[i]-y[i] {
				t.Fatalf("round %d: axpby[%d] = %v, want %v", round, i, r[i], 2*x[i]-y[i])
			}
		}
		d, err := vecmath.Dot(ctx, x, y)
		if err != nil {
			t.Fatal(err)
		}
		if d != want { // small integers: exact in any order
			t.Fatalf("round %d: dot = %v, want %v", round, d, want)
		}
		if err := ctx.Release(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := vecmath.Dot(nil, x, y[:1]); err == nil {
		t.Error("mismatched lengths accepted")
	}
}
