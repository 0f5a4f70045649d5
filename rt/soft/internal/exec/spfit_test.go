package exec

// The sparse tensor-core recordings of the second round (spfit): every
// mma.sp form of PTX ISA 8.x on sm_90 with every sparsity selector, and
// sparse wgmma (wgmma.mma_async.sp) for each multiplicand type, A from
// registers and from a descriptor. `go test ./rt/soft -run TestSpfitBundle
// -spfit.bundle DIR` writes the kernels and inputs for record.py (a form
// ptxas refuses is logged and skipped there).

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

var spfitBundle = flag.String("spfit.bundle", "", "write the sparse tensor-core recording kernels and inputs to this directory (for record.py)")

// spfForm is one mma.sp form.
type spfForm struct {
	shape      string
	a, b, c, d mmaType
	sel        int
	ordered    bool
	sat        bool
}

func (f spfForm) sh() mmaShape { return mmaShapes[f.shape] }

// half is the dense shape whose A fragment holds the compressed A.
func (f spfForm) half() mmaShape { s := f.sh(); s.k /= 2; return s }

func (f spfForm) instr() string {
	sp := "mma.sp"
	if f.ordered {
		sp += "::ordered_metadata"
	}
	s := sp + ".sync.aligned." + f.shape + ".row.col"
	if f.sat {
		s += ".satfinite"
	}
	return s + "." + f.d.String() + "." + f.a.String() + "." + f.b.String() + "." + f.c.String()
}

func (f spfForm) name() string { return fmt.Sprintf("%s.sel%d", f.instr(), f.sel) }

// regs is the registers per lane of D, compressed A, B and C.
func (f spfForm) regs() (nd, na, nb, nc int) {
	s := f.sh()
	return 16 * 8 * f.d.bits() / 8 / 128, 16 * s.k / 2 * f.a.bits() / 8 / 128, s.k * 8 * f.b.bits() / 8 / 128, 16 * 8 * f.c.bits() / 8 / 128
}

func (f spfForm) regForm() regForm {
	nd, na, nb, nc := f.regs()
	return regForm{instr: f.instr(), win: 4, wout: 4, nd: nd, na: na, nb: nb, nc: nc, extra: fmt.Sprintf("$E, %d", f.sel), nextra: 1, dtype: f.d, ctype: f.c}
}

// spfCase is one warp's operands: A compressed (16 × k/2), B (k × 8),
// C (16 × 8), each lane's metadata.
type spfCase struct {
	A, B, C []uint64
	meta    [32]uint32
}

// pack lays a case out in the lanes' registers: A (the dense fragment of
// the half shape), B, C, then the metadata.
func (f spfForm) pack(c *spfCase) []byte {
	nd, na, nb, nc := f.regs()
	_ = nd
	nin := na + nb + nc + 1
	out := make([]byte, 32*nin*4)
	put := func(lane, reg int, v uint64) {
		o := (lane*nin + reg) * 4
		binary.LittleEndian.PutUint32(out[o:], binary.LittleEndian.Uint32(out[o:])|uint32(v))
	}
	sh, hf := f.sh(), f.half()
	for lane := 0; lane < 32; lane++ {
		epr := f.a.perReg()
		for e := 0; e < na*epr; e++ {
			_, r, col := mmaFragPos(hf, opA, f.a, true, lane, e)
			put(lane, e/epr, c.A[r*hf.k+col]<<uint(e%epr*f.a.bits()))
		}
		epr = f.b.perReg()
		for e := 0; e < nb*epr; e++ {
			_, r, col := mmaFragPos(sh, opB, f.b, false, lane, e)
			put(lane, na+e/epr, c.B[r*8+col]<<uint(e%epr*f.b.bits()))
		}
		epr = f.c.perReg()
		for e := 0; e < 4; e++ {
			_, r, col := mmaFragPos(sh, opC, f.c, true, lane, e)
			put(lane, na+nb+e/epr, c.C[r*8+col]<<uint(e%epr*f.c.bits()))
		}
		put(lane, na+nb+nc, uint64(c.meta[lane]))
	}
	return out
}

