// Command opgen writes rt/soft/internal/exec/ops_gen.go: one bytecode opcode per PTX
// arithmetic, conversion and comparison form (opcode × type × rounding ×
// .ftz/.sat), each with a dense full-warp loop and a masked loop. Generating
// the cases keeps the dispatch free of run-time type switches and closures
// while the semantics stay one expression per form here.
//
// Run it with "go generate ./rt/soft/internal/exec".
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"regexp"
	"sort"
	"strings"
)

// op is one generated opcode. Expressions see the source lanes as uint64
// values A, B, C, E and the instruction as in; alu expressions yield the
// destination's uint64 bits, cmp expressions a bool.
type op struct {
	name string
	keys []string
	srcs []string // PTX types of the sources, for encoding immediates
	expr string
	pre  string // statements run before expr (cmp ops)
	cmp  bool
	// split, when set, runs a full warp in two passes: fast (statements
	// that compute res, and bad, true for a lane res would be wrong for)
	// on every lane, storing res where bad is false, then expr for the
	// bad lanes, whose sources are still as they were (the
	// destination was not written): the first loop calls nothing, so
	// the compiler keeps its values in registers.
	split *split
	// ub is the form's twin that reads B once, from lane 0 (the decoder
	// picks it when the second source is the same in every lane: a
	// kernel parameter, a constant, %ntid); base is that twin's form.
	ub, base *op
	// asm, when set, is a full warp's call of an assembly form that
	// computes every lane as expr does, taken where warpAsm
	// (exec/asm_amd64.go); asmUB is the uniform-B twin's.
	asm, asmUB string
}

// uniformB are the forms that get a uniform-B twin: the address and
// index arithmetic that adds, scales and shifts by parameters and
// constants.
var uniformB = []string{"Add32", "Add64", "Sub32", "Sub64", "MulLo32", "MulLo64", "MadLo32", "MadLo64",
	"MulWideS32", "MulWideU32", "Shl32", "Shl64", "ShrU32", "ShrS32", "ShrU64", "ShrS64", "And32", "And64",
	"AddF32Rn", "SubF32Rn", "MulF32Rn", "FmaF32Rn"}

// addUniformB makes the uniform-B twins of the uniformB forms.
func addUniformB() {
	for _, n := range uniformB {
		o := byName[n]
		if o == nil {
			log.Fatalf("uniformB: no form %s", n)
		}
		t := &op{name: n + "UB", srcs: o.srcs, expr: o.expr, pre: o.pre, split: o.split, base: o, asm: o.asmUB}
		o.ub = t
		ops = append(ops, t)
		byName[t.name] = t
	}
}

// split is an op's two-pass full-warp form (op.split).
type split struct{ fast string }

var ops []*op
var byName = map[string]*op{}

func add(cmp bool, name, expr string, srcs []string, keys ...string) {
	if o := byName[name]; o != nil {
		if o.expr != expr {
			log.Fatalf("%s defined twice with different expressions", name)
		}
		o.keys = append(o.keys, keys...)
		return
	}
	o := &op{name: name, keys: keys, srcs: srcs, expr: expr, cmp: cmp}
	ops = append(ops, o)
	byName[name] = o
}

func alu(name, expr string, srcs []string, keys ...string) { add(false, name, expr, srcs, keys...) }
func cmp(name, expr string, srcs []string, keys ...string) { add(true, name, expr, srcs, keys...) }

func rep(t string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = t
	}
	return s
}

func title(s string) string {
	s = strings.ReplaceAll(s, ".", "_")
	return strings.ToUpper(s[:1]) + s[1:]
}

var rnds = []string{"rn", "rz", "rm", "rp"}
var rndConst = map[string]string{"rn": "gpumath.RN", "rz": "gpumath.RZ", "rm": "gpumath.RM", "rp": "gpumath.RP",
	"rni": "gpumath.RN", "rzi": "gpumath.RZ", "rmi": "gpumath.RM", "rpi": "gpumath.RP"}

