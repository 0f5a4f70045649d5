package soft

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt/soft/internal/softtest"
	"github.com/cugen/cugen/rt/soft/internal/texunit"
)

// TestTexRecorded replays every texture sample recorded on the H100
// (testdata/tex) through the sampler and requires the same bits (under
// -race, every 16th of each configuration: the sampler runs on the test's
// goroutine alone, and the full replay runs in the ordinary go test).
func TestTexRecorded(t *testing.T) {
	tr, _, err := loadTexRecords("testdata/tex")
	if f := os.Getenv("TEXREC_FILES"); f != "" {
		// (while fitting: only these recordings, comma-separated)
		tr, _, err = loadTexFiles("testdata/tex", strings.Split(f, ",")...)
	}
	if err != nil {
		t.Fatal(err)
	}
	type count struct{ ok, n int }
	byMode := map[string]*count{}
	bad := 0
	for _, r := range tr {
		h := r.hdr
		if h[21] != 0 || texRecRefused(h[22]) {
			continue // the driver (or ptxas) refused the configuration
		}
		v := texRecView(&r)
		op := texRecForm(h[22])
		key := texRecKey(h)
		c := byMode[key]
		if c == nil {
			c = &count{}
			byMode[key] = c
		}
		for q := texunit.DimWidth; q <= texunit.DimDepth && q < len(r.txq); q++ {
			if got := texunit.Dims(v, false, q); got != r.txq[q] {
				t.Errorf("%s: txq query %d = %d, H100 %d", key, q, got, r.txq[q])
			}
		}
		for i := 0; i < len(r.coords); i += softtest.Sample(16) {
			co := r.coords[i]
			var got [4]uint32
			op := texRecOperands(h[22], op, co)
			switch {
			case texRecZero(h[22]): // (tex.grad.1d with a depth compare: 0)
			case op.Gather:
				got = v.GatherOp(op, co)
			default:
				got = v.Sample(op, co)
			}
			if texRecResidency(h[22]) {
				got[3] = 0
				if texunit.Resident {
					got[3] = 1
				}
			}
			c.n++
			if got == r.res[i] {
				c.ok++
				continue
			}
			bad++
			if bad <= 20 {
				t.Errorf("%s: coords %08x: got %08x, H100 %08x", key, co, got, r.res[i])
			}
		}
	}
	keys := make([]string, 0, len(byMode))
	for k := range byMode {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ok, n := 0, 0
	for _, k := range keys {
		c := byMode[k]
		ok += c.ok
		n += c.n
		t.Logf("%-40s %6d/%6d exact", k, c.ok, c.n)
	}
	t.Logf("all: %d/%d exact", ok, n)
}

// texRecKey4 names round 4's forms 121-135 (tex2-g).
var texRecKey4 = []string{"tex+offsets", "tex+offsets", "tex+offsets", "tex+offsets", "tex(int)+offsets",
	"tex.level+offsets", "tld4+offsets", "tld4|p", "tex|p", "tex+depth", "tex+depth", "tex+depth", "tld4",
	"tld4+depth", "tex+offsets|p"}

// texRecKey5 names round 5's forms 136-155 (tex2-k).
var texRecKey5 = []string{"tex+imm offsets", "tex+imm offsets", "tex+depth", "(refused)", "tex+depth",
	"tld4+depth", "tld4+depth", "tex(int)+offsets", "tex(int)+offsets", "tex(int)+offsets", "tex(int)+offsets",
	"tex.level+offsets", "tex.level+offsets", "tex.level+offsets", "tex.grad+offsets", "tex|p", "tex|p",
	"tld4|p", "tex|p", "tex(int)|p"}

var texRecGeomNames = []string{"1d", "2d", "3d", "a1d", "a2d", "cube", "acube"}
var texRecResNames = []string{"array", "linear", "pitch2d", "layered", "cube", "cube-layered"}

func texRecKey(h []uint32) string {
	form := h[22]
	op := "tex"
	switch {
	case form >= 121 && form <= 135:
		op = texRecKey4[form-121]
	case form >= 136 && form <= 155:
		op = texRecKey5[form-136]
	case form >= 156 && form <= 232:
		op = texRecKey6(form)
	case form == 100, form == 102, form == 119:
		op = "tex.level"
	case form == 101, form >= 116 && form <= 120:
		op = "tex.grad"
	case form == 103:
		op = "tex+offsets"
	case form == 104:
		op = "tex+depth"
	case form == 105:
		op = "tex+offsets+depth"
	case form == 106:
		op = "tex|p"
	case form == 107:
		op = "tld4+offsets"
	case form >= 108 && form <= 115:
		op = "tld4"
	case form >= 70:
		op = "tld4"
	case form%10 >= 3:
		op = "tex(int)"
	}
	fmtName := fmt.Sprintf("%c%d", "usf"[h[2]], h[3])
	rm := ""
	if h[14] != 0 {
		rm = "norm"
	}
	if h[16] != 0 {
		rm = "srgb"
	}
	filt := "point"
	if h[13] != 0 {
		filt = "linear"
	}
	if len(h) > 23 && h[23] != 0 {
		filt += " seamless"
	}
	return fmt.Sprintf("%s %s %s %s%s %s", op, texRecResNames[h[0]], texRecGeomNames[h[1]], fmtName, rm, filt)
}

// TestTexSRGBBorders replays the recordings of border colours:
// tex2-srg3 (targeted.inc's t_srgb3: colours at the ties of the unorm and
// snorm conversions and of the sRGB encode, a sweep of 3,072 sRGB border
// colours, sRGB cube maps) and tex2-srg4 (t_srgb4: for every sRGB code the
// first colour that encodes to it and its two neighbours, and 12,288 random
// colours). Every sample must be exact, texSRGBEncode's float curve
// included.
func TestTexSRGBBorders(t *testing.T) {
	for _, f := range []struct {
		name       string
		n, encoded int // at least this many samples, sRGB-encoded ones
	}{
		{"tex2-srg3.bin.zst", 9983, 1279},
		{"tex2-srg4.bin.zst", 4351, 4351},
	} {
		tr, _, err := loadTexFiles("testdata/tex", f.name)
		if err != nil {
			t.Fatal(err)
		}
		n, enc, bad := 0, 0, 0
		for _, r := range tr {
			h := r.hdr
			if h[21] != 0 {
				continue
			}
			v := texRecView(&r)
			op := texRecForm(h[22])
			encode := h[16] != 0 && h[1] != texunit.GeomCube && h[10] == 3 // sRGB, border addressing
			for i, co := range r.coords {
				n++
				if encode {
					enc++
				}
				if got := v.Sample(op, co); got != r.res[i] {
					if bad++; bad <= 10 {
						t.Errorf("%s: %s: border %08x: coords %08x: got %08x, H100 %08x", f.name, texRecKey(h), h[17:21], co, got, r.res[i])
					}
				}
			}
		}
		t.Logf("%s: %d samples (%d with sRGB-encoded border colours), %d differ", f.name, n, enc, bad)
		if n < f.n || enc < f.encoded {
			t.Errorf("%s: %d samples, %d sRGB border ones: recording incomplete", f.name, n, enc)
		}
	}
}

// TestTexPlanesAdd: the 3-D blend's z planes add with the finer plane cut
// toward -inf to 2^-(E mod 4) of the coarser plane's unit, E the coarser
// plane's biased exponent (NOTES.md, "3-D blend"; tex2-tplane's ties).
func TestTexPlanesAdd(t *testing.T) {
	for _, c := range []struct {
		a    int64
		ea   int
		b    int64
		eb   int
		sum  int64
		unit int
		why  string
	}{
		{255, 120, 1000, 128, 1000, 128, "E = 0 mod 4: cut to the whole unit"},
		{256, 120, 1000, 128, 1001, 128, "E = 0 mod 4: one unit counts"},
		{-1, 120, 1000, 128, 999, 128, "a negative finer sum floors"},
		{1000, 128, 255, 120, 1000, 128, "either order"},
		{127, 121, 1000, 129, 2000, 128, "E = 1 mod 4: half a unit"},
		{128, 121, 1000, 129, 2001, 128, ""},
		{63, 122, 1000, 130, 4000, 128, "E = 2 mod 4: a quarter"},
		{64, 122, 1000, 130, 4001, 128, ""},
		{31, 123, -1000, 131, -8000, 128, "E = 3 mod 4: an eighth"},
		{-33, 123, -1000, 131, -8002, 128, ""},
		{3, 129, 5, 131, 5<<2 + 3, 129, "planes within the kept bits add exactly"},
		{1, 1, 7, 131, 7 << 3, 128, "a far finer plane vanishes"},
		{-1, 1, 7, 131, 7<<3 - 1, 128, "or floors to -1 of the cut"},
	} {
		sum, unit := texunit.PlanesAdd(c.a, c.ea, c.b, c.eb)
		if sum != c.sum || unit != c.unit {
			t.Errorf("texPlanesAdd(%d, %d, %d, %d) = %d, %d; want %d, %d (%s)", c.a, c.ea, c.b, c.eb, sum, unit, c.sum, c.unit, c.why)
		}
	}
}