// spNibbles are the valid metadata nibbles: ordered pairs of distinct
// positions (with unordered ones too when asked), tf32's two.
func spNibbles(a mmaType, unordered bool) []uint32 {
	if a == mtTF32 {
		return []uint32{0x4, 0xe}
	}
	v := []uint32{0x4, 0x8, 0xc, 0x9, 0xd, 0xe}
	if unordered {
		v = append(v, 0x1, 0x2, 0x3, 0x6, 0x7, 0xb)
	}
	return v
}

// randMeta is n registers of random valid metadata nibbles.
func randMeta(rnd *rand.Rand, a mmaType, n int, unordered bool) []uint32 {
	nib := spNibbles(a, unordered)
	out := make([]uint32, n)
	for i := range out {
		for j := 0; j < 8; j++ {
			out[i] |= nib[rnd.Intn(len(nib))] << uint(4*j)
		}
	}
	return out
}

// spExpandModel expands a compressed A (rows × k/2) of a warp's 16 rows by the
// metadata of its lanes, as soft's model reads it (16 × k; used only to
// design cancelling inputs).
func spExpandModel(shape mmaShape, a mmaType, sel int, comp []uint64, meta []uint32) []uint64 {
	s := &spSpec{mma: &mmaSpec{shape: shape, a: a}, sel: sel}
	if sel*s.spThreads() >= 4 {
		s.sel = 0
	}
	var m [32]uint64
	for i := range m {
		m[i] = uint64(meta[i])
	}
	K := shape.k
	A := make([]uint64, 16*K)
	for r := 0; r < 16; r++ {
		for ch := 0; ch < s.spChunks(); ch++ {
			nib, _ := s.spMeta(&m, r, ch)
			i0, i1 := int(nib&3), int(nib>>2)
			if a == mtTF32 {
				A[r*K+ch*2+i0/2] = comp[r*K/2+ch]
				continue
			}
			A[r*K+ch*4+i0] = comp[r*K/2+2*ch]
			A[r*K+ch*4+i1] = comp[r*K/2+2*ch+1]
		}
	}
	return A
}

// spfCases: random operands (two narrow, one wide), cancelling ones for the
// float types, extremes for the integers (saturation), and unordered
// metadata for plain .sp.
func (f spfForm) cases() []*spfCase {
	rnd := formRand("spfit." + f.name())
	sh := f.sh()
	K := sh.k
	random := func(e, ec int, unordered bool) *spfCase {
		c := &spfCase{A: make([]uint64, 16*K/2), B: make([]uint64, K*8), C: make([]uint64, 16*8)}
		for i := range c.A {
			c.A[i] = randElem(rnd, f.a, e)
		}
		for i := range c.B {
			c.B[i] = randElem(rnd, f.b, e)
		}
		for i := range c.C {
			c.C[i] = randElem(rnd, f.c, ec)
		}
		copy(c.meta[:], randMeta(rnd, f.a, 32, unordered))
		return c
	}
	wide := 20
	if f.a == mtE4M3 || f.a == mtE5M2 {
		wide = 8
	}
	cs := []*spfCase{random(6, 4, false), random(6, 4, false), random(wide, 20, false)}
	if f.c == mtF16 {
		cs[2] = random(wide, 12, false)
	}
	if f.a.isFloat() {
		e := 8
		if f.a == mtE4M3 || f.a == mtE5M2 {
			e = 5
		}
		c := random(e, 4, false)
		A := spExpandModel(sh, f.a, f.sel, c.A, c.meta[:])
		for i := 0; i < 16; i++ {
			for j := 0; j < 8; j++ {
				dot := 0.0
				for k := 0; k < K; k++ {
					dot += f.a.toFloat(A[i*K+k]) * f.b.toFloat(c.B[k*8+j])
				}
				v := -dot * (1 + (rnd.Float64()-0.5)*math.Ldexp(1, -rnd.Intn(20)))
				if b, ok := encodeNearest(f.c, v); ok {
					c.C[i*8+j] = b
				}
			}
		}
		cs = append(cs, c)
	} else {
		// Extremes: the largest magnitudes, C near the s32 limits.
		c := random(0, 0, false)
		lo, hi := uint64(1)<<uint(f.a.bits()-1), uint64(1)<<uint(f.a.bits()-1)-1
		for i := range c.A {
			c.A[i] = []uint64{lo, hi, 1<<uint(f.a.bits()) - 1}[rnd.Intn(3)]
		}
		for i := range c.B {
			c.B[i] = []uint64{lo, hi, 1<<uint(f.b.bits()) - 1}[rnd.Intn(3)]
		}
		for i := range c.C {
			c.C[i] = uint64(uint32([]int32{math.MaxInt32 - int32(rnd.Intn(1<<16)), math.MinInt32 + int32(rnd.Intn(1<<16))}[rnd.Intn(2)]))
		}
		cs = append(cs, c)
	}
	if !f.ordered && f.a != mtTF32 {
		cs = append(cs, random(6, 4, true))
	}
	return cs
}

