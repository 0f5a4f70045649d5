// The instrumented side of racecheck: the memory operations of an
// instrumented program (racecheck.go rewrites them), which check each
// lane's access before or after making it with the plain operation, and
// the warp loop that runs when racecheck or the shuffled scheduler
// (shuffle.go) is on, so the default executor's loop stays as it is.

package exec

import (
	"math/bits"
	"unsafe"

	"github.com/cugen/cugen/rt/soft/internal/devmem"
)

// instrumented runs an instrumented instruction for the lanes of m.
func (c *cta) instrumented(w *warp, in *inst, m uint32) bool {
	switch in.op {
	case opLdRC:
		return c.ldRC(w, in, m)
	case opStRC:
		return c.stRC(w, in, m)
	case opAtomRC:
		return c.atomRC(w, in, m)
	case opCpAsyncRC:
		return c.cpAsyncRC(w, in, m)
	case opWarpSyncRC:
		c.rc.warpSync(w, m)
	}
	return true
}

// raceSpace resolves an address of a memory instruction of the given space
// to the space racecheck tracks it in (the CTA's shared memory, as an
// offset, or global memory), false for local, parameter and constant
// memory, which no other thread writes, and for the shared memory of other
// CTAs of a cluster, which racecheck does not track.
func (c *cta) raceSpace(space int, addr uint64) (int, uint64, bool) {
	switch space {
	case spShared:
		return spShared, addr, addr < c.shLen
	case spGlobal:
		return spGlobal, addr, true
	case spGeneric:
		switch spaceOfGeneric(addr) {
		case spShared:
			return spShared, addr - sharedWin, addr-sharedWin < c.shLen
		case spGlobal:
			return spGlobal, addr, true
		}
	}
	return 0, 0, false
}

// syncKey names a location's synchronisation state: a shared offset and a
// global address never coincide (global addresses start at 0x6000_0000_0000).
func syncKey(addr uint64) uint64 { return addr &^ 3 }

func (c *cta) ldRC(w *warp, in *inst, m uint32) bool {
	// The addresses first: a load may overwrite its address register.
	var addrs [32]uint64
	base := lanes(w.r, in.a)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		addrs[l] = base[l] + uint64(in.imm)
	}
	if !c.ld(w, in, m) {
		return false
	}
	c.rc.seq++
	n := uint64(in.fl&0xff) * uint64(in.e)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		sp, a, ok := c.raceSpace(int(in.aux2), addrs[l])
		switch {
		case !ok:
		case in.fl&memAtomic != 0:
			c.rc.strong(syncKey(a), w, l)
		case !c.check(w, l, sp, a, n, false, nil, nil):
			return false
		}
	}
	return true
}

// stRC stores lane by lane, each lane's store checked against the memory it
// is about to change.
func (c *cta) stRC(w *warp, in *inst, m uint32) bool {
	c.rc.seq++
	size, cnt := uint64(in.fl&0xff), uint64(in.e)
	tot := size * cnt
	base := lanes(w.r, in.a)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		addr := base[l] + uint64(in.imm)
		sp, a, ok := c.raceSpace(int(in.aux2), addr)
		strong := in.fl&memAtomic != 0
		if ok && !strong {
			p := c.ptr(w, int(in.aux2), addr, tot, true, l)
			if p == nil {
				return false
			}
			var buf [64]byte
			for i := uint64(0); i < cnt && (i+1)*size <= uint64(len(buf)); i++ {
				src := in.d
				if cnt > 1 {
					src = c.p.vec[in.aux+int32(i)]
				}
				v := w.r[src+uint32(l)]
				for k := uint64(0); k < size; k++ {
					buf[i*size+k] = byte(v >> (8 * k))
				}
			}
			if tot <= uint64(len(buf)) && !c.check(w, l, sp, a, tot, true, p, unsafe.Pointer(&buf[0])) {
				return false
			}
		}
		if !c.st(w, in, 1<<l) {
			return false
		}
		if ok && strong {
			c.rc.strong(syncKey(a), w, l)
		}
	}
	return true
}

// atomRC: atomics never race; each synchronises at its location.
func (c *cta) atomRC(w *warp, in *inst, m uint32) bool {
	var addrs [32]uint64
	base := lanes(w.r, in.a)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		addrs[l] = base[l] + uint64(in.imm)
	}
	if !c.atom(w, in, m) {
		return false
	}
	c.rc.seq++
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		if _, a, ok := c.raceSpace(int(in.aux2), addrs[l]); ok {
			c.rc.strong(syncKey(a), w, l)
		}
	}
	return true
}

// cpAsyncRC: cp.async reads global memory and writes shared memory, lane by
// lane (soft completes it at once).
func (c *cta) cpAsyncRC(w *warp, in *inst, m uint32) bool {
	c.rc.seq++
	size := uint64(in.fl)
	dst, src, soff, ss := lanes(w.r, in.a), lanes(w.r, in.b), lanes(w.r, in.c), lanes(w.r, in.d)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		to := c.ptr(w, spShared, dst[l]+uint64(in.imm), size, true, l)
		if to == nil {
			return false
		}
		n := min(ss[l]&0xffffffff, size)
		var buf [16]byte
		if n > 0 {
			from := c.ptr(w, spGlobal, src[l]+soff[l], size, false, l)
			if from == nil {
				return false
			}
			devmem.Copy(buf[:n], unsafe.Slice((*byte)(from), n))
			if !c.check(w, l, spGlobal, src[l]+soff[l], n, false, nil, nil) {
				return false
			}
		}
		if size <= uint64(len(buf)) && !c.check(w, l, spShared, dst[l]+uint64(in.imm), size, true, to, unsafe.Pointer(&buf[0])) {
			return false
		}
		if !c.cpAsync(w, in, 1<<l) {
			return false
		}
	}
	return true
}

// mbarSync is an mbarrier operation's synchronisation, for racecheck: each
// lane synchronises at the barrier's word (so arrivals release what came
// before them), before the operation, so that a wait it completes sees the
// arrival; a try_wait that parks acquires when it wakes (mbSettle).
// Barriers of other CTAs of the cluster are not tracked.
func (rs *raceState) mbarSync(c *cta, w *warp, in *inst, m uint32) {
	base := lanes(w.r, in.a)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		addr := base[l] + uint64(in.imm)
		if in.aux2 == spGeneric {
			if addr-sharedWin >= winSize {
				continue
			}
			addr -= sharedWin
		}
		if addr < c.shLen {
			rs.strong(syncKey(addr), w, l)
		}
	}
}

// runWarpSlow is runWarp with racecheck's lockstep bookkeeping and the
// shuffled scheduler's early switches: a group's run may end a few
// instructions on, and the warp may give way to the next one after any run.
func (c *cta) runWarpSlow(w *warp) bool {
	rs, sh := c.rc, c.shuf
	if rs != nil && rs.strict {
		rs = nil // strict mode keeps no lockstep order
	}
	for {
		run := w.runnable()
		if run == 0 {
			return true
		}
		group, pc, stop := c.pick(w, run)
		if sh != nil {
			stop = min(stop, pc+1+int32(sh.r.IntN(24)))
		}
		if rs != nil {
			rs.dispatchStart(w, group)
		}
		ok := c.exec(w, group, pc, stop)
		if rs != nil {
			rs.dispatchEnd(w, group)
		}
		if !ok {
			return false
		}
		if c.yield { // as in runWarp
			c.yield = false
			return true
		}
		if sh != nil && sh.r.IntN(4) == 0 {
			return true
		}
	}
}
