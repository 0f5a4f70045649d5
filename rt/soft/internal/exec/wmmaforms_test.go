package exec

// The wmma forms (load, store, mma in every shape, type, layout and state
// space), ldmatrix, stmatrix and movmatrix, and their recording kernels.

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"strings"
)

// wmmaType is one wmma element family: its multiplicand, accumulator and
// shapes.
type wmmaFamily struct {
	ab     mmaType
	cd     []mmaType // accumulator types (f16 has two)
	shapes []string
	rnds   []string // f64 rounding modifiers
	bops   []string // b1 operations
	sat    bool     // integer .satfinite exists
	subInt bool     // sub-byte/single-bit: A row, B col only
}

var wmmaFamilies = []wmmaFamily{
	{ab: mtF16, cd: []mmaType{mtF16, mtF32}, shapes: []string{"m16n16k16", "m32n8k16", "m8n32k16"}},
	{ab: mtBF16, cd: []mmaType{mtF32}, shapes: []string{"m16n16k16", "m32n8k16", "m8n32k16"}},
	{ab: mtTF32, cd: []mmaType{mtF32}, shapes: []string{"m16n16k8"}},
	{ab: mtF64, cd: []mmaType{mtF64}, shapes: []string{"m8n8k4"}, rnds: []string{"", ".rn", ".rz", ".rm", ".rp"}},
	{ab: mtS8, cd: []mmaType{mtS32}, shapes: []string{"m16n16k16", "m32n8k16", "m8n32k16"}, sat: true},
	{ab: mtU8, cd: []mmaType{mtS32}, shapes: []string{"m16n16k16", "m32n8k16", "m8n32k16"}, sat: true},
	{ab: mtS4, cd: []mmaType{mtS32}, shapes: []string{"m8n8k32"}, sat: true, subInt: true},
	{ab: mtU4, cd: []mmaType{mtS32}, shapes: []string{"m8n8k32"}, sat: true, subInt: true},
	{ab: mtB1, cd: []mmaType{mtS32}, shapes: []string{"m8n8k128"}, bops: []string{"xor", "and"}, subInt: true},
}

// wmmaLoadInstr spells wmma.load (op opA/opB/opC) or wmma.store (store).
func wmmaLdStInstr(op int, store bool, row bool, shape, space string, t mmaType) string {
	abc := []string{"a", "b", "c"}[op]
	s := "wmma.load." + abc
	if store {
		s = "wmma.store.d"
	}
	return s + ".sync.aligned." + layoutName(row) + "." + shape + space + "." + t.String()
}

// wmmaMMAInstr spells wmma.mma.
func wmmaMMAInstr(fam wmmaFamily, arow, brow bool, shape string, d, c mmaType, rnd, bop string, sat bool) string {
	s := "wmma.mma"
	if bop != "" {
		s += "." + bop + ".popc"
	}
	s += ".sync.aligned." + layoutName(arow) + "." + layoutName(brow) + "." + shape + rnd
	if fam.ab == mtF16 {
		s += "." + d.String() + "." + c.String()
	} else {
		s += "." + d.String() + "." + fam.ab.String() + "." + fam.ab.String() + "." + c.String()
	}
	if sat {
		s += ".satfinite"
	}
	return s
}

// wmmaStride is the default stride (leading dimension) of an operand.
func wmmaStride(s mmaShape, op int, row bool) int {
	r, c := s.dims(op)
	if row {
		return c
	}
	return r
}

// wmmaRegion is the bytes a rows×cols matrix occupies with the given
// stride (elements between leading-dimension starts).
func wmmaRegion(s mmaShape, op int, t mmaType, row bool, stride int) int {
	r, c := s.dims(op)
	n := c
	if row {
		n = r
	}
	return (n*stride*t.bits()/8 + 15) &^ 15
}

func wmmaRecForms() []*recForm {
	var out []*recForm
	for _, fam := range wmmaFamilies {
		for _, sh := range fam.shapes {
			shape := mmaShapes[sh]
			out = append(out, wmmaMMAForms(fam, sh, shape)...)
			out = append(out, wmmaMapForms(fam, sh, shape)...)
			out = append(out, wmmaGemmForms(fam, sh, shape)...)
		}
	}
	return out
}

