// CTA barriers: bar/barrier sync, arrive and red on the 16 named barriers,
// their release once every expected thread has arrived (or exited), and the
// deadlock report when no barrier can ever release. They are apart from the
// loop because they are how a CTA's warps wait for one another: the loop
// only parks lanes, and run releases them between warps.

package exec

import "math/bits"

// barrier is one of a CTA's 16 named barriers.
type barrier struct {
	arrived int // threads arrived since the last release
	expect  int // thread count of the current phase (0: all threads)
	popc    uint32
	and     bool
	or      bool
	red     bool // a bar.red: waiting lanes receive the reduction
}

// release frees every barrier whose arrival count is complete and reports
// whether any was freed.
func (c *cta) release() bool {
	c.barDirty = false
	freed := false
	for act := c.barActive; act != 0; act &= act - 1 {
		id := bits.TrailingZeros16(act)
		b := &c.bars[id]
		if b.expect > 0 {
			if b.arrived < b.expect {
				continue
			}
		} else if b.arrived+c.exits < c.nthr {
			continue
		}
		freed = true
		for _, w := range c.warps {
			rel := w.barMask[id]
			if rel == 0 {
				continue
			}
			w.waiting &^= rel
			w.barMask[id] = 0
			if c.rc != nil {
				c.rc.released(w, id, rel)
			}
			if !b.red {
				continue
			}
			for mm := rel; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				in := &c.p.code[w.pc[l]-1]
				switch {
				case in.fl&barRedPopc != 0:
					w.r[in.d+uint32(l)] = uint64(b.popc)
				case in.fl&barRedAnd != 0:
					setBit(&w.pr[in.d], l, b.and)
				case in.fl&barRedOr != 0:
					setBit(&w.pr[in.d], l, b.or)
				}
			}
		}
		if c.rc != nil {
			c.rc.phaseDone(id, b.arrived+c.exits >= c.nthr)
		}
		*b = barrier{}
		c.barActive &^= 1 << id
	}
	if c.cl.releaseBarrier() {
		freed = true
	}
	return freed
}

func (c *cta) deadlock() bool {
	f := &fault{kind: fDeadlock, lane: -1}
	msg := ""
	for _, w := range c.warps {
		for mm := w.waiting; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			if f.lane < 0 {
				f.warp, f.lane, f.pc = w.id, l, w.pc[l]-1
			}
		}
	}
	for id, b := range c.bars {
		if b.arrived > 0 {
			want := c.nthr - c.exits
			if b.expect > 0 {
				want = b.expect
			}
			msg += sprintf("; barrier %d has %d of %d threads", id, b.arrived, want)
		}
	}
	msg += c.clusterWaits() + c.mbarrierWaits()
	f.msg = "barrier can never complete (deadlock)" + msg
	c.fault = f
	return false
}

func (c *cta) bar(w *warp, in *inst, m uint32, pc int32) bool {
	l0 := bits.TrailingZeros32(m) & 31
	id := w.r[in.a+uint32(l0)]
	if id >= 16 {
		c.fault = &fault{kind: fInvalid, warp: w.id, lane: l0, pc: pc, msg: sprintf("barrier id %d is out of range (0..15)", id)}
		return false
	}
	b := &c.bars[id]
	expect := 0
	if in.fl&barCount != 0 {
		expect = int(w.r[in.b+uint32(l0)])
		if expect%32 != 0 || expect == 0 || expect > c.nthr {
			// Hardware counts whole warps; a count that is not a positive
			// multiple of 32 (or exceeds the CTA) can never complete.
			if expect > c.nthr {
				c.fault = &fault{kind: fDeadlock, warp: w.id, lane: l0, pc: pc,
					msg: sprintf("barrier %d waits for %d threads but the CTA has %d (deadlock)", id, expect, c.nthr)}
				return false
			}
		}
	}
	if b.arrived == 0 {
		b.expect = expect
		b.and = true
	}
	b.arrived += bits.OnesCount32(m)
	c.barActive |= 1 << id
	c.barDirty = true
	if c.rc != nil {
		c.rc.arrive(w, int(id), m, in.fl&barArrive == 0)
	}
	if in.fl&(barRedPopc|barRedAnd|barRedOr) != 0 {
		b.red = true
		p := w.pr[in.c]
		if in.fl&barRedNeg != 0 {
			p = ^p
		}
		p &= m
		b.popc += uint32(bits.OnesCount32(p))
		b.and = b.and && p == m
		b.or = b.or || p != 0
	}
	if in.fl&barArrive == 0 {
		w.waiting |= m
		w.barMask[id] |= m
		w.setPCs(m, pc+1)
	}
	return true
}
