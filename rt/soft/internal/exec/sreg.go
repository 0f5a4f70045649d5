// Special registers. Those that never change while a worker runs a
// launch's CTAs (%tid, %ntid, %nctaid, %laneid, %smid, the lane masks, …)
// live in register slots written once per warp by fillSpecials, so reading
// one costs what reading a register does; run refreshes %ctaid per CTA; only
// the clocks and timers are read when executed (special). Their names and
// numbers are in program.go.

package exec

import (
	"math/bits"
	"time"
)

func (c *cta) special(w *warp, in *inst, m uint32) {
	var v uint64
	switch in.aux {
	case spClock:
		v = uint64(uint32(time.Since(c.l.start)))
	case spClock64:
		v = uint64(time.Since(c.l.start))
	case spGlobaltimer:
		v = uint64(time.Now().UnixNano())
	case spGlobaltimerLo:
		v = uint64(uint32(time.Now().UnixNano()))
	case spGlobaltimerHi:
		v = uint64(time.Now().UnixNano()) >> 32
	}
	d := lanes(w.r, in.d)
	for mm := m; mm != 0; mm &= mm - 1 {
		d[bits.TrailingZeros32(mm)&31] = v
	}
}

// fillSpecials writes the special registers that are the same for every
// CTA of a launch (everything but %ctaid) into each warp, once.
func (c *cta) fillSpecials() {
	l, g := c.l, c.l.Grid
	bx, by := uint32(l.Block.X), uint32(l.Block.Y)
	for _, w := range c.warps {
		for _, sv := range c.p.specials {
			v := lanes(w.r, sv.slot)
			for j := 0; j < 32; j++ {
				t := uint32(w.id*32 + j)
				var x uint64
				switch sv.val {
				case spTidX:
					x = uint64(t % bx)
				case spTidY:
					x = uint64(t / bx % by)
				case spTidZ:
					x = uint64(t / (bx * by))
				case spNtidX:
					x = uint64(l.Block.X)
				case spNtidY:
					x = uint64(l.Block.Y)
				case spNtidZ:
					x = uint64(l.Block.Z)
				case spCtaidX, spCtaidY, spCtaidZ:
					x = uint64(c.ctaid[sv.val-spCtaidX])
				case spNctaidX:
					x = uint64(g.X)
				case spNctaidY:
					x = uint64(g.Y)
				case spNctaidZ:
					x = uint64(g.Z)
				case spLaneid:
					x = uint64(j)
				case spWarpid:
					x = uint64(w.id)
				case spNwarpid:
					x = 64
				case spSmid:
					x = uint64(c.smid % NumSMs)
				case spNsmid:
					x = NumSMs
				case spGridid:
					x = l.gridID
				case spLanemaskEq:
					x = 1 << j
				case spLanemaskLt:
					x = 1<<j - 1
				case spLanemaskLe:
					x = 1<<(j+1) - 1
				case spLanemaskGt:
					x = uint64(^uint32(1<<(j+1) - 1))
				case spLanemaskGe:
					x = uint64(^uint32(1<<j - 1))
				case spDynSmem:
					x = uint64(l.DynShared)
				case spTotalSmem:
					x = userSmem(uint64(c.p.DynSharedOff) + uint64(l.DynShared))
				case spAggrSmem:
					x = uint64(c.p.DynSharedOff) + uint64(l.DynShared) // unrounded
				case spResSmemEnd:
					x = reservedSmemEnd
				case spResSmemCap:
					x = ReservedShared
				case spOne:
					x = 1
				default:
					if v, ok := c.perCTASpecial(int(sv.val)); ok {
						x = v
					} else {
						x = l.clusterSpecial(int(sv.val))
					}
				}
				v[j] = x
			}
		}
	}
}

// The reserved shared memory's special registers, as an H100 reads them:
// %reserved_smem_offset_begin 0, _end 288, _cap 1024 (sharedPerBlockRes),
// _0 and _1 0.
const reservedSmemEnd = 288

// userSmem is %total_smem_size for a CTA whose shared window (with the
// static part 16-aligned) is shLen bytes: the user's static and dynamic
// shared memory, the window less the reserved KB, in the sm_90 allocation
// unit of 128 bytes. %aggr_smem_size is the window itself, unrounded
// (TestSmemSizesH100 holds the H100's figures).
func userSmem(shLen uint64) uint64 {
	return (shLen - ReservedShared + 127) &^ 127
}
