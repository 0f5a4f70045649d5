package exec

// The mma.sync forms of PTX ISA 8.x on sm_80/sm_90 and their inputs.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// mmaForm is one mma.sync (or wmma.mma) variant.
type mmaForm struct {
	shape      mmaShape
	shapeName  string
	a, b, c, d mmaType
	arow, brow bool
	sat        bool
	bop        string // b1: "xor" or "and"
	rnd        string // f64 wmma: rounding modifier
	ver        string
}

func (f mmaForm) batch() int {
	if quadPair(f.shape, f.a) {
		return 4
	}
	return 1
}

func layoutName(row bool) string {
	if row {
		return "row"
	}
	return "col"
}

// instr spells the mma.sync instruction.
func (f mmaForm) instr() string {
	s := "mma.sync.aligned." + f.shapeName + "." + layoutName(f.arow) + "." + layoutName(f.brow)
	if f.sat {
		s += ".satfinite"
	}
	if f.a == mtF16 {
		s += "." + f.d.String() + ".f16.f16." + f.c.String()
	} else {
		s += "." + f.d.String() + "." + f.a.String() + "." + f.b.String() + "." + f.c.String()
	}
	if f.bop != "" {
		s += "." + f.bop + ".popc"
	}
	return s
}

// mmaElems is the number of elements of an operand each lane holds.
func mmaElems(f mmaForm, op int) int {
	r, c := f.shape.dims(op)
	return f.batch() * r * c / 32
}

func (f mmaForm) regs(op int, t mmaType) int { return mmaElems(f, op) / t.perReg() }

func (f mmaForm) regForm() regForm {
	w := 4
	if f.a == mtF64 {
		w = 8
	}
	return regForm{instr: f.instr(), win: w, wout: w, nd: f.regs(opC, f.d), na: f.regs(opA, f.a),
		nb: f.regs(opB, f.b), nc: f.regs(opC, f.c), dtype: f.d, ctype: f.c}
}

// allMMAForms lists mma.sync's shapes and types for sm_90.
func allMMAForms() []mmaForm {
	var fs []mmaForm
	add := func(f mmaForm) {
		if f.ver == "" {
			f.ver = "8.5"
		}
		f.shape = mmaShapes[f.shapeName]
		fs = append(fs, f)
	}
	for _, lay := range [][2]bool{{true, true}, {true, false}, {false, true}, {false, false}} {
		for _, dc := range [][2]mmaType{{mtF16, mtF16}, {mtF32, mtF16}, {mtF32, mtF32}} {
			add(mmaForm{shapeName: "m8n8k4", a: mtF16, b: mtF16, d: dc[0], c: dc[1], arow: lay[0], brow: lay[1]})
		}
	}
	for _, sh := range []string{"m16n8k8", "m16n8k16"} {
		for _, t := range []mmaType{mtF16, mtF32} {
			add(mmaForm{shapeName: sh, a: mtF16, b: mtF16, d: t, c: t, arow: true})
		}
		add(mmaForm{shapeName: sh, a: mtBF16, b: mtBF16, d: mtF32, c: mtF32, arow: true})
	}
	for _, sh := range []string{"m16n8k4", "m16n8k8"} {
		add(mmaForm{shapeName: sh, a: mtTF32, b: mtTF32, d: mtF32, c: mtF32, arow: true})
	}
	for _, a := range []mmaType{mtE4M3, mtE5M2} {
		for _, b := range []mmaType{mtE4M3, mtE5M2} {
			add(mmaForm{shapeName: "m16n8k32", a: a, b: b, d: mtF32, c: mtF32, arow: true})
			// PTX ISA 8.7 adds f16 accumulators and the k16 shape.
			add(mmaForm{shapeName: "m16n8k32", a: a, b: b, d: mtF16, c: mtF16, arow: true, ver: "8.7"})
			add(mmaForm{shapeName: "m16n8k16", a: a, b: b, d: mtF32, c: mtF32, arow: true, ver: "8.7"})
		}
	}
	for _, sh := range []string{"m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"} {
		add(mmaForm{shapeName: sh, a: mtF64, b: mtF64, d: mtF64, c: mtF64, arow: true})
	}
	for _, g := range []struct {
		shapes []string
		ts     []mmaType
	}{{[]string{"m8n8k16", "m16n8k16", "m16n8k32"}, []mmaType{mtS8, mtU8}},
		{[]string{"m8n8k32", "m16n8k32", "m16n8k64"}, []mmaType{mtS4, mtU4}}} {
		for _, sh := range g.shapes {
			for _, a := range g.ts {
				for _, b := range g.ts {
					for _, sat := range []bool{false, true} {
						add(mmaForm{shapeName: sh, a: a, b: b, d: mtS32, c: mtS32, arow: true, sat: sat})
					}
				}
			}
		}
	}
	for _, sh := range []string{"m8n8k128", "m16n8k128", "m16n8k256"} {
		for _, op := range []string{"xor", "and"} {
			add(mmaForm{shapeName: sh, a: mtB1, b: mtB1, d: mtS32, c: mtS32, arow: true, bop: op})
		}
	}
	return fs
}

