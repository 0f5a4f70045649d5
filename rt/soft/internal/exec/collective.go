// Warp collectives: shfl.sync, vote.sync, match.sync and redux.sync. Each
// reads other lanes' registers, so it runs once for the group's whole mask
// rather than lane by lane, and it is apart from the loop because its
// meaning is the warp's, not a lane's. (activemask and elect.sync are a few
// lines each and stay in the loop; bar.warp.sync decodes to nothing.)

package exec

import "math/bits"

// Warp-level operations read every source lane before writing any
// destination, so a destination that is also a source is safe.

func (c *cta) shfl(w *warp, in *inst, m uint32) {
	r := w.r
	a, b, cc := lanes(r, in.a), lanes(r, in.b), lanes(r, in.c)
	d := lanes(r, in.d)
	mode := in.fl &^ shflUniform
	if m == fullMask && shflFull(mode, in.fl&shflUniform != 0, a, b, cc, d, &w.pr[in.aux]) {
		return
	}
	vals := a
	if in.d == in.a {
		v := *a
		vals = &v
	}
	w.pr[in.aux] = w.pr[in.aux]&^m | shflLanes(mode, vals, b, cc, d, m)
}

// shflLanes is shfl lane by lane over the lanes of m; it returns the
// lanes whose source was in range.
func shflLanes(mode uint16, vals, b, cc, d *[32]uint64, m uint32) uint32 {
	var pbits uint32
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		bval := int(b[l] & 31)
		cv := cc[l]
		seg := int(cv >> 8 & 31)
		clamp := int(cv & 31)
		maxLane := l&seg | clamp&^seg
		minLane := l & seg
		var j int
		var ok bool
		switch mode {
		case shflUp:
			j = l - bval
			ok = j >= maxLane
		case shflDown:
			j = l + bval
			ok = j <= maxLane
		case shflBfly:
			j = l ^ bval
			ok = j <= maxLane
		default:
			j = minLane | bval&^seg
			ok = j <= maxLane
		}
		if !ok {
			j = l
		}
		d[l] = vals[j&31]
		if ok {
			pbits |= 1 << l
		}
	}
	return pbits
}

// shflFull is shfl for a full warp whose lane and clamp operands are the
// same in every lane and whose segment is the whole warp (c's mask bits
// zero: the __shfl*_sync forms of width 32): each lane's source is then a
// shift of the lane number, copied in blocks. It reports false, doing
// nothing, for any other case, which the per-lane loop handles. uniform
// says that b and cc are known to be the same in every lane (immediates),
// which it then need not check. d may be vals (or b or cc): every source
// is read before it is overwritten.
func shflFull(mode uint16, uniform bool, vals, b, cc, d *[32]uint64, pred *uint32) bool {
	b0, c0 := b[0], cc[0]
	if !uniform {
		var diff uint64
		for l := 1; l < 32; l++ {
			diff |= (b[l] ^ b0) | (cc[l] ^ c0)
		}
		if diff != 0 {
			return false
		}
	}
	if c0>>8&31 != 0 {
		return false
	}
	bval, clamp := int(b0&31), int(c0&31)
	switch mode {
	case shflUp:
		// Lane l reads l-bval when that is at least clamp (maxLane).
		lo := max(bval, clamp+bval) // first lane whose source is in range
		if lo > 31 {
			*d = *vals
			*pred = 0
			return true
		}
		copy(d[:lo], vals[:lo])
		copy(d[lo:], vals[lo-bval:32-bval])
		*pred = ^uint32(0) << lo
	case shflDown:
		// Lane l reads l+bval when that is at most clamp.
		n := clamp - bval + 1 // lanes 0..n-1 in range
		if n <= 0 {
			*d = *vals
			*pred = 0
			return true
		}
		copy(d[:n], vals[bval:bval+n])
		copy(d[n:], vals[n:])
		*pred = uint32(1)<<n - 1
		if n == 32 {
			*pred = fullMask
		}
	case shflBfly:
		if clamp != 31 {
			return false
		}
		src := *vals // lanes swap: d may be vals
		for l := range d {
			d[l] = src[l^bval]
		}
		*pred = fullMask
	default:
		if bval > clamp {
			*d = *vals
			*pred = 0
			return true
		}
		splat(d, vals[bval])
		*pred = fullMask
	}
	return true
}

