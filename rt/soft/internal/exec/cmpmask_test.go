package exec

import (
	"math/rand/v2"
	"testing"
)

// TestCmpMaskLaneOrder: every generated comparison puts lane l's outcome in
// bit l of its mask, on the full warp (built in 8-lane parts) and on partial
// warps (built lane by lane). The reference for lane l needs no lane order:
// lane l's operands copied to all 32 lanes give a mask that is all ones or
// all zeros. Each lane's operands are drawn independently, from special
// values (NaNs, infinities, subnormals, extreme integers) and random bits.
func TestCmpMaskLaneOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 2))
	special := []uint64{0, 1, 0x7fc00000, 0xff800000, 0x7f800000, 0x00000001, 0x80000000, 0x7fffffff, 0xffffffff,
		0x7e00, 0x7c00, 0x8000, 0x3c00, 0x7fc0, 0x7e007e00,
		1 << 63, 1<<63 - 1, ^uint64(0), 0x7ff8000000000000, 0x7ff0000000000000, 0x0000000100000000, 31, 32, 63, 64}
	masks := []uint32{0x7ffffffe, 0xfffffffe, 0x7fffffff, 0xffff0fff, 0x00ffffff, 0xaaaaaaaa, 0x80000001, 1, 1 << 31}
	in := &inst{a: 1 * 32, b: 2 * 32}
	reg := make([]uint64, 3*32)
	one := make([]uint64, 3*32)
	ops, mixed := 0, 0
	for op := opCmp; op < opEnd; op++ {
		in.op = op
		ops++
		for round := 0; round < 8; round++ {
			for i := range reg {
				if r.IntN(2) == 0 {
					reg[i] = special[r.IntN(len(special))]
				} else {
					reg[i] = r.Uint64()
				}
			}
			var want uint32
			for l := range 32 {
				for s := range 32 {
					one[32+s], one[64+s] = reg[32+l], reg[64+l]
				}
				switch execCmp(in, one, fullMask) {
				case fullMask:
					want |= 1 << l
				case 0:
				default:
					t.Fatalf("%s: lane %d's operands (%#x, %#x) in every lane give a mask of %#x", genNames[op], l, reg[32+l], reg[64+l], execCmp(in, one, fullMask))
				}
			}
			if want != 0 && want != fullMask {
				mixed++
			}
			if got := execCmp(in, reg, fullMask); got != want {
				t.Fatalf("%s: full warp mask %#032b, lane by lane %#032b", genNames[op], got, want)
			}
			for _, m := range masks {
				if got := execCmp(in, reg, m); got != want&m {
					t.Fatalf("%s: mask %#x gives %#032b, lane by lane %#032b", genNames[op], m, got, want&m)
				}
			}
		}
	}
	if ops < 200 || mixed < ops {
		t.Errorf("only %d comparisons, %d runs with lanes both true and false", ops, mixed)
	}
}
