// mbarrier: the split arrive/wait barriers in shared memory that Hopper's
// asynchronous copies complete (mbarrier.init, inval, arrive, arrive_drop,
// their .expect_tx and .noComplete forms, expect_tx, complete_tx, test_wait,
// try_wait with and without .parity, pending_count, and
// cp.async.mbarrier.arrive), with the phase and tx-count semantics of the
// PTX ISA: a phase completes when its pending arrival count and its
// tx-count are both zero; the barrier then enters the next phase with the
// expected arrival count pending.
//
// An mbarrier lives in its 8 bytes of shared memory, encoded as
//
//	bits  0..19  expected arrivals per phase (init's count, less arrive_drops)
//	bits 20..39  pending arrivals of the current phase
//	bits 40..60  tx-count, two's complement (-(2^20-1) .. 2^20-1)
//	bit  62      initialised (init sets it, inval clears the word)
//	bit  63      the current phase's parity
//
// and the opaque state that arrive returns is the word as it was before the
// arrival. Uses that the ISA leaves undefined (an uninitialised barrier,
// more arrivals than are pending, a tx-count out of range, a .noComplete
// arrival that completes the phase) stop the launch with an error naming
// the barrier.
//
// A try_wait whose phase has not completed parks its lanes until the phase
// completes, as the hardware suspends them; when nothing else can run, they
// wake with false (the hardware's time limit), and if the barrier still
// makes no progress after that the launch fails with a deadlock report. A
// failing test_wait lets the warp's siblings run before it polls again.

package exec

