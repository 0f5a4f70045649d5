// Racecheck: an opt-in mode (Options.RaceCheck, CUGEN_SOFT_RACECHECK) that
// reports data hazards between the threads of a CTA, as compute-sanitizer's
// racecheck tool does for shared memory, and for global memory too (within
// a CTA). Two accesses to the same bytes by different threads, at least one
// a write, are a hazard unless something orders them:
//
//   - a barrier both threads take part in: bar.sync, barrier.sync and bar.red
//     (__syncthreads and its variants), named barriers with thread counts,
//     whose arrivals (bar.arrive too) are ordered before the waiting threads'
//     next instructions;
//   - bar.warp.sync (__syncwarp) among the lanes of one warp;
//   - synchronising accesses: atomics, and .volatile/.relaxed/.acquire/
//     .release loads and stores, which never race with one another (the PTX
//     memory model calls them morally strong) and are taken to release and
//     acquire at their location, so a flag handed over with them orders the
//     data around it (fences are not needed: every such access counts);
//   - in RaceOn mode, lockstep: lanes of one warp that execute together run
//     their instructions in order, so only accesses of one instruction, and
//     of lanes on diverged paths that have not met again since, are
//     unordered. RaceStrict drops that rule, as Volta's independent thread
//     scheduling does: without __syncwarp nothing orders two lanes' accesses.
//     compute-sanitizer reports those (NVIDIA's compute-sanitizer-samples
//     Racecheck/warp_error.cu is one: a warp's lanes write, then lane 0 reads
//     them without __syncwarp); its documentation puts hazards of code that
//     assumes a warp's threads proceed together at its WARNING level.
//
// A write that does not change memory (every thread storing the same flag)
// is benign: it is not reported, as compute-sanitizer does not report it
// by default. The first hazard stops the launch with ErrLaunchFailed (so
// the Driver is unusable afterwards, as after any fault: sticky.go) whose
// detail names the kernel, the block, both threads, both PTX lines and the
// address.
//
// How: racecheck rewrites a program's memory instructions to instrumented
// ones (instrument), so the default executor is untouched. Each 4-byte word
// of shared memory, and each global word the CTA touches, keeps its last
// write and its last reads, stamped with an epoch, the warp's clock and the
// lane's clock. A barrier that every thread waits at starts a new epoch (all
// earlier accesses are ordered); other synchronisation joins vector clocks:
// one per warp over the CTA's warps, and one per lane over its warp's lanes.
// Warp clocks are coarse (a release by one lane releases its whole warp):
// that can hide a race, never invent one.

package exec

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// RaceMode is what racecheck reports: rt/soft's RaceMode (Options.
// RaceCheck), whose doc says what each mode reports, with the same values.
type RaceMode uint8

const (
	RaceOff RaceMode = iota
	RaceOn
	RaceStrict
)

// Instrumented operations: what instrument makes of a racecheck program's
// memory instructions. They are numbered apart from ops.go's list, and the
// default executor never sees them.
const (
	opLdRC       opcode = opALU - 16 + iota // opLd, opLdG32, opLdS32, opLdLdFma, opLdChain
	opStRC                                  // opSt, opStG32, opStS32
	opAtomRC                                // opAtom
	opCpAsyncRC                             // opCpAsync
	opWarpSyncRC                            // bar.warp.sync (an opNop otherwise)
	opBraYield                              // a backward opBra under Options.ShuffleSeed
	opBraSpin                               // a backward opBra closing a polling loop (yieldInSpins)
)

// instrument rewrites p's memory instructions and warp barriers to their
// racecheck forms. The fused ld-ld-fma and the chains of them become plain
// loads: their partners stay in place and run one by one; folded address
// adds are undone.
func instrument(p *Program) {
	for _, f := range p.folds {
		p.code[f.pc] = f.in
	}
	for i := range p.code {
		in := &p.code[i]
		switch in.op {
		case opLd, opLdG32, opLdS32, opLdLdFma, opLdChain:
			in.op = opLdRC
		case opSt, opStG32, opStS32:
			in.op = opStRC
		case opAtom:
			in.op = opAtomRC
		case opCpAsync:
			in.op = opCpAsyncRC
		case opNop:
			if s := p.src[i]; s != nil && (s.Op == "bar" || s.Op == "barrier") && hasMod(s, "warp") {
				in.op = opWarpSyncRC
			}
		}
	}
}

