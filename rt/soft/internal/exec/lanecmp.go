package exec

// Comparisons of a thread's index with a warp-uniform value: the bounds
// tests of a tree reduction (tid < s, s halving each level) and of a
// grid-stride guard. In a warp whose %tid.x lanes are consecutive (lane l
// holds t0+l) the lanes for which t0+l < B holds are a run of low lanes,
// so the predicate is a shift of B-t0 instead of 32 compares.

import "math/bits"

// opCmpLane runs p.laneCmps[aux2]: a setp of %tid.x or %laneid against a
// warp-uniform source (cmpLane).
const opCmpLane opcode = opALU - 40

// laneCmp is a setp whose first source is the lane index slot a and whose
// second, b, holds one value in the warp.
type laneCmp struct {
	x      inst   // the comparison as decoded, for warps where the shortcut does not hold
	rel    uint8  // cmpEq… of a against b
	signed bool   // b is compared as int32 (else uint32)
	a, b   uint32 // the lane index slot, the uniform slot
	tid    bool   // a is %tid.x, whose lanes are consecutive only in some block shapes
	bit    uint64 // b's bit in warp.nonuni, 0 when b is a uniform program slot
}

const (
	cmpEq = iota
	cmpNe
	cmpLt
	cmpLe
	cmpGt
	cmpGe
)

// laneCmpRels are the 32-bit integer comparisons cmpLane computes: the
// relation and whether it is signed.
var laneCmpRels = map[opcode]struct {
	rel    uint8
	signed bool
}{
	opSetEq32: {cmpEq, false}, opSetNe32: {cmpNe, false},
	opSetLtS32: {cmpLt, true}, opSetLtU32: {cmpLt, false}, opSetLoU32: {cmpLt, false},
	opSetLeS32: {cmpLe, true}, opSetLeU32: {cmpLe, false}, opSetLsU32: {cmpLe, false},
	opSetGtS32: {cmpGt, true}, opSetGtU32: {cmpGt, false}, opSetHiU32: {cmpGt, false},
	opSetGeS32: {cmpGe, true}, opSetGeU32: {cmpGe, false}, opSetHsU32: {cmpGe, false},
}

// mirrored is the relation b R' a equivalent to a R b.
var mirrored = [...]uint8{cmpEq: cmpEq, cmpNe: cmpNe, cmpLt: cmpGt, cmpLe: cmpGe, cmpGt: cmpLt, cmpGe: cmpLe}

// laneCompares turns the plain setps of %tid.x or %laneid with a uniform
// program slot or a uniform candidate (uniformDefs, which runs first) into
// opCmpLane.
func (dc *decoder) laneCompares() {
	tid, hasTid := dc.specials[spTidX]
	lane, hasLane := dc.specials[spLaneid]
	if !hasTid && !hasLane {
		return
	}
	index := func(s uint32) bool { return hasTid && s == tid || hasLane && s == lane }
	cand := map[uint32]uint64{}
	for _, u := range dc.p.unis {
		if !u.pred {
			cand[u.x.d] = u.bit
		}
	}
	for pc := range dc.p.code {
		x := &dc.p.code[pc]
		k, ok := laneCmpRels[x.op]
		if !ok || x.fl != 0 {
			continue
		}
		lc := laneCmp{x: *x, rel: k.rel, signed: k.signed, a: x.a, b: x.b}
		if !index(lc.a) {
			lc.a, lc.b, lc.rel = lc.b, lc.a, mirrored[lc.rel]
		}
		if !index(lc.a) || index(lc.b) {
			continue
		}
		if !dc.uniform[lc.b] {
			if lc.bit, ok = cand[lc.b]; !ok {
				continue
			}
		}
		lc.tid = hasTid && lc.a == tid
		*x = inst{op: opCmpLane, gp: x.gp, gx: x.gx, aux2: int32(len(dc.p.laneCmps))}
		dc.p.laneCmps = append(dc.p.laneCmps, lc)
	}
}

// laneCmpShift lets cmpLane compute the predicate from the run of lanes;
// tests turn it off to compare with the lane-by-lane compare.
var laneCmpShift = true

// cmpLane runs lc for the lanes of m.
func (c *cta) cmpLane(w *warp, lc *laneCmp, m uint32) {
	r, x := w.r, &lc.x
	var t uint32
	// %tid.x runs on across a warp unless the warp holds the end of one
	// row of the block and the start of the next.
	if laneCmpShift && w.nonuni&lc.bit == 0 && (!lc.tid || c.l.Block.X%32 == 0 || c.nthr == int(c.l.Block.X)) {
		b := r[lc.b+uint32(bits.TrailingZeros32(m)&31)]
		bv := int64(uint32(b))
		if lc.signed {
			bv = int64(int32(b))
		}
		// Lane l holds t0+l, below 2^31 (a thread index): t0+l R B is
		// l R B-t0 in the same order, signed or not.
		k := bv - int64(uint32(r[lc.a]))
		switch lc.rel {
		case cmpEq:
			t = laneAt(k)
		case cmpNe:
			t = ^laneAt(k)
		case cmpLt:
			t = lanesBelow(k)
		case cmpLe:
			t = lanesBelow(k + 1)
		case cmpGt:
			t = ^lanesBelow(k + 1)
		default:
			t = ^lanesBelow(k)
		}
	} else {
		t = execCmp(x, r, m)
	}
	w.pr[x.d] = w.pr[x.d]&^m | t&m
}

// lanesBelow is the mask of lanes l < k.
func lanesBelow(k int64) uint32 {
	switch {
	case k <= 0:
		return 0
	case k >= 32:
		return fullMask
	}
	return 1<<uint(k) - 1
}

// laneAt is the mask of lane k, empty when k is no lane.
func laneAt(k int64) uint32 {
	if k < 0 || k >= 32 {
		return 0
	}
	return 1 << uint(k)
}