import (
	"math/bits"
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

const (
	mbCountMask = 1<<20 - 1
	mbPendShift = 20
	mbTxShift   = 40
	mbTxMask    = 1<<21 - 1
	mbValid     = 1 << 62
	mbPhase     = 1 << 63
	mbMaxCount  = 1<<20 - 1
)

func mbExpected(v uint64) uint64 { return v & mbCountMask }
func mbPending(v uint64) uint64  { return v >> mbPendShift & mbCountMask }
func mbTx(v uint64) int64        { return gpumath.Sext(v>>mbTxShift&mbTxMask, 21) }

func mbWord(phase, expected, pending uint64, tx int64) uint64 {
	return phase | mbValid | expected | pending<<mbPendShift | uint64(tx)&mbTxMask<<mbTxShift
}

// mbWaiter is a lane parked in try_wait until the phase of parity phase
// of the barrier at off completes.
type mbWaiter struct {
	w     *warp
	lane  int
	off   uint64
	phase uint64 // mbPhase or 0
	pred  uint32
}

// mbarrier operations (opMbar's fl low nibble) and flags.
const (
	mbInit = iota
	mbInval
	mbArrive
	mbExpectTx
	mbCompleteTx
	mbTestWait
	mbTryWait
	mbPendingCount
	mbCpAsyncArrive

	mbFlagTx         = 1 << 4 // arrive.expect_tx
	mbFlagDrop       = 1 << 5 // arrive_drop
	mbFlagNoComplete = 1 << 6
	mbFlagParity     = 1 << 7 // the wait's operand is a phase parity
	mbFlagNoInc      = 1 << 8 // cp.async.mbarrier.arrive.noinc
	mbFlagCount      = 1 << 9 // arrive with a count operand
)

// resetAsync clears the CTA's asynchronous state for its next run.
func (c *cta) resetAsync() {
	c.mbw = c.mbw[:0]
	c.parked, c.yield = 0, false
	c.lastErrs, c.cdpSeq = nil, 0
}

// mbTarget resolves lane l's mbarrier address to the CTA whose shared
// memory holds it and a pointer to its word; nil means a fault.
func (c *cta) mbTarget(w *warp, space int, addr uint64, l int) (*cta, uint64, *uint64) {
	if space == spGeneric {
		if addr-sharedWin >= winSize {
			c.memFault(addr, 8, spGeneric, true, l, sprintf("mbarrier address %#x is not in shared memory", addr))
			return nil, 0, nil
		}
		addr -= sharedWin
	}
	t, off, msg := c.clusterTarget(addr)
	if t == nil {
		c.memFault(addr, 8, spShared, true, l, msg)
		return nil, 0, nil
	}
	if space == spShared && t != c {
		c.memFault(addr, 8, spShared, true, l, sprintf("shared::cta address %#x is in another CTA of the cluster; use .shared::cluster", addr))
		return nil, 0, nil
	}
	if off%8 != 0 {
		c.fault = &fault{kind: fMisaligned, warp: w.id, lane: l, pc: c.pc, addr: addr, size: 8, space: spShared, write: true,
			msg: sprintf("mbarrier address %#x is not 8-byte aligned", addr)}
		return nil, 0, nil
	}
	if off >= t.shLen || 8 > t.shLen-off {
		c.memFault(addr, 8, spShared, true, l, sprintf("mbarrier address %#x is outside the CTA's %s", addr, sharedDesc(t.shLen)))
		return nil, 0, nil
	}
	return t, off, (*uint64)(unsafe.Add(t.shPtr, off))
}

// mbFail records a misuse of the mbarrier at off.
func (c *cta) mbFail(w *warp, l int, t *cta, off uint64, format string, args ...any) bool {
	where := sprintf("mbarrier at shared address %#x", off)
	if t != c {
		where += sprintf(" of the cluster's CTA of rank %d", t.rank)
	}
	c.fault = &fault{kind: fInvalid, warp: w.id, lane: l, pc: c.pc, addr: off, space: spShared, msg: where + ": " + sprintf(format, args...)}
	return false
}

// mbar runs an mbarrier instruction for the lanes of m in lane order;
// false means a fault. A try_wait parks the lanes whose phase has not
// completed (c.parked); a test_wait that fails sets c.yield.
func (c *cta) mbar(w *warp, in *inst, m uint32, pc int32) bool {
	r := w.r
	kind := in.fl & 15
	base, b := lanes(r, in.a), lanes(r, in.b)
	c.parked = 0
	if c.rc != nil {
		c.rc.mbarSync(c, w, in, m) // racecheck.go
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		if kind == mbPendingCount {
			r[in.d+uint32(l)] = mbPending(b[l])
			continue
		}
		t, off, p := c.mbTarget(w, int(in.aux2), base[l]+uint64(in.imm), l)
		if p == nil {
			return false
		}
		v := *p
		if kind != mbInit && kind != mbInval && v&mbValid == 0 {
			return c.mbFail(w, l, t, off, "not initialised (mbarrier.init)")
		}
		switch kind {
		case mbInit:
			n := b[l] & 0xffffffff
			if n == 0 || n > mbMaxCount {
				return c.mbFail(w, l, t, off, "init count %d is outside 1..%d", n, mbMaxCount)
			}
			*p = mbWord(0, n, n, 0)
			c.cl.mbChanges++
		case mbInval:
			*p = 0
			c.cl.mbChanges++
		case mbArrive, mbCpAsyncArrive:
			if kind == mbCpAsyncArrive && in.fl&mbFlagNoInc == 0 {
				// The copies are complete: the arrival cancels the
				// increment that came with it.
				continue
			}
			count, tx := uint64(1), int64(0)
			if in.fl&mbFlagCount != 0 {
				count = b[l] & 0xffffffff
			}
			if in.fl&mbFlagTx != 0 {
				tx = int64(b[l] & 0xffffffff)
			}
			if !c.mbArrive(w, l, t, off, p, count, tx, in.fl) {
				return false
			}
			if in.d != 0 {
				r[in.d+uint32(l)] = v
			}
		case mbExpectTx, mbCompleteTx:
			tx := int64(b[l] & 0xffffffff)
			if kind == mbCompleteTx {
				tx = -tx
			}
			if !c.mbTx(w, l, t, off, p, tx) {
				return false
			}
		case mbTestWait, mbTryWait:
			if t != c {
				return c.mbFail(w, l, t, off, "waits on an mbarrier of another CTA")
			}
			phase := b[l] & mbPhase
			if in.fl&mbFlagParity != 0 {
				phase = b[l] & 1 << 63
			}
			done := v&mbPhase != phase
			if !done && kind == mbTryWait {
				c.mbw = append(c.mbw, mbWaiter{w: w, lane: l, off: off, phase: phase, pred: in.d})
				c.parked |= 1 << l
				continue
			}
			setBit(&w.pr[in.d], l, done)
			if !done {
				c.yield = true
			}
		}
	}
	if c.parked != 0 {
		w.waiting |= c.parked
		w.setPCs(c.parked, pc+1)
	}
	return true
}

// mbArrive performs count arrivals (and first an expect-tx of tx bytes) on
// the barrier at p in CTA t.
func (c *cta) mbArrive(w *warp, l int, t *cta, off uint64, p *uint64, count uint64, tx int64, fl uint16) bool {
	v := *p
	if tx != 0 {
		if !c.mbTx(w, l, t, off, p, tx) {
			return false
		}
		v = *p
	}
	pend, exp := mbPending(v), mbExpected(v)
	if count == 0 || count > mbMaxCount {
		return c.mbFail(w, l, t, off, "arrival count %d is outside 1..%d", count, mbMaxCount)
	}
	if count > pend {
		return c.mbFail(w, l, t, off, "%d arrivals, but the current phase has %d pending", count, pend)
	}
	if fl&mbFlagDrop != 0 {
		if count > exp {
			return c.mbFail(w, l, t, off, "arrive_drop of %d, but the barrier expects %d arrivals", count, exp)
		}
		exp -= count
	}
	pend -= count
	*p = mbWord(v&mbPhase, exp, pend, mbTx(v))
	if fl&mbFlagNoComplete != 0 && pend == 0 && mbTx(v) == 0 {
		return c.mbFail(w, l, t, off, "an arrive.noComplete completed the phase")
	}
	t.mbSettle(p, off)
	return true
}

// mbTx adds tx to the barrier's tx-count (expect-tx: positive; complete-tx:
// negative).
func (c *cta) mbTx(w *warp, l int, t *cta, off uint64, p *uint64, tx int64) bool {
	v := *p
	n := mbTx(v) + tx
	if n > mbMaxCount || n < -mbMaxCount {
		return c.mbFail(w, l, t, off, "tx-count %d is outside -(2^20-1)..2^20-1", n)
	}
	*p = mbWord(v&mbPhase, mbExpected(v), mbPending(v), n)
	t.mbSettle(p, off)
	return true
}

// mbSettle completes the current phase of the barrier at p (offset off of
// CTA c) if nothing is pending, waking the lanes that wait for it.
func (c *cta) mbSettle(p *uint64, off uint64) {
	c.cl.mbChanges++
	v := *p
	if mbPending(v) != 0 || mbTx(v) != 0 {
		return
	}
	v = mbWord(v&mbPhase^mbPhase, mbExpected(v), mbExpected(v), 0)
	*p = v
	ws := c.mbw[:0]
	for _, x := range c.mbw {
		if x.off == off && v&mbPhase != x.phase {
			x.w.pr[x.pred] |= 1 << x.lane
			x.w.waiting &^= 1 << x.lane
			if c.rc != nil {
				c.rc.strong(syncKey(off), x.w, x.lane) // racecheck.go: the wait acquires
			}
			continue
		}
		ws = append(ws, x)
	}
	c.mbw = ws
}

// mbCompleteTx is a bulk copy's complete-tx of n bytes on the mbarrier at
// the .shared::cluster address addr.
func (c *cta) mbCompleteTx(w *warp, addr uint64, n uint64, l int) bool {
	t, off, p := c.mbTarget(w, spCluster, addr, l)
	if p == nil {
		return false
	}
	if *p&mbValid == 0 {
		return c.mbFail(w, l, t, off, "not initialised (mbarrier.init)")
	}
	return c.mbTx(w, l, t, off, p, -int64(n))
}

func (c *cta) unstall() bool { return c.cl.unstall() }

// unstall wakes the lanes parked in try_wait with false when nothing else
// can run (the hardware's time limit); false means there were none, or
// the barriers made no progress since the last time: a deadlock.
func (cl *cluster) unstall() bool {
	any := false
	for _, c := range cl.ctas {
		any = any || len(c.mbw) > 0
	}
	if !any {
		return false
	}
	if cl.mbChanges == cl.stallMark {
		cl.stalls++
	} else {
		cl.stalls, cl.stallMark = 0, cl.mbChanges
	}
	if cl.stalls >= 2 {
		return false
	}
	for _, c := range cl.ctas {
		for _, x := range c.mbw {
			x.w.pr[x.pred] &^= 1 << x.lane
			x.w.waiting &^= 1 << x.lane
		}
		c.mbw = c.mbw[:0]
	}
	return true
}

// mbarrierWaits describes the barriers lanes wait on, for the deadlock
// report.
func (c *cta) mbarrierWaits() string {
	s := ""
	seen := map[uint64]bool{}
	for _, x := range c.mbw {
		if seen[x.off] {
			continue
		}
		seen[x.off] = true
		v := *(*uint64)(unsafe.Add(c.shPtr, x.off))
		s += sprintf("; mbarrier at shared address %#x waits for %d of %d arrivals and tx-count %d", x.off, mbPending(v), mbExpected(v), mbTx(v))
	}
	return s
}

// Decoding.

// mbarrierInstr decodes mbarrier.* and cp.async.mbarrier.arrive.
func (dc *decoder) mbarrierInstr(in *ptx.Instr, sc *scope, m modset, x inst) {
	ops := in.Operands
	x.op = opMbar
	kind := -1
	space := spGeneric
	for _, f := range m.list {
		switch f {
		case "init":
			kind = mbInit
		case "inval":
			kind = mbInval
		case "arrive":
			if kind < 0 {
				kind = mbArrive
			}
		case "arrive_drop":
			kind = mbArrive
			x.fl |= mbFlagDrop
		case "expect_tx":
			if kind == mbArrive {
				x.fl |= mbFlagTx
			} else {
				kind = mbExpectTx
			}
		case "complete_tx":
			kind = mbCompleteTx
		case "test_wait":
			kind = mbTestWait
		case "try_wait":
			kind = mbTryWait
		case "pending_count":
			kind = mbPendingCount
		case "parity":
			x.fl |= mbFlagParity
		case "noComplete":
			x.fl |= mbFlagNoComplete
		case "noinc":
			x.fl |= mbFlagNoInc
		case "shared", "shared::cta":
			space = spShared
		case "shared::cluster":
			space = spCluster
		case "mbarrier", "async":
		case "release", "acquire", "relaxed", "cta", "cluster":
		default:
			dc.failIn(in, "modifier .%s is not supported", f)
		}
	}
	if in.Op == "cp" {
		kind = mbCpAsyncArrive
	}
	if kind < 0 {
		dc.failIn(in, "unknown mbarrier operation")
	}
	if kind != mbCpAsyncArrive && m.typ() != ptx.B64 {
		dc.failIn(in, "expected .b64")
	}
	x.fl |= uint16(kind)
	x.aux2 = int32(space)
	addr := func(o ptx.Operand) { x.a, x.imm, _ = dc.memAddr(in, sc, o, space) }
	switch kind {
	case mbInit, mbExpectTx, mbCompleteTx:
		dc.nops(in, 2)
		addr(ops[0])
		x.b = dc.src(in, sc, ops[1], ptx.U32)
	case mbInval, mbCpAsyncArrive:
		dc.nops(in, 1)
		addr(ops[0])
	case mbArrive:
		dc.nops(in, 2, 3)
		if r, ok := ops[0].(*ptx.Reg); !ok || r.Name != "_" {
			if space == spCluster {
				dc.failIn(in, "an arrive on a .shared::cluster barrier returns no state: write _")
			}
			x.d = dc.dst(in, sc, ops[0])
		}
		addr(ops[1])
		switch {
		case x.fl&mbFlagTx != 0:
			dc.nops(in, 3)
			x.b = dc.src(in, sc, ops[2], ptx.U32)
		case len(ops) == 3:
			x.fl |= mbFlagCount
			x.b = dc.src(in, sc, ops[2], ptx.U32)
		case x.fl&mbFlagNoComplete != 0:
			dc.failIn(in, ".noComplete needs a count")
		}
	case mbTestWait, mbTryWait:
		if kind == mbTestWait {
			dc.nops(in, 3)
		} else {
			dc.nops(in, 3, 4) // the optional suspend-time hint changes nothing here
		}
		p, _ := dc.pred(in, sc, ops[0])
		x.d = p
		addr(ops[1])
		t := ptx.B64
		if x.fl&mbFlagParity != 0 {
			t = ptx.U32
		}
		x.b = dc.src(in, sc, ops[2], t)
		if space == spCluster {
			dc.failIn(in, "waits take a .shared::cta barrier")
		}
	case mbPendingCount:
		dc.nops(in, 2)
		x.d = dc.dst(in, sc, ops[0])
		x.b = dc.src(in, sc, ops[1], ptx.B64)
	}
	dc.emit(in, x)
}
