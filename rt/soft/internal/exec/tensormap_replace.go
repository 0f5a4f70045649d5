// tensormap.replace (PTX ISA 8.3, sm_90a): a field of the 128-byte tensor
// map at an address in global or shared memory is replaced in place, in
// the layout soft's encoder writes (tensormap.go). What each field's value
// does to the bytes was recorded on the H100 (rt/soft/testdata/isa8.json.gz, every
// field, ordinal and value class, in both state spaces; the other bytes
// are left alone, so changing the box does not recompute the box's bytes
// at 64..67 and changing the swizzle does not change bytes 72..75):
//
//	global_address  bytes 0..7 = new_val
//	rank            control bits 4..6 = new_val (rank - 1)
//	box_dim         byte 55+ord = new_val - 1
//	global_dim      bytes 32+4*ord.. = new_val - 1
//	global_stride   bytes 12+4*ord.. = new_val>>4, bits 32..35 of that in
//	                byte 28+ord/2's nibble ord%2
//	element_stride  bits 3*ord.. of bytes 52..53 = new_val - 1
//	elemtype        control bits 7..10 = new_val (PTX's numbering is the
//	                map's), except .tf32 (11) and .tf32.ftz (12): 7 and 8
//	                with the round-to-tf32 bit 16
//	interleave_layout, swizzle_mode, fill_mode
//	                control bits 11..12, 13..14, 15 = new_val

package exec

import (
	"encoding/binary"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/devmem"
)

const (
	tmrAddress = iota
	tmrRank
	tmrBoxDim
	tmrGlobalDim
	tmrGlobalStride
	tmrElemStride
	tmrElemType
	tmrInterleave
	tmrSwizzle
	tmrFill
)

var tmrFields = map[string]int{"global_address": tmrAddress, "rank": tmrRank, "box_dim": tmrBoxDim, "global_dim": tmrGlobalDim,
	"global_stride": tmrGlobalStride, "element_stride": tmrElemStride, "elemtype": tmrElemType,
	"interleave_layout": tmrInterleave, "swizzle_mode": tmrSwizzle, "fill_mode": tmrFill}

// tmapReplace is a decoded tensormap.replace (bulkOp.tmr).
type tmapReplace struct {
	field, ord int
	val        uint32 // the new value's register (or constant slot)
}

// replace applies r with value v to the map m.
func (r *tmapReplace) replace(m []byte, v uint64) {
	le := binary.LittleEndian
	ctl := le.Uint32(m[8:])
	setCtl := func(pos, n uint, x uint64) {
		mask := uint32(1)<<n - 1
		ctl = ctl&^(mask<<pos) | uint32(x)&mask<<pos
	}
	switch r.field {
	case tmrAddress:
		le.PutUint64(m[0:], v)
	case tmrRank:
		setCtl(4, 3, v)
	case tmrBoxDim:
		m[55+r.ord] = byte(v - 1)
	case tmrGlobalDim:
		le.PutUint32(m[32+4*r.ord:], uint32(v-1))
	case tmrGlobalStride:
		u := v >> 4
		le.PutUint32(m[12+4*r.ord:], uint32(u))
		sh := 4 * uint(r.ord%2)
		m[28+r.ord/2] = m[28+r.ord/2]&^(0xf<<sh) | byte(u>>32&0xf)<<sh
	case tmrElemStride:
		es := le.Uint16(m[52:])
		sh := 3 * uint(r.ord)
		es = es&^(7<<sh) | uint16(v-1)&7<<sh
		le.PutUint16(m[52:], es)
	case tmrElemType:
		code, tf32 := v, uint64(0)
		if v >= 11 {
			code, tf32 = v-4, 1
		}
		setCtl(7, 4, code)
		setCtl(16, 1, tf32)
	case tmrInterleave:
		setCtl(11, 2, v)
	case tmrSwizzle:
		setCtl(13, 2, v)
	case tmrFill:
		setCtl(15, 1, v)
	}
	if r.field == tmrRank || r.field >= tmrElemType {
		le.PutUint32(m[8:], ctl)
	}
}