func (f spfForm) recForm() *recForm {
	var cases [][]byte
	for _, c := range f.cases() {
		cases = append(cases, f.pack(c))
	}
	return newRegForm(f.name(), f.regForm(), "8.7", cases)
}

// spfitMMAForms lists the mma.sp forms recorded: every shape and type of
// PTX ISA 8.x, both metadata variants, every selector 0..3 (the PTX ISA
// allows fewer for most: what ptxas refuses is logged), .satfinite with
// selector 0.
func spfitMMAForms() []spfForm {
	var out []spfForm
	each := func(f spfForm, sels int) {
		for _, ord := range []bool{false, true} {
			for sel := 0; sel < sels; sel++ {
				f.sel, f.ordered = sel, ord
				out = append(out, f)
			}
		}
	}
	for _, sh := range []string{"m16n8k16", "m16n8k32"} {
		for _, d := range []mmaType{mtF16, mtF32} {
			for _, c := range []mmaType{mtF16, mtF32} {
				each(spfForm{shape: sh, a: mtF16, b: mtF16, c: c, d: d}, 4)
			}
		}
		each(spfForm{shape: sh, a: mtBF16, b: mtBF16, c: mtF32, d: mtF32}, 4)
	}
	for _, sh := range []string{"m16n8k8", "m16n8k16"} {
		each(spfForm{shape: sh, a: mtTF32, b: mtTF32, c: mtF32, d: mtF32}, 4)
	}
	for _, a := range []mmaType{mtE4M3, mtE5M2} {
		for _, b := range []mmaType{mtE4M3, mtE5M2} {
			for _, c := range []mmaType{mtF32, mtF16} {
				each(spfForm{shape: "m16n8k64", a: a, b: b, c: c, d: c}, 4)
			}
		}
	}
	for _, ab := range [][2]mmaType{{mtS8, mtU8}, {mtS4, mtU4}} {
		shapes := []string{"m16n8k32", "m16n8k64"}
		if ab[0] == mtS4 {
			shapes = []string{"m16n8k64", "m16n8k128"}
		}
		for _, sh := range shapes {
			for _, a := range ab {
				for _, b := range ab {
					f := spfForm{shape: sh, a: a, b: b, c: mtS32, d: mtS32}
					each(f, 4)
					f.sat = true
					each(f, 1)
				}
			}
		}
	}
	return out
}

// Sparse wgmma.

