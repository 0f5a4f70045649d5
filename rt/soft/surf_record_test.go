package soft

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
	"github.com/cugen/cugen/rt/soft/internal/texunit"
)

// surfRecView is the view of a recorded surface over bytes b. The header's
// kind is 0 unsigned, 1 signed, 2 float, 3 unsigned normalized, 4 signed
// normalized.
func surfRecView(s *surfRecord, b []byte) *texunit.View {
	h := s.hdr
	v := &texunit.View{Res: texunit.ResArray, Geom: int(h[0]), Chan: int(h[1]), Bits: int(h[2]), NChan: int(h[3]),
		W: int(h[4]), H: int(h[5]), D: int(h[6]), Layers: int(h[7]), Data: b}
	if h[1] >= 3 {
		v.Chan, v.ReadNorm = int(h[1])-3, true
	}
	return v
}

// surfRecForm splits a recorded suld.b/sust.b form: geometry, bytes per
// value, values, boundary mode.
func surfRecForm(form uint32) (geom, size, cnt, mode int) {
	geom = []int{texunit.Geom1D, texunit.Geom2D, texunit.Geom3D, texunit.GeomA1D, texunit.GeomA2D}[form/100]
	dt := int(form%100) / 4
	size = []int{1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8}[dt]
	cnt = []int{1, 2, 4, 1, 2, 4, 1, 2, 4, 1, 2}[dt]
	return geom, size, cnt, int(form % 4)
}

// suredRecForm splits a recorded sured form. 'SURD' (genforms2.py): form
// = kind*200 + op*40 + ty*10 + geom*2 + mode, ty indexing u32, s32, u64
// for add/min/max and b32, b64 for and/or; 'SUR2' (surf3.cu): form =
// kind*1000 + op*100 + ty*10 + geom*2 + mode, ty indexing u32, s32, u64,
// s64, b32, b64. kind 0 .b, 1 .p; op add, min, max, and, or; geom 1d, 2d,
// 3d; mode clamp, zero; 9 in place of geom*2 + mode (surf3.cu redtrap,
// surf6.bin.zst) is a 1-D .trap form.
func suredRecForm(tag, form uint32) (elems bool, op, cls, size, geom, mode int, name string) {
	f := int(form)
	var kind, ty int
	var ts []string
	if tag == surfRecRed2 {
		kind, op, ty = f/1000, f%1000/100, f%100/10
		ts = []string{"u32", "s32", "u64", "s64", "b32", "b64"}
	} else {
		kind, op, ty = f/200, f%200/40, f%40/10
		ts = [][]string{{"u32", "s32", "u64"}, {"u32", "s32", "u64"}, {"u32", "s32", "u64"}, {"b32", "b64"}, {"b32", "b64"}}[op]
	}
	ty = min(ty, len(ts)-1)
	elems, geom, mode = kind == 1, f%10/2, f%2
	if f%10 == 9 {
		geom, mode = 0, texunit.SurfTrap
	}
	size = 4
	if ts[ty][1:] == "64" {
		size = 8
	}
	cls = map[string]int{"u32": gpumath.AcU32, "s32": gpumath.AcS32, "u64": gpumath.AcU64, "s64": gpumath.AcS64, "b32": -1, "b64": -1}[ts[ty]]
	name = fmt.Sprintf("sured.%c.%s.%s.%s.%s", "bp"[kind], []string{"add", "min", "max", "and", "or"}[op], []string{"1d", "2d", "3d"}[geom], ts[ty], []string{"clamp", "zero", "trap"}[mode])
	op = []int{gpumath.AtAdd, gpumath.AtMin, gpumath.AtMax, gpumath.AtAnd, gpumath.AtOr}[op]
	return
}

// suredRecKey is a sured form's name without geometry and mode.
func suredRecKey(name string) string {
	f := strings.Split(name, ".")
	return strings.Join([]string{f[0], f[1], f[2], f[4]}, ".")
}

var surfRecFmtNames = []string{"u", "s", "f", "unorm", "snorm"}

func surfRecFmt(h []uint32) string {
	return fmt.Sprintf("%s%dx%d", surfRecFmtNames[h[1]], h[2], h[3])
}

// imageDiff says where two images first differ, or "" if they do not.
func imageDiff(got, want []byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bytes, H100 %d", len(got), len(want))
	}
	for j := range got {
		if got[j] != want[j] {
			return fmt.Sprintf("first at byte %d: got %02x, H100 %02x", j, got[j], want[j])
		}
	}
	return ""
}

