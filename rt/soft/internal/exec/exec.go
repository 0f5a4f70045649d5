// The executor's core: warp and CTA state, running a CTA (run), the
// scheduler that picks the lanes that run together (pick: min-PC
// reconvergence, call stacks compared outermost first), the instruction
// budget, and the dispatch loop (exec) with the ops that take a few lines,
// plus the two hand-written per-lane ALU ops (cvtII, carry). Ops that need
// more live beside it, so that this file reads as the loop: memory access
// in memaccess.go and atom.go, warp collectives in collective.go, barriers
// in barrier.go, calls and the stack in call.go, special registers in
// sreg.go, arithmetic in ops_gen.go (generated) and fp.go.

package exec

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// warp is the state of 32 lanes. Registers are structure-of-arrays:
// register slot s of lane l is r[s*32+l]. Lanes run in lockstep groups: the
// lanes at the lowest pc (and the same call stack) run together.
type warp struct {
	id      int
	r       []uint64
	pr      []uint32 // predicate p of lane l is bit l of pr[p]
	pc      [32]int32
	same    bool   // every live lane's pc is pc[0] (a store to one lane's pc clears it)
	live    uint32 // lanes that exist (a CTA's last warp may be partial)
	exited  uint32
	waiting uint32     // parked at a barrier
	barMask [16]uint32 // lanes waiting on each named barrier
	clArr   uint32     // arrived at the cluster barrier's current phase
	clWait  uint32     // parked in barrier.cluster.wait
	cc      uint32     // carry flags of add.cc and friends
	nonuni  uint64     // uniform candidates that may differ by lane (uniform.go)
	wg      *wgState   // wgmma operations not yet completed (tensor_wgmma.go)

	calls  int // lanes with a non-empty call stack
	frames [32][]frame
	saves  [32][]uint64

	local   []uint64 // lane l's local memory is bytes [l*lstride, (l+1)*lstride)
	lptr    unsafe.Pointer
	lstride uint64

	dsp     [32]uint64 // each lane's dynamic stack pointer (alloca.go)
	dyn     []uint64   // lane l's dynamic stack is bytes [l*dstride, (l+1)*dstride)
	dstride uint64
}

func (w *warp) runnable() uint32 { return w.live &^ w.exited &^ w.waiting }

// restExited reports that the lanes of the warp outside m, some, have
// exited or do not exist (exitedAsFull).
func (w *warp) restExited(m uint32) bool {
	return m != fullMask && m|w.exited|^w.live == fullMask && exitedAsFull
}

// faultKind says what stopped a CTA.
type faultKind int

const (
	fIllegalAddress faultKind = iota
	fMisaligned
	fDeadlock
	fBudget
	fTrap
	fAssert
	fStack
	fPanic
	fInvalid
	fRace // a racecheck hazard (racecheck.go)
)

type fault struct {
	kind  faultKind
	warp  int
	lane  int
	pc    int32
	addr  uint64
	size  uint64
	space int
	write bool
	msg   string
	code  rt.Result // the error's code when not kind's (a stop for another kernel's fault)
}

// cta is a worker's execution state; it runs one CTA at a time and is
// reused for the next (registers are not cleared in between, as on a GPU).
type cta struct {
	l     *Launch
	p     *Program
	warps []*warp
	ctaid [3]uint32
	bars  [16]barrier
	nthr  int
	exits int // exited threads of the current CTA
	// barDirty is set when a barrier gained arrivals or a thread exited
	// since the last release check.
	barDirty bool
	// barActive has bit id set while barrier id has arrivals, so that
	// release looks at those alone.
	barActive uint16

	// Clusters and the asynchronous machinery (cluster.go, mbarrier.go):
	// the CTA's cluster and rank in it, the lanes waiting on mbarriers,
	// the lanes the current instruction parked, and whether the running
	// warp polls for something only another warp can change.
	cl     *cluster
	own    cluster // cl when the CTA is a cluster of one
	self   [1]*cta
	rank   int
	mbw    []mbWaiter
	parked uint32
	yield  bool

	// The device runtime (cdp.go): each thread's last error, and the
	// order of the CTA's launches and copies.
	lastErrs map[int]uint32
	cdpSeq   int

	shared   []uint64
	shPtr    unsafe.Pointer
	shLen    uint64
	smid     int
	fault    *fault
	quota    uint64 // thread-instructions this worker may still run
	executed uint64
	pc       int32
	w        *warp

	// gc caches, per instruction, the global allocation it last touched:
	// an instruction almost always addresses the same buffer.
	gc []gcache

	rc   *raceState // Options.RaceCheck's state, nil when off (racecheck.go)
	shuf *shuffler  // Config.ShuffleSeed's scheduler, nil when off (shuffle.go)
}

