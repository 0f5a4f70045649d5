package exec

import "math/bits"

// aluDenseLanes is the fewest active lanes for which a partial warp runs a
// lane-pure op as a full warp (aluPartial); with fewer, the lane-by-lane
// loop does less work.
const aluDenseLanes = 20

// aluPartial runs the lane-pure generated op in (aluDense) for the lanes of
// m: it runs the full-warp loop, whose lanes are independent and which
// cannot fail on any operand bits, then puts back the destination of every
// lane outside m. Each lane reads its sources before it writes its
// destination, so a destination that is also a source is safe.
func aluPartial(in *inst, r []uint64, m uint32) {
	d := lanes(r, in.d)
	old := *d
	execALUMask(in, r, fullMask)
	for mm := ^m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		d[l] = old[l]
	}
}
