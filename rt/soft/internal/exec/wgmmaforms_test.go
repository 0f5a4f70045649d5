package exec

// The wgmma recordings: each form is a PTX kernel run by one warpgroup per
// CTA; a CTA's input holds the descriptors, scale-d, the shared-memory
// image and every thread's A and accumulator registers, and its output
// every thread's D registers. The inputs are random matrices, ones that
// cancel, the designed dot products of mmaexp_test.go, and layout probes
// (every shared-memory element distinct, A the identity) whose outputs show
// which element the GPU read where.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strings"
)

// wgForm is one wgmma.mma_async variant and how its kernel runs it.
type wgForm struct {
	n              int
	a, b, d        mmaType
	aDesc          bool
	transA, transB bool
	negA, negB     bool
	sat            bool
	chain          bool // two wgmmas in two groups (descriptors 2 and 3)
	smem           int  // bytes of shared memory
	tag            string
	sp             bool // wgmma.mma_async.sp: A compressed (64×k/2), a metadata register, selector sel
	sel            int
}

// k is the form's K; kc the columns of A as stored (k/2 when sparse).
// ptxVersion is the PTX ISA version the form's kernel declares: dense
// wgmma came with PTX 8.0, its mixed s8/u8 multiplicands (.s8.u8, .u8.s8)
// with 8.4; the sparse kernels declare 8.5 (as recorded).
func (f wgForm) ptxVersion() string {
	switch {
	case f.sp:
		return "8.5"
	case f.a != f.b && !f.a.isFloat():
		return "8.4"
	}
	return "8.0"
}

func (f wgForm) k() int {
	if f.sp {
		return 2 * wgmmaK(f.a)
	}
	return wgmmaK(f.a)
}

func (f wgForm) kc() int { return wgmmaK(f.a) }

// nmeta is the metadata registers per thread (1 when sparse).
func (f wgForm) nmeta() int { return b2i(f.sp) }

func (f wgForm) nd() int { return f.n / 2 / f.d.perReg() }

func (f wgForm) na() int {
	if f.aDesc {
		return 0
	}
	return 4
}

func (f wgForm) instr() string {
	sp := ""
	if f.sp {
		sp = ".sp"
	}
	s := fmt.Sprintf("wgmma.mma_async%s.sync.aligned.m64n%dk%d", sp, f.n, f.k())
	if f.sat {
		s += ".satfinite"
	}
	s += "." + f.d.String() + "." + f.a.String() + "." + f.b.String()
	if f.a == mtB1 {
		s += ".and.popc"
	}
	return s
}