func newCTA(l *Launch, smid int) *cta {
	p := l.Program
	nw := (l.nthreads + 31) / 32
	shLen := ReservedShared + uint64(p.SharedSize)
	if l.DynShared > 0 {
		shLen = uint64(p.DynSharedOff) + uint64(l.DynShared)
	}
	// A CTA of an earlier launch of p with the same shape lends its
	// buffers, cleared: the new one starts as a fresh allocation would.
	old := p.takeCTA()
	if old != nil && (len(old.warps) != nw || old.shLen != shLen) {
		old = nil
	}
	c := old
	if c == nil {
		c = &cta{gc: make([]gcache, len(p.code))}
	} else {
		gc, warps, shared := old.gc, old.warps, old.shared
		clear(gc)
		clear(shared)
		*c = cta{gc: gc, warps: warps[:0], shared: shared}
	}
	c.l, c.p, c.smid = l, p, smid
	c.nthr = l.nthreads
	stride := uint64(align(max(p.Stack, 16), 16))
	for i := 0; i < nw; i++ {
		var w *warp
		if old != nil {
			w = c.warps[:nw][i]
			r, pr, local := w.r, w.pr, w.local
			clear(r)
			clear(pr)
			clear(local)
			*w = warp{id: i, r: r, pr: pr, local: local}
		} else {
			w = &warp{id: i, r: make([]uint64, p.NSlots*32), pr: make([]uint32, p.npreds)}
		}
		live := l.nthreads - 32*i
		if live >= 32 {
			w.live = fullMask
		} else {
			w.live = 1<<uint(live) - 1
		}
		for _, cv := range p.consts {
			splat(lanes(w.r, cv.slot), cv.val)
		}
		for _, kp := range p.kparams {
			var v uint64
			if end := uint64(kp.off) + uint64(kp.size); end <= uint64(len(l.Params)) {
				for k := int(kp.size) - 1; k >= 0; k-- {
					v = v<<8 | uint64(l.Params[int(kp.off)+k])
				}
			}
			if kp.sext != 0 {
				v = uint64(gpumath.Sext(v, uint(kp.size)*8)) & gpumath.Mask(uint(kp.sext)*8)
			}
			splat(lanes(w.r, kp.slot), v)
		}
		for _, sv := range p.syms {
			splat(lanes(w.r, sv.slot), l.Vars[sv.val])
		}
		if p.Stack > 0 || p.recursive {
			w.lstride = stride
			if w.local == nil {
				w.local = make([]uint64, 32*stride/8)
			}
			w.lptr = unsafe.Pointer(&w.local[0])
		}
		c.warps = append(c.warps, w)
	}
	if c.shared == nil {
		c.shared = make([]uint64, (shLen+7)/8+1)
	}
	c.shPtr = unsafe.Pointer(&c.shared[0])
	c.shLen = shLen
	c.self[0] = c
	c.own = cluster{ctas: c.self[:], dim: [3]uint32{1, 1, 1}, size: 1}
	c.cl = &c.own
	c.fillSpecials()
	for _, w := range c.warps {
		for i := range p.hoisted {
			switch x := &p.hoisted[i]; {
			case x.op == opCvtII:
				cvtII(x, w.r, fullMask)
			case x.op < opCmp:
				execALU(x, w.r, fullMask)
			default:
				w.pr[x.d] = execCmp(x, w.r, fullMask)
			}
		}
	}
	c.checkModes()
	return c
}

// recycle lends c's buffers to the next launch of its program (newCTA).
func (c *cta) recycle() {
	c.l, c.fault, c.w, c.rc, c.shuf, c.lastErrs, c.mbw = nil, nil, nil, nil, nil, nil, nil
	c.cl, c.self[0] = nil, nil
	p := c.p
	p.ctaMu.Lock()
	if len(p.ctaFree) < maxFreeCTAs {
		p.ctaFree = append(p.ctaFree, c)
	}
	p.ctaMu.Unlock()
}

// maxFreeCTAs bounds a program's recycled CTAs (a launch takes one per
// worker).
const maxFreeCTAs = 64

// reserveCTAs makes sure the free list holds n CTAs for l's workers before
// they start, so that the CTAs a program keeps depend on its launches'
// worker counts and not on how the scheduler happened to overlap the
// workers: a late worker of a loaded machine would otherwise find the
// list empty, make one more CTA, and a launch long past the first would
// allocate (TestLaunchAllocs). A CTA of another shape is reshaped by
// newCTA as before.
func (l *Launch) reserveCTAs(n int) {
	p := l.Program
	n = min(n, maxFreeCTAs)
	p.ctaMu.Lock()
	short := n - len(p.ctaFree)
	p.ctaMu.Unlock()
	if short <= 0 {
		return
	}
	// newCTA takes the free ones first, so n of them leave n on the list.
	made := make([]*cta, n)
	for i := range made {
		made[i] = newCTA(l, 0)
	}
	p.ctaMu.Lock()
	if cap(p.ctaFree) < n {
		p.ctaFree = append(make([]*cta, 0, n), p.ctaFree...)
	}
	p.ctaMu.Unlock()
	for _, c := range made {
		c.recycle()
	}
}