// access is one recorded memory access.
type access struct {
	epoch uint32 // the epoch it happened in; an older one is ordered before everything
	wclk  uint32 // its warp's clock
	lclk  uint32 // its lane's clock
	seq   uint32 // the dynamic memory instruction
	pc    int32
	warp  uint16
	lane  uint8
	flags uint8 // bytes of the word (low 4 bits); accBenign
}

const accBenign = 16 // a write that left memory as it was

func (a *access) bytes() uint8 { return a.flags & 15 }

// cell is one 4-byte word's history in the current epoch.
type cell struct {
	w   access // the last write
	r   access // the last read, while the reads since it are ordered
	rs  int32  // 1 + the index of its reads' set once reads are concurrent, or 0
	rse uint32 // the epoch rs belongs to
}

// readSet is a word's concurrent reads since its last write: the latest
// read of each warp.
type readSet struct {
	last []access // by warp
}

// syncLoc is what the synchronising accesses of one location have
// released: the warp clocks, and the lane clocks of the last warp there.
type syncLoc struct {
	epoch uint32
	warp  int
	wclk  []uint32
	lclk  [32]uint32
}

// barClocks is what a named barrier's arrivals in the current phase have
// released.
type barClocks struct {
	epoch      uint32
	arriveOnly bool // some arrival did not wait (bar.arrive)
	wclk       []uint32
	lclk       [][32]uint32 // per warp: the join of its arriving lanes' clocks
	lanes      []uint32     // per warp: which lanes arrived
}

// raceState is a worker's racecheck state for the CTA it runs.
type raceState struct {
	c      *cta
	strict bool
	epoch  uint32
	seq    uint32
	nw     int
	wclk   []uint32 // [v*nw+u]: warp v's knowledge of warp u's clock
	lclk   []uint32 // [(w*32+l)*32+k]: lane l of warp w's knowledge of lane k's clock
	sh     []cell   // per 4-byte word of shared memory
	glob   map[uint64]int32
	gcells []cell
	sync   map[uint64]*syncLoc
	bars   [16]barClocks
	sets   []*readSet
	nsets  int
}

func newRaceState(c *cta, strict bool) *raceState {
	nw := len(c.warps)
	rs := &raceState{c: c, strict: strict, nw: nw,
		wclk: make([]uint32, nw*nw), lclk: make([]uint32, nw*32*32),
		sh: make([]cell, (c.shLen+3)/4), glob: map[uint64]int32{}, sync: map[uint64]*syncLoc{}}
	for i := range rs.bars {
		rs.bars[i].wclk = make([]uint32, nw)
		rs.bars[i].lclk = make([][32]uint32, nw)
		rs.bars[i].lanes = make([]uint32, nw)
	}
	return rs
}

// begin starts a CTA: nothing of the previous one's is relevant.
func (rs *raceState) begin() {
	clear(rs.glob)
	rs.gcells = rs.gcells[:0]
	clear(rs.sync)
	rs.newEpoch()
}

// newEpoch orders every access so far before every access to come: a
// barrier that every thread waits at. Clocks restart.
func (rs *raceState) newEpoch() {
	rs.epoch++
	clear(rs.wclk)
	for v := 0; v < rs.nw; v++ {
		rs.wclk[v*rs.nw+v] = 1
	}
	clear(rs.lclk)
	for l := 0; l < rs.nw*32; l++ {
		rs.lclk[l*32+l%32] = 1
	}
	rs.nsets = 0
}

func (rs *raceState) laneRow(w, l int) []uint32 {
	i := (w*32 + l) * 32
	return rs.lclk[i : i+32 : i+32]
}

func (rs *raceState) warpRow(w int) []uint32 {
	return rs.wclk[w*rs.nw : (w+1)*rs.nw : (w+1)*rs.nw]
}