func ints() {
	for _, w := range []int{16, 32, 64} {
		U, S := fmt.Sprintf("uint%d", w), fmt.Sprintf("int%d", w)
		u, s, b := fmt.Sprintf("u%d", w), fmt.Sprintf("s%d", w), fmt.Sprintf("b%d", w)
		all := func(op string) []string { return []string{op + "." + u, op + "." + s, op + "." + b} }
		two, three := rep(u, 2), rep(u, 3)
		m := fmt.Sprintf("gpumath.Mask(%d)", w)
		N := fmt.Sprint(w)
		alu("Add"+N, fmt.Sprintf("uint64(%s(A) + %s(B))", U, U), two, all("add")...)
		alu("Sub"+N, fmt.Sprintf("uint64(%s(A) - %s(B))", U, U), two, all("sub")...)
		alu("MulLo"+N, fmt.Sprintf("uint64(%s(A) * %s(B))", U, U), two, all("mul.lo")...)
		alu("MadLo"+N, fmt.Sprintf("uint64(%s(A)*%s(B) + %s(C))", U, U, U), three, all("mad.lo")...)
		var hu, hs string
		switch w {
		case 16:
			hu = "uint64(uint32(uint16(A)) * uint32(uint16(B)) >> 16)"
			hs = "uint64(uint16((int32(int16(A)) * int32(int16(B))) >> 16))"
		case 32:
			hu = "uint64(uint32(A)) * uint64(uint32(B)) >> 32"
			hs = "uint64(uint32((int64(int32(A)) * int64(int32(B))) >> 32))"
		case 64:
			hu = "gpumath.MulHiU64(A, B)"
			hs = "gpumath.MulHiS64(int64(A), int64(B))"
		}
		alu("MulHiU"+N, hu, two, "mul.hi."+u)
		alu("MulHiS"+N, hs, rep(s, 2), "mul.hi."+s)
		alu("MadHiU"+N, fmt.Sprintf("uint64(%s(%s + C))", U, hu), three, "mad.hi."+u)
		alu("MadHiS"+N, fmt.Sprintf("uint64(%s(%s + C))", U, hs), rep(s, 3), "mad.hi."+s)
		if w < 64 {
			var wu, ws string
			W2 := fmt.Sprintf("uint%d", 2*w)
			if w == 16 {
				wu = "uint64(uint32(uint16(A)) * uint32(uint16(B)))"
				ws = "uint64(uint32(int32(int16(A)) * int32(int16(B))))"
			} else {
				wu = "uint64(uint32(A)) * uint64(uint32(B))"
				ws = "uint64(int64(int32(A)) * int64(int32(B)))"
			}
			alu("MulWideU"+N, wu, two, "mul.wide."+u)
			alu("MulWideS"+N, ws, rep(s, 2), "mul.wide."+s)
			t2u, t2s := fmt.Sprintf("u%d", 2*w), fmt.Sprintf("s%d", 2*w)
			alu("MadWideU"+N, fmt.Sprintf("uint64(%s(%s + C))", W2, wu), []string{u, u, t2u}, "mad.wide."+u)
			alu("MadWideS"+N, fmt.Sprintf("uint64(%s(%s + C))", W2, ws), []string{s, s, t2s}, "mad.wide."+s)
		}
		alu("DivU"+N, fmt.Sprintf("gpumath.DivU(uint64(%s(A)), uint64(%s(B)), %s)", U, U, m), two, "div."+u)
		alu("DivS"+N, fmt.Sprintf("gpumath.DivS(int64(%s(A)), int64(%s(B)), %s)", S, S, m), rep(s, 2), "div."+s)
		alu("RemU"+N, fmt.Sprintf("gpumath.RemU(uint64(%s(A)), uint64(%s(B)), %s)", U, U, m), two, "rem."+u)
		alu("RemS"+N, fmt.Sprintf("gpumath.RemS(int64(%s(A)), int64(%s(B)), %s)", S, S, m), rep(s, 2), "rem."+s)
		alu("AbsS"+N, fmt.Sprintf("uint64(%s(gpumath.AbsI(int64(%s(A)))))", U, S), []string{s}, "abs."+s)
		alu("NegS"+N, fmt.Sprintf("uint64(%s(-%s(A)))", U, S), []string{s}, "neg."+s, "neg."+u)
		alu("MinU"+N, fmt.Sprintf("uint64(min(%s(A), %s(B)))", U, U), two, "min."+u, "min."+b)
		alu("MaxU"+N, fmt.Sprintf("uint64(max(%s(A), %s(B)))", U, U), two, "max."+u, "max."+b)
		alu("MinS"+N, fmt.Sprintf("uint64(%s(min(%s(A), %s(B))))", U, S, S), rep(s, 2), "min."+s)
		alu("MaxS"+N, fmt.Sprintf("uint64(%s(max(%s(A), %s(B))))", U, S, S), rep(s, 2), "max."+s)
		alu("And"+N, fmt.Sprintf("uint64(%s(A) & %s(B))", U, U), []string{b, b}, all("and")...)
		alu("Or"+N, fmt.Sprintf("uint64(%s(A) | %s(B))", U, U), []string{b, b}, all("or")...)
		alu("Xor"+N, fmt.Sprintf("uint64(%s(A) ^ %s(B))", U, U), []string{b, b}, all("xor")...)
		alu("Not"+N, fmt.Sprintf("uint64(^%s(A))", U), []string{b}, all("not")...)
		alu("Cnot"+N, fmt.Sprintf("gpumath.B2U(%s(A) == 0)", U), []string{b}, all("cnot")...)
		alu("Shl"+N, fmt.Sprintf("uint64(%s(A) << uint32(B))", U), []string{b, "u32"}, all("shl")...)
		alu("ShrU"+N, fmt.Sprintf("uint64(%s(A) >> uint32(B))", U), []string{b, "u32"}, "shr."+u, "shr."+b)
		alu("ShrS"+N, fmt.Sprintf("uint64(%s(%s(A) >> uint32(B)))", U, S), []string{s, "u32"}, "shr."+s)
		if w >= 32 {
			alu("Popc"+N, fmt.Sprintf("uint64(bits.OnesCount%d(%s(A)))", w, U), []string{b}, "popc."+b)
			alu("Clz"+N, fmt.Sprintf("uint64(bits.LeadingZeros%d(%s(A)))", w, U), []string{b}, "clz."+b)
			alu("Brev"+N, fmt.Sprintf("uint64(bits.Reverse%d(%s(A)))", w, U), []string{b}, "brev."+b)
			alu("BfindU"+N, fmt.Sprintf("gpumath.Bfind(A, %d, false, false)", w), []string{u}, "bfind."+u)
			alu("BfindS"+N, fmt.Sprintf("gpumath.Bfind(A, %d, true, false)", w), []string{s}, "bfind."+s)
			alu("BfindShU"+N, fmt.Sprintf("gpumath.Bfind(A, %d, false, true)", w), []string{u}, "bfind.shiftamt."+u)
			alu("BfindShS"+N, fmt.Sprintf("gpumath.Bfind(A, %d, true, true)", w), []string{s}, "bfind.shiftamt."+s)
			alu("BfeU"+N, fmt.Sprintf("gpumath.Bfe(A, B, C, %d, false)", w), []string{u, "u32", "u32"}, "bfe."+u)
			alu("BfeS"+N, fmt.Sprintf("gpumath.Bfe(A, B, C, %d, true)", w), []string{s, "u32", "u32"}, "bfe."+s)
			alu("Bfi"+N, fmt.Sprintf("gpumath.Bfi(A, B, C, E, %d)", w), []string{b, b, "u32", "u32"}, "bfi."+b)
		}
		// comparisons
		for _, c := range []struct{ name, op string }{{"eq", "=="}, {"ne", "!="}} {
			cmp("Set"+title(c.name)+N, fmt.Sprintf("%s(A) %s %s(B)", U, c.op, U), two,
				"setp."+c.name+"."+u, "setp."+c.name+"."+s, "setp."+c.name+"."+b)
		}
		for _, c := range []struct{ name, op string }{{"lt", "<"}, {"le", "<="}, {"gt", ">"}, {"ge", ">="}} {
			cmp("Set"+title(c.name)+"S"+N, fmt.Sprintf("%s(A) %s %s(B)", S, c.op, S), rep(s, 2), "setp."+c.name+"."+s)
			cmp("Set"+title(c.name)+"U"+N, fmt.Sprintf("%s(A) %s %s(B)", U, c.op, U), two,
				"setp."+c.name+"."+u, "setp."+c.name+"."+b)
		}
		for _, c := range []struct{ name, op string }{{"lo", "<"}, {"ls", "<="}, {"hi", ">"}, {"hs", ">="}} {
			cmp("Set"+title(c.name)+"U"+N, fmt.Sprintf("%s(A) %s %s(B)", U, c.op, U), two,
				"setp."+c.name+"."+u, "setp."+c.name+"."+b, "setp."+c.name+"."+s)
		}
	}
	u3 := rep("u32", 3)
	alu("Prmt", "gpumath.Prmt(A, B, C, in.fl)", rep("b32", 3), "prmt.b32")
	alu("Lop3", "gpumath.Lop3(A, B, C, uint64(in.imm))", rep("b32", 3), "lop3.b32")
	for _, l := range []string{"l", "r"} {
		for _, c := range []string{"wrap", "clamp"} {
			alu("Shf"+title(l)+title(c), fmt.Sprintf("gpumath.Shf(A, B, C, %v, %v)", l == "l", c == "clamp"),
				[]string{"b32", "b32", "u32"}, "shf."+l+"."+c+".b32")
		}
	}
	alu("Mul24LoU", "uint64(uint32(A&0xffffff) * uint32(B&0xffffff))", u3[:2], "mul24.lo.u32")
	alu("Mul24LoS", "uint64(uint32(int32(gpumath.Sext(A, 24)) * int32(gpumath.Sext(B, 24))))", rep("s32", 2), "mul24.lo.s32")
	alu("Mul24HiU", "(A & 0xffffff) * (B & 0xffffff) >> 16 & 0xffffffff", u3[:2], "mul24.hi.u32")
	alu("Mul24HiS", "uint64(gpumath.Sext(A, 24)*gpumath.Sext(B, 24)) >> 16 & 0xffffffff", rep("s32", 2), "mul24.hi.s32")
	alu("Mad24LoU", "uint64(uint32(A&0xffffff)*uint32(B&0xffffff) + uint32(C))", u3, "mad24.lo.u32")
	alu("Mad24LoS", "uint64(uint32(int32(gpumath.Sext(A, 24))*int32(gpumath.Sext(B, 24)) + int32(C)))", rep("s32", 3), "mad24.lo.s32")
	alu("SadU32", "uint64(uint32(C) + uint32(gpumath.AbsDiff(int64(uint32(A)), int64(uint32(B)))))", u3, "sad.u32")
	alu("SadS32", "uint64(uint32(C) + uint32(gpumath.AbsDiff(int64(int32(A)), int64(int32(B)))))", rep("s32", 3), "sad.s32")
	alu("AddSatS32", "satS32(int64(int32(A)) + int64(int32(B)))", rep("s32", 2), "add.sat.s32")
	alu("SubSatS32", "satS32(int64(int32(A)) - int64(int32(B)))", rep("s32", 2), "sub.sat.s32")
	bitOps()
}