func (p *Program) takeCTA() *cta {
	p.ctaMu.Lock()
	defer p.ctaMu.Unlock()
	n := len(p.ctaFree)
	if n == 0 {
		return nil
	}
	c := p.ctaFree[n-1]
	p.ctaFree[n-1] = nil
	p.ctaFree = p.ctaFree[:n-1]
	return c
}

// run executes CTA number id; false means it faulted (c.fault).
func (c *cta) run(id uint64) bool {
	c.start(id)
	for {
		progress, ok := c.sweep()
		if !ok {
			return false
		}
		if c.finished() {
			return true
		}
		if !progress && !c.release() && !c.unstall() {
			return c.deadlock()
		}
	}
}

// start readies the CTA to run CTA number id from its first instruction.
func (c *cta) start(id uint64) {
	l := c.l
	g := l.Grid
	c.ctaid = [3]uint32{uint32(id % uint64(g.X)), uint32(id / uint64(g.X) % uint64(g.Y)), uint32(id / (uint64(g.X) * uint64(g.Y)))}
	c.bars = [16]barrier{}
	c.barActive = 0
	c.exits = 0
	c.resetAsync()
	for _, w := range c.warps {
		w.exited, w.waiting, w.cc, w.clArr, w.clWait = 0, 0, 0, 0, 0
		// Lanes that exited early in the last CTA run again: their
		// registers may differ from the others'.
		w.nonuni = ^uint64(0)
		w.barMask = [16]uint32{}
		w.pc = [32]int32{}
		w.same = true
		w.wg = nil
		if w.calls > 0 {
			for i := range w.frames {
				w.frames[i] = w.frames[i][:0]
				w.saves[i] = w.saves[i][:0]
			}
			w.calls = 0
		}
		if c.p.usesAlloca {
			w.dsp = [32]uint64{}
		}
		fb := lanes(w.r, fbSlot)
		*fb = [32]uint64{}
		for _, sv := range c.p.ctaSpecials {
			x, _ := c.perCTASpecial(int(sv.val))
			splat(lanes(w.r, sv.slot), x)
		}
	}
	if c.rc != nil || c.shuf != nil {
		c.startChecks(id)
	}
}

// sweep runs every runnable warp until it blocks, exits or yields;
// progress reports that some warp ran.
func (c *cta) sweep() (progress, ok bool) {
	for _, w := range c.schedule() {
		if w.runnable() == 0 {
			continue
		}
		progress = true
		c.w = w
		if !c.runWarp(w) {
			return progress, false
		}
		if c.barDirty {
			c.release()
		}
	}
	return progress, true
}

// finished reports that every thread of the CTA has exited.
func (c *cta) finished() bool {
	for _, w := range c.warps {
		if w.live&^w.exited != 0 {
			return false
		}
	}
	return true
}

func setBit(p *uint32, l int, v bool) {
	if v {
		*p |= 1 << l
	} else {
		*p &^= 1 << l
	}
}

func (c *cta) runWarp(w *warp) bool {
	if c.rc != nil || c.shuf != nil {
		return c.runWarpSlow(w)
	}
	for {
		run := w.runnable()
		if run == 0 {
			return true
		}
		group, pc, stop := c.pick(w, run)
		if !c.exec(w, group, pc, stop) {
			return false
		}
		if c.yield {
			// A lane polls for something only another warp can change.
			c.yield = false
			return true
		}
	}
}

// pick chooses the lanes to run next: those with the lowest position in
// program order (comparing call stacks first), and the pc at which they
// would catch up with other lanes of the same frame.
func (c *cta) pick(w *warp, run uint32) (group uint32, pc, stop int32) {
	if w.calls == 0 {
		if w.same {
			return run, w.pc[0], math.MaxInt32
		}
		// Converged lanes are still the common case: one branch-free pass
		// over the pcs instead of the ordering below.
		pc = w.pc[bits.TrailingZeros32(run)&31]
		var diff int32
		for l, p := range &w.pc {
			diff |= (p ^ pc) & -int32(run>>l&1)
		}
		if diff == 0 {
			w.same = run == w.live
			return run, pc, math.MaxInt32
		}
		pc, stop = math.MaxInt32, math.MaxInt32
		for m := run; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			switch p := w.pc[l]; {
			case p < pc:
				stop, pc, group = pc, p, 1<<l
			case p == pc:
				group |= 1 << l
			case p < stop:
				stop = p
			}
		}
		return group, pc, stop
	}
	best := -1
	for m := run; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if best < 0 || w.before(l, best) {
			best = l
		}
	}
	pc, stop = w.pc[best], math.MaxInt32
	for m := run; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if !w.sameStack(l, best) {
			continue
		}
		if w.pc[l] == pc {
			group |= 1 << l
		} else if w.pc[l] > pc && w.pc[l] < stop {
			stop = w.pc[l]
		}
	}
	return group, pc, stop
}

