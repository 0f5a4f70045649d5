package exec

// A warp reduction's step, shfl.sync.down then add.f32 of the value shifted
// in (v += __shfl_down_sync(~0u, v, o)), as one pass over the lanes: the
// shuffle's destination and the sum are written lane by lane together, not
// in two ops' passes. The shfl keeps its place with the add after it
// unchanged, so a warp the pass does not fit (not full, a segmented or
// non-immediate lane operand, the run's stop between them) runs them one
// by one.

import "github.com/cugen/cugen/rt/soft/internal/gpumath"

// opShflAdd runs p.shflAdds[aux2] (shflAddStep), or its shfl alone.
const opShflAdd opcode = opALU - 41

// shflAdd is a shfl.down with immediate lane and clamp operands and the
// unguarded add.f32 (round to nearest) after it that reads its result.
type shflAdd struct {
	shfl inst
	o    uint32 // the add's other source, d its destination
	d    uint32
}

// shflAddFused lets exec run the pair in one pass; tests turn it off to
// compare with running them one by one.
var shflAddFused = true

// shflAdds fuses the shfl.down-add.f32 pairs of the program. The four
// registers involved must differ, so that no lane's write is another's
// source.
func (dc *decoder) shflAdds() {
	code := dc.p.code
	for pc := 0; pc+1 < len(code); pc++ {
		s, y := &code[pc], &code[pc+1]
		if s.op != opShfl || s.fl != shflDown|shflUniform || s.gp >= 0 || y.op != opAddF32Rn || y.gp >= 0 {
			continue
		}
		o := y.a
		if o == s.d {
			o = y.b
		} else if y.b != s.d {
			continue
		}
		if o == s.d || s.d == s.a || y.d == s.d || y.d == s.a || y.d == o {
			continue
		}
		dc.p.shflAdds = append(dc.p.shflAdds, shflAdd{shfl: *s, o: o, d: y.d})
		*s = inst{op: opShflAdd, gp: -1, aux2: int32(len(dc.p.shflAdds) - 1)}
	}
}

// shflAddStep runs f on a full warp and reports whether it did; false
// means it did nothing (the segment is not the whole warp).
func shflAddStep(f *shflAdd, w *warp) bool {
	s, r := &f.shfl, w.r
	c0 := r[s.c]
	if !shflAddFused || c0>>8&31 != 0 {
		return false
	}
	vals, o, sd, d := lanes(r, s.a), lanes(r, f.o), lanes(r, s.d), lanes(r, f.d)
	// Lane l reads l+bval when that is at most clamp, else its own value.
	bval := int(r[s.b] & 31)
	n := int(c0&31) - bval + 1
	var pred uint32
	switch {
	case n >= 32:
		pred = fullMask
	case n > 0:
		pred = 1<<uint(n) - 1
	default:
		n = 0
	}
	if warpAsm {
		// The shuffle is two copies (lane l+bval ≤ clamp ≤ 31), the add
		// one assembly pass; the registers differ but o may be vals.
		copy(sd[:n], vals[bval:bval+n])
		copy(sd[n:], vals[n:])
		addRNWarp(d, o, sd)
		w.pr[s.aux] = pred
		return true
	}
	for l := 0; l < n; l++ {
		v := vals[(l+bval)&31]
		sd[l&31] = v
		d[l&31] = gpumath.R32(gpumath.F32(o[l&31]) + gpumath.F32(v))
	}
	for l := n; l < 32; l++ {
		v := vals[l&31]
		sd[l&31] = v
		d[l&31] = gpumath.R32(gpumath.F32(o[l&31]) + gpumath.F32(v))
	}
	w.pr[s.aux] = pred
	return true
}
