package exec

// mma.sp recordings (random operands and valid 2:4 metadata), recorded
// with the wgmma bundle.

import (
	"encoding/binary"
	"fmt"
	"sync"
)

type spForm struct {
	shape   string
	a, c    mmaType
	na, nb  int
	sel     int
	ordered bool
}

func (f spForm) instr() string {
	sp := "mma.sp"
	if f.ordered {
		sp += "::ordered_metadata"
	}
	return fmt.Sprintf("%s.sync.aligned.%s.row.col.%s.%s.%s.%s", sp, f.shape, f.c, f.a, f.a, f.c)
}

func buildSpRecForms() []*recForm {
	fs := []spForm{
		{"m16n8k16", mtF16, mtF32, 2, 2, 0, false}, {"m16n8k16", mtF16, mtF32, 2, 2, 1, false},
		{"m16n8k32", mtF16, mtF32, 4, 4, 0, false},
		{"m16n8k32", mtBF16, mtF32, 4, 4, 0, false}, {"m16n8k16", mtTF32, mtF32, 4, 4, 0, false},
		{"m16n8k64", mtS8, mtS32, 4, 4, 0, false}, {"m16n8k32", mtS8, mtS32, 2, 2, 0, false},
	}
	var out []*recForm
	for _, f := range fs {
		name := f.instr() + fmt.Sprintf(".sel%d", f.sel)
		rf := regForm{instr: f.instr(), win: 4, wout: 4, nd: 4, na: f.na, nb: f.nb, nc: 4, extra: fmt.Sprintf("$E, %d", f.sel), nextra: 1, dtype: f.c, ctype: f.c}
		rnd := formRand(name)
		var cases [][]byte
		for i := 0; i < 4; i++ {
			nin := f.na + f.nb + 5
			b := make([]byte, 32*nin*4)
			for lane := 0; lane < 32; lane++ {
				for r := 0; r < nin; r++ {
					var v uint64
					switch {
					case r < f.na+f.nb:
						for j := 0; j < f.a.perReg(); j++ {
							v |= randElem(rnd, f.a, 6) << uint(j*f.a.bits())
						}
					case r < f.na+f.nb+4:
						v = randElem(rnd, f.c, 4)
					default:
						valid := []uint64{0x4, 0x8, 0xc, 0x9, 0xd, 0xe}
						if f.a == mtTF32 {
							valid = []uint64{0x4, 0xe}
						}
						for j := 0; j < 8; j++ {
							v |= valid[rnd.Intn(len(valid))] << uint(4*j)
						}
					}
					binary.LittleEndian.PutUint32(b[(lane*nin+r)*4:], uint32(v))
				}
			}
			cases = append(cases, b)
		}
		r := newRegForm(name, rf, "8.0", cases)
		out = append(out, r)
	}
	return out
}

// spRecForms is buildSpRecForms, built once: the forms are the same for every test
// (and their generation, under -race, most of a test's time).
var spRecForms = sync.OnceValue(buildSpRecForms)