func layouts(fam wmmaFamily) [][2]bool {
	if fam.subInt {
		return [][2]bool{{true, false}}
	}
	return [][2]bool{{true, true}, {true, false}, {false, true}, {false, false}}
}

// wmmaMMAForms: wmma.mma on random fragments, register by register, so that
// soft must read each register the way the hardware does.
func wmmaMMAForms(fam wmmaFamily, sh string, shape mmaShape) []*recForm {
	var out []*recForm
	for _, lay := range layouts(fam) {
		for _, d := range fam.cd {
			for _, c := range fam.cd {
				rnds, bops, sats := fam.rnds, fam.bops, []bool{false}
				if rnds == nil {
					rnds = []string{""}
				}
				if bops == nil {
					bops = []string{""}
				}
				if fam.sat && lay == [2]bool{true, false} {
					sats = []bool{false, true}
				}
				for _, rnd := range rnds {
					if rnd != "" && lay != [2]bool{true, false} {
						continue
					}
					for _, bop := range bops {
						for _, sat := range sats {
							instr := wmmaMMAInstr(fam, lay[0], lay[1], sh, d, c, rnd, bop, sat)
							w := 4
							if fam.ab == mtF64 {
								w = 8
							}
							rf := regForm{instr: instr, win: w, wout: w, nd: wmmaRegs(shape, opC, d),
								na: wmmaRegs(shape, opA, fam.ab), nb: wmmaRegs(shape, opB, fam.ab), nc: wmmaRegs(shape, opC, c)}
							rnd := formRand(instr)
							var cases [][]byte
							for i := 0; i < 4; i++ {
								cases = append(cases, randomRegs(rnd, rf, fam.ab, c, i >= 3))
							}
							out = append(out, newRegForm(instr, rf, "8.5", cases))
						}
					}
				}
			}
		}
	}
	return out
}

// randomRegs fills a register-level case element by element.
func randomRegs(rnd *rand.Rand, rf regForm, ab, c mmaType, wide bool) []byte {
	nin := rf.na + rf.nb + rf.nc
	buf := make([]byte, 32*nin*rf.win)
	e, ec := 6, 4
	if wide {
		e, ec = 20, 20
	}
	for lane := 0; lane < 32; lane++ {
		for r := 0; r < nin; r++ {
			t, ex := ab, e
			if r >= rf.na+rf.nb {
				t, ex = c, ec
			}
			for j := 0; j < t.perReg(); j++ {
				elemPut(buf, (lane*nin+r)*rf.win, rf.win, t, j, randElem(rnd, t, ex))
			}
		}
	}
	return buf
}

// elemPut ORs element j (of type t) into the register word at off.
func elemPut(buf []byte, off, width int, t mmaType, j int, v uint64) {
	if width == 8 {
		binary.LittleEndian.PutUint64(buf[off:], binary.LittleEndian.Uint64(buf[off:])|v<<(uint(j)*uint(t.bits())))
		return
	}
	binary.LittleEndian.PutUint32(buf[off:], binary.LittleEndian.Uint32(buf[off:])|uint32(v<<(uint(j)*uint(t.bits()))))
}

// memPut ORs element s (of type t) into a memory image.
func memPut(buf []byte, t mmaType, s int, v uint64) {
	bits := t.bits()
	if bits < 8 {
		bit := s * bits
		buf[bit/8] |= byte(v << uint(bit%8))
		return
	}
	o := s * bits / 8
	for i := 0; i < bits/8; i++ {
		buf[o+i] |= byte(v >> (8 * uint(i)))
	}
}