func (f mmaForm) name() string { return f.instr() }

// mmaRecForms builds the register-level recordings of every mma.sync form.
func mmaRecForms() []*recForm {
	var out []*recForm
	for _, f := range allMMAForms() {
		rnd := formRand(f.name())
		var cases [][]byte
		for _, e := range designedCases(f) {
			cases = append(cases, e)
		}
		for i := 0; i < 6; i++ {
			cases = append(cases, randomMMACase(f, rnd, i >= 4))
		}
		out = append(out, newRegForm(f.name(), f.regForm(), f.ver, cases))
		if f.a.isFloat() {
			// A hold-out set, recorded after the model was fitted: the
			// accumulator nearly cancels the products, so that the
			// result's low bits are the ones the truncation decides.
			rnd := formRand(f.name() + ".cancel")
			var cases [][]byte
			for i := 0; i < 4; i++ {
				cases = append(cases, cancelMMACase(f, rnd))
			}
			out = append(out, newRegForm(f.name()+".cancel", f.regForm(), f.ver, cases))
		}
	}
	return out
}

// cancelMMACase draws A and B at random and sets each element of C to
// about minus its row-column dot product.
func cancelMMACase(f mmaForm, rnd *rand.Rand) []byte {
	m := newMats(f)
	e := 8
	if f.a == mtE4M3 || f.a == mtE5M2 {
		e = 5
	}
	M, N, K := f.shape.m, f.shape.n, f.shape.k
	for q := range m.a {
		for i := range m.a[q] {
			m.a[q][i] = randElem(rnd, f.a, e)
		}
		for i := range m.b[q] {
			m.b[q][i] = randElem(rnd, f.b, e)
		}
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				dot := 0.0
				for k := 0; k < K; k++ {
					dot += f.a.toFloat(m.a[q][i*K+k]) * f.b.toFloat(m.b[q][k*N+j])
				}
				c := -dot * (1 + (rnd.Float64()-0.5)*math.Ldexp(1, -rnd.Intn(20)))
				if b, ok := encodeNearest(f.c, c); ok {
					m.c[q][i*N+j] = b
				}
			}
		}
	}
	return m.pack(f)
}

// mmaMats holds an MMA's operand matrices as element bits, [batch][row*cols+col].
type mmaMats struct{ a, b, c [][]uint64 }

func newMats(f mmaForm) *mmaMats {
	m := &mmaMats{}
	for q := 0; q < f.batch(); q++ {
		m.a = append(m.a, make([]uint64, f.shape.m*f.shape.k))
		m.b = append(m.b, make([]uint64, f.shape.k*f.shape.n))
		m.c = append(m.c, make([]uint64, f.shape.m*f.shape.n))
	}
	return m
}