func (f wgForm) name() string {
	s := f.instr()
	if f.aDesc {
		s += ".sA"
	} else {
		s += ".rA"
	}
	if f.a.isFloat() {
		s += fmt.Sprintf(".%d%d%d%d", b2i(f.negA), b2i(f.negB), b2i(f.transA), b2i(f.transB))
	}
	if f.chain {
		s += ".chain"
	}
	if f.sp {
		s += fmt.Sprintf(".sel%d", f.sel)
	}
	if f.tag != "" {
		s += "." + f.tag
	}
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

const wgHdr = 64 // descriptors (4×8 bytes) and scale-d flags (2×4 bytes)

// perCTA is the input size of one case.
func (f wgForm) perCTA() int { return wgHdr + f.smem + 128*(f.na()+f.nd()+f.nmeta())*4 }

func (f wgForm) ptx() string {
	var b strings.Builder
	nd, na := f.nd(), f.na()
	dt := ".b32"
	if f.d == mtF32 {
		dt = ".f32"
	}
	fmt.Fprintf(&b, ".version %s\n.target sm_90a\n.address_size 64\n\n.visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n", f.ptxVersion())
	fmt.Fprintf(&b, "\t.reg .b32 %%utid, %%ucta, %%i, %%v, %%sb;\n\t.reg .b64 %%in, %%out, %%t, %%g, %%sh, %%ds0, %%ds1, %%ds2, %%ds3;\n\t.reg .pred %%p, %%p1, %%lp;\n")
	fmt.Fprintf(&b, "\t.reg .b32 %%a<4>;\n\t.reg %s %%d<%d>;\n", dt, nd)
	if f.sp {
		b.WriteString("\t.reg .b32 %e;\n")
	}
	fmt.Fprintf(&b, "\t.shared .align 1024 .b8 sm[%d];\n", f.smem)
	b.WriteString("\tld.param.u64 %in, [k_in];\n\tld.param.u64 %out, [k_out];\n\tcvta.to.global.u64 %in, %in;\n\tcvta.to.global.u64 %out, %out;\n")
	b.WriteString("\tmov.u32 %utid, %tid.x;\n\tmov.u32 %ucta, %ctaid.x;\n")
	fmt.Fprintf(&b, "\tmul.wide.u32 %%t, %%ucta, %d;\n\tadd.u64 %%in, %%in, %%t;\n", f.perCTA())
	fmt.Fprintf(&b, "\tmul.wide.u32 %%t, %%ucta, %d;\n\tadd.u64 %%out, %%out, %%t;\n", 128*nd*4)
	// Copy the shared-memory image, 4 bytes per thread per step.
	b.WriteString("\tmov.u32 %sb, sm;\n\tshl.b32 %i, %utid, 2;\n$copy:\n")
	fmt.Fprintf(&b, "\tsetp.ge.u32 %%lp, %%i, %d;\n\t@%%lp bra $copied;\n", f.smem)
	fmt.Fprintf(&b, "\tcvt.u64.u32 %%t, %%i;\n\tadd.u64 %%g, %%in, %%t;\n\tld.global.b32 %%v, [%%g+%d];\n", wgHdr)
	b.WriteString("\tadd.u32 %sb, %sb, %i;\n\tst.shared.b32 [%sb], %v;\n\tmov.u32 %sb, sm;\n\tadd.u32 %i, %i, 512;\n\tbra $copy;\n$copied:\n")
	b.WriteString("\tfence.proxy.async.shared::cta;\n\tbar.sync 0;\n")
	// Descriptors: the case's, with the start address moved by sm's.
	b.WriteString("\tcvt.u64.u32 %sh, %sb;\n\tshr.u64 %sh, %sh, 4;\n")
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&b, "\tld.global.b64 %%ds%d, [%%in+%d];\n\tadd.u64 %%ds%d, %%ds%d, %%sh;\n", i, 8*i, i, i)
	}
	b.WriteString("\tld.global.b32 %v, [%in+32];\n\tsetp.ne.b32 %p, %v, 0;\n\tld.global.b32 %v, [%in+36];\n\tsetp.ne.b32 %p1, %v, 0;\n")
	fmt.Fprintf(&b, "\tmul.wide.u32 %%t, %%utid, %d;\n\tadd.u64 %%g, %%in, %%t;\n", (na+nd+f.nmeta())*4)
	for i := 0; i < na; i++ {
		fmt.Fprintf(&b, "\tld.global.b32 %%a%d, [%%g+%d];\n", i, wgHdr+f.smem+4*i)
	}
	for i := 0; i < nd; i++ {
		fmt.Fprintf(&b, "\tld.global%s %%d%d, [%%g+%d];\n", dt, i, wgHdr+f.smem+4*(na+i))
	}
	if f.sp {
		fmt.Fprintf(&b, "\tld.global.b32 %%e, [%%g+%d];\n", wgHdr+f.smem+4*(na+nd))
	}
	b.WriteString("\twgmma.fence.sync.aligned;\n")
	mma := func(da, db, p string) {
		ops := []string{regList("%d", 0, nd)}
		if f.aDesc {
			ops = append(ops, da)
		} else {
			ops = append(ops, regList("%a", 0, 4))
		}
		ops = append(ops, db)
		if f.sp {
			ops = append(ops, "%e", fmt.Sprint(f.sel))
		}
		ops = append(ops, p)
		if f.a.isFloat() {
			sc := func(neg bool) string {
				if neg {
					return "-1"
				}
				return "1"
			}
			ops = append(ops, sc(f.negA), sc(f.negB))
			if f.a == mtF16 || f.a == mtBF16 {
				if f.aDesc {
					ops = append(ops, fmt.Sprint(b2i(f.transA)))
				}
				ops = append(ops, fmt.Sprint(b2i(f.transB)))
			}
		}
		fmt.Fprintf(&b, "\t%s %s;\n\twgmma.commit_group.sync.aligned;\n", f.instr(), strings.Join(ops, ", "))
	}
	mma("%ds0", "%ds1", "%p")
	if f.chain {
		mma("%ds2", "%ds3", "%p1")
		b.WriteString("\twgmma.wait_group.sync.aligned 1;\n")
	}
	b.WriteString("\twgmma.wait_group.sync.aligned 0;\n")
	fmt.Fprintf(&b, "\tmul.wide.u32 %%t, %%utid, %d;\n\tadd.u64 %%out, %%out, %%t;\n", nd*4)
	for i := 0; i < nd; i++ {
		fmt.Fprintf(&b, "\tst.global%s [%%out+%d], %%d%d;\n", dt, 4*i, i)
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// wgLayout places an operand in shared memory: its descriptor fields
// (start relative to sm).
type wgLayout struct {
	start, lbo, sbo, base uint64
	swz                   int
}

func (l wgLayout) desc() uint64 {
	return l.start>>4&0x3fff | (l.lbo>>4&0x3fff)<<16 | (l.sbo>>4&0x3fff)<<32 | (l.base&7)<<49 | uint64(l.swz)<<62
}

// wgCase is one CTA's matrices and layouts.
type wgCase struct {
	A, B, C        []uint64 // 64×K, K×N, 64×N element bits (A, B of the first wgmma)
	A2, B2         []uint64 // the chained wgmma's
	la, lb         wgLayout
	la2, lb2       wgLayout
	scaleD, scale2 bool
	raw            []byte   // a shared-memory image given as is (layout probes)
	meta           []uint32 // sparse: each thread's metadata register
}

// canonLayouts lists valid layouts for an operand of rows×k elements at
// start, by swizzle, with their byte size.
func canonLayouts(rows, elemBits int, mnMajor bool, start uint64) []wgLayout {
	rb := uint64(32) // bytes of k per row (K-major)
	var out []wgLayout
	if !mnMajor {
		g := uint64(rows / 8)
		out = append(out,
			wgLayout{start: start, lbo: 128, sbo: 256, swz: swzNone},
			wgLayout{start: start, lbo: 128 * g, sbo: 128, swz: swzNone},
			wgLayout{start: start, lbo: 128, sbo: 512, swz: swzNone})
		for _, s := range []int{swz32, swz64, swz128} {
			W := wgDesc{swz: s}.width()
			out = append(out, wgLayout{start: start, lbo: 16, sbo: 8 * W, swz: s})
		}
		_ = rb
		return out
	}
	// MN-major (16-bit elements): 2 groups of 8 k.
	mb := uint64(rows * elemBits / 8)
	out = append(out,
		wgLayout{start: start, lbo: 128, sbo: 256, swz: swzNone},
		wgLayout{start: start, lbo: 128 * mb / 16, sbo: 128, swz: swzNone})
	for _, s := range []int{swz32, swz64, swz128} {
		W := wgDesc{swz: s}.width()
		atoms := max(mb/W, 1)
		out = append(out,
			wgLayout{start: start, lbo: 2 * 8 * W, sbo: 8 * W, swz: s},
			wgLayout{start: start, lbo: 8 * W, sbo: atoms * 8 * W, swz: s})
	}
	return out
}

// extent is the bytes a layout's operand spans from its start (no swizzle
// moves an element out of its 128-byte-aligned... row group).
func (l wgLayout) extent(rows, k, elemBits int, mnMajor bool) uint64 {
	d := decodeWGDesc(l.desc())
	d.start = 0
	var hi uint64
	for mn := 0; mn < rows; mn++ {
		for kk := 0; kk < k; kk++ {
			a, _ := d.addr(mn, kk, elemBits, mnMajor)
			hi = max(hi, a|15)
		}
	}
	return hi + 1
}

// put writes an operand's elements (mn-index of row r, k) into img.
func putOperand(img []byte, l wgLayout, rows, k int, t mmaType, mnMajor bool, elem func(mn, k int) uint64) {
	d := decodeWGDesc(l.desc())
	for mn := 0; mn < rows; mn++ {
		for kk := 0; kk < k; kk++ {
			a, bit := d.addr(mn, kk, t.bits(), mnMajor)
			v := elem(mn, kk)
			switch t.bits() {
			case 32:
				binary.LittleEndian.PutUint32(img[a:], uint32(v))
			case 16:
				binary.LittleEndian.PutUint16(img[a:], uint16(v))
			case 8:
				img[a] = byte(v)
			default:
				img[a] |= byte(v&1) << bit
			}
		}
	}
}

// pack builds a case's input.
func (f wgForm) pack(c *wgCase) []byte {
	K, N, Kc := f.k(), f.n, f.kc()
	out := make([]byte, f.perCTA())
	img := out[wgHdr : wgHdr+f.smem]
	if c.raw != nil {
		copy(img, c.raw)
	}
	place := func(la, lb wgLayout, A, B []uint64) {
		if A != nil && f.aDesc {
			putOperand(img, la, 64, Kc, f.a, f.transA, func(mn, k int) uint64 { return A[mn*Kc+k] })
		}
		if B != nil {
			putOperand(img, lb, N, K, f.b, f.transB, func(mn, k int) uint64 { return B[k*N+mn] })
		}
	}
	place(c.la, c.lb, c.A, c.B)
	if f.chain {
		place(c.la2, c.lb2, c.A2, c.B2)
	}
	for i, l := range []wgLayout{c.la, c.lb, c.la2, c.lb2} {
		binary.LittleEndian.PutUint64(out[8*i:], l.desc())
	}
	if c.scaleD {
		out[32] = 1
	}
	if c.scale2 {
		out[36] = 1
	}
	regs := out[wgHdr+f.smem:]
	nr := f.na() + f.nd() + f.nmeta()
	s := newWGSpec(N, Kc, f.a, f.b, f.d, f.d)
	for t := 0; t < 128; t++ {
		w, lane := t/32, t%32
		put := func(reg int, v uint64, sh int) {
			o := (t*nr + reg) * 4
			binary.LittleEndian.PutUint32(regs[o:], binary.LittleEndian.Uint32(regs[o:])|uint32(v<<uint(sh)))
		}
		if !f.aDesc && c.A != nil {
			ne := 4 * f.a.perReg()
			for e := 0; e < ne; e++ {
				p := int(s.mma.maps[0][lane*ne+e])
				put(e/f.a.perReg(), c.A[(16*w+p/Kc)*Kc+p%Kc], e%f.a.perReg()*f.a.bits())
			}
		}
		if c.C != nil {
			ne := N / 2
			for e := 0; e < ne; e++ {
				p := int(s.mma.maps[2][lane*ne+e])
				put(f.na()+e/f.d.perReg(), c.C[(16*w+p/N)*N+p%N], e%f.d.perReg()*f.d.bits())
			}
		}
		if f.sp {
			put(f.na()+f.nd(), uint64(c.meta[t]), 0)
		}
	}
	return out
}

// randMat is a random rows×cols matrix of t (floats with exponents in
// [-e, e]).
func randMat(rnd *rand.Rand, t mmaType, n, e int) []uint64 {
	m := make([]uint64, n)
	for i := range m {
		m[i] = randElem(rnd, t, e)
	}
	return m
}

// smemFor sizes a form's shared memory: A's and B's largest layouts.
func (f wgForm) layoutsFor(rnd *rand.Rand) (la, lb wgLayout, end uint64) {
	K := f.k()
	ls := canonLayouts(64, f.a.bits(), f.transA, 0)
	la = ls[rnd.Intn(len(ls))]
	end = 0
	if f.aDesc {
		end = la.extent(64, f.kc(), f.a.bits(), f.transA)
	}
	end = (end + 1023) &^ 1023
	ls = f.bLayouts(end)
	lb = ls[rnd.Intn(len(ls))]
	end = (end + lb.extent(f.n, K, f.b.bits(), f.transB) + 1023) &^ 1023
	return la, lb, end
}

// smemNeed is the largest image any layout of the form needs.
func (f wgForm) smemNeed() int {
	K := f.k()
	var a, b uint64
	if f.aDesc {
		for _, l := range canonLayouts(64, f.a.bits(), f.transA, 0) {
			a = max(a, l.extent(64, f.kc(), f.a.bits(), f.transA))
		}
	}
	for _, l := range f.bLayouts(0) {
		b = max(b, l.extent(f.n, K, f.b.bits(), f.transB))
	}
	a = (a + 1023) &^ 1023
	b = (b + 1023) &^ 1023
	if f.chain {
		return int(2 * (a + b))
	}
	return int(a + b)
}

// randomWGCase: random A, B, C (exponents within e), random layouts.
func (f wgForm) randomCase(rnd *rand.Rand, e, ec int) *wgCase {
	K, N := f.k(), f.n
	c := &wgCase{scaleD: rnd.Intn(8) != 0, scale2: rnd.Intn(8) != 0}
	c.A, c.B, c.C = randMat(rnd, f.a, 64*f.kc(), e), randMat(rnd, f.b, K*N, e), randMat(rnd, f.d, 64*N, ec)
	if f.sp {
		c.meta = randMeta(rnd, f.a, 128, false)
	}
	var end uint64
	c.la, c.lb, end = f.layoutsFor(rnd)
	if f.chain {
		c.A2, c.B2 = randMat(rnd, f.a, 64*K, e), randMat(rnd, f.b, K*N, e)
		la, lb, _ := f.layoutsFor(rnd)
		la.start += end
		lb.start += end
		c.la2, c.lb2 = la, lb
	}
	return c
}

// cancelCase sets C to about minus A·B.
func (f wgForm) cancelCase(rnd *rand.Rand) *wgCase {
	c := f.randomCase(rnd, 8, 8)
	c.scaleD = true
	K, N := f.k(), f.n
	A := f.denseA(c)
	for i := 0; i < 64; i++ {
		for j := 0; j < N; j++ {
			dot := 0.0
			for k := 0; k < K; k++ {
				dot += f.a.toFloat(A[i*K+k]) * f.b.toFloat(c.B[k*N+j])
			}
			if f.negA != f.negB {
				dot = -dot
			}
			v := -dot * (1 + (rnd.Float64()-0.5)*math.Ldexp(1, -rnd.Intn(20)))
			if b, ok := encodeNearest(f.d, v); ok {
				c.C[i*N+j] = b
			}
		}
	}
	return c
}

// designedWGCases packs the designed dot products (of the mma.sync
// experiments, for this k) on D's diagonal, 64 per case.
func (f wgForm) designedCases(rnd *rand.Rand) []*wgCase {
	mf := mmaForm{shape: mmaShape{16, 8, f.k()}, shapeName: fmt.Sprintf("wg%dk%d", f.n, f.k()), a: f.a, b: f.b, c: f.d, d: f.d}
	var exps []dexp
	if f.a.isFloat() {
		exps = floatExps(mf)
	} else {
		exps = intExps(mf)
	}
	K, N := f.k(), f.n
	var out []*wgCase
	for i := 0; i < len(exps); i += 64 {
		c := f.randomCase(rnd, 0, 0)
		c.scaleD = true
		for j := range c.A {
			c.A[j] = 0
		}
		for j := range c.B {
			c.B[j] = 0
		}
		for j := range c.C {
			c.C[j] = 0
		}
		for j := 0; j < 64 && i+j < len(exps); j++ {
			e := exps[i+j]
			col := j % N
			for k := 0; k < K; k++ {
				c.A[j*K+k] = e.a[k]
				c.B[k*N+col] = e.b[k]
			}
			c.C[j*N+col] = e.c
		}
		out = append(out, c)
	}
	return out
}