// bLayouts lists B's layouts: canonLayouts for dense forms; for sparse
// ones (k of 64 bytes) layouts whose core matrices do not overlap.
func (f wgForm) bLayouts(start uint64) []wgLayout {
	if !f.sp {
		return canonLayouts(f.n, f.b.bits(), f.transB, start)
	}
	K, bits := f.k(), f.b.bits()
	if !f.transB {
		nkc := uint64(K * bits / 8 / 16)
		g := uint64(f.n / 8)
		return []wgLayout{{start: start, lbo: 128, sbo: 128 * nkc}, {start: start, lbo: 128 * g, sbo: 128},
			{start: start, lbo: 16, sbo: 512, swz: swz64}, {start: start, lbo: 16, sbo: 1024, swz: swz128}}
	}
	mb := uint64(f.n * bits / 8)
	ngk := uint64(K / 8)
	out := []wgLayout{{start: start, lbo: 128, sbo: 128 * ngk}, {start: start, lbo: 128 * max(mb/16, 1), sbo: 128}}
	for _, s := range []int{swz32, swz64, swz128} {
		W := wgDesc{swz: s}.width()
		atoms := max(mb/W, 1)
		out = append(out, wgLayout{start: start, lbo: 8 * W, sbo: atoms * 8 * W, swz: s}, wgLayout{start: start, lbo: ngk * 8 * W, sbo: 8 * W, swz: s})
	}
	return out
}

// denseA is a case's A as the 64 × k matrix multiplied (sparse: expanded by
// soft's reading of the metadata).
func (f wgForm) denseA(c *wgCase) []uint64 {
	if !f.sp {
		return c.A
	}
	K, Kc := f.k(), f.kc()
	A := make([]uint64, 64*K)
	for w := 0; w < 4; w++ {
		x := spExpandModel(mmaShape{16, f.n, K}, f.a, f.sel, c.A[16*w*Kc:16*(w+1)*Kc], c.meta[32*w:32*w+32])
		copy(A[16*w*K:], x)
	}
	return A
}

