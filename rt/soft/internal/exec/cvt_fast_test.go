package exec

import (
	"math/rand/v2"
	"testing"
)

// TestCvtIIMatchesLanes: cvtII's shift-and-mask form gives the lane-by-lane
// form's result for every source and destination width, signedness and
// register width, on a full and a partial warp (a full warp's 32-to-64-bit
// extensions in assembly where the CPU has AVX2: cvtZext32, cvtSext32).
func TestCvtIIMatchesLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var a [32]uint64
	for i := range a {
		a[i] = r.Uint64()
		if i%4 == 0 {
			a[i] = uint64(int64(int8(a[i]))) // small negatives
		}
	}
	widths := []int64{8, 16, 32, 64}
	for _, sb := range widths {
		for _, db := range widths {
			for _, rw := range widths {
				for flags := int64(0); flags < 4; flags++ {
					spec := sb | db<<8 | flags<<16 | rw<<24
					for _, m := range []uint32{fullMask, 0x7ffffffe, 0x80000001} {
						in := &inst{imm: spec, d: 0, a: 32}
						reg := make([]uint64, 64)
						copy(reg[32:], a[:])
						cvtII(in, reg, m)
						var want [32]uint64
						cvtIILanes(spec, &want, &a, m)
						for l := 0; l < 32; l++ {
							if m&(1<<l) != 0 && reg[l] != want[l] {
								t.Fatalf("spec %#x lane %d of %#x: %#x, lanes give %#x", spec, l, a[l], reg[l], want[l])
							}
						}
					}
				}
			}
		}
	}
}