// before orders lanes by (call sites outermost first, then pc): a lane
// inside a call made at site S comes after lanes before S and before lanes
// after S.
func (w *warp) before(a, b int) bool {
	fa, fb := w.frames[a], w.frames[b]
	for i := 0; ; i++ {
		var ka, kb int32
		endA, endB := i >= len(fa), i >= len(fb)
		if endA {
			ka = w.pc[a]
		} else {
			ka = fa[i].ret - 1
		}
		if endB {
			kb = w.pc[b]
		} else {
			kb = fb[i].ret - 1
		}
		if ka != kb {
			return ka < kb
		}
		if endA || endB {
			return endA && !endB
		}
	}
}

func (w *warp) sameStack(a, b int) bool {
	fa, fb := w.frames[a], w.frames[b]
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i].ret != fb[i].ret || fa[i].fb != fb[i].fb {
			return false
		}
	}
	return true
}

// setPCs stores pc for every lane of m.
func (w *warp) setPCs(m uint32, pc int32) {
	if m&w.live == w.live {
		// Two pcs a store: half the stores of a lane-by-lane fill.
		v := uint64(uint32(pc)) * (1<<32 | 1)
		p := (*[16]uint64)(unsafe.Pointer(&w.pc))
		for i := range p {
			p[i] = v
		}
		w.same = true
		return
	}
	w.same = false
	for ; m != 0; m &= m - 1 {
		w.pc[bits.TrailingZeros32(m)] = pc
	}
}

// done charges the thread-instructions a group ran and passes ok on.
func (c *cta) done(n uint64, ok bool) bool {
	if !c.charge(n) {
		return false
	}
	return ok
}

// charge accounts n thread-instructions against the launch budget.
func (c *cta) charge(n uint64) bool {
	c.executed += n
	if n <= c.quota {
		c.quota -= n
		return true
	}
	n -= c.quota
	c.quota = 0
	const chunk = 1 << 22
	need := max(n, chunk)
	if c.l.used.Add(need) > c.l.budget {
		c.fault = &fault{kind: fBudget, warp: c.w.id, lane: -1, pc: c.pc,
			msg: sprintf("kernel exceeded its instruction budget of %d thread-instructions (soft.Options.InstrBudget)", c.l.budget)}
		return false
	}
	if f := c.l.interrupted(); f != nil {
		f.warp, f.pc = c.w.id, c.pc
		c.fault = f
		return false
	}
	c.quota = need - n
	return true
}

// exitedAsFull lets exec run a lane-pure op of a warp whose other lanes
// have exited as a full one; tests turn it off to compare.
var exitedAsFull = true

// exitAtRet lets exec end lanes that branch to an exit (the kernel's ret)
// at the branch; tests turn it off to compare.
var exitAtRet = true

// splitInline lets exec go on with one side of a divergent branch when no
// other lane of the warp runs, as the scheduler would pick it; tests turn
// it off to compare with the way through the scheduler.
var splitInline = true