// spfitWGRecs lists the sparse wgmma forms recorded, with their cases:
// layout probes (f16, uniform metadata) and random and cancelling operands
// for each type.
func buildSpfitWGRecs() []*wgRec {
	var out []*wgRec
	const sm = 40 << 10
	raw := make([]byte, sm)
	for i := 0; i < sm/2; i++ {
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(i+1))
	}
	one := uint64(0x3c00)
	uniform := func(nib uint32) []uint32 {
		m := make([]uint32, 128)
		for i := range m {
			m[i] = nib * 0x11111111
		}
		return m
	}
	// B probes: A (registers) has one 1 per row, at compressed column
	// i%16, and every metadata nibble is 0x4 (positions 0, 1) or 0xe (2,
	// 3), so row i of D is row k of B, k = (i%16)/2*4 + i%2 (+2).
	for _, tr := range []bool{false, true} {
		f := wgForm{n: 64, a: mtF16, b: mtF16, d: mtF32, transB: tr, smem: sm, tag: "probe", sp: true}
		var ls []wgLayout
		if !tr {
			ls = []wgLayout{{lbo: 128, sbo: 512}, {lbo: 1024, sbo: 128}, {lbo: 256, sbo: 2048},
				{lbo: 16, sbo: 256, swz: swz32}, {lbo: 4096, sbo: 256, swz: swz32}, {lbo: 16, sbo: 512, swz: swz64},
				{lbo: 16, sbo: 1024, swz: swz128}, {start: 64, lbo: 16, sbo: 1024, swz: swz128}, {start: 384, lbo: 16, sbo: 1024, swz: swz128, base: 3}}
		} else {
			ls = []wgLayout{{lbo: 128, sbo: 512}, {lbo: 1024, sbo: 128}, {lbo: 256, sbo: 1024, swz: swz32},
				{lbo: 512, sbo: 1024, swz: swz64}, {lbo: 1024, sbo: 1024, swz: swz128}, {lbo: 4096, sbo: 1024, swz: swz128},
				{start: 128, lbo: 1024, sbo: 1024, swz: swz128, base: 1}}
		}
		r := &wgRec{f: f, probe: true}
		for _, l := range ls {
			for _, nib := range []uint32{0x4, 0xe} {
				c := &wgCase{lb: l, raw: raw, A: make([]uint64, 64*16), meta: uniform(nib)}
				for i := 0; i < 64; i++ {
					c.A[i*16+i%16] = one
				}
				r.cases = append(r.cases, c)
			}
		}
		out = append(out, r)
	}
	// A probes: B (K-major, no swizzle, at 20 KiB) has B[k][n] = 1 for k =
	// n/2*4 + n%2 (n < 16), metadata 0x4: D[i][n] is A's compressed (i, n).
	for _, tr := range []bool{false, true} {
		f := wgForm{n: 16, a: mtF16, b: mtF16, d: mtF32, aDesc: true, transA: tr, smem: sm, tag: "probe", sp: true}
		var ls []wgLayout
		if !tr {
			ls = []wgLayout{{lbo: 128, sbo: 256}, {lbo: 1024, sbo: 128}, {lbo: 16, sbo: 256, swz: swz32},
				{lbo: 16, sbo: 512, swz: swz64}, {lbo: 16, sbo: 1024, swz: swz128}, {start: 64, lbo: 16, sbo: 1024, swz: swz128}}
		} else {
			ls = []wgLayout{{lbo: 128, sbo: 256}, {lbo: 1024, sbo: 128}, {lbo: 1024, sbo: 256, swz: swz32},
				{lbo: 1024, sbo: 512, swz: swz64}, {lbo: 2048, sbo: 1024, swz: swz128}}
		}
		r := &wgRec{f: f, probe: true}
		for _, l := range ls {
			c := &wgCase{la: l, lb: wgLayout{start: 20 << 10, lbo: 128, sbo: 512}, raw: raw, B: make([]uint64, 32*16), meta: uniform(0x4)}
			for n := 0; n < 16; n++ {
				c.B[(n/2*4+n%2)*16+n] = one
			}
			r.cases = append(r.cases, c)
		}
		out = append(out, r)
	}
	add := func(f wgForm, nr, nw, nc int) {
		f.smem = f.smemNeed()
		r := &wgRec{f: f}
		rnd := formRand("spfit." + r.name())
		for i := 0; i < nr+nw+nc; i++ {
			var c *wgCase
			switch {
			case i < nr:
				c = f.randomCase(rnd, 6, 4)
			case i < nr+nw:
				c = f.randomCase(rnd, 20, 20)
				if f.a == mtE4M3 || f.a == mtE5M2 {
					c = f.randomCase(rnd, 8, 20)
				}
			default:
				c = f.cancelCase(rnd)
			}
			if i == 0 {
				c.scaleD = false
			}
			r.cases = append(r.cases, c)
		}
		out = append(out, r)
	}
	types := [][3]mmaType{
		{mtF16, mtF16, mtF32}, {mtF16, mtF16, mtF16}, {mtBF16, mtBF16, mtF32}, {mtTF32, mtTF32, mtF32},
		{mtE4M3, mtE4M3, mtF32}, {mtE4M3, mtE5M2, mtF32}, {mtE5M2, mtE4M3, mtF32}, {mtE5M2, mtE5M2, mtF32},
		{mtE4M3, mtE4M3, mtF16}, {mtE5M2, mtE4M3, mtF16},
		{mtS8, mtS8, mtS32}, {mtU8, mtU8, mtS32}, {mtS8, mtU8, mtS32}, {mtU8, mtS8, mtS32},
	}
	for _, ty := range types {
		a, b, d := ty[0], ty[1], ty[2]
		fl := a.isFloat()
		nc := 0
		if fl {
			nc = 1
		}
		base := wgForm{n: 64, a: a, b: b, d: d, aDesc: true, sp: true}
		sels := 2
		if a.bits() == 8 {
			sels = 1
		}
		for sel := 0; sel < sels; sel++ {
			f := base
			f.sel = sel
			add(f, 2, 1, nc)
			f.aDesc = false
			add(f, 2, 1, nc)
		}
		// A selector the PTX ISA does not list (ptxas decides).
		f := base
		f.sel = sels
		add(f, 1, 0, 0)
		f = base
		f.n = 8
		add(f, 2, 0, 0)
		f.aDesc = false
		add(f, 2, 0, 0)
		if !fl {
			f = base
			f.sat = true
			add(f, 2, 0, 0)
			continue
		}
		if a == mtF16 && d == mtF32 || a == mtE4M3 && b == mtE4M3 && d == mtF32 {
			f = base
			f.n = 256
			add(f, 1, 0, 1)
		}
		f = base
		f.negA, f.negB = true, true
		add(f, 1, 0, 0)
		if a == mtF16 || a == mtBF16 {
			for _, tr := range [][2]bool{{true, false}, {false, true}, {true, true}} {
				f := base
				f.transA, f.transB = tr[0], tr[1]
				add(f, 2, 0, 0)
			}
			f := base
			f.aDesc, f.transB = false, true
			add(f, 2, 0, 0)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name() < out[j].name() })
	for i, r := range out {
		if i > 0 && r.name() == out[i-1].name() {
			panic("two sparse wgmma forms named " + r.name())
		}
		var in []byte
		for _, c := range r.cases {
			in = append(in, r.f.pack(c)...)
		}
		r.in = in
	}
	return out
}