// TestSurfRecorded replays the recorded suld.b, sust.b, sust.p and sured
// accesses (surfRecFiles: surf.bin.zst, surf2-sustp.bin.zst,
// surf2-sured.bin.zst, surf3.bin.zst, surf4.bin.zst, surf5.bin.zst,
// surf6.bin.zst) and requires the H100's loaded values and images bit for
// bit.
func TestSurfRecorded(t *testing.T) {
	_, sr, err := loadTexFiles("testdata/tex", surfRecFiles...)
	if err != nil {
		t.Fatal(err)
	}
	type count struct{ ok, n int }
	cats := map[string]*count{}
	tally := func(key string, ok bool) {
		c := cats[key]
		if c == nil {
			c = &count{}
			cats[key] = c
		}
		c.n++
		if ok {
			c.ok++
		}
	}
	gap, bad := 0, 0
	fail := func(format string, args ...any) {
		if bad++; bad <= 20 {
			t.Errorf(format, args...)
		}
	}
	for _, s := range sr {
		h := s.hdr
		switch s.tag {
		case surfRecLoad, surfRecStore:
			geom, size, cnt, mode := surfRecForm(h[8])
			if size*cnt != int(h[2]/8*h[3]) {
				// An access wider or narrower than the element meets the
				// arrays' tiled layout, which is not reproduced.
				gap++
				continue
			}
			if s.tag == surfRecLoad {
				v := surfRecView(&s, s.img)
				for i, c := range s.coords {
					got := texunit.SurfLoad(v, geom, c, size, cnt, mode)
					tally("suld.b loads", got == s.res[i])
					if got != s.res[i] {
						fail("suld form %d %v: coords %08x: got %08x, H100 %08x", h[8], h[:8], c, got, s.res[i])
					}
				}
				continue
			}
			img := append([]byte(nil), s.img...)
			v := surfRecView(&s, img)
			for i, c := range s.coords {
				texunit.SurfStore(v, geom, c, size, cnt, mode, s.res[i])
			}
			d := imageDiff(img, s.after)
			tally("sust.b store sequences", d == "")
			if d != "" {
				fail("sust.b form %d %v: image differs %s", h[8], h[:8], d)
			}
		case surfRecStoreP:
			f := int(h[8])
			geom, cnt, mode := f/100, []int{1, 2, 4}[f%100/10], f%10
			img := append([]byte(nil), s.img...)
			v := surfRecView(&s, img)
			for i, c := range s.coords {
				texunit.SurfStoreP(v, geom, c, cnt, mode, s.res[i])
			}
			d := imageDiff(img, s.after)
			tally("sust.p "+surfRecFmt(h), d == "")
			if d != "" {
				fail("sust.p %s form %d: image differs %s", surfRecFmt(h), f, d)
			}
		case surfRecRed, surfRecRed2:
			elems, op, cls, size, geom, mode, name := suredRecForm(s.tag, h[8])
			img := append([]byte(nil), s.img...)
			v := surfRecView(&s, img)
			if cls < 0 {
				cls = gpumath.AcU32
			}
			if elems {
				cls = texunit.SurfRedP(v, size)
			}
			for i, c := range s.coords {
				if mode == texunit.SurfTrap {
					// surf6 redtrap: recorded, so the H100 did not fault
					if _, st := texunit.SurfRedOffset(v, geom, c, size, mode, elems); st != texunit.SurfOK {
						fail("%s on %s at x = %d: outcome %d, but the H100 ran it", name, surfRecFmt(h), int32(c[0]), st)
					}
				}
				// (x counts accesses for sured.p: surfRedX)
				texunit.SurfReduce(v, geom, c, size, mode, elems, op, cls, uint64(s.res[i][0])|uint64(s.res[i][1])<<32)
			}
			d := imageDiff(img, s.after)
			key := suredRecKey(name)
			if elems {
				key += " " + surfRecFmt(h) // (surf4, surf5: every format)
			}
			if int(h[4]*h[2]/8*h[3])%size != 0 {
				key += " rows not whole" // (surf5 redshort, surf6)
			}
			if mode == texunit.SurfTrap {
				key += " trap" // (surf6 redtrap: accesses that fit)
			}
			tally(key, d == "")
			if d != "" {
				fail("%s on %s: image after %d reductions differs %s", name, surfRecFmt(h), len(s.coords), d)
			}
		default:
			t.Fatalf("record tag %#x", s.tag)
		}
	}
	keys := make([]string, 0, len(cats))
	for k := range cats {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-40s %6d/%6d exact", k, cats[k].ok, cats[k].n)
	}
	t.Logf("%d suld/sust records of access size != element size skipped", gap)
}