// pack lays the matrices out in the lanes' registers, per the PTX layout.
func (m *mmaMats) pack(f mmaForm) []byte {
	w := 4
	if f.a == mtF64 {
		w = 8
	}
	rf := f.regForm()
	nin := rf.na + rf.nb + rf.nc
	out := make([]byte, 32*nin*w)
	put := func(lane, reg int, v uint64) {
		o := (lane*nin + reg) * w
		if w == 8 {
			binary.LittleEndian.PutUint64(out[o:], binary.LittleEndian.Uint64(out[o:])|v)
		} else {
			binary.LittleEndian.PutUint32(out[o:], binary.LittleEndian.Uint32(out[o:])|uint32(v))
		}
	}
	ops := []struct {
		op   int
		t    mmaType
		row  bool
		mats [][]uint64
		base int
	}{{opA, f.a, f.arow, m.a, 0}, {opB, f.b, f.brow, m.b, rf.na}, {opC, f.c, true, m.c, rf.na + rf.nb}}
	for _, o := range ops {
		_, cols := f.shape.dims(o.op)
		epr := o.t.perReg()
		for lane := 0; lane < 32; lane++ {
			for i := 0; i < mmaElems(f, o.op); i++ {
				q, r, c := mmaFragPos(f.shape, o.op, o.t, o.row, lane, i)
				v := o.mats[q][r*cols+c]
				put(lane, o.base+i/epr, v<<(uint(i%epr)*uint(o.t.bits())))
			}
		}
	}
	return out
}

// randElem is a random element: floats with exponents in [-e, e] (and some
// zeros), integers and bits uniform.
func randElem(rnd *rand.Rand, t mmaType, e int) uint64 {
	if t.isFloat() {
		if rnd.Intn(16) == 0 {
			return 0
		}
		for {
			x := math.Ldexp(1+rnd.Float64(), rnd.Intn(2*e+1)-e)
			if rnd.Intn(2) == 0 {
				x = -x
			}
			if b, ok := encodeNearest(t, x); ok {
				return b
			}
		}
	}
	return rnd.Uint64() & (1<<uint(t.bits()) - 1)
}

func randomMMACase(f mmaForm, rnd *rand.Rand, wide bool) []byte {
	m := newMats(f)
	e, ec := 6, 4
	if wide {
		e, ec = 20, 20
		if f.a == mtE4M3 || f.a == mtE5M2 {
			e = 8
		}
	}
	for q := range m.a {
		for i := range m.a[q] {
			m.a[q][i] = randElem(rnd, f.a, e)
		}
		for i := range m.b[q] {
			m.b[q][i] = randElem(rnd, f.b, e)
		}
		for i := range m.c[q] {
			m.c[q][i] = randElem(rnd, f.c, ec)
		}
	}
	return m.pack(f)
}

// encodeNearest rounds x to the element type (to nearest; fp8 and tf32 by
// search), reporting whether the result is finite.
func encodeNearest(t mmaType, x float64) (uint64, bool) {
	var b uint64
	switch t {
	case mtF16:
		b = gpumath.F16.Round(x, gpumath.RN)
	case mtBF16:
		b = gpumath.BF16.Round(x, gpumath.RN)
	case mtTF32:
		b = uint64(math.Float32bits(float32(x))) &^ 0x1fff
	case mtF32:
		b = uint64(math.Float32bits(float32(x)))
	case mtF64:
		b = math.Float64bits(x)
	case mtE4M3, mtE5M2:
		best, bd := uint64(0), math.Inf(1)
		for c := uint64(0); c < 128; c++ {
			v := t.toFloat(c)
			if d := math.Abs(v - math.Abs(x)); d < bd && !math.IsInf(v, 0) {
				best, bd = c, d
			}
		}
		b = best
		if math.Signbit(x) {
			b |= 0x80
		}
	default:
		panic(fmt.Sprintf("encodeNearest %v", t))
	}
	v := t.toFloat(b)
	return b, !math.IsInf(v, 0) && v == v
}

// encodeExact encodes x when the type holds it exactly (signed zeros too).
func encodeExact(t mmaType, x float64) (uint64, bool) {
	b, ok := encodeNearest(t, x)
	v := t.toFloat(b)
	if !ok || v != x || math.Signbit(v) != math.Signbit(x) {
		return 0, false
	}
	return b, true
}