// cur describes lane l of warp w's access now, to bytes mask of a word.
func (rs *raceState) cur(w *warp, l int, mask uint8) access {
	return access{epoch: rs.epoch, wclk: rs.wclk[w.id*rs.nw+w.id], lclk: rs.lclk[(w.id*32+l)*32+l],
		seq: rs.seq, pc: rs.c.pc, warp: uint16(w.id), lane: uint8(l), flags: mask}
}

// ordered reports whether recorded access a happens before lane l of warp
// w's access now.
func (rs *raceState) ordered(a *access, w *warp, l int) bool {
	switch {
	case a.epoch != rs.epoch:
		return true
	case int(a.warp) != w.id:
		return a.wclk <= rs.wclk[w.id*rs.nw+int(a.warp)]
	case int(a.lane) == l:
		return true
	case a.seq == rs.seq:
		return false // one instruction: its lanes' accesses are unordered
	}
	return a.lclk <= rs.lclk[(w.id*32+l)*32+int(a.lane)]
}

// hazard kinds
const (
	hazRAW = iota
	hazWAR
	hazWAW
)

var hazNames = [...]string{"Read-After-Write", "Write-After-Read", "Write-After-Write"}

// read checks and records lane l's read of bytes mask of cell cl; it
// returns the write the read races with, if any.
func (rs *raceState) read(cl *cell, w *warp, l int, mask uint8) *access {
	if wr := &cl.w; wr.epoch == rs.epoch && wr.flags&accBenign == 0 && wr.bytes()&mask != 0 && !rs.ordered(wr, w, l) {
		return wr
	}
	a := rs.cur(w, l, mask)
	if set := rs.setOf(cl); set != nil {
		set.last[w.id] = a
		return nil
	}
	if r := &cl.r; r.epoch != rs.epoch || rs.ordered(r, w, l) {
		*r = a
		return nil
	}
	set := rs.newSet()
	set.last[cl.r.warp] = cl.r
	set.last[w.id] = a
	cl.rs, cl.rse = int32(rs.nsets), rs.epoch
	return nil
}

// write checks and records lane l's write of bytes mask of cell cl; changes
// says whether it changes memory. It returns the access it races with, and
// the hazard's kind.
func (rs *raceState) write(cl *cell, w *warp, l int, mask uint8, changes bool) (*access, int) {
	wr := &cl.w
	if !changes {
		if wr.epoch != rs.epoch || rs.ordered(wr, w, l) {
			*wr = rs.cur(w, l, mask|accBenign)
		}
		return nil, 0
	}
	if wr.epoch == rs.epoch && wr.bytes()&mask != 0 && !rs.ordered(wr, w, l) {
		return wr, hazWAW
	}
	if set := rs.setOf(cl); set != nil {
		for i := range set.last {
			if r := &set.last[i]; r.epoch == rs.epoch && r.bytes()&mask != 0 && !rs.ordered(r, w, l) {
				return r, hazWAR
			}
		}
	} else if r := &cl.r; r.epoch == rs.epoch && r.bytes()&mask != 0 && !rs.ordered(r, w, l) {
		return r, hazWAR
	}
	*wr = rs.cur(w, l, mask)
	cl.r, cl.rs = access{}, 0
	return nil, 0
}

func (rs *raceState) setOf(cl *cell) *readSet {
	if cl.rs == 0 || cl.rse != rs.epoch {
		return nil
	}
	return rs.sets[cl.rs-1]
}

func (rs *raceState) newSet() *readSet {
	if rs.nsets == len(rs.sets) {
		rs.sets = append(rs.sets, &readSet{last: make([]access, rs.nw)})
	}
	set := rs.sets[rs.nsets]
	rs.nsets++
	clear(set.last)
	return set
}

// global returns the cell of the global word at addr (a multiple of 4).
func (rs *raceState) global(addr uint64) *cell {
	i, ok := rs.glob[addr]
	if !ok {
		i = int32(len(rs.gcells))
		rs.gcells = append(rs.gcells, cell{})
		rs.glob[addr] = i
	}
	return &rs.gcells[i]
}