// vote computes over each lane's membermask, as redux does: lanes of one
// converged warp that pass different masks (cg::labeled_partition) each
// see only their own group's predicates. The non-.sync form has the whole
// executing group as its mask.
func (c *cta) vote(w *warp, in *inst, m uint32) {
	p := w.pr[in.a]
	if in.fl&16 != 0 {
		p = ^p
	}
	mk := lanes(w.r, in.b)
	var d *[32]uint64
	if in.fl&15 == voteBallot {
		d = lanes(w.r, in.d)
	}
	var set uint32 // lanes whose predicate result is true
	for todo := m; todo != 0; {
		mask := uint32(mk[bits.TrailingZeros32(todo)&31])
		var same uint32
		for k := todo; k != 0; k &= k - 1 {
			if l := bits.TrailingZeros32(k) & 31; uint32(mk[l]) == mask {
				same |= 1 << l
			}
		}
		todo &^= same
		grp := mask & m
		q := p & grp
		var v bool
		switch in.fl & 15 {
		case voteBallot:
			for k := same; k != 0; k &= k - 1 {
				d[bits.TrailingZeros32(k)&31] = uint64(q)
			}
			continue
		case voteAll:
			v = q == grp
		case voteAny:
			v = q != 0
		case voteUni:
			v = q == 0 || q == grp
		}
		if v {
			set |= same
		}
	}
	if in.fl&15 != voteBallot {
		w.pr[in.d] = w.pr[in.d]&^m | set
	}
}

func (c *cta) match(w *warp, in *inst, m uint32) {
	a := *lanes(w.r, in.a)
	if in.fl&2 == 0 {
		for l := range a {
			a[l] &= 0xffffffff
		}
	}
	d := lanes(w.r, in.d)
	if in.fl&1 == 0 { // any
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm) & 31
			var s uint32
			for k := m; k != 0; k &= k - 1 {
				j := bits.TrailingZeros32(k) & 31
				if a[j] == a[l] {
					s |= 1 << j
				}
			}
			d[l] = uint64(s)
		}
		return
	}
	first := a[bits.TrailingZeros32(m)&31]
	all := true
	for k := m; k != 0; k &= k - 1 {
		if a[bits.TrailingZeros32(k)&31] != first {
			all = false
		}
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		if all {
			d[l] = uint64(m)
		} else {
			d[l] = 0
		}
	}
	if all {
		w.pr[in.aux] |= m
	} else {
		w.pr[in.aux] &^= m
	}
}

// redux reduces over each lane's membermask: the lanes that pass the same
// mask form one group (a cg::labeled_partition passes a different mask per
// label, all in one converged warp), so each group gets its own result.
func (c *cta) redux(w *warp, in *inst, m uint32) {
	a := lanes(w.r, in.a)
	mk := lanes(w.r, in.b)
	d := lanes(w.r, in.d)
	signed := in.fl&16 != 0
	for todo := m; todo != 0; {
		mask := uint32(mk[bits.TrailingZeros32(todo)&31])
		// the lanes executing with this mask, reducing over those in it
		var same uint32
		for k := todo; k != 0; k &= k - 1 {
			if l := bits.TrailingZeros32(k) & 31; uint32(mk[l]) == mask {
				same |= 1 << l
			}
		}
		todo &^= same
		grp := mask & m
		var acc uint32
		first := true
		for k := grp; k != 0; k &= k - 1 {
			v := uint32(a[bits.TrailingZeros32(k)&31])
			if first {
				acc, first = v, false
				continue
			}
			switch in.fl & 15 {
			case rdAdd:
				acc += v
			case rdMin:
				if signed {
					acc = uint32(min(int32(acc), int32(v)))
				} else {
					acc = min(acc, v)
				}
			case rdMax:
				if signed {
					acc = uint32(max(int32(acc), int32(v)))
				} else {
					acc = max(acc, v)
				}
			case rdAnd:
				acc &= v
			case rdOr:
				acc |= v
			case rdXor:
				acc ^= v
			}
		}
		for k := same; k != 0; k &= k - 1 {
			d[bits.TrailingZeros32(k)&31] = uint64(acc)
		}
	}
}
