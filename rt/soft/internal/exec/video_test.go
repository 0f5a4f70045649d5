package exec

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// vmad's negated operands follow the PTX ISA: -a or -b gives c - a*b, -c
// gives a*b - c, and either makes the result signed (.sat clamps to the
// s32 range). Checked against exact big-integer arithmetic on byte-selected
// operands (soft's own whole-word rules are the H100's, not the ISA's).
func TestVmadNegated(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		asg, bsg, sat := r.IntN(2) == 1, r.IntN(2) == 1, r.IntN(2) == 1
		neg := r.IntN(3) // 0: -a, 1: -b, 2: -c
		as, bs := int64(1+r.IntN(6)), int64(1+r.IntN(6))
		p := int64(vidMad)<<vsOp | as<<vsASel | bs<<vsBSel
		if asg {
			p |= vsASign
		}
		if bsg {
			p |= vsBSign
		}
		if sat {
			p |= vsSat
		}
		if neg < 2 {
			p |= vsNegAB
		} else {
			p |= vsNegC
		}
		a, b, c := uint64(r.Uint32()), uint64(r.Uint32()), uint64(r.Uint32())
		ta := big.NewInt(vidSelect(a, as, asg))
		tb := big.NewInt(vidSelect(b, bs, bsg))
		tc := big.NewInt(int64(int32(c)))
		want := new(big.Int).Mul(ta, tb)
		if neg < 2 {
			want.Sub(tc, want)
		} else {
			want.Sub(want, tc)
		}
		if sat {
			want = big.NewInt(clampBits(want.Int64(), 32, true))
		}
		w := uint64(want.Int64()) & 0xffffffff
		if got := scalarVideo(a, b, c, p); got != w {
			t.Fatalf("vmad spec %#x (a %#x sel %d, b %#x sel %d, c %#x): got %#x, want %#x", p, a, as, b, bs, c, got, w)
		}
	}
}