// exec runs group from pc until it diverges, blocks, exits, calls or
// returns with other lanes waiting, or reaches stop (where other lanes of
// its frame wait to be merged).
func (c *cta) exec(w *warp, group uint32, pc, stop int32) bool {
	code := c.p.code
	r, pr := w.r, w.pr
	gpop := uint64(bits.OnesCount32(group))
	var n uint64
	others := w.runnable() &^ group
	// join is the pc where every lane of others waits after a split that
	// exec went on from (opBra), or -1: reaching it, the group takes them
	// in, as pick would.
	join := int32(-1)
	for {
		in := &code[pc]
		op := in.op
		c.pc = pc
		n += gpop
		m := group
		if in.gp >= 0 {
			m &= pr[in.gp] ^ in.gx
			if m == 0 {
				pc++
				if pc >= stop {
					goto reached
				}
				continue
			}
		}
		if op >= opALU {
			// Lanes that have exited (or do not exist) never read a
			// register again, so a lane-pure op runs them as a full warp
			// (a shfl from such a lane is undefined).
			full := w.restExited(m)
			if op < opCmp {
				if full && aluDense[op%opCmp] {
					execALUMask(in, r, fullMask)
				} else {
					execALU(in, r, m)
				}
			} else {
				mc := m
				if full {
					mc = fullMask
				}
				t := execCmp(in, r, mc)
				p, q := t, ^t
				if f := in.fl & 3; f != 0 {
					cb := pr[in.c]
					if in.fl&setpNegC != 0 {
						cb = ^cb
					}
					switch f {
					case setpAnd:
						p, q = p&cb, q&cb
					case setpOr:
						p, q = p|cb, q|cb
					case setpXor:
						p, q = p^cb, q^cb
					}
				}
				pr[in.d] = pr[in.d]&^m | p&m
				if in.fl&setpQ != 0 {
					pr[in.e] = pr[in.e]&^m | q&m
				}
			}
			pc++
			if pc >= stop {
				goto reached
			}
			continue
		}
		switch op {
		case opNop:
			// The slots of folded and decode-time instructions run as one
			// step; each still counts, and the run ends at stop.
			if k := min(in.aux, stop-pc); k > 1 {
				n += gpop * uint64(k-1)
				pc += k - 1
			}
		case opBraSpin:
			// A backward branch closing a polling loop: the warp gives way.
			if m == group {
				w.setPCs(group, in.aux)
				c.yield = true
				return c.done(n, true)
			}
			fallthrough
		case opBraYield:
			// A backward branch under Options.ShuffleSeed: it may end the
			// run here, so a loop (a spin-wait) cannot keep its warp on.
			if m == group && c.shuf.r.IntN(8) == 0 {
				w.setPCs(group, in.aux)
				return c.done(n, true)
			}
			fallthrough
		case opBra:
			if m != group && exitAtRet {
				if t := &code[in.aux]; t.op == opExit && t.gp < 0 {
					// Lanes branching to the kernel's ret (if (...) return;)
					// exit here, counting that ret, as ptxas's predicated
					// EXIT does: waiting there they would only exit later.
					n += uint64(bits.OnesCount32(m))
					c.exit(w, m)
					group &^= m
					gpop = uint64(bits.OnesCount32(group))
					break
				}
			}
			if m != group {
				w.setPCs(m, in.aux)
				w.setPCs(group&^m, pc+1)
				lo, hi, side := pc+1, in.aux, group&^m
				if in.aux < pc+1 {
					lo, hi, side = in.aux, pc+1, m
				}
				if others != 0 && hi != join || w.calls != 0 || in.aux == pc+1 || c.rc != nil || c.shuf != nil || !splitInline {
					return c.done(n, true)
				}
				// The group splits in two and no other lane runs, or the
				// others all wait where the upper side goes (a loop that
				// lanes leave one by one): pick would choose the side at the
				// lower pc, to stop where the rest waits. Go on with it here
				// instead.
				if !c.charge(n) {
					return false
				}
				n = 0
				others |= group &^ side
				group, pc, stop, join = side, lo, hi, hi
				gpop = uint64(bits.OnesCount32(group))
				continue
			}
			if in.aux <= pc {
				// Backward branches bound runaway loops.
				if !c.charge(n) {
					return false
				}
				n = 0
			}
			pc = in.aux
			if pc >= stop {
				goto reached
			}
			continue
		case opExit:
			c.exit(w, m)
			group &^= m
			if group == 0 {
				return c.done(n, true)
			}
			gpop = uint64(bits.OnesCount32(group))
		case opRet:
			target, cont := c.ret(w, group, m, pc)
			if cont && m == group && others == 0 {
				pc = target
				continue
			}
			return c.done(n, true)
		case opCall:
			fi := c.p.funcs[in.aux2]
			if !c.call(w, m, in, fi, pc) {
				return c.done(n, false)
			}
			if m == group && others == 0 {
				pc = in.aux
				continue
			}
			w.setPCs(m, in.aux)
			w.setPCs(group&^m, pc+1)
			return c.done(n, true)
		case opCallInd:
			target, ok := c.callInd(w, in, m, pc)
			if !ok {
				return c.done(n, false)
			}
			if target >= 0 && m == group && others == 0 {
				pc = target
				continue
			}
			w.setPCs(group&^m, pc+1)
			return c.done(n, true)
		case opBrx:
			target, ok := c.brx(w, in, m, pc)
			if !ok {
				return c.done(n, false)
			}
			// Every brx charges the budget, as a backward bra does: a
			// loop closed by brx is bounded too.
			if !c.charge(n) {
				return false
			}
			n = 0
			if target < 0 || m != group {
				// Lanes diverge (or some skipped the branch): the
				// scheduler runs the lowest pc first and merges them.
				w.setPCs(group&^m, pc+1)
				return true
			}
			pc = target
			if pc >= stop {
				w.setPCs(group, pc)
				return true
			}
			continue
		case opBuiltin:
			if !c.builtin(w, in, m) {
				return c.done(n, false)
			}
		case opStack:
			if !c.stackOp(w, in, m) {
				return c.done(n, false)
			}
		case opTrap:
			c.fault = &fault{kind: fTrap, warp: w.id, lane: bits.TrailingZeros32(m), pc: pc, msg: "trap instruction executed"}
			return c.done(n, false)
		case opMov:
			d, a := lanes(r, in.d), lanes(r, in.a)
			if m == fullMask {
				*d = *a
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm) & 31
					d[l] = a[l]
				}
			}
		case opUniDef:
			c.uniDef(w, &c.p.unis[in.aux2], m)
		case opCmpLane:
			c.cmpLane(w, &c.p.laneCmps[in.aux2], m)
		case opMovPred:
			v := pr[in.a]
			if in.e != 0 {
				v = ^v
			}
			pr[in.d] = pr[in.d]&^m | v&m
		case opPredAnd, opPredOr, opPredXor:
			a, b := pr[in.a], pr[in.b]
			if in.fl&1 != 0 {
				a = ^a
			}
			if in.fl&2 != 0 {
				b = ^b
			}
			var v uint32
			switch op {
			case opPredAnd:
				v = a & b
			case opPredOr:
				v = a | b
			default:
				v = a ^ b
			}
			pr[in.d] = pr[in.d]&^m | v&m
		case opPredSet:
			if in.imm != 0 {
				pr[in.d] |= m
			} else {
				pr[in.d] &^= m
			}
		case opSelp:
			d, a, b := lanes(r, in.d), lanes(r, in.a), lanes(r, in.b)
			p := pr[in.c]
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm) & 31
				if p>>l&1 != 0 {
					d[l] = a[l]
				} else {
					d[l] = b[l]
				}
			}
		case opPredToR:
			d := lanes(r, in.d)
			p := pr[in.a]
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm) & 31
				d[l] = uint64(p >> l & 1)
			}
		case opCvtII:
			if w.restExited(m) {
				m = fullMask // as for the generated ops above: cvt cannot fail
			}
			cvtII(in, r, m)
		case opPack:
			d := lanes(r, in.d)
			sh := uint(in.fl)
			vs := c.p.vec[in.aux : in.aux+int32(in.e)]
			for mm := m; mm != 0; mm &= mm - 1 {
				l := uint32(bits.TrailingZeros32(mm) & 31)
				var v uint64
				for i, s := range vs {
					v |= (r[s+l] & gpumath.Mask(sh)) << (uint(i) * sh)
				}
				d[l] = v
			}
		case opUnpack:
			a := lanes(r, in.a)
			sh := uint(in.fl)
			vs := c.p.vec[in.aux : in.aux+int32(in.e)]
			for mm := m; mm != 0; mm &= mm - 1 {
				l := uint32(bits.TrailingZeros32(mm) & 31)
				v := a[l]
				for i, s := range vs {
					if s != 0 {
						r[s+l] = v >> (uint(i) * sh) & gpumath.Mask(sh)
					}
				}
			}
		case opLdParam:
			c.ldParam(w, in, m)
		case opLdChain, opLdLdFma:
			if op == opLdChain {
				if ch := &c.p.chains[in.aux]; pc+ch.n <= stop && c.ldChain(w, ch, m) {
					n += uint64(ch.n-1) * gpop
					pc += ch.n
					if pc >= stop {
						w.setPCs(group, pc)
						return c.done(n, true)
					}
					continue
				}
			}
			if m == fullMask && pc+2 < stop {
				if !c.ldLdFma(w, in, &code[pc+1], &code[pc+2]) {
					n += uint64(c.pc-pc) * gpop // the second load faulted: it ran, as one by one
					return c.done(n, false)
				}
				n += 2 * gpop
				pc += 3
				if pc >= stop {
					w.setPCs(group, pc)
					return c.done(n, true)
				}
				continue
			}
			if !c.ldS32(w, in, m) {
				return c.done(n, false)
			}
		case opLdS32:
			if !c.ldS32(w, in, m) {
				return c.done(n, false)
			}
		case opStS32:
			if !c.stS32(w, in, m) {
				return c.done(n, false)
			}
		case opLdGStS:
			if m == fullMask && pc+1 < stop && c.ldGStS(w, in, &code[pc+1]) {
				n += gpop
				pc += 2
				if pc >= stop {
					w.setPCs(group, pc)
					return c.done(n, true)
				}
				continue
			}
			if !c.ldG32(w, in, m) {
				return c.done(n, false)
			}
		case opLdG32:
			if !c.ldG32(w, in, m) {
				return c.done(n, false)
			}
		case opStG32:
			if !c.stG32(w, in, m) {
				return c.done(n, false)
			}
		case opLdGAdd:
			if !c.ldGAdd(w, in, m) {
				return c.done(n, false)
			}
		case opStGAdd:
			if !c.stGAdd(w, in, m) {
				return c.done(n, false)
			}
		case opAtomSAdd:
			if !c.atomSAdd(w, in, m) {
				return c.done(n, false)
			}
		case opCpAsync:
			if !c.cpAsync(w, in, m) {
				return c.done(n, false)
			}
		case opLd:
			if !c.ld(w, in, m) {
				return c.done(n, false)
			}
		case opSt:
			if !c.st(w, in, m) {
				return c.done(n, false)
			}
		case opAtom:
			if !c.atom(w, in, m) {
				return c.done(n, false)
			}
		case opSpecial:
			c.special(w, in, m)
		case opTensor:
			if !c.tensor(w, in, m) {
				return c.done(n, false)
			}
		case opCluster, opMbar:
			var ok bool
			if op == opMbar {
				ok = c.mbar(w, in, m, pc)
			} else {
				ok = c.clusterOp(w, in, m, pc)
			}
			if !ok {
				return c.done(n, false)
			}
			if c.parked != 0 {
				group &^= c.parked
				c.parked = 0
				if group == 0 {
					return c.done(n, true)
				}
				gpop = uint64(bits.OnesCount32(group))
			}
			if c.yield {
				w.setPCs(group, pc+1)
				return c.done(n, true)
			}
		case opTex:
			if !c.texExec(w, in, m) {
				return c.done(n, false)
			}
		case opBulk:
			if !c.bulk(w, in, m) {
				return c.done(n, false)
			}
		case opBar:
			if !c.bar(w, in, m, pc) {
				return c.done(n, false)
			}
			if in.fl&barArrive == 0 {
				group &^= m
				if group == 0 {
					return c.done(n, true)
				}
				gpop = uint64(bits.OnesCount32(group))
			}
		case opShfl:
			c.shfl(w, in, m)
		case opShflAdd:
			f := &c.p.shflAdds[in.aux2]
			if m == fullMask && pc+1 < stop && shflAddStep(f, w) {
				// The add ran too: it counts, and the run goes on after it.
				n += gpop
				pc++
				break
			}
			c.shfl(w, &f.shfl, m)
		case opVote:
			c.vote(w, in, m)
		case opMatch:
			c.match(w, in, m)
		case opRedux:
			c.redux(w, in, m)
		case opActMask:
			d := lanes(r, in.d)
			for mm := m; mm != 0; mm &= mm - 1 {
				d[bits.TrailingZeros32(mm)&31] = uint64(group)
			}
		case opElect:
			leader := bits.TrailingZeros32(m)
			d := lanes(r, in.d)
			for mm := m; mm != 0; mm &= mm - 1 {
				d[bits.TrailingZeros32(mm)&31] = uint64(leader)
			}
			pr[in.aux] = pr[in.aux]&^m | 1<<leader
		case opAddCC:
			c.carry(w, in, m)
		case opLdRC, opStRC, opAtomRC, opCpAsyncRC, opWarpSyncRC:
			if !c.instrumented(w, in, m) {
				return c.done(n, false)
			}
		case opIsspacep:
			a := lanes(r, in.a)
			var t uint32
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm) & 31
				if spaceOfGeneric(a[l]) == int(in.aux2) || in.aux2 == spConst && spaceOfGeneric(a[l]) == spGlobal {
					t |= 1 << l
				}
			}
			pr[in.d] = pr[in.d]&^m | t
		default:
			c.fault = &fault{kind: fInvalid, warp: w.id, lane: bits.TrailingZeros32(m), pc: pc, msg: sprintf("invalid opcode %d", op)}
			return c.done(n, false)
		}
		pc++
		if pc < stop {
			continue
		}
	reached:
		// The run reached stop: the end of what pick gave it, or the join
		// of a split exec went on from, where the waiting lanes come in.
		if pc != join {
			w.setPCs(group, pc)
			return c.done(n, true)
		}
		if !c.charge(n) {
			return false
		}
		n, group, others, stop, join = 0, group|others, 0, math.MaxInt32, -1
		gpop = uint64(bits.OnesCount32(group))
	}
}