// bitOps are the bit-field, dot-product and SIMD video forms of exec/integer.go.
func bitOps() {
	for _, c := range []string{"clamp", "wrap"} {
		clamp := c == "clamp"
		alu("Bmsk"+title(c), fmt.Sprintf("bmsk(A, B, %v)", clamp), rep("b32", 2), "bmsk."+c+".b32")
		alu("SzextS"+title(c), fmt.Sprintf("szext(A, B, %v, true)", clamp), []string{"s32", "u32"}, "szext."+c+".s32")
		alu("SzextU"+title(c), fmt.Sprintf("szext(A, B, %v, false)", clamp), []string{"u32", "u32"}, "szext."+c+".u32")
	}
	for _, a := range []string{"u32", "s32"} {
		for _, b := range []string{"u32", "s32"} {
			ct := "s32"
			if a == "u32" && b == "u32" {
				ct = "u32"
			}
			as, bs := a == "s32", b == "s32"
			n := title(a) + title(b)
			alu("Dp4a"+n, fmt.Sprintf("dp4a(A, B, C, %v, %v)", as, bs), []string{a, b, ct}, "dp4a."+a+"."+b)
			for _, h := range []string{"lo", "hi"} {
				alu("Dp2a"+title(h)+n, fmt.Sprintf("dp2a(A, B, C, %v, %v, %v)", as, bs, h == "hi"), []string{a, b, ct},
					"dp2a."+h+"."+a+"."+b)
			}
		}
	}
	alu("Fns", "fns(A, B, C)", []string{"b32", "u32", "s32"}, "fns.b32")
	// Packed 16-bit integer arithmetic (sm_90).
	for _, t := range []string{"u16x2", "s16x2"} {
		s := t == "s16x2"
		T := title(t)
		alu("AddX2"+T, fmt.Sprintf("x2op(A, B, x2Add, %v, false)", s), rep("b32", 2), "add."+t)
		alu("SubX2"+T, fmt.Sprintf("x2op(A, B, x2Sub, %v, false)", s), rep("b32", 2), "sub."+t)
		alu("MinX2"+T, fmt.Sprintf("x2op(A, B, x2Min, %v, false)", s), rep("b32", 2), "min."+t)
		alu("MaxX2"+T, fmt.Sprintf("x2op(A, B, x2Max, %v, false)", s), rep("b32", 2), "max."+t)
	}
	alu("AddSatX2S16", "x2op(A, B, x2Add, true, true)", rep("b32", 2), "add.sat.s16x2")
	alu("SubSatX2S16", "x2op(A, B, x2Sub, true, true)", rep("b32", 2), "sub.sat.s16x2")
	alu("MinReluX2S16", "x2relu(x2op(A, B, x2Min, true, false))", rep("b32", 2), "min.relu.s16x2")
	alu("MaxReluX2S16", "x2relu(x2op(A, B, x2Max, true, false))", rep("b32", 2), "max.relu.s16x2")
	// The SIMD video instructions: the decoder puts the operation, width,
	// signedness and mode in in.fl (video in exec/integer.go).
	alu("Video", "video(A, B, C, in.fl)", rep("b32", 3), "vsimd")
	// The forms of exec/aluforms.go (fp8, packing, scalar video, …): in.aux indexes
	// extFns, a function of the three sources' bits and in.imm.
	alu("Ext", "extFns[in.aux](A, B, C, in.imm)", rep("b32", 3), "ext")
}

// f32 expression builders.
func in32(x string, ftz bool) string {
	if ftz {
		return "gpumath.Ftz32(gpumath.F32(" + x + "))"
	}
	return "gpumath.F32(" + x + ")"
}

func out32(e string, ftz, sat bool) string {
	if ftz {
		e = "gpumath.Ftz32(" + e + ")"
	}
	if sat {
		e = "gpumath.Sat32(" + e + ")"
	}
	return "gpumath.R32(" + e + ")"
}

func mods(ftz, sat bool) string {
	s := ""
	if ftz {
		s += ".ftz"
	}
	if sat {
		s += ".sat"
	}
	return s
}

func modName(ftz, sat bool) string {
	s := ""
	if ftz {
		s += "Ftz"
	}
	if sat {
		s += "Sat"
	}
	return s
}