// spfitWGRecs is buildSpfitWGRecs, built once: the forms are the same for every test
// (and their generation, under -race, most of a test's time).
var spfitWGRecs = sync.OnceValue(buildSpfitWGRecs)

// spfitRecForms is every form of the spfit bundle.
func buildSpfitRecForms() []*recForm {
	var fs []*recForm
	for _, f := range spfitMMAForms() {
		fs = append(fs, f.recForm())
	}
	for _, r := range spfitWGRecs() {
		fs = append(fs, r.recForm())
	}
	return fs
}

// spfitRecForms is buildSpfitRecForms, built once: the forms are the same for every test
// (and their generation, under -race, most of a test's time).
var spfitRecForms = sync.OnceValue(buildSpfitRecForms)

// TestSpfitBundle writes the spfit recording bundle when -spfit.bundle is
// given; otherwise it checks that every kernel parses and the names are
// distinct.
func TestSpfitBundle(t *testing.T) {
	fs := spfitRecForms()
	seen := map[string]bool{}
	for _, f := range fs {
		if seen[f.Name] {
			t.Errorf("two forms named %s", f.Name)
		}
		seen[f.Name] = true
		if _, err := ptx.Parse(f.Name+".ptx", []byte(f.ptx)); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
	if *spfitBundle == "" {
		return
	}
	dir := *spfitBundle
	if err := os.MkdirAll(filepath.Join(dir, "k"), 0o755); err != nil {
		t.Fatal(err)
	}
	var man []bundleEntry
	total := 0
	for i, f := range fs {
		file := fmt.Sprintf("k/%03d", i)
		if err := os.WriteFile(filepath.Join(dir, file+".ptx"), []byte(f.ptx), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file+".in"), f.In, 0o644); err != nil {
			t.Fatal(err)
		}
		total += len(f.In) + f.Grid*f.OutSize
		man = append(man, bundleEntry{f.Name, file, f.Grid, f.Block, f.OutSize})
	}
	b, _ := json.MarshalIndent(man, "", " ")
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d forms, %d bytes of inputs and outputs", len(fs), total)
}

var spfitRecord = flag.String("spfit.record", "", "pack the GPU's outputs in this directory (record.py's OUT, spfit.tar.xz extracted) into testdata/spfit")

const spfitArchive = "testdata/spfit/spfit.zip"

