// Tensor copies: cp.async.bulk.tensor and cp.reduce.async.bulk.tensor in
// tile mode, 1-D to 5-D. The tensor map is read from memory when the copy
// is issued and decoded from the H100 driver's layout (which soft's own
// encoder writes; see tensormap.go): a box of ceil(box[i]/elementStride[i])
// elements in each dimension, starting at the instruction's coordinates and
// stepping by the element strides (dimension 0 steps by 1 without an
// interleave), lies densely in shared memory, innermost dimension first,
// with the 16-byte chunks of each 128-, 64- or 32-byte row exchanged as the
// map's swizzle says (bits 4..6 of the shared address xor bits 7..9, as
// CUTLASS's Swizzle<3,4,3>, <2,4,3> and <1,4,3>). Elements outside the
// tensor read as zero (or, with OOBFillNaNRequestZeroFMA, 0x7ff7 in every
// 16 bits) and are not written. The box's bytes are the complete-tx of a load. Im2col maps and
// interleaved layouts are refused when a copy uses them.

package exec

import (
	"encoding/binary"

	"github.com/cugen/cugen/rt/soft/internal/devmem"
)

// tensorMap is a decoded rt.TensorMap.
type tensorMap struct {
	base     uint64
	rank     int
	esize    uint64
	code     uint32 // the control word's element type code
	dims     [5]uint64
	strides  [5]uint64 // bytes; strides[0] is the element size
	box      [5]uint32 // elements per dimension in the box
	estr     [5]uint32
	il, sw   uint32
	oobNaN   bool
	boxBytes uint64
}

// tmapElemSizes are the element sizes by the control word's type code.
var tmapElemSizes = [...]uint64{1, 2, 4, 4, 8, 8, 2, 4, 4, 8, 2, 4, 4}

// oobNaN is what OOBFillNaNRequestZeroFMA reads outside the tensor: the
// H100 fills every element, whatever its size, with the 16-bit pattern
// 0x7ff7 (a NaN as f16, bf16, f32 and f64).
const oobNaN = 0x7ff77ff77ff77ff7

// readTensorMap reads and decodes the tensor map at a generic address;
// ok false means a fault was recorded.
func (c *cta) readTensorMap(w *warp, addr uint64, l int) (tm tensorMap, ok bool) {
	if addr%64 != 0 {
		c.fault = &fault{kind: fMisaligned, warp: w.id, lane: l, pc: c.pc, addr: addr, size: 128, space: spGeneric,
			msg: sprintf("tensor map address %#x is not 64-byte aligned", addr)}
		return tm, false
	}
	var b [128]byte
	for i := uint64(0); i < 128; i += 8 {
		p := c.ptr(w, spGeneric, addr+i, 8, false, l)
		if p == nil {
			return tm, false
		}
		binary.LittleEndian.PutUint64(b[i:], devmem.Load(p, 8))
	}
	le := binary.LittleEndian
	bad := func(format string, args ...any) (tensorMap, bool) {
		c.fault = &fault{kind: fInvalid, warp: w.id, lane: l, pc: c.pc, addr: addr, space: spGeneric,
			msg: sprintf("tensor map at %#x: ", addr) + sprintf(format, args...)}
		return tm, false
	}
	ctl := le.Uint32(b[8:])
	if ctl&15 != 0 {
		return bad("not a tiled map (im2col maps are not supported by the soft backend)")
	}
	tm.base = le.Uint64(b[0:])
	tm.rank = int(ctl>>4&7) + 1
	tm.code = ctl >> 7 & 15
	tm.il, tm.sw = ctl>>11&3, ctl>>13&3
	tm.oobNaN = ctl>>15&1 != 0
	if tm.rank > 5 || int(tm.code) >= len(tmapElemSizes) {
		return bad("rank %d, element type code %d: not a map this driver encodes", tm.rank, tm.code)
	}
	if tm.il != 0 {
		return bad("interleaved layouts are not supported by the soft backend")
	}
	tm.esize = tmapElemSizes[tm.code]
	tm.strides[0] = tm.esize
	es := le.Uint16(b[52:])
	tm.boxBytes = tm.esize
	for i := 0; i < tm.rank; i++ {
		tm.dims[i] = uint64(le.Uint32(b[32+4*i:])) + 1
		tm.box[i] = uint32(b[55+i]) + 1
		tm.estr[i] = uint32(es>>(3*i)&7) + 1
		if i > 0 {
			u := uint64(le.Uint32(b[12+4*(i-1):])) | uint64(b[28+(i-1)/2]>>(4*((i-1)%2))&15)<<32
			tm.strides[i] = u << 4
		} else {
			tm.estr[0] = 1 // dimension 0 has no traversal stride without an interleave
		}
		tm.boxBytes *= uint64((tm.box[i] + tm.estr[i] - 1) / tm.estr[i])
	}
	return tm, true
}