func (c *cta) exit(w *warp, m uint32) {
	c.barDirty = true
	w.exited |= m
	c.exits += bits.OnesCount32(m)
	if w.calls == 0 {
		return // no lane has frames to drop
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		if len(w.frames[l]) > 0 {
			w.frames[l] = w.frames[l][:0]
			w.calls--
		}
	}
}

func cvtII(in *inst, r []uint64, m uint32) {
	spec := in.imm
	sb, db, rw := uint(spec&0xff), uint(spec>>8&0xff), uint(spec>>24&0xff)
	ss, ds, sat := spec&(1<<16) != 0, spec&(1<<17) != 0, spec&(1<<18) != 0
	d, a := lanes(r, in.d), lanes(r, in.a)
	if !sat && sb > 0 && db > 0 && sb <= 64 && db <= 64 {
		// Without saturation the conversion is one extension of the low k
		// bits, then a mask: truncating to db bits and extending (db ≤
		// sb), or extending the sb source bits, zero above db when only
		// the source is signed (db > sb).
		k, sext, q := db, ds, rw
		if db > sb {
			k, sext = sb, ss
			if ss && !ds {
				q = min(db, rw)
			}
		}
		sh, qm := 64-k, gpumath.Mask(q)
		switch {
		case m == fullMask && warpAsm && sh == 32 && qm == ^uint64(0):
			if sext {
				cvtSext32(d, a)
			} else {
				cvtZext32(d, a)
			}
		case m == fullMask && sext:
			for l := range d {
				d[l] = uint64(int64(a[l]<<sh)>>sh) & qm
			}
		case m == fullMask:
			for l := range d {
				d[l] = a[l] << sh >> sh & qm
			}
		default:
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm) & 31
				if sext {
					d[l] = uint64(int64(a[l]<<sh)>>sh) & qm
				} else {
					d[l] = a[l] << sh >> sh & qm
				}
			}
		}
		return
	}
	cvtIILanes(spec, d, a, m)
}

