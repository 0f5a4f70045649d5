// The scalar video instructions (vadd, vsub, vabsdiff, vmin, vmax, vshl,
// vshr, vmad, vset) with byte and half-word selectors, .sat, the secondary
// operations .add/.min/.max and the merge into a destination selector, as
// the PTX ISA defines them and the H100 computes them (checked on random
// operands of every form in rt/soft/testdata/isa8.json.gz). The whole form is
// encoded in the instruction's imm (vidSpec) and run by one ext function.

package exec

import (
	"math/bits"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// vidSpec bit fields.
const (
	vsOp    = 0  // 4 bits: vidAdd…
	vsASel  = 4  // 3 bits: selector (vselNone, b0..b3, h0, h1)
	vsBSel  = 7  //
	vsDSel  = 10 // 3 bits: destination selector (merge with c)
	vsOp2   = 13 // 2 bits: 0 none, 1 add, 2 min, 3 max
	vsCmp   = 15 // 3 bits: vset's comparison
	vsScale = 18 // 2 bits: vmad's 0, .shr7, .shr15
	vsASign = 1 << 20
	vsBSign = 1 << 21
	vsDSign = 1 << 22
	vsSat   = 1 << 23
	vsClamp = 1 << 24 // vshl/vshr .clamp (else .wrap)
	vsPO    = 1 << 25 // vmad .po
	vsNegAB = 1 << 26 // vmad: exactly one of a and b negated (-(a*b))
	vsNegC  = 1 << 27 // vmad: c negated
)

const (
	vidAdd = iota
	vidSub
	vidAbsdiff
	vidMin
	vidMax
	vidShl
	vidShr
	vidMad
	vidSet
)

var vidOps = map[string]int64{"vadd": vidAdd, "vsub": vidSub, "vabsdiff": vidAbsdiff, "vmin": vidMin, "vmax": vidMax,
	"vshl": vidShl, "vshr": vidShr, "vmad": vidMad, "vset": vidSet}

// Selectors: 0 the whole word, 1..4 bytes 0..3, 5..6 halves 0..1.
var vidSels = map[string]int64{"b0": 1, "b1": 2, "b2": 3, "b3": 4, "h0": 5, "h1": 6}

// vidSelect extracts the selected part of v, sign- or zero-extended.
func vidSelect(v uint64, sel int64, signed bool) int64 {
	v &= 0xffffffff
	var pos, n uint
	switch {
	case sel == 0:
		pos, n = 0, 32
	case sel <= 4:
		pos, n = uint(sel-1)*8, 8
	default:
		pos, n = uint(sel-5)*16, 16
	}
	x := v >> pos & (1<<n - 1)
	if signed && x>>(n-1)&1 != 0 {
		return int64(x) - int64(1)<<n
	}
	return int64(x)
}

// selField is the position and width of a destination selector.
func selField(sel int64) (uint, uint) {
	switch {
	case sel == 0:
		return 0, 32
	case sel <= 4:
		return uint(sel-1) * 8, 8
	}
	return uint(sel-5) * 16, 16
}

func clampBits(t int64, n uint, signed bool) int64 {
	lo, hi := int64(0), int64(1)<<n-1
	if signed {
		lo, hi = -(int64(1) << (n - 1)), int64(1)<<(n-1)-1
	}
	return min(max(t, lo), hi)
}

// vmad128 is ta*tb + c + lsb (in 128 bits, as the PTX ISA specifies),
// shifted right by the scale, returned as its low 64 bits and whether the
// 128-bit value is negative (for .sat).
func vmad128(ta, tb int64, c uint64, signed bool, negProd bool, lsb uint64, shift uint) (uint64, uint64) {
	neg := (ta < 0) != (tb < 0)
	hi, lo := bits.Mul64(uint64(gpumath.AbsI(ta)), uint64(gpumath.AbsI(tb)))
	if neg {
		lo, hi = ^lo, ^hi
		var cy uint64
		lo, cy = bits.Add64(lo, 1, 0)
		hi += cy
	}
	if negProd {
		lo, hi = ^lo, ^hi
	}
	cc := c & 0xffffffff
	chi := uint64(0)
	if signed && cc>>31 != 0 {
		cc |= 0xffffffff00000000
		chi = ^uint64(0)
	}
	var cy uint64
	lo, cy = bits.Add64(lo, cc, 0)
	hi, _ = bits.Add64(hi, chi, cy)
	lo, cy = bits.Add64(lo, lsb, 0)
	hi += cy
	if shift > 0 {
		lo = lo>>shift | hi<<(64-shift)
		hi = uint64(int64(hi) >> shift)
	}
	return hi, lo
}

// scalarVideo computes one scalar video instruction of spec p.
func scalarVideo(a, b, c uint64, p int64) uint64 {
	op := p >> vsOp & 15
	dsel := p >> vsDSel & 7
	signedD := p&vsDSign != 0
	ta := vidSelect(a, p>>vsASel&7, p&vsASign != 0)
	bSigned := p&vsBSign != 0
	tb := vidSelect(b, p>>vsBSel&7, bSigned)
	if op == vidMad {
		// A negated operand makes the result signed (the PTX ISA's
		// signedFinal).
		signed := p&vsASign != 0 || bSigned || p&(vsNegAB|vsNegC) != 0
		// A whole-word (unselected) a or b is a signed word whatever
		// its type (the H100's results); the product's signedness is
		// still the types'.
		if p>>vsASel&7 == 0 {
			ta = int64(int32(a))
		}
		if p>>vsBSel&7 == 0 {
			tb = int64(int32(b))
		}
		// The PTX ISA: .po adds 1; otherwise a negated product is its
		// complement plus 1, else a negated c is its complement plus 1.
		var lsb uint64
		negProd := false
		switch {
		case p&vsPO != 0:
			lsb = 1
		case p&vsNegAB != 0:
			negProd, lsb = true, 1
		case p&vsNegC != 0:
			c, lsb = ^c, 1
		}
		shift := [3]uint{0, 7, 15}[p>>vsScale&3]
		// c is sign-extended whatever the types (the H100's results). The
		// operands are at most signed words, so the sum fits in 64 bits.
		_, sum := vmad128(ta, tb, c, true, negProd, lsb, 0)
		if !signed {
			// Unsigned: a shift is logical on the 64-bit sum; .sat clamps
			// to [0, 2^32-1] (a negative unshifted sum gives 0).
			u := sum >> shift
			if p&vsSat != 0 {
				switch {
				case shift == 0 && int64(sum) < 0:
					return 0
				case u > 0xffffffff:
					return 0xffffffff
				}
			}
			return u & 0xffffffff
		}
		t := int64(sum) >> shift
		if p&vsSat != 0 {
			t = clampBits(t, 32, true)
		}
		return uint64(t) & 0xffffffff
	}
	var t int64
	switch op {
	case vidAdd:
		t = ta + tb
	case vidSub:
		t = ta - tb
	case vidAbsdiff:
		t = gpumath.AbsI(ta - tb)
	case vidMin:
		t = min(ta, tb)
	case vidMax:
		t = max(ta, tb)
	case vidShl, vidShr:
		n := uint64(tb) & 0xffffffff
		if p&vsClamp != 0 {
			n = min(n, 32)
		} else {
			n &= 31
		}
		if op == vidShl {
			t = ta << n
			if p&vsSat != 0 {
				// .sat clamps the shifted value taken as a 34-bit
				// two's complement number (the H100's results).
				t = t << 30 >> 30
			}
		} else {
			t = ta >> n
		}
	case vidSet:
		if videoCompare(uint64(p>>vsCmp&7), ta, tb) {
			t = 1
		}
	}
	if dsel != 0 {
		// A destination selector: with .sat the result is clamped as an
		// unsigned word to the field's largest value (so a negative one
		// becomes that), but vshl/vshr's as without a selector; a byte goes to its place, while a half-word field
		// takes the same bits of the result (h1 gets its bits 16..31).
		pos, n := selField(dsel)
		m := uint64(1)<<n - 1
		r := uint64(t) & 0xffffffff
		switch {
		case p&vsSat != 0 && (op == vidShl || op == vidShr):
			// vshl/vshr: the shifted value saturated as without a
			// selector (a 32-bit word), the field takes its bits.
			r = uint64(clampBits(t, 32, signedD)) & 0xffffffff
		case p&vsSat != 0:
			fmax := m
			if signedD {
				fmax >>= 1
			}
			r = min(r, fmax)
		}
		if n == 16 {
			r &= m << pos
		} else {
			r = (r & m) << pos
		}
		return c&0xffffffff&^(m<<pos) | r
	}
	if p&vsSat != 0 {
		o2 := p >> vsOp2 & 3
		if !signedD && (o2 == 2 && op == vidShr || o2 >= 2 && (op == vidShl || op == vidAdd || op == vidSub)) {
			// .u32.sat with .min (vshl, vadd, vsub: or .max) after vadd,
			// vsub, vshr or vshl: a result of 2^31 or more ranks above
			// any c, and
			// vadd and vsub keep the low 32 bits of a sum past 2^32-1
			// (the H100's results).
			w := uint64(clampBits(t, 32, false))
			if op == vidAdd || op == vidSub {
				w = uint64(max(t, 0)) & 0xffffffff
			}
			cc := c & 0xffffffff
			if (o2 == 2) == (w>>31 != 0 || w > cc) {
				return cc
			}
			return w
		}
		t = clampBits(t, 32, signedD)
	}
	// The secondary operation: .add wraps; .min and .max compare signed
	// (sign-extending c) for a signed destination (vset: a signed a), and
	// otherwise compare the result as a 33-bit two's complement number
	// with c zero-extended (vshl: as a 64-bit unsigned number), as the
	// H100 does.
	cmpSigned := signedD
	if op == vidSet {
		cmpSigned = p&vsASign != 0
	}
	switch p >> vsOp2 & 3 {
	case 1:
		t += int64(c & 0xffffffff)
	case 2, 3:
		var x, y int64
		if op == vidShl && !signedD && p&vsSat == 0 {
			// vshl.u32: the whole shifted value (up to 64 bits,
			// negative ones huge) against c, unsigned.
			xu, yu := uint64(t), c&0xffffffff
			if (p>>vsOp2&3 == 2) == (yu < xu) {
				t = int64(yu)
			}
			break
		}
		if cmpSigned {
			x, y = t, int64(int32(c))
		} else {
			x, y = t&(1<<33-1), int64(c&0xffffffff)
		}
		if (p>>vsOp2&3 == 2) == (y < x) {
			t = y
		}
	}
	return uint64(t) & 0xffffffff
}

var scalarVideoFn = regExtFn(scalarVideo)

// scalarVideo decodes a scalar video instruction into its spec.
func (dc *decoder) scalarVideo(in *ptx.Instr, sc *scope, m modset, x inst) {
	p := vidOps[in.Op] << vsOp
	op := in.Op
	types := m.types
	if op == "vset" {
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
			p |= [3]int64{vsDSign, vsASign, vsBSign}[i]
		}
	}
	if (op == "vshl" || op == "vshr") && types[2] != ptx.U32 {
		dc.failIn(in, "%s's shift amount must be .u32", op)
	}
	hasCmp, hasMode := false, false
	for _, f := range m.list {
		cmp, isCmp := videoCmps[f]
		switch {
		case f == "sat" && op != "vset":
			p |= vsSat
		case (f == "add" || f == "min" || f == "max") && op != "vmad":
			p |= map[string]int64{"add": 1, "min": 2, "max": 3}[f] << vsOp2
		case isCmp && op == "vset":
			p |= int64(cmp) << vsCmp
			hasCmp = true
		case (f == "clamp" || f == "wrap") && (op == "vshl" || op == "vshr"):
			if f == "clamp" {
				p |= vsClamp
			}
			hasMode = true
		case f == "po" && op == "vmad":
			p |= vsPO
		case (f == "shr7" || f == "shr15") && op == "vmad":
			p |= map[string]int64{"shr7": 1, "shr15": 2}[f] << vsScale
		default:
			dc.failIn(in, "modifier .%s is not supported on %s", f, op)
		}
	}
	if op == "vset" && !hasCmp {
		dc.failIn(in, "missing comparison")
	}
	if (op == "vshl" || op == "vshr") && !hasMode {
		dc.failIn(in, "missing .clamp or .wrap")
	}
	ops := in.Operands
	hasC := p>>vsOp2&3 != 0 || op == "vmad"
	dr, ok := ops[0].(*ptx.Reg)
	if !ok {
		dc.failIn(in, "destination must be a register")
	}
	if dr.Comp != "" {
		s, ok := vidSels[dr.Comp]
		if !ok {
			dc.failIn(in, "unknown destination selector .%s", dr.Comp)
		}
		if p>>vsOp2&3 != 0 || op == "vmad" {
			dc.failIn(in, "a destination selector excludes a secondary operation")
		}
		p |= s << vsDSel
		hasC = true
	}
	if hasC {
		dc.nops(in, 4)
	} else {
		dc.nops(in, 3)
	}
	// vmad's operands may be negated (the parser takes '-' on a register
	// only there): -a or -b negates the product (both: none), -c negates c.
	negs := 0
	for i, o := range ops[1:] {
		if r, ok := o.(*ptx.Reg); ok && r.Neg {
			if p&vsPO != 0 {
				dc.failIn(in, "vmad.po takes no negated operand")
			}
			if i < 2 {
				negs ^= 1
			} else {
				p |= vsNegC
			}
		}
	}
	if negs != 0 && p&vsNegC != 0 {
		// ptxas refuses a negated a (or b) with a negated c (the H100's
		// recording); -a with -b and -c is not recorded, and runs as -c.
		dc.failIn(in, "operand negation limited to either (source A xor source B) or source C")
	}
	if negs != 0 {
		p |= vsNegAB
	}
	sel := func(o ptx.Operand) (ptx.Operand, int64) {
		r, ok := o.(*ptx.Reg)
		if ok && r.Neg {
			o = &ptx.Reg{Pos: r.Pos, Name: r.Name, Comp: r.Comp}
			r = o.(*ptx.Reg)
		}
		if !ok || r.Comp == "" {
			return o, 0
		}
		s, ok := vidSels[r.Comp]
		if !ok {
			dc.failIn(in, "unknown selector .%s", r.Comp)
		}
		return &ptx.Reg{Pos: r.Pos, Name: r.Name}, s
	}
	oa, as := sel(ops[1])
	ob, bs := sel(ops[2])
	p |= as<<vsASel | bs<<vsBSel
	x.op, x.aux, x.imm = genOps["ext"].op, scalarVideoFn, p
	x.d = dc.dst(in, sc, &ptx.Reg{Pos: dr.Pos, Name: dr.Name})
	x.a, x.b = dc.src(in, sc, oa, ptx.B32), dc.src(in, sc, ob, ptx.B32)
	if hasC {
		if r, ok := ops[3].(*ptx.Reg); ok && r.Comp != "" {
			dc.failIn(in, "c takes no selector")
		}
		oc := ops[3]
		if r, ok := oc.(*ptx.Reg); ok && r.Neg {
			oc = &ptx.Reg{Pos: r.Pos, Name: r.Name}
		}
		x.c = dc.src(in, sc, oc, ptx.B32)
	}
	dc.emit(in, x)
}
