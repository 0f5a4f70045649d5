package mathgen

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
)

// TestRemezEquioscillates checks the exchange on a case with a known
// answer: the minimax cubic for e^x on [-1, 1] has an absolute error of
// about 0.00553 (Chebyshev economisation bounds it by e/(2³·4!) = 0.0142),
// reached with alternating signs at five points.
func TestRemezEquioscillates(t *testing.T) {
	p, err := Remez(func(prec uint, x *Float) *Float { return Exp(prec, x) }, -1, 1, 3, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxErr < 0.0055 || p.MaxErr > 0.00556 {
		t.Errorf("max error %g, want about 0.00553", p.MaxErr)
	}
	// Five alternating extrema of (nearly) equal size.
	var ext []float64
	prev := 0.0
	for i := 0; i <= 4000; i++ {
		x := -1 + 2*float64(i)/4000
		e := math.Exp(x) - p.Eval(x)
		if i > 0 && i < 4000 {
			xn := -1 + 2*float64(i+1)/4000
			en := math.Exp(xn) - p.Eval(xn)
			if math.Abs(e) >= math.Abs(prev) && math.Abs(e) >= math.Abs(en) {
				ext = append(ext, e)
			}
		} else if i == 0 || i == 4000 {
			ext = append(ext, e)
		}
		prev = e
	}
	if len(ext) != 5 {
		t.Fatalf("%d extrema of the error, want 5: %v", len(ext), ext)
	}
	for i, e := range ext {
		if math.Abs(math.Abs(e)-p.MaxErr) > 1e-6 || (i > 0 && (e > 0) == (ext[i-1] > 0)) {
			t.Errorf("extrema %v do not equioscillate at %g", ext, p.MaxErr)
			break
		}
	}
}

// TestConstants checks the derived constants against known digits and the
// Cody–Waite splits' property: the first part has few enough bits.
func TestConstants(t *testing.T) {
	if w := TwoOverPiWords(2); w[0] != 0 || w[1] != 0xa2f9836e4e441529 || w[2] != 0xfc2757d1f534ddc0 {
		t.Errorf("2/π words %#x", w)
	}
	var b bytes.Buffer
	constDefines(&b)
	for _, want := range []string{
		"#define CUGEN_LN2_HI 0x1.62e42fefa39efp-01", "#define CUGEN_PI_HI 0x1.921fb54442d18p+01",
		"#define CUGEN_PI_LO 0x1.1a62633145c07p-53", "#define CUGEN_LN2_CW_1 0x1.62e42fefa38p-01",
		"#define CUGEN_PIO2_CW_1 0x1.921fb54p+00", "#define CUGEN_PIF_HI 0x1.921fb6p+01f",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("constants lack %q", want)
		}
	}
}

// TestHeaderFresh derives every polynomial and constant again and compares
// with the committed header: the device library is what this package says.
// Regenerate with go generate ./cmd/cugen/internal/clang.
func TestHeaderFresh(t *testing.T) {
	committed, err := os.ReadFile("../include/cugen/math_poly.h")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := DeriveAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := Header(ds); !bytes.Equal(got, committed) {
		t.Error("cmd/cugen/internal/clang/include/cugen/math_poly.h is stale: run go generate ./cmd/cugen/internal/clang")
	}
}
