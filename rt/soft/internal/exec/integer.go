// Integer operations that take more than an expression: bmsk, szext, dp4a,
// dp2a, fns and the SIMD video instructions (vadd2/4, vsub, vavrg,
// vabsdiff, vmin, vmax, vset, with .sat or the .add accumulation). The
// generated ops call them (internal/opgen's bitOps); the semantics are the
// PTX ISA's pseudo-code, checked against the H100 (rt/soft/testdata/async/intops*).

package exec

import (
	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// bmsk is bmsk.{clamp,wrap}.b32: b bits set from bit a.
func bmsk(a, b uint64, clamp bool) uint64 {
	a, b = a&0xffffffff, b&0xffffffff
	a1, b1 := a&31, b&31
	mask0 := uint32(0xffffffff) << a1
	sum := a1 + b1
	over := sum >= 32
	if clamp {
		if a >= 32 {
			over = true
			mask0 = 0
		}
		if b >= 32 {
			over = true
		}
	}
	var mask1 uint32
	switch {
	case over:
	case b1 == 0:
		mask1 = 0xffffffff
	default:
		mask1 = uint32(0xffffffff) << sum
	}
	return uint64(mask0 &^ mask1)
}

// szext is szext.{clamp,wrap}.{s32,u32}: a's low b bits, sign- or
// zero-extended.
func szext(a, b uint64, clamp, signed bool) uint64 {
	a, b = a&0xffffffff, b&0xffffffff
	b1 := b & 31
	large := clamp && b >= 32
	mask := uint32(0xffffffff) << b1
	if large {
		mask = 0
	}
	sign := false
	if b1 != 0 && !large && signed {
		sign = a>>((b1-1)&31)&1 != 0
	}
	d := uint32(a) &^ mask
	if sign {
		d |= mask
	}
	return uint64(d)
}

func elem(v uint64, i, width uint, signed bool) int64 {
	x := v >> (i * width) & (1<<width - 1)
	if signed {
		return gpumath.Sext(x, width)
	}
	return int64(x)
}

// dp4a is c plus the dot product of a's and b's four bytes.
func dp4a(a, b, c uint64, as, bs bool) uint64 {
	s := int64(int32(c))
	for i := uint(0); i < 4; i++ {
		s += elem(a, i, 8, as) * elem(b, i, 8, bs)
	}
	return uint64(uint32(s))
}

// dp2a is c plus the dot product of a's two halves and two bytes of b (the
// low two, or with hi the high two).
func dp2a(a, b, c uint64, as, bs, hi bool) uint64 {
	s := int64(int32(c))
	k := uint(0)
	if hi {
		k = 2
	}
	for i := uint(0); i < 2; i++ {
		s += elem(a, i, 16, as) * elem(b, k+i, 8, bs)
	}
	return uint64(uint32(s))
}

// fns is the position of the offset-th set bit of mask counting from base
// (downwards for a negative offset), or 0xffffffff.
func fns(mask, base, offset uint64) uint64 {
	m, pos, off := uint32(mask), int64(uint32(base)), int64(int32(offset))
	if off == 0 {
		if pos < 32 && m>>pos&1 != 0 {
			return uint64(pos)
		}
		return 0xffffffff
	}
	inc, count := int64(1), off-1
	if off < 0 {
		inc, count = -1, -off-1
	}
	for ; pos >= 0 && pos < 32; pos += inc {
		if m>>pos&1 != 0 {
			if count == 0 {
				return uint64(pos)
			}
			count--
		}
	}
	return 0xffffffff
}

// Packed 16-bit integer operations (add, sub, min, max on .u16x2/.s16x2).
const (
	x2Add = iota
	x2Sub
	x2Min
	x2Max
)

// x2op applies op to both 16-bit halves of a and b; sat saturates signed
// results (add.sat.s16x2, sub.sat.s16x2), else they wrap.
func x2op(a, b uint64, op int, signed, sat bool) uint64 {
	var d uint64
	for i := uint(0); i < 2; i++ {
		x, y := elem(a, i, 16, signed), elem(b, i, 16, signed)
		var t int64
		switch op {
		case x2Add:
			t = x + y
		case x2Sub:
			t = x - y
		case x2Min:
			t = min(x, y)
		case x2Max:
			t = max(x, y)
		}
		if sat {
			t = min(max(t, -1<<15), 1<<15-1)
		}
		d |= uint64(t) & 0xffff << (16 * i)
	}
	return d
}

// x2relu clamps negative signed halves to 0.
func x2relu(v uint64) uint64 {
	for i := uint(0); i < 2; i++ {
		if v>>(16*i+15)&1 != 0 {
			v &^= 0xffff << (16 * i)
		}
	}
	return v
}

// The SIMD video instructions' in.fl: operation, lanes, signedness, mode.
const (
	vAdd = iota
	vSub
	vAvrg
	vAbsdiff
	vMin
	vMax
	vSet // the comparison is in bits 12..14

	vFour   = 1 << 4 // four 8-bit lanes (else two 16-bit)
	vASign  = 1 << 5
	vBSign  = 1 << 6
	vDSign  = 1 << 7
	vSat    = 1 << 8
	vAccum  = 1 << 9 // .add: d = c + the sum of the lanes
	vCmpPos = 12
)

var videoOps = map[string]uint16{"vadd": vAdd, "vsub": vSub, "vavrg": vAvrg, "vabsdiff": vAbsdiff, "vmin": vMin, "vmax": vMax, "vset": vSet}

var videoCmps = map[string]uint16{"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}

// video runs a SIMD video instruction on each lane of a and b; without
// .add, lanes are truncated (or with .sat saturated) into d's lanes.
func video(a, b, c uint64, fl uint16) uint64 {
	width, n := uint(16), uint(2)
	if fl&vFour != 0 {
		width, n = 8, 4
	}
	var d, sum uint64
	sum = uint64(int64(int32(c)))
	for i := uint(0); i < n; i++ {
		x, y := elem(a, i, width, fl&vASign != 0), elem(b, i, width, fl&vBSign != 0)
		var t int64
		switch fl & 15 {
		case vAdd:
			t = x + y
		case vSub:
			t = x - y
		case vAvrg:
			// Halves round away from zero (the H100's signed results).
			t = x + y
			if t >= 0 {
				t = (t + 1) >> 1
			} else {
				t >>= 1
			}
		case vAbsdiff:
			t = gpumath.AbsDiff(x, y)
		case vMin:
			t = min(x, y)
		case vMax:
			t = max(x, y)
		case vSet:
			if videoCompare(uint64(fl>>vCmpPos&7), x, y) {
				t = 1
			}
		}
		if fl&vAccum != 0 {
			sum += uint64(t)
			continue
		}
		if fl&vSat != 0 {
			lo, hi := int64(0), int64(1)<<width-1
			if fl&vDSign != 0 {
				lo, hi = -(int64(1) << (width - 1)), int64(1)<<(width-1)-1
			}
			t = min(max(t, lo), hi)
		}
		d |= uint64(t) & (1<<width - 1) << (i * width)
	}
	if fl&vAccum != 0 {
		return sum & 0xffffffff
	}
	return d
}

// videoInstr decodes vadd2 … vset4 into the generated Video op.
func (dc *decoder) videoInstr(in *ptx.Instr, sc *scope, m modset, x inst) {
	name := in.Op[:len(in.Op)-1]
	fl, ok := videoOps[name]
	if !ok {
		dc.failIn(in, "the scalar video instructions are not supported by the soft backend")
	}
	if in.Op[len(in.Op)-1] == '4' {
		fl |= vFour
	}
	// vset's result is a mask of 0/1 lanes: it has no .dtype.
	types := m.types
	if name == "vset" {
		types = append([]ptx.Type{ptx.U32}, types...)
	}
	if len(types) != 3 {
		dc.failIn(in, "expected the types .dtype.atype.btype (vset: .atype.btype)")
	}
	for i, t := range types {
		if t != ptx.U32 && t != ptx.S32 {
			dc.failIn(in, "type .%s: expected .u32 or .s32", t)
		}
		if t == ptx.S32 {
			fl |= [3]uint16{vDSign, vASign, vBSign}[i]
		}
	}
	hasCmp := false
	for _, f := range m.list {
		cmp, isCmp := videoCmps[f]
		switch {
		case f == "sat":
			fl |= vSat
		case f == "add":
			fl |= vAccum
		case isCmp && name == "vset":
			fl |= cmp << vCmpPos
			hasCmp = true
		default:
			dc.failIn(in, "modifier .%s is not supported", f)
		}
	}
	if name == "vset" && !hasCmp {
		dc.failIn(in, "missing comparison")
	}
	dc.nops(in, 4)
	for _, o := range in.Operands {
		if r, ok := o.(*ptx.Reg); ok && r.Comp != "" {
			dc.failIn(in, "lane selectors and masks (.%s) are not supported by the soft backend", r.Comp)
		}
	}
	g := genOps["vsimd"]
	x.op, x.fl = g.op, fl
	x.d = dc.dst(in, sc, in.Operands[0])
	x.a, x.b, x.c = dc.src(in, sc, in.Operands[1], ptx.B32), dc.src(in, sc, in.Operands[2], ptx.B32), dc.src(in, sc, in.Operands[3], ptx.B32)
	dc.emit(in, x)
}

// videoCompare is vset's comparison: cmp numbers eq, ne, lt, le, gt, ge
// from 0 (videoCmps), of the operands as the instruction widened them.
func videoCompare(cmp uint64, x, y int64) bool {
	switch cmp {
	case 0:
		return x == y
	case 1:
		return x != y
	case 2:
		return x < y
	case 3:
		return x <= y
	case 4:
		return x > y
	case 5:
		return x >= y
	}
	return false
}