// spfitKeep says which recordings go into the archive, kept under 2 MB:
// every mma.sp form, the layout probes, n = 8 and n = 256 e4m3, and of
// n = 64 A from a descriptor with selector 0 for every type, with
// imm-scale and the transposes, A from registers and selector 1 for some.
// The forms left out were checked bit for bit against the full recording
// (all 232 forms) before it was trimmed.
func spfitKeep(f *recForm) bool {
	n := f.Name
	switch {
	case strings.HasPrefix(n, "mma.sp") || strings.Contains(n, ".probe") || strings.Contains(n, ".m64n8k"):
		return true
	case strings.Contains(n, ".m64n256k"):
		return strings.Contains(n, ".e4m3.e4m3")
	case strings.Contains(n, ".rA.") && strings.Contains(n, ".sel1"):
		return false
	case strings.Contains(n, ".rA."):
		return strings.Contains(n, "f32.f16.f16") || strings.Contains(n, "f32.e4m3.e4m3") || strings.Contains(n, "s32.s8.s8") || strings.Contains(n, "tf32") || strings.Contains(n, "bf16")
	case strings.Contains(n, ".sel1"):
		return strings.Contains(n, "f32.f16.f16") || strings.Contains(n, "tf32")
	case strings.Contains(n, ".1100."):
		return !strings.Contains(n, "e5m2.e4m3") && !strings.Contains(n, "e4m3.e5m2")
	case strings.Contains(n, ".satfinite."):
		return !strings.Contains(n, "s8.u8") && !strings.Contains(n, "u8.s8")
	case strings.Contains(n, "bf16.bf16.sA.0010"):
		return false
	}
	return true
}

// TestSpfitPack packs the GPU's outputs (only: the inputs are regenerated)
// into testdata/spfit, with the names of the forms ptxas refused.
func TestSpfitPack(t *testing.T) {
	if *spfitRecord == "" {
		t.Skip("packing recordings needs -spfit.record")
	}
	fs := spfitRecForms()
	var st []struct {
		I    int    `json:"i"`
		Name string `json:"name"`
		OK   bool   `json:"ok"`
		Err  string `json:"err"`
	}
	b, err := os.ReadFile(filepath.Join(*spfitRecord, "status.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var s struct {
			I    int    `json:"i"`
			Name string `json:"name"`
			OK   bool   `json:"ok"`
			Err  string `json:"err"`
		}
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatal(err)
		}
		st = append(st, s)
	}
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	var refused []string
	n := 0
	for _, s := range st {
		if s.I >= len(fs) || fs[s.I].Name != s.Name {
			t.Fatalf("status line %d (%s) does not match the generated forms", s.I, s.Name)
		}
		f := fs[s.I]
		if !s.OK {
			refused = append(refused, f.Name+"\t"+s.Err)
			continue
		}
		if !spfitKeep(f) {
			continue
		}
		out, err := os.ReadFile(filepath.Join(*spfitRecord, fmt.Sprintf("k/%03d.out", s.I)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := z.Create(f.Name + "." + wgInHash(f.In) + ".out")
		if err != nil {
			t.Fatal(err)
		}
		w.Write(out)
		n++
	}
	sort.Strings(refused)
	w, _ := z.Create("failed.txt")
	w.Write([]byte(strings.Join(refused, "\n") + "\n"))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(spfitArchive), 0o755)
	if err := os.WriteFile(spfitArchive, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d recordings packed (%d bytes), %d forms failed on the GPU", n, buf.Len(), len(refused))
}

// loadSpfit reads testdata/spfit: name.hash → output, and the forms that
// failed on the GPU (mostly refused by ptxas) → why.
func loadSpfit(t *testing.T) (map[string][]byte, map[string]string) {
	zr, err := zip.OpenReader(spfitArchive)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out, failed := map[string][]byte{}, map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == "failed.txt" {
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if name, why, ok := strings.Cut(l, "\t"); ok {
					failed[name] = why
				}
			}
			continue
		}
		out[strings.TrimSuffix(f.Name, ".out")] = b
	}
	return out, failed
}