func floats() {
	bo := []bool{false, true}
	f2, f3 := rep("f32", 2), rep("f32", 3)
	for _, ftz := range bo {
		for _, sat := range bo {
			mk, mn := mods(ftz, sat), modName(ftz, sat)
			A, B, C := in32("A", ftz), in32("B", ftz), in32("C", ftz)
			for _, r := range rnds {
				R := rndConst[r]
				keys := func(op string) []string {
					k := []string{op + "." + r + mk + ".f32"}
					if r == "rn" {
						k = append(k, op+mk+".f32")
					}
					return k
				}
				add, sub, mul := fmt.Sprintf("gpumath.Add32(%s, %s, %s)", A, B, R), fmt.Sprintf("gpumath.Add32(%s, -%s, %s)", A, B, R), fmt.Sprintf("gpumath.Mul32(%s, %s, %s)", A, B, R)
				if r == "rn" { // Go's float32 operators round to nearest
					add, sub, mul = fmt.Sprintf("(%s + %s)", A, B), fmt.Sprintf("(%s - %s)", A, B), fmt.Sprintf("(%s * %s)", A, B)
				}
				alu("AddF32"+title(r)+mn, out32(add, ftz, sat), f2, keys("add")...)
				alu("SubF32"+title(r)+mn, out32(sub, ftz, sat), f2, keys("sub")...)
				if ftz { // FMUL.FTZ flushes a product whose exact value is tiny (gpumath/fpapprox.go)
					mul = fmt.Sprintf("gpumath.TinyMul32(%s, %s, %s, %s)", A, B, mul, R)
				}
				alu("MulF32"+title(r)+mn, out32(mul, ftz, sat), f2, keys("mul")...)
				if r == "rn" {
					// The hot case: fma32's fast path inline, roundsPlain
					// (exec/chain.go) spelled out as bad: execALUMask is
					// too big for the compiler to inline a call of its
					// cost. Its float32 is normal or zero, so neither NaN
					// (R32) nor flushed (Ftz32): without .sat it is the
					// result's bits, and a full warp runs split.
					fast := fmt.Sprintf("fs := float64(%s)*float64(%s) + float64(%s)\n"+
						"\t\t\t\tres := uint64(math.Float32bits(float32(fs)))\n"+
						"\t\t\t\tbs := math.Float64bits(fs) ^ 0x10000000\n"+
						"\t\t\t\tbad := (bs&0x1fffffff == 0 || uint32(bs>>31)-0x381<<21 >= (0x47f-0x381)<<21) && fs != 0", A, B, C)
					fma := fmt.Sprintf("gpumath.Fma32(%s, %s, %s, gpumath.RN)", A, B, C)
					name, ks := "FmaF32"+title(r)+mn, append(keys("fma"), keys("mad")...)
					if sat {
						alu(name, out32("fr", ftz, sat), f3, ks...)
						byName[name].pre = fast + "\n\t\t\t\tfr := math.Float32frombits(uint32(res))\n" +
							"\t\t\t\tif bad {\n\t\t\t\t\tfr = " + fma + "\n\t\t\t\t}"
					} else {
						alu(name, out32(fma, ftz, false), f3, ks...)
						byName[name].split = &split{fast: fast}
					}
				} else {
					alu("FmaF32"+title(r)+mn, out32(fmt.Sprintf("gpumath.Fma32(%s, %s, %s, %s)", A, B, C, R), ftz, sat), f3,
						append(keys("fma"), keys("mad")...)...)
				}
				if !sat {
					alu("DivF32"+title(r)+mn, out32(fmt.Sprintf("gpumath.Div32(%s, %s, %s)", A, B, R), ftz, false), f2,
						"div."+r+mk+".f32")
					alu("RcpF32"+title(r)+mn, out32(fmt.Sprintf("gpumath.Div32(1, %s, %s)", A, R), ftz, false), f2[:1],
						"rcp."+r+mk+".f32")
					alu("SqrtF32"+title(r)+mn, out32(fmt.Sprintf("gpumath.Sqrt32(%s, %s)", A, R), ftz, false), f2[:1],
						"sqrt."+r+mk+".f32")
				}
			}
			if sat {
				continue
			}
			// div.approx and div.full: MUFU.RCP and an FMUL (gpumath/fpapprox.go).
			fn := map[bool][2]string{false: {"gpumath.DivApprox", "gpumath.DivFull"}, true: {"gpumath.DivApproxFtz", "gpumath.DivFullFtz"}}[ftz]
			alu("DivApproxF32"+mn, out32(fmt.Sprintf("%s(%s, %s)", fn[0], A, B), ftz, false), f2, "div.approx"+mk+".f32")
			alu("DivFullF32"+mn, out32(fmt.Sprintf("%s(%s, %s)", fn[1], A, B), ftz, false), f2, "div.full"+mk+".f32")
			// The MUFU ops (gpumath/mufu.go): the .ftz form is the hardware op, the
			// other ptxas's SASS around it; sin, cos and tanh have one form.
			un := func(name, op, fn string, ftzFn bool) {
				if ftz && ftzFn {
					fn += "Ftz"
				}
				alu(name+"F32"+mn, out32(fmt.Sprintf("%s(%s)", fn, A), ftz, false), f2[:1], op+".approx"+mk+".f32")
			}
			un("RcpApprox", "rcp", "gpumath.RcpApprox", true)
			un("SqrtApprox", "sqrt", "gpumath.SqrtApprox", true)
			un("Rsqrt", "rsqrt", "gpumath.RsqrtApprox", true)
			un("Ex2", "ex2", "gpumath.Ex2Approx", true)
			un("Lg2", "lg2", "gpumath.Lg2Approx", true)
			un("Sin", "sin", "gpumath.SinApprox", false)
			un("Cos", "cos", "gpumath.CosApprox", false)
			un("Tanh", "tanh", "gpumath.TanhApprox", false)
			alu("AbsF32"+mn, fmt.Sprintf("gpumath.AbsNegF32(math.Float32bits(%s), 0)", A), f2[:1], "abs"+mk+".f32")
			alu("NegF32"+mn, fmt.Sprintf("gpumath.AbsNegF32(math.Float32bits(%s), 1)", A), f2[:1], "neg"+mk+".f32")
			for _, nan := range bo {
				nk, nn := "", ""
				if nan {
					nk, nn = ".NaN", "NaN"
				}
				alu("MinF32"+mn+nn, out32(fmt.Sprintf("gpumath.Min32(%s, %s, %v)", A, B, nan), ftz, false), f2, "min"+mk+nk+".f32")
				alu("MaxF32"+mn+nn, out32(fmt.Sprintf("gpumath.Max32(%s, %s, %v)", A, B, nan), ftz, false), f2, "max"+mk+nk+".f32")
			}
			fcmp("F32"+mn, "f32"+mk, A, B)
			for i, k := range []string{"finite", "infinite", "number", "notanumber", "normal", "subnormal"} {
				cmp("Testp"+title(k)+"F32"+mn, fmt.Sprintf("gpumath.Testp32(%s, %d)", A, i), f2[:1], "testp."+k+mk+".f32")
			}
		}
	}
	alu("CopysignF32", "B&0x7fffffff | A&0x80000000", f2, "copysign.f32")

	// f64
	d2, d3 := rep("f64", 2), rep("f64", 3)
	for _, r := range rnds {
		R := rndConst[r]
		keys := func(op string) []string {
			k := []string{op + "." + r + ".f64"}
			if r == "rn" {
				k = append(k, op+".f64")
			}
			return k
		}
		// NaN results follow the H100 (NaN1/NaN2/NaN3 in gpumath/fpapprox.go).
		alu("AddF64"+title(r), fmt.Sprintf("gpumath.NaN2(gpumath.Add64(gpumath.F64(A), gpumath.F64(B), %s), B, A)", R), d2, keys("add")...)
		alu("SubF64"+title(r), fmt.Sprintf("gpumath.NaN2(gpumath.Add64(gpumath.F64(A), -gpumath.F64(B), %s), B, A)", R), d2, keys("sub")...)
		alu("MulF64"+title(r), fmt.Sprintf("gpumath.NaN2(gpumath.Mul64(gpumath.F64(A), gpumath.F64(B), %s), B, A)", R), d2, keys("mul")...)
		alu("FmaF64"+title(r), fmt.Sprintf("gpumath.NaN3(gpumath.Fma64(gpumath.F64(A), gpumath.F64(B), gpumath.F64(C), %s), B, C, A)", R), d3,
			append(keys("fma"), keys("mad")...)...)
		alu("DivF64"+title(r), fmt.Sprintf("gpumath.NaN2(gpumath.Div64(gpumath.F64(A), gpumath.F64(B), %s), A, B)", R), d2, "div."+r+".f64")
		alu("RcpF64"+title(r), fmt.Sprintf("gpumath.NaN1(gpumath.Div64(1, gpumath.F64(A), %s), A)", R), d2[:1], "rcp."+r+".f64")
		alu("SqrtF64"+title(r), fmt.Sprintf("gpumath.NaN1(gpumath.Sqrt64(gpumath.F64(A), %s), A)", R), d2[:1], "sqrt."+r+".f64")
	}
	alu("RcpApproxF64", "gpumath.RcpApproxFtz64(A)", d2[:1], "rcp.approx.ftz.f64", "rcp.approx.f64")
	alu("RsqrtF64", "gpumath.RsqrtApproxFtz64(A)", d2[:1], "rsqrt.approx.ftz.f64")
	alu("RsqrtApproxF64", "gpumath.RsqrtApprox64(A)", d2[:1], "rsqrt.approx.f64")
	alu("AbsF64", "gpumath.AbsNegF64(A, false)", d2[:1], "abs.f64")
	alu("NegF64", "gpumath.AbsNegF64(A, true)", d2[:1], "neg.f64")
	alu("CopysignF64", "B&^(1<<63) | A&(1<<63)", d2, "copysign.f64")
	for _, nan := range bo {
		nk, nn := "", ""
		if nan {
			nk, nn = ".NaN", "NaN"
		}
		alu("MinF64"+nn, fmt.Sprintf("gpumath.NaN2(gpumath.Min64(gpumath.F64(A), gpumath.F64(B), %v), B, A)", nan), d2, "min"+nk+".f64")
		alu("MaxF64"+nn, fmt.Sprintf("gpumath.NaN2(gpumath.Max64(gpumath.F64(A), gpumath.F64(B), %v), B, A)", nan), d2, "max"+nk+".f64")
	}
	fcmp("F64", "f64", "gpumath.F64(A)", "gpumath.F64(B)")
	for i, k := range []string{"finite", "infinite", "number", "notanumber", "normal", "subnormal"} {
		cmp("Testp"+title(k)+"F64", fmt.Sprintf("gpumath.Testp64(gpumath.F64(A), %d, false)", i), d2[:1], "testp."+k+".f64")
	}
	halves()
	_ = f3
}

