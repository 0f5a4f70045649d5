package exec

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestALUPartialMatchesLanes: for every lane-pure op, a partial warp run as a
// full one (aluPartial) leaves every register, the inactive lanes'
// destinations included, as the lane-by-lane loop does, with a destination
// apart from the sources or equal to each of them, and on operand bits that
// include NaNs, infinities, subnormals and extreme integers.
func TestALUPartialMatchesLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	special := []uint64{0, 1, 0x7fc00000, 0xff800000, 0x7f800000, 0x00000001, 0x80000000, 0x7fffffff, 0xffffffff,
		1 << 63, 1<<63 - 1, ^uint64(0), 0x7ff8000000000000, 0x0000000100000000, 31, 32, 63, 64}
	masks := []uint32{0x7ffffffe, 0xfffffffe, 0x7fffffff, 0xffff0fff, 0xfff0ffff, 0x00ffffff, 0xaaaaaaaa, 1}
	ops, dense := 0, 0
	for op := opALU; op < opALU+nALU; op++ {
		if !aluDense[op%opCmp] {
			continue
		}
		ops++
		for _, dst := range []uint32{5 * 32, 1 * 32, 2 * 32, 3 * 32} {
			for _, m := range masks {
				reg := make([]uint64, 6*32)
				for i := range reg {
					if r.IntN(3) == 0 {
						reg[i] = special[r.IntN(len(special))]
					} else {
						reg[i] = r.Uint64()
					}
				}
				in := &inst{op: op, d: dst, a: 1 * 32, b: 2 * 32, c: 3 * 32, e: 4 * 32}
				want := append([]uint64(nil), reg...)
				execALUMask(in, want, m)
				execALU(in, reg, m)
				if bits.OnesCount32(m) >= aluDenseLanes {
					dense++
				}
				for i := range reg {
					if reg[i] != want[i] {
						t.Fatalf("%s, d=%d, mask %#x: register word %d is %#x, the lane loop gives %#x", genNames[op], dst/32, m, i, reg[i], want[i])
					}
				}
			}
		}
	}
	if ops < 100 || dense == 0 {
		t.Errorf("only %d lane-pure ops (%d dense runs)", ops, dense)
	}
}