// strong is lane l's synchronising access to the location at key: it
// acquires what earlier ones there released and releases its own past.
func (rs *raceState) strong(key uint64, w *warp, l int) {
	s := rs.sync[key]
	if s == nil {
		s = &syncLoc{wclk: make([]uint32, rs.nw)}
		rs.sync[key] = s
	}
	if s.epoch != rs.epoch {
		s.epoch, s.warp = rs.epoch, -1
		clear(s.wclk)
	}
	row := rs.warpRow(w.id)
	for u := range row {
		m := max(row[u], s.wclk[u])
		row[u], s.wclk[u] = m, m
	}
	row[w.id]++
	lrow := rs.laneRow(w.id, l)
	if s.warp != w.id {
		s.warp = w.id
		copy(s.lclk[:], lrow)
	} else {
		for k := range lrow {
			m := max(lrow[k], s.lclk[k])
			lrow[k], s.lclk[k] = m, m
		}
	}
	lrow[l]++
}

// joinLanes makes the lanes of m know what each of them knows (they met:
// a warp barrier, or, in RaceOn mode, lockstep execution).
func (rs *raceState) joinLanes(w *warp, m uint32) {
	if m&(m-1) == 0 {
		return
	}
	var j [32]uint32
	for mm := m; mm != 0; mm &= mm - 1 {
		row := rs.laneRow(w.id, bits.TrailingZeros32(mm))
		for k := range j {
			j[k] = max(j[k], row[k])
		}
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		copy(rs.laneRow(w.id, bits.TrailingZeros32(mm)), j[:])
	}
}

// tick advances the clocks of the lanes of m: what they do next is after
// what they have shared.
func (rs *raceState) tick(w *warp, m uint32) {
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		rs.lclk[(w.id*32+l)*32+l]++
	}
}

// warpSync is bar.warp.sync by the lanes of m.
func (rs *raceState) warpSync(w *warp, m uint32) {
	rs.joinLanes(w, m)
	rs.tick(w, m)
}

// dispatched brackets the run of a group of lanes in RaceOn mode: lanes
// that run together are in lockstep, so at the start each learns what the
// others know, and at the end each one's clock advances.
func (rs *raceState) dispatchStart(w *warp, group uint32) { rs.joinLanes(w, group) }
func (rs *raceState) dispatchEnd(w *warp, group uint32)   { rs.tick(w, group) }

// arrive is the lanes m of warp w arriving at barrier id (wait says whether
// they wait for the barrier's release).
func (rs *raceState) arrive(w *warp, id int, m uint32, wait bool) {
	b := &rs.bars[id]
	if b.epoch != rs.epoch {
		b.epoch, b.arriveOnly = rs.epoch, false
		clear(b.wclk)
		clear(b.lclk)
		clear(b.lanes)
	}
	b.arriveOnly = b.arriveOnly || !wait
	row := rs.warpRow(w.id)
	for u := range row {
		b.wclk[u] = max(b.wclk[u], row[u])
	}
	row[w.id]++
	acc := &b.lclk[w.id]
	for mm := m; mm != 0; mm &= mm - 1 {
		lrow := rs.laneRow(w.id, bits.TrailingZeros32(mm))
		for k := range acc {
			acc[k] = max(acc[k], lrow[k])
		}
	}
	b.lanes[w.id] |= m
	rs.tick(w, m)
}

// released is barrier id's release of the lanes rel of warp w.
func (rs *raceState) released(w *warp, id int, rel uint32) {
	b := &rs.bars[id]
	if b.epoch != rs.epoch {
		return
	}
	row := rs.warpRow(w.id)
	for u := range row {
		row[u] = max(row[u], b.wclk[u])
	}
	acc := &b.lclk[w.id]
	for mm := rel; mm != 0; mm &= mm - 1 {
		lrow := rs.laneRow(w.id, bits.TrailingZeros32(mm))
		for k := range lrow {
			lrow[k] = max(lrow[k], acc[k])
		}
	}
}