// fcmp defines the float comparisons over operand expressions a and b.
func fcmp(name, key, a, b string) {
	t := strings.TrimPrefix(strings.SplitN(key, ".", 2)[0], "")
	srcs := []string{t, t}
	c := func(n, e string) {
		cmp("Set"+title(n)+name, e, srcs, "setp."+n+strings.TrimPrefix(key, t)+"."+t)
	}
	pre := fmt.Sprintf("x, y := %s, %s", a, b)
	wrap := func(e string) string { return pre + "\x00" + e }
	c("eq", wrap("x == y"))
	c("ne", wrap("x != y && x == x && y == y"))
	c("lt", wrap("x < y"))
	c("le", wrap("x <= y"))
	c("gt", wrap("x > y"))
	c("ge", wrap("x >= y"))
	c("equ", wrap("!(x < y || x > y)"))
	c("neu", wrap("x != y"))
	c("ltu", wrap("!(x >= y)"))
	c("leu", wrap("!(x > y)"))
	c("gtu", wrap("!(x <= y)"))
	c("geu", wrap("!(x < y)"))
	c("num", wrap("x == x && y == y"))
	c("nan", wrap("x != x || y != y"))
}

func halves() {
	for _, h := range []struct{ name, t, fmtv string }{{"F16", "f16", "gpumath.F16"}, {"BF16", "bf16", "gpumath.BF16"}} {
		for _, x2 := range []bool{false, true} {
			t := h.t
			nm := h.name
			if x2 {
				t += "x2"
				nm += "x2"
			}
			srcs := func(n int) []string { return rep(t, n) }
			lift := func(e string, n int) string {
				if !x2 {
					return e
				}
				lo, hi := e, e
				for _, v := range []string{"A", "B", "C"}[:n] {
					lo = strings.ReplaceAll(lo, "<"+v+">", "gpumath.Lo16("+v+")")
					hi = strings.ReplaceAll(hi, "<"+v+">", "gpumath.Hi16("+v+")")
				}
				return "gpumath.Pack16(" + lo + ", " + hi + ")"
			}
			scal := func(e string, n int) string {
				if x2 {
					return lift(e, n)
				}
				for _, v := range []string{"A", "B", "C"} {
					e = strings.ReplaceAll(e, "<"+v+">", v)
				}
				return e
			}
			ftzs := []bool{false}
			if h.t == "f16" {
				ftzs = []bool{false, true}
			}
			for _, ftz := range ftzs {
				for _, sat := range []bool{false, true} {
					if sat && h.t == "bf16" {
						continue
					}
					mk, mn := mods(ftz, sat), modName(ftz, sat)
					in := func(v string) string {
						if ftz {
							return "gpumath.Ftz16(" + v + ")"
						}
						return v
					}
					out := func(e string) string {
						if ftz {
							e = "gpumath.Ftz16(" + e + ")"
						}
						if sat {
							e = "gpumath.Hsat(" + h.fmtv + ", " + e + ")"
						}
						return e
					}
					bin := func(op, fn string) {
						e := out(fmt.Sprintf("%s(%s, %s, %s, gpumath.RN)", fn, h.fmtv, in("<A>"), in("<B>")))
						alu(title(op)+nm+mn, scal(e, 2), srcs(2), op+".rn"+mk+"."+t, op+mk+"."+t)
					}
					bin("add", "gpumath.Hadd")
					bin("sub", "gpumath.Hsub")
					bin("mul", "gpumath.Hmul")
					e := out(fmt.Sprintf("gpumath.Hfma(%s, %s, %s, %s, gpumath.RN)", h.fmtv, in("<A>"), in("<B>"), in("<C>")))
					alu("Fma"+nm+mn, scal(e, 3), srcs(3), "fma.rn"+mk+"."+t)
				}
				mk, mn := mods(ftz, false), modName(ftz, false)
				in := func(v string) string {
					if ftz {
						return "gpumath.Ftz16(" + v + ")"
					}
					return v
				}
				for _, nan := range []bool{false, true} {
					nk, nn := "", ""
					if nan {
						nk, nn = ".NaN", "NaN"
					}
					alu("Min"+nm+mn+nn, scal(fmt.Sprintf("gpumath.Hmin(%s, %s, %s, %v)", h.fmtv, in("<A>"), in("<B>"), nan), 2), srcs(2), "min"+mk+nk+"."+t)
					alu("Max"+nm+mn+nn, scal(fmt.Sprintf("gpumath.Hmax(%s, %s, %s, %v)", h.fmtv, in("<A>"), in("<B>"), nan), 2), srcs(2), "max"+mk+nk+"."+t)
				}
				if x2 { // a NaN (half) becomes 0x7fff (absNeg16)
					a := "A"
					if ftz {
						a = "gpumath.Pack16(gpumath.Ftz16(gpumath.Lo16(A)), gpumath.Ftz16(gpumath.Hi16(A)))"
					}
					alu("Neg"+nm+mn, fmt.Sprintf("gpumath.AbsNegX2(%s, %s, true)", h.fmtv, a), srcs(1), "neg"+mk+"."+t)
					alu("Abs"+nm+mn, fmt.Sprintf("gpumath.AbsNegX2(%s, %s, false)", h.fmtv, a), srcs(1), "abs"+mk+"."+t)
				} else {
					alu("Neg"+nm+mn, fmt.Sprintf("gpumath.AbsNeg16(%s, %s, true)", h.fmtv, in("A")), srcs(1), "neg"+mk+"."+t)
					alu("Abs"+nm+mn, fmt.Sprintf("gpumath.AbsNeg16(%s, %s, false)", h.fmtv, in("A")), srcs(1), "abs"+mk+"."+t)
				}
				if !x2 {
					fcmp(nm+mn, t+mk, fmt.Sprintf("%s.Float(%s)", h.fmtv, in("A")), fmt.Sprintf("%s.Float(%s)", h.fmtv, in("B")))
				} else {
					// setp on x2 compares the low halves into p and the high
					// halves into q: the decoder emits two ops.
					for _, hs := range [][2]string{{"lo", "gpumath.Lo16"}, {"hi", "gpumath.Hi16"}} {
						half, sel := hs[0], hs[1]
						fcmp(nm+mn+title(half), t+mk+"."+half,
							fmt.Sprintf("%s.Float(%s)", h.fmtv, in(sel+"(A)")), fmt.Sprintf("%s.Float(%s)", h.fmtv, in(sel+"(B)")))
					}
				}
			}
			// ex2 and tanh .approx on halves run MUFU.EX2/TANH.F16/.BF16 on
			// each half (recorded exhaustively; see gpumath/mufu.go).
			ex2Key, which := "ex2.approx."+t, "gpumath.HalfEx2F16"
			if h.t == "bf16" {
				ex2Key, which = "ex2.approx.ftz."+t, "gpumath.HalfEx2BF16"
			}
			alu("Ex2Approx"+nm, scal("gpumath.MufuHalf("+which+", <A>)", 1), srcs(1), ex2Key)
			which = "gpumath.HalfTanhF16"
			if h.t == "bf16" {
				which = "gpumath.HalfTanhBF16"
			}
			alu("TanhApprox"+nm, scal("gpumath.MufuHalf("+which+", <A>)", 1), srcs(1), "tanh.approx."+t)
		}
	}
}