// tensorCopy runs lane l's tensor copy.
func (c *cta) tensorCopy(w *warp, op *bulkOp, l int) bool {
	r := w.r
	tm, ok := c.readTensorMap(w, r[op.tmap+uint32(l)]+uint64(op.tmapOff), l)
	if !ok {
		return false
	}
	if tm.rank != op.dims {
		c.fault = &fault{kind: fInvalid, warp: w.id, lane: l, pc: c.pc,
			msg: sprintf("a .%dd tensor copy with a tensor map of rank %d", op.dims, tm.rank)}
		return false
	}
	var at [5]int64
	for i, s := range op.coords {
		at[i] = int64(int32(r[s+uint32(l)]))
	}
	if op.kind == bkTensorLoad {
		dst := (r[op.dst+uint32(l)] + uint64(op.dstOff)) & 0xffffffff
		if dst%128 != 0 {
			c.fault = &fault{kind: fMisaligned, warp: w.id, lane: l, pc: c.pc, addr: dst, size: tm.boxBytes, space: spShared, write: true,
				msg: sprintf("tensor copy destination %#x is not 128-byte aligned", dst)}
			return false
		}
		ts, off, ok := c.targets(w, op, l, dst)
		if !ok {
			return false
		}
		for _, t := range ts {
			box := c.sharedSpan(t, off, tm.boxBytes, true, l)
			if box == nil || !c.walkBox(&tm, at, box, off, l, true, op) {
				return false
			}
			if !t.completeTx(c, w, op, l, tm.boxBytes) {
				return false
			}
		}
		return true
	}
	src := (r[op.src+uint32(l)] + uint64(op.srcOff)) & 0xffffffff
	if src%128 != 0 {
		c.fault = &fault{kind: fMisaligned, warp: w.id, lane: l, pc: c.pc, addr: src, size: tm.boxBytes, space: spShared,
			msg: sprintf("tensor copy source %#x is not 128-byte aligned", src)}
		return false
	}
	box := c.sharedSpan(c, src, tm.boxBytes, false, l)
	return box != nil && c.walkBox(&tm, at, box, src, l, false, op)
}

// walkBox moves the box at coordinates at between global memory and box,
// the shared memory at shared offset off: load true reads the tensor.
func (c *cta) walkBox(tm *tensorMap, at [5]int64, box []byte, off uint64, l int, load bool, op *bulkOp) bool {
	var n [5]uint64
	rows := uint64(1)
	for i := 0; i < 5; i++ {
		n[i] = 1
		if i < tm.rank {
			n[i] = uint64((tm.box[i] + tm.estr[i] - 1) / tm.estr[i])
		}
		if i > 0 {
			rows *= n[i]
		}
	}
	es := tm.esize
	swz := uint64(0)
	if tm.sw != 0 {
		swz = (1<<tm.sw - 1) << 4 // bits 4.. that bits 7.. flip
	}
	fill := uint64(0)
	if tm.oobNaN {
		fill = oobNaN
	}
	row := make([]byte, n[0]*es)
	for ri := uint64(0); ri < rows; ri++ {
		// The row's coordinates in dimensions 1..4.
		var k [5]uint64
		rem := ri
		inside := true
		var gaddr uint64 = tm.base
		for i := 1; i < 5; i++ {
			k[i] = rem % n[i]
			rem /= n[i]
			if i >= tm.rank {
				continue
			}
			x := at[i] + int64(k[i])*int64(tm.estr[i])
			if x < 0 || uint64(x) >= tm.dims[i] {
				inside = false
			}
			gaddr += uint64(x) * tm.strides[i]
		}
		// The row's elements inside the tensor: x0 in [lo, hi).
		lo, hi := max(at[0], 0), min(at[0]+int64(n[0]), int64(tm.dims[0]))
		if !inside || lo >= hi {
			lo, hi = at[0], at[0]
		}
		first, count := uint64(lo-at[0]), uint64(hi-lo)
		var g []byte
		if count > 0 {
			g = c.globalSpan(gaddr+uint64(lo)*es, count*es, !load, l)
			if g == nil {
				return false
			}
		}
		if load {
			for i := uint64(0); i < n[0]; i++ {
				putElem(row[i*es:], es, fill)
			}
			devmem.CopyOut(row[first*es:], g)
		}
		base := ri * n[0] * es
		if swz == 0 {
			if load {
				copy(box[base:], row)
			} else if count > 0 {
				c.bulkMove(g, box[base+first*es:base+(first+count)*es], op)
			}
			continue
		}
		// Swizzled: each 16-byte chunk moves (elements never straddle one).
		for i := uint64(0); i < n[0]; i++ {
			a := off + base + i*es
			s := a ^ (a >> 3 & swz) - off
			if load {
				copy(box[s:s+es], row[i*es:])
			} else if i >= first && i < first+count {
				c.bulkMove(g[(i-first)*es:(i-first+1)*es], box[s:s+es], op)
			}
		}
	}
	return true
}

func putElem(b []byte, size, v uint64) {
	switch size {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
}