// wmmaMapForms record where wmma.load puts each element (loads of
// index-valued matrices, one digit of the index per case) and where
// wmma.store writes each register's elements.
func wmmaMapForms(fam wmmaFamily, sh string, shape mmaShape) []*recForm {
	var out []*recForm
	type opT struct {
		op int
		t  mmaType
	}
	ops := []opT{{opA, fam.ab}, {opB, fam.ab}}
	for _, c := range fam.cd {
		ops = append(ops, opT{opC, c})
	}
	for _, o := range ops {
		for _, row := range []bool{true, false} {
			if fam.subInt && (o.op == opA && !row || o.op == opB && row) {
				continue
			}
			stride := 2 * wmmaStride(shape, o.op, row)
			region := wmmaRegion(shape, o.op, o.t, row, stride)
			nregs := wmmaRegs(shape, o.op, o.t)
			w := 4
			if o.t == mtF64 {
				w = 8
			}
			instr := wmmaLdStInstr(o.op, false, row, sh, ".global", o.t)
			elems := region * 8 / o.t.bits()
			digits := 1
			for bits := o.t.bits(); 1<<uint(min(digits*bits, 62)) < elems; digits++ {
			}
			var in []byte
			for d := 0; d < digits; d++ {
				img := make([]byte, region)
				for s := 0; s < elems; s++ {
					memPut(img, o.t, s, indexValue(o.t, s, d))
				}
				in = append(in, img...)
			}
			out = append(out, &recForm{Name: instr + ".map", Grid: digits, Block: 32, OutSize: 32 * nregs * w, In: in,
				ptx: wmmaLdStPTX(instr, true, nregs, w, region, stride), minVer: "8.5"})
			if o.op == opC {
				st := wmmaLdStInstr(o.op, true, row, sh, ".global", o.t)
				in := make([]byte, 32*nregs*w)
				for lane := 0; lane < 32; lane++ {
					for r := 0; r < nregs; r++ {
						for j := 0; j < o.t.perReg(); j++ {
							id := (lane*nregs+r)*o.t.perReg() + j
							elemPut(in, (lane*nregs+r)*w, w, o.t, j, indexValue(o.t, id, 0))
						}
					}
				}
				out = append(out, &recForm{Name: st + ".map", Grid: 1, Block: 32, OutSize: region, In: in,
					ptx: wmmaLdStPTX(st, false, nregs, w, region, stride), minVer: "8.5"})
			}
		}
	}
	return out
}

// indexValue is digit d of index s as an element value: 32-bit elements
// carry the index above bit 13 (tf32 ignores the low bits) and below it.
func indexValue(t mmaType, s, d int) uint64 {
	switch t.bits() {
	case 32:
		return uint64(s)<<13 | uint64(s)&0x1fff
	case 64:
		return 0x4000000000000000 | uint64(s)
	}
	b := uint(t.bits())
	return uint64(s) >> (uint(d) * b) & (1<<b - 1)
}