// cvts generates the conversions that involve a float type. Integer-only
// conversions are one parameterised op in exec.go.
func cvts() {
	bo := []bool{false, true}
	// int → float: source width in in.fl; keys use "s"/"u" for the source.
	for _, r := range rnds {
		R := rndConst[r]
		for _, sg := range []string{"s", "u"} {
			src := "gpumath.Sext(A, uint(in.fl))"
			if sg == "u" {
				src = "A & gpumath.Mask(uint(in.fl))"
			}
			odd := "gpumath.Odd64S(" + src + ")"
			if sg == "u" {
				odd = "gpumath.Odd64U(" + src + ")"
			}
			keys := func(dst string) []string {
				k := []string{"cvt." + r + "." + dst + "." + sg}
				return k
			}
			alu("Cvt"+title(r)+"F32"+title(sg), fmt.Sprintf("gpumath.R32(gpumath.%s2F32(%s, %s))", strings.ToUpper(sg), src, R), []string{sg + "64"}, keys("f32")...)
			alu("Cvt"+title(r)+"F64"+title(sg), fmt.Sprintf("gpumath.R64(gpumath.%s2F64(%s, %s))", strings.ToUpper(sg), src, R), []string{sg + "64"}, keys("f64")...)
			alu("Cvt"+title(r)+"F16"+title(sg), fmt.Sprintf("gpumath.F16.Round(%s, %s)", odd, R), []string{sg + "64"}, keys("f16")...)
			alu("Cvt"+title(r)+"BF16"+title(sg), fmt.Sprintf("gpumath.BF16.Round(%s, %s)", odd, R), []string{sg + "64"}, keys("bf16")...)
		}
	}
	// float → int: destination width in in.fl; always saturating.
	srcF := map[string]string{"f32": "float64(%s)", "f64": "gpumath.F64(A)", "f16": "gpumath.H2F(%s)", "bf16": "gpumath.BH2F(A)"}
	for _, r := range []string{"rni", "rzi", "rmi", "rpi"} {
		R := rndConst[r]
		for _, ft := range []string{"f32", "f64", "f16", "bf16"} {
			for _, ftz := range bo {
				if ftz && ft != "f32" && ft != "f16" {
					continue
				}
				var x string
				switch ft {
				case "f32":
					x = fmt.Sprintf(srcF[ft], in32("A", ftz))
				case "f16":
					a := "A"
					if ftz {
						a = "gpumath.Ftz16(A)"
					}
					x = fmt.Sprintf(srcF[ft], a)
				default:
					x = srcF[ft]
				}
				fz := ""
				if ftz {
					fz = ".ftz"
				}
				for _, sg := range []string{"s", "u"} {
					alu("Cvt"+title(r)+title(sg)+title(ft)+modName(ftz, false),
						fmt.Sprintf("gpumath.F2%s(%s, %s, uint(in.fl))", strings.ToUpper(sg), x, R), []string{ft},
						"cvt."+r+fz+"."+sg+"."+ft)
				}
			}
		}
	}
	// float → float.
	for _, ftz := range bo {
		for _, sat := range bo {
			mk, mn := mods(ftz, sat), modName(ftz, sat)
			A := in32("A", ftz)
			satd := func(e string) string {
				if sat {
					return "gpumath.Sat64(" + e + ")"
				}
				return e
			}
			if !sat {
				// A NaN keeps its payload; .ftz canonicalises it first (gpumath/fpapprox.go).
				if ftz {
					alu("CvtF64F32"+mn, fmt.Sprintf("gpumath.NaNTo(A, gpumath.NF32, 0x7fffffffe0000000, gpumath.R64(float64(%s)))", A), []string{"f32"}, "cvt"+mk+".f64.f32")
				} else {
					alu("CvtF64F32"+mn, fmt.Sprintf("gpumath.NaNCvt(A, gpumath.NF32, gpumath.NF64, gpumath.R64(float64(%s)))", A), []string{"f32"}, "cvt"+mk+".f64.f32")
				}
			}
			alu("CvtSatF32F32"+mn, out32(A, false, sat), []string{"f32"}, "cvt"+mk+".f32.f32", "cvt.rn"+mk+".f32.f32")
			for _, r := range rnds {
				R := rndConst[r]
				e := out32(fmt.Sprintf("gpumath.Round32(%s, 0, %s)", satd("gpumath.F64(A)"), R), ftz, sat)
				if !sat {
					e = "gpumath.NaNCvt(A, gpumath.NF64, gpumath.NF32, " + e + ")"
				}
				alu("Cvt"+title(r)+"F32F64"+mn, e, []string{"f64"},
					"cvt."+r+mk+".f32.f64")
			}
			for _, r := range []string{"rni", "rzi", "rmi", "rpi"} {
				R := rndConst[r]
				alu("Cvt"+title(r)+"F32F32"+mn, out32(fmt.Sprintf("float32(gpumath.RoundInt(float64(%s), %s))", A, R), ftz, sat), []string{"f32"},
					"cvt."+r+mk+".f32.f32")
				if !ftz {
					alu("Cvt"+title(r)+"F64F64"+mn, fmt.Sprintf("gpumath.NaN1(%s, A)", satd(fmt.Sprintf("gpumath.RoundInt(gpumath.F64(A), %s)", R))), []string{"f64"},
						"cvt."+r+mk+".f64.f64")
				}
			}
		}
	}
	for _, r := range rnds {
		R := rndConst[r]
		for _, sat := range bo {
			sk, sn := mods(false, sat), modName(false, sat)
			for _, h := range []struct{ n, t, f string }{{"F16", "f16", "gpumath.F16"}, {"BF16", "bf16", "gpumath.BF16"}} {
				v32, v64 := "float64(gpumath.F32(A))", "gpumath.F64(A)"
				if sat {
					v32, v64 = "gpumath.Sat64("+v32+")", "gpumath.Sat64("+v64+")"
				}
				alu("Cvt"+title(r)+h.n+"F32"+sn, fmt.Sprintf("%s.Round(%s, %s)", h.f, v32, R), []string{"f32"}, "cvt."+r+sk+"."+h.t+".f32")
				e := fmt.Sprintf("%s.Round(%s, %s)", h.f, v64, R)
				if !sat {
					e = fmt.Sprintf("gpumath.NaNCvt(A, gpumath.NF64, gpumath.NaNFmt(%s), %s)", h.f, e)
				}
				alu("Cvt"+title(r)+h.n+"F64"+sn, e, []string{"f64"}, "cvt."+r+sk+"."+h.t+".f64")
				vb := "float64(gpumath.F32(B))"
				va := "float64(gpumath.F32(A))"
				if sat {
					vb, va = "gpumath.Sat64("+vb+")", "gpumath.Sat64("+va+")"
				}
				alu("Cvt"+title(r)+h.n+"x2F32"+sn, fmt.Sprintf("gpumath.Pack16(%s.Round(%s, %s), %s.Round(%s, %s))", h.f, vb, R, h.f, va, R),
					[]string{"f32", "f32"}, "cvt."+r+sk+"."+h.t+"x2.f32")
			}
		}
	}
	for _, ftz := range bo {
		mk, mn := mods(ftz, false), modName(ftz, false)
		a := "A"
		if ftz {
			a = "gpumath.Ftz16(A)"
		}
		alu("CvtF32F16"+mn, out32("float32(gpumath.H2F("+a+"))", ftz, false), []string{"f16"}, "cvt"+mk+".f32.f16")
		if ftz {
			alu("CvtF64F16"+mn, "gpumath.R64(gpumath.H2F("+a+"))", []string{"f16"}, "cvt"+mk+".f64.f16")
		} else {
			alu("CvtF64F16"+mn, "gpumath.NaNCvt(A&0xffff, gpumath.NF16, gpumath.NF64, gpumath.R64(gpumath.H2F("+a+")))", []string{"f16"}, "cvt"+mk+".f64.f16")
		}
		for _, r := range []string{"rni", "rzi", "rmi", "rpi"} {
			alu("Cvt"+title(r)+"F16F16"+mn, fmt.Sprintf("gpumath.F16.Round(gpumath.RoundInt(gpumath.H2F(%s), %s), gpumath.RN)", a, rndConst[r]), []string{"f16"},
				"cvt."+r+mk+".f16.f16")
		}
	}
	// Rounding a bf16 to an integral bf16: exact (the integer nearest a
	// value of 8 significant bits has at most 8), a NaN becomes 0x7fff as
	// in cvt.rXi.f16.f16.
	for _, r := range []string{"rni", "rzi", "rmi", "rpi"} {
		alu("Cvt"+title(r)+"BF16BF16", fmt.Sprintf("gpumath.BF16.Round(gpumath.RoundInt(gpumath.BH2F(A), %s), gpumath.RN)", rndConst[r]), []string{"bf16"},
			"cvt."+r+".bf16.bf16")
	}
	alu("CvtF32BF16", "A & 0xffff << 16", []string{"bf16"}, "cvt.f32.bf16") // exact, NaN bits and all
	alu("CvtF64BF16", "gpumath.NaNCvt(A&0xffff, gpumath.NFBF16, gpumath.NF64, gpumath.R64(gpumath.BH2F(A)))", []string{"bf16"}, "cvt.f64.bf16")
}