// phaseDone ends barrier id's phase; all says every thread that has not
// exited waited at it, which orders everything before it.
func (rs *raceState) phaseDone(id int, all bool) {
	if all && !(rs.bars[id].epoch == rs.epoch && rs.bars[id].arriveOnly) {
		rs.newEpoch()
		return
	}
	rs.bars[id].epoch = 0
}

// hazard stops the CTA with a racecheck fault: lane l of warp w's access
// (this instruction) races with other.
func (c *cta) hazard(w *warp, l int, kind int, other *access, space int, addr, size uint64) bool {
	l0 := c.l
	in := l0.Program.src[other.pc]
	why := "no barrier orders them"
	switch {
	case int(other.warp) != w.id:
	case other.seq == c.rc.seq:
		why = "one instruction's lanes are unordered"
	case c.rc.strict:
		why = "no barrier or __syncwarp orders them (lanes of one warp: lockstep execution does not count in strict mode)"
	default:
		why = "they are lanes of one warp on diverged paths, not rejoined in between"
	}
	verb, otherVerb := "reads", "wrote"
	switch kind {
	case hazWAR:
		verb, otherVerb = "writes", "read"
	case hazWAW:
		verb, otherVerb = "writes", "wrote"
	}
	c.fault = &fault{kind: fRace, warp: w.id, lane: l, pc: c.pc, addr: addr, size: size, space: space,
		msg: fmt.Sprintf("racecheck: %s hazard on __%s__ address %#x: thread %s %s it here, and thread %s %s it at %s; %s",
			hazNames[kind], spaceNames[space], addr, l0.threadName(w.id, l), verb, l0.threadName(int(other.warp), int(other.lane)),
			otherVerb, at(in), why)}
	return false
}

// threadName is thread (x,y,z) of lane l of warp w.
func (l *Launch) threadName(w, lane int) string {
	t, b := uint32(w*32+lane), l.Block
	return fmt.Sprintf("(%d,%d,%d)", t%b.X, t/b.X%b.Y, t/(b.X*b.Y))
}

// check checks and records lane l's access of n bytes at the resolved
// space and address (a shared offset or a global address); old and new are
// the bytes there before and after a write (nil for a read).
func (c *cta) check(w *warp, l int, space int, addr, n uint64, write bool, old, new unsafe.Pointer) bool {
	rs := c.rc
	for a := addr &^ 3; a < addr+n; a += 4 {
		lo, hi := max(a, addr), min(a+4, addr+n)
		mask := uint8((1<<(hi-a) - 1) &^ (1<<(lo-a) - 1))
		var cl *cell
		if space == spShared {
			if a/4 >= uint64(len(rs.sh)) {
				break // past the CTA's shared memory: memcheck's to report
			}
			cl = &rs.sh[a/4]
		} else {
			cl = rs.global(a)
		}
		if !write {
			if other := rs.read(cl, w, l, mask); other != nil {
				return c.hazard(w, l, hazRAW, other, space, addr, n)
			}
			continue
		}
		changes := false
		for i := lo; i < hi; i++ {
			if *(*byte)(unsafe.Add(old, i-addr)) != *(*byte)(unsafe.Add(new, i-addr)) {
				changes = true
			}
		}
		if other, kind := rs.write(cl, w, l, mask, changes); other != nil {
			return c.hazard(w, l, kind, other, space, addr, n)
		}
	}
	return true
}

// checkModes sets up a new worker's racecheck and shuffle state, if the
// driver has them on.
func (c *cta) checkModes() {
	if mode := c.l.Config.RaceCheck; mode != RaceOff {
		c.rc = newRaceState(c, mode == RaceStrict)
	}
	if seed := c.l.Config.ShuffleSeed; seed != 0 {
		c.shuf = newShuffler(seed, c.warps)
	}
}

// startChecks starts CTA id under the modes that are on.
func (c *cta) startChecks(id uint64) {
	if c.rc != nil {
		c.rc.begin()
	}
	if s := c.shuf; s != nil {
		s.src.Seed(s.seed, id)
	}
}