// wmmaLdStPTX is the kernel of a load map (global region per CTA → lane
// registers) or store map (lane registers → global region per CTA).
func wmmaLdStPTX(instr string, load bool, nregs, w, region, stride int) string {
	var b strings.Builder
	b.WriteString(recHeader("8.5"))
	rp := "%r"
	if w == 8 {
		rp = "%rd"
	}
	fmt.Fprintf(&b, "\t.reg .b%d %s<%d>;\n", w*8, rp, nregs)
	b.WriteString(recInit)
	if load {
		advance(&b, "%in", region, 0)
		advance(&b, "%out", 32*nregs*w, nregs*w)
		fmt.Fprintf(&b, "\tmov.u32 %%st, %d;\n\t%s %s, [%%in], %%st;\n", stride, instr, regList(rp, 0, nregs))
		for i := 0; i < nregs; i++ {
			fmt.Fprintf(&b, "\tst.global.b%d [%%out+%d], %s%d;\n", w*8, i*w, rp, i)
		}
	} else {
		advance(&b, "%in", 32*nregs*w, nregs*w)
		advance(&b, "%out", region, 0)
		for i := 0; i < nregs; i++ {
			fmt.Fprintf(&b, "\tld.global.b%d %s%d, [%%in+%d];\n", w*8, rp, i, i*w)
		}
		fmt.Fprintf(&b, "\tmov.u32 %%st, %d;\n\t%s [%%out], %s, %%st;\n", stride, instr, regList(rp, 0, nregs))
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// gemmVariant is one end-to-end wmma test: load A, B, C from memory, mma,
// store D.
type gemmVariant struct {
	arow, brow, crow, drow bool
	d, c                   mmaType
	space                  string // ".global", "" (generic global), ".shared", "generic-shared"
	strided                bool   // pass twice the default strides (else no stride operand)
	rnd, bop               string
	sat                    bool
}

func wmmaGemmForms(fam wmmaFamily, sh string, shape mmaShape) []*recForm {
	var vs []gemmVariant
	last := fam.cd[len(fam.cd)-1]
	bop := ""
	if fam.bops != nil {
		bop = fam.bops[0]
	}
	for _, lay := range layouts(fam) {
		vs = append(vs, gemmVariant{arow: lay[0], brow: lay[1], crow: true, drow: !lay[0], d: last, c: last, space: ".global", strided: true, bop: bop})
	}
	l0 := layouts(fam)[0]
	base := gemmVariant{arow: l0[0], brow: l0[1], crow: false, drow: true, d: fam.cd[0], c: fam.cd[0], bop: bop}
	for _, sp := range []string{".shared", "generic-shared", ""} {
		v := base
		v.space, v.strided = sp, sp == ".shared"
		vs = append(vs, v)
	}
	for _, d := range fam.cd {
		for _, c := range fam.cd {
			if d != c {
				v := base
				v.d, v.c, v.space = d, c, ".global"
				vs = append(vs, v)
			}
		}
	}
	for _, rnd := range fam.rnds {
		if rnd != "" {
			v := base
			v.rnd, v.space, v.strided = rnd, ".global", true
			vs = append(vs, v)
		}
	}
	for _, bop := range fam.bops[min(1, len(fam.bops)):] {
		v := base
		v.bop, v.space = bop, ".global"
		vs = append(vs, v)
	}
	if fam.sat {
		v := base
		v.sat, v.space = true, ".global"
		vs = append(vs, v)
	}
	var out []*recForm
	for _, v := range vs {
		out = append(out, gemmForm(fam, sh, shape, v))
	}
	return out
}

func gemmForm(fam wmmaFamily, sh string, shape mmaShape, v gemmVariant) *recForm {
	mma := wmmaMMAInstr(fam, v.arow, v.brow, sh, v.d, v.c, v.rnd, v.bop, v.sat)
	sp := v.space
	if sp == "generic-shared" {
		sp = ""
	}
	type opnd struct {
		op     int
		t      mmaType
		row    bool
		stride int
		region int
		off    int
	}
	mk := func(op int, t mmaType, row bool) opnd {
		s := wmmaStride(shape, op, row)
		if v.strided {
			s *= 2
		}
		return opnd{op: op, t: t, row: row, stride: s, region: wmmaRegion(shape, op, t, row, s)}
	}
	ops := []opnd{mk(opA, fam.ab, v.arow), mk(opB, fam.ab, v.brow), mk(opC, v.c, v.crow)}
	ops[1].off = ops[0].region
	ops[2].off = ops[1].off + ops[1].region
	inCase := ops[2].off + ops[2].region
	dop := mk(opC, v.d, v.drow)
	shared := v.space == ".shared" || v.space == "generic-shared"

	var b strings.Builder
	b.WriteString(recHeader("8.5"))
	if shared {
		fmt.Fprintf(&b, "\t.shared .align 128 .b8 smi[%d];\n\t.shared .align 128 .b8 smo[%d];\n", inCase, dop.region)
	}
	regs := []int{wmmaRegs(shape, opA, fam.ab), wmmaRegs(shape, opB, fam.ab), wmmaRegs(shape, opC, v.c), wmmaRegs(shape, opC, v.d)}
	w, rp := 4, "%r"
	if fam.ab == mtF64 {
		w, rp = 8, "%rd"
	}
	for i, n := range regs {
		fmt.Fprintf(&b, "\t.reg .b%d %s%c<%d>;\n", w*8, rp, "abcd"[i], n)
	}
	b.WriteString(recInit)
	advance(&b, "%in", inCase, 0)
	advance(&b, "%out", dop.region, 0)
	base, dbase := "%in", "%out"
	if shared {
		// Each lane copies every 32nd word; the D area starts filled.
		for o := 0; o < inCase; o += 128 {
			fmt.Fprintf(&b, "\tmul.wide.u32 %%t, %%lane, 4;\n\tadd.u64 %%t, %%t, %d;\n\tsetp.lt.u64 %%p, %%t, %d;\n", o, inCase)
			fmt.Fprintf(&b, "\tadd.u64 %%g, %%in, %%t;\n\t@%%p ld.global.b32 %%w, [%%g];\n\tmov.u64 %%s, smi;\n\tadd.u64 %%s, %%s, %%t;\n\t@%%p st.shared.b32 [%%s], %%w;\n")
		}
		for o := 0; o < dop.region; o += 128 {
			fmt.Fprintf(&b, "\tmul.wide.u32 %%t, %%lane, 4;\n\tadd.u64 %%t, %%t, %d;\n\tsetp.lt.u64 %%p, %%t, %d;\n", o, dop.region)
			fmt.Fprintf(&b, "\tmov.u64 %%s, smo;\n\tadd.u64 %%s, %%s, %%t;\n\tmov.u32 %%w, 0xa5a5a5a5;\n\t@%%p st.shared.b32 [%%s], %%w;\n")
		}
		b.WriteString("\tbar.sync 0;\n\tmov.u64 %s, smi;\n\tmov.u64 %g, smo;\n")
		base, dbase = "%s", "%g"
		if v.space == "generic-shared" {
			b.WriteString("\tcvta.shared.u64 %s, %s;\n\tcvta.shared.u64 %g, %g;\n")
		}
	} else if v.space == "" {
		b.WriteString("\tcvta.global.u64 %in, %in;\n\tcvta.global.u64 %out, %out;\n")
	}
	strideArg := func(o opnd) string {
		if !v.strided {
			return ""
		}
		fmt.Fprintf(&b, "\tmov.u32 %%st, %d;\n", o.stride)
		return ", %st"
	}
	for i, o := range ops {
		r := regList(rp+"abc"[i:i+1], 0, regs[i])
		fmt.Fprintf(&b, "\t%s %s, [%s+%d]%s;\n", wmmaLdStInstr(o.op, false, o.row, sh, sp, o.t), r, base, o.off, strideArg(o))
	}
	fmt.Fprintf(&b, "\t%s %s, %s, %s, %s;\n", mma, regList(rp+"d", 0, regs[3]), regList(rp+"a", 0, regs[0]), regList(rp+"b", 0, regs[1]), regList(rp+"c", 0, regs[2]))
	fmt.Fprintf(&b, "\t%s [%s], %s%s;\n", wmmaLdStInstr(opC, true, dop.row, sh, sp, v.d), dbase, regList(rp+"d", 0, regs[3]), strideArg(dop))
	if shared {
		b.WriteString("\tbar.sync 0;\n")
		for o := 0; o < dop.region; o += 128 {
			fmt.Fprintf(&b, "\tmul.wide.u32 %%t, %%lane, 4;\n\tadd.u64 %%t, %%t, %d;\n\tsetp.lt.u64 %%p, %%t, %d;\n", o, dop.region)
			fmt.Fprintf(&b, "\tmov.u64 %%s, smo;\n\tadd.u64 %%s, %%s, %%t;\n\t@%%p ld.shared.b32 %%w, [%%s];\n\tadd.u64 %%g, %%out, %%t;\n\t@%%p st.global.b32 [%%g], %%w;\n")
		}
	}
	b.WriteString("\tret;\n}\n")

	spName := map[string]string{".global": "global", "": "generic", ".shared": "shared", "generic-shared": "genericshared"}[v.space]
	name := mma + ".gemm.c" + layoutName(v.crow) + ".d" + layoutName(v.drow) + "." + spName
	if v.strided {
		name += ".strided"
	}
	rnd := formRand(name)
	var in []byte
	for cs := 0; cs < 4; cs++ {
		img := make([]byte, inCase)
		for _, o := range ops {
			e := 6
			if o.op == opC {
				e = 4
			}
			part := img[o.off : o.off+o.region]
			for s := 0; s < o.region*8/o.t.bits(); s++ {
				val := randElem(rnd, o.t, e)
				if o.t == mtS32 && v.sat && s%3 == 0 {
					val = uint64(0x7fffff00 + uint64(rnd.Intn(256)))
				}
				memPut(part, o.t, s, val)
			}
		}
		in = append(in, img...)
	}
	return &recForm{Name: name, Grid: 4, Block: 32, OutSize: dop.region, In: in, ptx: b.String(), minVer: "8.5"}
}

// ldmatrixRecForms: ldmatrix and stmatrix in every count, with and without
// .trans, in .shared and generic addressing, with rows at random 16-byte
// slots of a 1 KiB shared image; and movmatrix.
func ldmatrixRecForms() []*recForm {
	var out []*recForm
	const img = 1024
	for _, st := range []bool{false, true} {
		for _, num := range []int{1, 2, 4} {
			for _, trans := range []bool{false, true} {
				for _, sp := range []string{".shared", ""} {
					op := "ldmatrix"
					if st {
						op = "stmatrix"
					}
					instr := fmt.Sprintf("%s.sync.aligned.m8n8.x%d", op, num)
					if trans {
						instr += ".trans"
					}
					instr += sp + ".b16"
					rnd := formRand(instr)
					var b strings.Builder
					b.WriteString(recHeader("8.5"))
					fmt.Fprintf(&b, "\t.shared .align 16 .b8 sm[%d];\n\t.reg .b32 %%r<%d>;\n", img, num)
					b.WriteString(recInit)
					perCase := img + 128
					if st {
						perCase = 128 + 32*num*4
					}
					advance(&b, "%in", perCase, 0)
					if !st {
						for o := 0; o < img; o += 128 {
							fmt.Fprintf(&b, "\tmul.wide.u32 %%t, %%lane, 4;\n\tadd.u64 %%t, %%t, %d;\n\tadd.u64 %%g, %%in, %%t;\n\tld.global.b32 %%w, [%%g];\n\tmov.u64 %%s, sm;\n\tadd.u64 %%s, %%s, %%t;\n\tst.shared.b32 [%%s], %%w;\n", o)
						}
					} else {
						for o := 0; o < img; o += 128 {
							fmt.Fprintf(&b, "\tmul.wide.u32 %%t, %%lane, 4;\n\tadd.u64 %%t, %%t, %d;\n\tmov.u64 %%s, sm;\n\tadd.u64 %%s, %%s, %%t;\n\tmov.u32 %%w, 0xa5a5a5a5;\n\tst.shared.b32 [%%s], %%w;\n", o)
						}
					}
					b.WriteString("\tbar.sync 0;\n")
					offAt := img
					if st {
						offAt = 0
					}
					fmt.Fprintf(&b, "\tmul.wide.u32 %%t, %%lane, 4;\n\tadd.u64 %%g, %%in, %%t;\n\tld.global.b32 %%off, [%%g+%d];\n\tcvt.u64.u32 %%t, %%off;\n\tmov.u64 %%s, sm;\n\tadd.u64 %%s, %%s, %%t;\n", offAt)
					if sp == "" {
						b.WriteString("\tcvta.shared.u64 %s, %s;\n")
					}
					if !st {
						fmt.Fprintf(&b, "\t%s %s, [%%s];\n", instr, regList("%r", 0, num))
						advance(&b, "%out", 32*num*4, num*4)
						for i := 0; i < num; i++ {
							fmt.Fprintf(&b, "\tst.global.b32 [%%out+%d], %%r%d;\n", i*4, i)
						}
					} else {
						fmt.Fprintf(&b, "\tmul.wide.u32 %%t, %%lane, %d;\n\tadd.u64 %%g, %%in, %%t;\n", num*4)
						for i := 0; i < num; i++ {
							fmt.Fprintf(&b, "\tld.global.b32 %%r%d, [%%g+%d];\n", i, 128+i*4)
						}
						fmt.Fprintf(&b, "\t%s [%%s], %s;\n\tbar.sync 0;\n", instr, regList("%r", 0, num))
						advance(&b, "%out", img, 0)
						for o := 0; o < img; o += 128 {
							fmt.Fprintf(&b, "\tmul.wide.u32 %%t, %%lane, 4;\n\tadd.u64 %%t, %%t, %d;\n\tmov.u64 %%s, sm;\n\tadd.u64 %%s, %%s, %%t;\n\tld.shared.b32 %%w, [%%s];\n\tadd.u64 %%g, %%out, %%t;\n\tst.global.b32 [%%g], %%w;\n", o)
						}
					}
					b.WriteString("\tret;\n}\n")
					var in []byte
					for cs := 0; cs < 4; cs++ {
						slots := rnd.Perm(img / 16)
						offs := make([]byte, 128)
						for l := 0; l < 32; l++ {
							binary.LittleEndian.PutUint32(offs[4*l:], uint32(16*slots[l]))
						}
						if st {
							in = append(in, offs...)
							r := make([]byte, 32*num*4)
							rnd.Read(r)
							in = append(in, r...)
						} else {
							im := make([]byte, img)
							rnd.Read(im)
							in = append(in, im...)
							if cs == 3 {
								// Rows may repeat in a load.
								for l := range 32 {
									binary.LittleEndian.PutUint32(offs[4*l:], uint32(16*slots[l%5]))
								}
							}
							in = append(in, offs...)
						}
					}
					outSize := 32 * num * 4
					if st {
						outSize = img
					}
					out = append(out, &recForm{Name: instr, Grid: 4, Block: 32, OutSize: outSize, In: in, ptx: b.String(), minVer: "8.5"})
				}
			}
		}
	}
	out = append(out, cvtTF32Forms()...)
	mv := regForm{instr: "movmatrix.sync.aligned.m8n8.trans.b16", win: 4, wout: 4, nd: 1, na: 1}
	rnd := formRand(mv.instr)
	var cases [][]byte
	for i := 0; i < 4; i++ {
		c := make([]byte, 128)
		rnd.Read(c)
		cases = append(cases, c)
	}
	out = append(out, newRegForm(mv.instr, mv, "8.5", cases))
	return out
}

// cvtTF32Forms: the conversions that feed tf32 operands, on f32 bit
// patterns around every rounding boundary and the special values.
func cvtTF32Forms() []*recForm {
	var out []*recForm
	// (.satfinite with .rn or .rz needs sm_100: ptxas refuses it for sm_90.)
	for _, mod := range []string{"rna", "rna.satfinite", "rn", "rz", "rn.relu"} {
		instr := "cvt." + mod + ".tf32.f32"
		ver := "8.5"
		if mod != "rna" && mod != "rna.satfinite" {
			ver = "8.6"
		}
		rf := regForm{instr: instr, win: 4, wout: 4, nd: 1, na: 1}
		rnd := formRand(instr)
		var cases [][]byte
		for c := 0; c < 4; c++ {
			buf := make([]byte, 128)
			for l := 0; l < 32; l++ {
				var x uint32
				switch r := rnd.Intn(8); {
				case c == 0:
					x = []uint32{0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc01234, 0x7f7fffff, 0xff7fffff, 0x7f7ff000,
						0x7f7fefff, 0, 0x80000000, 1, 0x80001000, 0x00001000, 0x00000fff, 0x00001fff, 0x007fffff, 0x3f800fff,
						0x3f801000, 0x3f801001, 0x3f803000, 0x3f802fff, 0xbf801000, 0xbf803000, 0x3fffffff, 0x7f7fe000,
						0x7f7ff001, 0xff7ff000, 0x00802000, 0x3f800000, 0x4b7fffff, 0xcb7ff000}[l]
				case r < 3:
					x = rnd.Uint32()&^0x1fff | []uint32{0xfff, 0x1000, 0x1001}[r]
				default:
					x = rnd.Uint32()
				}
				binary.LittleEndian.PutUint32(buf[4*l:], x)
			}
			cases = append(cases, buf)
		}
		out = append(out, newRegForm(instr, rf, ver, cases))
	}
	return out
}