// TestSpfitRecordings runs every form of testdata/spfit soft accepts and
// compares D with the H100's, bit for bit; every other form must be
// refused at load with the reason, and every form ptxas refused must be
// refused by soft too.
func TestSpfitRecordings(t *testing.T) {
	recs, failed := loadSpfit(t)
	e := newEnv(t, Config{})
	var exact, refused, gpuFailed, notKept, cases int
	// Under -race every eighth form; all of them in go test.
	for _, f := range softtest.Strided(spfitRecForms(), softtest.Sample(8)) {
		h, err := e.loadNamed([]byte(f.ptx), f.Name+".ptx")
		if err == nil {
			e.unload(h)
		} else if !strings.Contains(err.Error(), "not supported by the soft backend") && !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%s: refused without the reason: %v", f.Name, err)
		}
		if why, ok := failed[f.Name]; ok {
			gpuFailed++
			if err == nil {
				t.Errorf("%s: soft runs a form the H100 did not (%s)", f.Name, why)
			}
			continue
		}
		want, ok := recs[f.Name+"."+wgInHash(f.In)]
		switch {
		case !ok && !spfitKeep(f):
			notKept++
			continue
		case !ok:
			t.Errorf("%s: not recorded (or its inputs changed)", f.Name)
			continue
		case err != nil:
			refused++
			continue
		}
		got := runRecForm(e, f, f.In, f.Grid)
		if got == nil {
			continue
		}
		if d := firstDiff(got, want); d >= 0 {
			t.Errorf("%s: differs from the H100 from byte %d of %d (%s)", f.Name, d, len(got), diffAt(got, want, d, f.OutSize))
			continue
		}
		exact++
		cases += f.Grid
	}
	if exact == 0 {
		t.Fatal("no sparse form checked")
	}
	t.Logf("%d forms (%d cases) bit for bit, %d recorded but refused by soft, %d refused on the GPU (and by soft), %d not kept", exact, cases, refused, gpuFailed, notKept)
}

var spfitEval = flag.Bool("spfit.eval", false, "list, form by form, whether soft reproduces each spfit recording (refused forms are listed as such)")

// TestSpfitEval lists every recorded spfit form with soft's outcome (with
// -spfit.eval): exact, differs (where and how much), refused.
func TestSpfitEval(t *testing.T) {
	if !*spfitEval {
		t.Skip("needs -spfit.eval")
	}
	recs, failed := loadSpfit(t)
	for _, f := range spfitRecForms() {
		if why, ok := failed[f.Name]; ok {
			t.Logf("GPU-FAILED %s: %s", f.Name, why)
			continue
		}
		want, ok := recs[f.Name+"."+wgInHash(f.In)]
		if !ok {
			t.Logf("MISSING %s", f.Name)
			continue
		}
		e := newEnv(t, Config{})
		h, err := e.loadNamed([]byte(f.ptx), f.Name+".ptx")
		if err != nil {
			t.Logf("REFUSED %s: %v", f.Name, err)
			continue
		}
		e.unload(h)
		got, err := runRecFormErr(e, f)
		switch {
		case err != nil:
			t.Logf("ERROR %s: %v", f.Name, err)
		case firstDiff(got, want) >= 0:
			d := firstDiff(got, want)
			t.Logf("DIFF %s: from byte %d of %d (%s)", f.Name, d, len(got), diffAt(got, want, d, f.OutSize))
		default:
			t.Logf("EXACT %s", f.Name)
		}
	}
}

// runRecFormErr runs a form in soft, returning the launch's error.
func runRecFormErr(e *env, f *recForm) ([]byte, error) {
	h, err := e.loadNamed([]byte(f.ptx), f.Name+".ptx")
	if err != nil {
		return nil, err
	}
	defer e.unload(h)
	inp := e.buf(f.In)
	out := bytes.Repeat([]byte{recFill}, f.Grid*f.OutSize)
	outp := e.buf(out)
	if err := e.launchErr(e.kernel(h, "k"), rt.Dim3{X: uint32(f.Grid), Y: 1, Z: 1}, rt.Dim3{X: uint32(f.Block), Y: 1, Z: 1}, 0, inp, outp); err != nil {
		return nil, err
	}
	e.get(outp, out)
	return out, nil
}