// tmapReplaceRun runs a tensormap.replace for lane l.
func (c *cta) tmapReplaceRun(w *warp, op *bulkOp, l int) bool {
	addr := w.r[op.dst+uint32(l)] + uint64(op.dstOff)
	if addr%64 != 0 {
		return c.misaligned64(w, l, addr, op.dstSpace)
	}
	var m []byte
	if op.dstSpace == spGlobal {
		m = c.globalSpan(addr, 128, true, l)
	} else {
		m = c.sharedSpan(c, addr&0xffffffff, 128, true, l)
	}
	if m == nil {
		return false
	}
	var buf [128]byte
	devmem.CopyOut(buf[:], m)
	op.tmr.replace(buf[:], w.r[op.tmr.val+uint32(l)])
	devmem.CopyIn(m, buf[:])
	return true
}

func (c *cta) misaligned64(w *warp, l int, addr uint64, space int) bool {
	c.fault = &fault{kind: fMisaligned, warp: w.id, lane: l, pc: c.pc, addr: addr, size: 128, space: space, write: true,
		msg: sprintf("tensor map address %#x is not a multiple of 64", addr)}
	return false
}

// tensormapReplace decodes tensormap.replace.tile.field.space.b1024.type.
func (dc *decoder) tensormapReplace(in *ptx.Instr, sc *scope, m modset, x inst) {
	arch := false
	for _, t := range dc.lib.PTX.Target {
		if len(t) > 3 && t[:3] == "sm_" && t[len(t)-1] == 'a' {
			arch = true
		}
	}
	if !arch {
		dc.failIn(in, "tensormap.replace needs an architecture-specific target such as sm_90a")
	}
	if !m.flags["tile"] {
		dc.failIn(in, "expected .tile")
	}
	if m.flags["swizzle_atomicity"] {
		dc.failIn(in, "tensormap.replace.swizzle_atomicity needs sm_100a or later")
	}
	r := &tmapReplace{field: -1}
	for f, id := range tmrFields {
		if m.flags[f] {
			r.field = id
		}
	}
	if r.field < 0 {
		dc.failIn(in, "missing the field to replace")
	}
	op := bulkOp{kind: bkTmapReplace, dstSpace: spGlobal, red: -1, tmr: r}
	switch {
	case m.flags["shared::cta"] || m.flags["shared"]:
		op.dstSpace = spShared
	case m.flags["global"]:
	default:
		// No state space: a generic address, which soft resolves as global
		// or shared by its window.
		dc.failIn(in, "tensormap.replace without .global or .shared::cta is not supported by the soft backend")
	}
	t := ptx.B32
	if r.field == tmrAddress || r.field == tmrGlobalStride {
		t = ptx.B64
	}
	if m.typ() != t {
		dc.failIn(in, "expected .b1024.%s", t)
	}
	ops := in.Operands
	vi := 1
	if r.field >= tmrBoxDim && r.field <= tmrElemStride {
		dc.nops(in, 3)
		o, ok := ops[1].(*ptx.Imm)
		max := uint64(5)
		if r.field == tmrGlobalStride {
			max = 4
		}
		if !ok || o.Val >= max {
			dc.failIn(in, "the ordinal must be an immediate below %d", max)
		}
		r.ord, vi = int(o.Val), 2
	} else {
		dc.nops(in, 2)
	}
	if r.field >= tmrElemType {
		o, ok := ops[vi].(*ptx.Imm)
		if !ok {
			dc.failIn(in, "the new value of this field must be an integer constant")
		}
		lim := map[int]uint64{tmrElemType: 12, tmrInterleave: 2, tmrSwizzle: 3, tmrFill: 1}[r.field]
		if o.Val > lim {
			dc.failIn(in, "value %d out of range [0..%d] for this field on sm_90", o.Val, lim)
		}
	}
	op.dst, op.dstOff, _ = dc.memAddr(in, sc, ops[0], op.dstSpace)
	r.val = dc.src(in, sc, ops[vi], t)
	x.op, x.aux = opBulk, int32(len(dc.p.bulks))
	dc.p.bulks = append(dc.p.bulks, op)
	dc.emit(in, x)
}