// pureCalls are the functions a lane-pure expression may call: pure,
// total (no panic for any operand bits) and without tables.
var pureCalls = map[string]bool{
	"uint8": true, "uint16": true, "uint32": true, "uint64": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"float32": true, "float64": true, "min": true, "max": true, "satS32": true,
	"gpumath.R32": true, "gpumath.F32": true, "gpumath.R64": true, "gpumath.F64": true, "gpumath.Ftz32": true,
	"gpumath.Sat32": true, "gpumath.Mask": true, "gpumath.Sext": true, "gpumath.B2U": true, "gpumath.Fma32": true,
	"math.Float64bits": true, "math.Float32bits": true, "math.Float64frombits": true, "math.Float32frombits": true,
}

var callRE = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.]*)\(`)

// lanePure reports whether o's expression may run on lanes whose operand
// bits are anything (an inactive lane's stale registers): it reads only
// its operands and calls only pureCalls.
func lanePure(o *op) bool {
	if o.cmp || strings.Contains(o.expr, "in.") || strings.Contains(o.pre, "in.") {
		return false
	}
	for _, m := range callRE.FindAllStringSubmatch(o.expr+" "+o.pre, -1) {
		if !pureCalls[m[1]] {
			return false
		}
	}
	return true
}

// loadVars writes the loads of an op's lane values vars (src gives each
// one's place, skip the ones loaded already) for the expressions texts.
// A value the expressions read only as gpumath.F32(V) is loaded as a
// float32 straight from its register (fV, f32Of), which the compiler
// does with one instruction where the uint64 load and its move to a
// float register take two; the expressions are rewritten to read fV.
func loadVars(vars []string, skip func(v string) bool, src func(v string) string, texts ...*string) string {
	var parts []string
	for _, v := range vars {
		if skip(v) {
			continue
		}
		call := "gpumath.F32(" + v + ")"
		direct := false
		for _, t := range texts {
			direct = direct || strings.Contains(*t, call)
		}
		if direct {
			for _, t := range texts {
				*t = strings.ReplaceAll(*t, call, "f"+v)
			}
			parts = append(parts, fmt.Sprintf("f%s := f32Of(&%s)", v, src(v)))
		}
		word := regexp.MustCompile(`\b` + v + `\b`)
		still := false
		for _, t := range texts {
			still = still || word.MatchString(*t)
		}
		if still || !direct {
			parts = append(parts, fmt.Sprintf("%s := %s", v, src(v)))
		}
	}
	return strings.Join(parts, "; ")
}

func main() {
	out := flag.String("o", "ops_gen.go", "output file")
	flag.Parse()
	ints()
	floats()
	cvts()
	addSIMD()
	addUniformB()

	var alus, cmps []*op
	for _, o := range ops {
		if o.cmp {
			cmps = append(cmps, o)
		} else {
			alus = append(alus, o)
		}
	}
	var b bytes.Buffer
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("// Code generated by internal/opgen; DO NOT EDIT.\n\npackage exec\n\n")
	p("import (\n\t\"math\"\n\t\"math/bits\"\n\n\t\"github.com/cugen/cugen/rt/soft/internal/gpumath\"\n)\n\n")
	p("var _ = math.Float32bits\n\n")
	p("// Generated arithmetic opcodes (opALU ≤ op < opCmp) and comparisons (opCmp ≤ op < opEnd).\nconst (\n")
	for i, o := range alus {
		if i == 0 {
			p("\top%s opcode = opALU + iota\n", o.name)
		} else {
			p("\top%s\n", o.name)
		}
	}
	p(")\n\nconst (\n")
	for i, o := range cmps {
		if i == 0 {
			p("\top%s opcode = opCmp + iota\n", o.name)
		} else {
			p("\top%s\n", o.name)
		}
	}
	p("\topEnd\n)\n\n")
	p("const nALU = %d\n\n", len(alus))

	// key table
	type kv struct{ k, name, srcs string }
	var kvs []kv
	seen := map[string]string{}
	for _, o := range ops {
		for _, k := range o.keys {
			if prev, ok := seen[k]; ok && prev != o.name {
				log.Fatalf("key %s maps to %s and %s", k, prev, o.name)
			}
			seen[k] = o.name
			kvs = append(kvs, kv{k, o.name, strings.Join(o.srcs, ",")})
		}
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].k < kvs[j].k })
	p("// genOps maps a canonical PTX form (see decode.go) to its opcode and\n// the PTX types of its sources.\nvar genOps = map[string]genOp{\n")
	for _, e := range kvs {
		p("\t%q: {op%s, %q},\n", e.k, e.name, e.srcs)
	}
	p("}\n\n")
	p("var genNames = map[opcode]string{\n")
	for _, o := range ops {
		if o.base != nil {
			p("\top%s: %q,\n", o.name, o.base.keys[0]+" (uniform b)")
		} else {
			p("\top%s: %q,\n", o.name, o.keys[0])
		}
	}
	p("}\n\n")
	p("// aluUniformB maps a form to its twin that reads b from lane 0 only.\nvar aluUniformB = map[opcode]opcode{\n")
	for _, o := range ops {
		if o.ub != nil {
			p("\top%s: op%s,\n", o.name, o.ub.name)
		}
	}
	p("}\n\n")

	// A warp missing a few lanes (a grid's edge, a bounds test) runs a
	// lane-pure op's full-warp loop, which needs no lane-by-lane walk
	// over m, and puts the missing lanes' destination values back
	// (aluPartial in exec/aluforms.go).
	p("// aluDense marks the ops that a partial warp may run as a full one,\n// restoring the inactive lanes' destinations (lane-pure: no panic, no\n// table, no state; the opgen function lanePure).\nvar aluDense = [opCmp]bool{\n")
	for _, o := range alus {
		if lanePure(o) {
			p("\top%s: true,\n", o.name)
		}
	}
	p("}\n\n")
	p("// execALU runs a generated arithmetic op for the lanes in m.\nfunc execALU(in *inst, r []uint64, m uint32) {\n")
	p("\tif m != fullMask && aluDense[in.op%%opCmp] && bits.OnesCount32(m) >= aluDenseLanes {\n\t\taluPartial(in, r, m)\n\t\treturn\n\t}\n\texecALUMask(in, r, m)\n}\n\n")
	p("// execALUMask runs a generated arithmetic op for the lanes in m, lane by\n// lane unless m is the full warp.\nfunc execALUMask(in *inst, r []uint64, m uint32) {\n\tswitch in.op {\n")
	for _, o := range alus {
		n := len(o.srcs)
		p("\tcase op%s:\n", o.name)
		vars := []string{"A", "B", "C", "E"}[:n]
		fields := []string{"in.a", "in.b", "in.c", "in.e"}[:n]
		p("\t\td := lanes(r, in.d)\n")
		expr, pre := o.expr, o.pre
		for i := range vars {
			if o.base != nil && vars[i] == "B" {
				p("\t\tB := r[in.b]\n")
				if strings.Contains(expr+pre, "gpumath.F32(B)") {
					p("\t\tfB := gpumath.F32(B)\n")
					expr, pre = strings.ReplaceAll(expr, "gpumath.F32(B)", "fB"), strings.ReplaceAll(pre, "gpumath.F32(B)", "fB")
				}
				continue
			}
			p("\t\t%s := lanes(r, %s)\n", strings.ToLower(vars[i]), fields[i])
		}
		skipB := func(v string) bool { return o.base != nil && v == "B" }
		le, lp := expr, pre
		load := loadVars(vars, skipB, func(v string) string { return strings.ToLower(v) + "[l]" }, &le, &lp)
		if lp != "" {
			load += "\n\t\t\t\t" + lp
		}
		body := fmt.Sprintf("%s\n\t\t\t\td[l] = %s\n", load, le)
		masked := body // the masked loop's (the split's slow lanes take body)
		if o.split != nil {
			mf, me := o.split.fast, le
			if o.base != nil {
				mf = strings.ReplaceAll(mf, "gpumath.F32(B)", "fB")
			}
			ld := loadVars(vars, skipB, func(v string) string { return strings.ToLower(v) + "[l]" }, &mf, &me)
			masked = fmt.Sprintf("%s\n%s\nif bad {\nd[l] = %s\n} else {\nd[l] = res\n}\n", ld, mf, me)
		}
		// The full warp runs four lanes an iteration over the registers
		// viewed as [8][4]uint64: a quarter of the loop's own count,
		// compare and branch, and no bounds checks.
		if o.asm != "" {
			p("\t\tif m == fullMask && warpAsm {\n\t\t\t%s\n\t\t} else ", o.asm)
		} else {
			p("\t\t")
		}
		p("if m == fullMask {\n\t\t\td4 := quads(d)\n")
		for i := range vars {
			if o.base != nil && vars[i] == "B" {
				continue
			}
			p("\t\t\t%s4 := quads(%s)\n", strings.ToLower(vars[i]), strings.ToLower(vars[i]))
		}
		if o.split != nil {
			fast := o.split.fast
			if o.base != nil && strings.Contains(fast, "gpumath.F32(B)") {
				fast = strings.ReplaceAll(fast, "gpumath.F32(B)", "fB")
			}
			p("\t\t\tvar slow uint32\n")
			p("\t\t\tfor i := range d4 {\n")
			for k := 0; k < 4; k++ {
				kf := fast
				ld := loadVars(vars, skipB, func(v string) string { return fmt.Sprintf("%s4[i][%d]", strings.ToLower(v), k) }, &kf)
				p("\t\t\t\t{\n%s\n%s\nif bad {\nslow |= 1 << (4*i + %d)\n} else {\nd4[i][%d] = res\n}\n}\n", ld, kf, k, k)
			}
			p("\t\t\t}\n")
			p("\t\t\tfor ; slow != 0; slow &= slow - 1 {\n\t\t\t\tl := bits.TrailingZeros32(slow) & 31\n\t\t\t\t%s\t\t\t}\n", body)
		} else {
			p("\t\t\tfor i := range d4 {\n")
			for k := 0; k < 4; k++ {
				q := strings.NewReplacer("d[l]", fmt.Sprintf("d4[i][%d]", k))
				ke, kp := expr, pre
				ld := loadVars(vars, skipB, func(v string) string { return fmt.Sprintf("%s4[i][%d]", strings.ToLower(v), k) }, &ke, &kp)
				if kp != "" {
					ld += "\n" + kp
				}
				p("\t\t\t\t{\n%s\n%s\n}\n", ld, q.Replace(fmt.Sprintf("d[l] = %s", ke)))
			}
			p("\t\t\t}\n")
		}
		p("\t\t} else {\n\t\t\tfor ; m != 0; m &= m - 1 {\n\t\t\t\tl := bits.TrailingZeros32(m) & 31\n\t\t\t\t%s\t\t\t}\n\t\t}\n", masked)
	}
	p("\t}\n}\n\n")
	p("// execCmp evaluates a generated comparison for the lanes in m and\n// returns the lanes where it holds.\nfunc execCmp(in *inst, r []uint64, m uint32) (t uint32) {\n\tswitch in.op {\n")
	var fulls []string
	for _, o := range cmps {
		n := len(o.srcs)
		vars := []string{"A", "B"}[:n]
		fields := []string{"in.a", "in.b"}[:n]
		p("\tcase op%s:\n", o.name)
		for i := range vars {
			p("\t\t%s := lanes(r, %s)\n", strings.ToLower(vars[i]), fields[i])
		}
		expr, pre := o.expr, ""
		if i := strings.Index(expr, "\x00"); i >= 0 {
			pre, expr = "\n"+expr[:i], expr[i+1:]
		}
		none := func(string) bool { return false }
		le, lp := expr, pre
		load := loadVars(vars, none, func(v string) string { return strings.ToLower(v) + "[l]" }, &le, &lp)
		load += lp
		// Branch-free bit setting: the comparison outcome is data dependent.
		body := fmt.Sprintf("%s\n\t\t\t\tvar v uint32\n\t\t\t\tif %s {\n\t\t\t\t\tv = 1\n\t\t\t\t}\n\t\t\t\tt |= v << l\n", load, le)
		// The full warp's mask is built by a function of its own (inside
		// execCmp's switch the register allocator spills the accumulators)
		// as four independent 8-lane parts, each from its top lane down so
		// that no shift count is variable: four short chains overlap where
		// one of 32 steps bounded the loop. tk<<1 + v is tk<<1 | v (the low
		// bit is clear) in one LEA.
		if o.asm != "" {
			p("\t\tif m == fullMask && warpAsm {\n\t\t\treturn %s\n\t\t}\n", o.asm)
		}
		p("\t\tif m == fullMask {\n\t\t\treturn full%s(%s)\n\t\t}\n", o.name, strings.ToLower(strings.Join(vars, ", ")))
		var f strings.Builder
		q := func(format string, args ...any) { fmt.Fprintf(&f, format, args...) }
		q("// full%s is op%s's mask on a full warp: four independent 8-lane\n// parts (lanes 8k..8k+7 in tk) overlap where one 32-step chain would not.\n", o.name, o.name)
		q("func full%s(%s *[32]uint64) uint32 {\n", o.name, strings.ToLower(strings.Join(vars, ", ")))
		for i := range vars {
			q("%s8 := octs(%s)\n", strings.ToLower(vars[i]), strings.ToLower(vars[i]))
		}
		q("var t0, t1, t2, t3 uint32\nfor i := 7; i >= 0; i-- {\n")
		for k := 0; k < 4; k++ {
			ke, kp := expr, pre
			ld := loadVars(vars, none, func(v string) string { return fmt.Sprintf("%s8[%d][i]", strings.ToLower(v), k) }, &ke, &kp)
			q("{\n%s%s\nvar v uint32\nif %s {\nv = 1\n}\nt%d = t%d<<1 + v\n}\n", ld, kp, ke, k, k)
		}
		q("}\nreturn t0 | t1<<8 | t2<<16 | t3<<24\n}\n\n")
		fulls = append(fulls, f.String())
		p("\t\tfor ; m != 0; m &= m - 1 {\n\t\t\tl := bits.TrailingZeros32(m) & 31\n\t\t\t\t%s\t\t}\n", body)
	}
	p("\t}\n\treturn t\n}\n\n")
	p("%s", strings.Join(fulls, ""))

	src, err := format.Source(b.Bytes())
	if err != nil {
		os.WriteFile(*out+".bad", b.Bytes(), 0o644)
		log.Fatalf("gofmt: %v", err)
	}
	writeSIMD(*out)
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "opgen: %d alu ops, %d cmp ops, %d keys\n", len(alus), len(cmps), len(kvs))
}