// cvtIILanes is cvtII's general form, lane by lane.
func cvtIILanes(spec int64, d, a *[32]uint64, m uint32) {
	sb, db, rw := uint(spec&0xff), uint(spec>>8&0xff), uint(spec>>24&0xff)
	ss, ds, sat := spec&(1<<16) != 0, spec&(1<<17) != 0, spec&(1<<18) != 0
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		v := a[l] & gpumath.Mask(sb)
		if ss {
			v = uint64(gpumath.Sext(v, sb))
		}
		if sat {
			switch {
			case ss && ds:
				x := int64(v)
				lo, hi := -int64(1)<<(db-1), int64(gpumath.Mask(db-1))
				x = min(max(x, lo), hi)
				v = uint64(x)
			case ss && !ds:
				x := int64(v)
				if x < 0 {
					v = 0
				} else {
					v = min(uint64(x), gpumath.Mask(db))
				}
			case !ss && ds:
				v = min(v, gpumath.Mask(db-1))
			default:
				v = min(v, gpumath.Mask(db))
			}
		}
		v &= gpumath.Mask(db)
		if ds {
			v = uint64(gpumath.Sext(v, db))
		}
		d[l] = v & gpumath.Mask(rw)
	}
}

// carry runs add.cc/addc/sub.cc/subc/mad.cc/madc with per-lane carry flags.
func (c *cta) carry(w *warp, in *inst, m uint32) {
	r := w.r
	d, a, b := lanes(r, in.d), lanes(r, in.a), lanes(r, in.b)
	var cs *[32]uint64
	if in.fl&15 >= ccMadLo {
		cs = lanes(r, in.c)
	}
	wide := in.fl&cc64 != 0
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		var cin uint64
		if in.fl&ccIn != 0 {
			cin = uint64(w.cc >> l & 1)
		}
		x, y := a[l], b[l]
		var res, cout uint64
		if wide {
			switch in.fl & 15 {
			case ccAdd:
				res, cout = bits.Add64(x, y, cin)
			case ccSub:
				res, cout = bits.Sub64(x, y, cin)
			case ccMadLo:
				_, lo := bits.Mul64(x, y)
				res, cout = bits.Add64(lo, cs[l], cin)
			case ccMadHi:
				hi, _ := bits.Mul64(x, y)
				res, cout = bits.Add64(hi, cs[l], cin)
			}
		} else {
			x, y = x&0xffffffff, y&0xffffffff
			var s uint64
			switch in.fl & 15 {
			case ccAdd:
				s = x + y + cin
			case ccSub:
				s = x - y - cin
			case ccMadLo:
				s = (x*y)&0xffffffff + cs[l]&0xffffffff + cin
			case ccMadHi:
				s = (x*y)>>32 + cs[l]&0xffffffff + cin
			}
			res, cout = s&0xffffffff, s>>32&1
		}
		d[l] = res
		if in.fl&ccOut != 0 {
			setBit(&w.cc, l, cout != 0)
		}
	}
}
