// Sparse mma (mma.sp and mma.sp::ordered_metadata, sm_80+): D = A·B + C
// where A (m16 × k) has 2:4 structure (1:2 for tf32) and is passed
// compressed, its k/2 kept elements per row in registers laid out as the
// dense A fragment of m16n8k(k/2), with a 32-bit metadata register e and a
// constant sparsity selector f telling where each kept element sits.
//
// Metadata (PTX ISA "Sparse matrix storage"; lanes and bits fitted to the
// H100's recordings in testdata/wgmma and testdata/spfit): row r of A is
// chunked into groups of 4 elements (4 pairs for s4/u4, whose sparsity is
// on pairs; 2 elements for tf32), and each chunk has a 4-bit nibble: bits
// 0-1 give the position of the chunk's first kept element, bits 2-3 the
// second's (for tf32, the nibble is 0b0100 for position 0 and 0b1110 for
// position 1: positions of 16-bit halves). Each 32 bytes of a row's k
// (4 chunks of 16-bit or tf32 elements, 8 chunks of 8-bit ones or of 4-bit
// pairs) take consecutive nibbles, those of row g (g = lane/4) before
// those of row g + 8, and a group of four lanes' nibbles fill, 8 per
// register, the metadata registers of the threads the selector picks:
// with n = chunks/4 threads needed, threads n·f .. n·f+n-1 of the group.
// So m16n8k16 .f16/.bf16 and m16n8k8 .tf32 read T_f alone (f = 0..3),
// m16n8k32 .f16/.bf16, m16n8k16 .tf32, m16n8k32 .s8 and m16n8k64 .s4 the
// pair T0,T1 (f = 0) or T2,T3 (f = 1), m16n8k64 .s8/.e4m3 and m16n8k128
// .s4 all four threads (f = 0). Measured on the H100 for every form and
// selector; other lanes' metadata is ignored.
//
// The expanded A (zeros where the metadata says) then goes through the
// dense mma arithmetic of tensor_mma.go for m16n8k: the zero products change no
// sum, and the recordings show the kept products summed as one block (fp8:
// two blocks, the even chunks then the odd ones, as the two HMMA.SP
// m16n8k32 the compiler emits, then C). Unordered positions are fine for
// plain .sp (recorded). Metadata with a repeated position (0b0000, 0b0101,
// 0b1010, 0b1111, and for tf32 anything but 0b0100 and 0b1110), or
// unordered positions with ::ordered_metadata, is undefined in PTX: soft
// stops the launch and names the lane.

package exec

import (
	"strings"

	"github.com/cugen/cugen/parse/ptx"
)

// tcMMASp is the opTensor kind of mma.sp: aux = spSpec, aux2 = vec (D, A,
// B, C registers), a = metadata register.
const tcMMASp = 200

// spSpec is one decoded mma.sp.
type spSpec struct {
	mma     *mmaSpec // the dense m16n8k form (B, C, D and the arithmetic)
	amap    []int32  // compressed A: lane*n+e → row*(k/2) + col
	na      int      // registers of compressed A
	sel     int      // sparsity selector
	ordered bool     // ::ordered_metadata
	wg      bool     // part of a sparse wgmma (for messages)
}

// spValid reports whether soft runs the mma.sp form: every form of PTX
// ISA 8.x that ptxas accepts for sm_90, all recorded on the H100 (f16 with
// f16 or f32 accumulators, both the same; bf16; tf32; e4m3/e5m2 with f32
// accumulators; s8/u8; s4/u4).
func spValid(shape string, a, b, c, d mmaType) bool {
	switch {
	case a == mtF16 && b == a && c == d && (c == mtF16 || c == mtF32),
		a == mtBF16 && b == a && c == mtF32 && d == mtF32:
		return shape == "m16n8k16" || shape == "m16n8k32"
	case a == mtTF32 && b == a && c == mtF32 && d == mtF32:
		return shape == "m16n8k8" || shape == "m16n8k16"
	case (a == mtE4M3 || a == mtE5M2) && (b == mtE4M3 || b == mtE5M2) && c == mtF32 && d == mtF32:
		return shape == "m16n8k64"
	case (a == mtS8 || a == mtU8) && (b == mtS8 || b == mtU8) && c == mtS32 && d == mtS32:
		return shape == "m16n8k32" || shape == "m16n8k64"
	case (a == mtS4 || a == mtU4) && (b == mtS4 || b == mtU4) && c == mtS32 && d == mtS32:
		return shape == "m16n8k64" || shape == "m16n8k128"
	}
	return false
}

// mmaSp decodes mma.sp{::ordered_metadata}.sync.aligned.shape.row.col
// [.satfinite].dtype.atype.btype.ctype d, a, b, c, e, f.
func (dc *decoder) mmaSp(in *ptx.Instr, sc *scope, m tcMods, x inst) {
	ordered := m.rest[0] == "sp::ordered_metadata"
	if len(m.rest) != 1 || m.rest[0] != "sp" && !ordered {
		dc.failIn(in, "modifier .%s is not supported", m.rest[len(m.rest)-1])
	}
	a, b, c, d := dc.mmaTypes(in, m)
	if len(m.layouts) != 2 || m.layouts[0] != "row" || m.layouts[1] != "col" || m.hasSpace || m.hasRnd || m.num != 0 || m.trans || m.bop != 0 {
		dc.failIn(in, "expected mma.sp.sync.aligned.shape.row.col with types")
	}
	if m.sat && a.isFloat() {
		dc.failIn(in, ".satfinite is for integer mma.sp only")
	}
	shape, known := mmaShapes[m.shape]
	if len(in.Operands) != 6 {
		dc.failIn(in, "expected the operands d, a, b, c, e (metadata) and f (sparsity selector)")
	}
	f, isImm := in.Operands[5].(*ptx.Imm)
	if !isImm || f.Val > 3 {
		dc.failIn(in, "the sparsity selector must be an integer constant 0..3")
	}
	if !known || !spValid(m.shape, a, b, c, d) {
		dc.failIn(in, "this mma.sp form is not supported by the soft backend (supported, as recorded on the H100: m16n8k16/k32 .f16 (f16 or f32 accumulators, C and D alike) and .bf16, m16n8k8/k16 .tf32, m16n8k64 .e4m3/.e5m2 with .f32 accumulators, m16n8k32/k64 .s8/.u8, m16n8k64/k128 .s4/.u4)")
	}
	ms := newMMASpec(shape, a, b, c, d, true, false)
	if ms.sum.pairs {
		// fp8 (H100): unpacked to f16 and run as two chained HMMA.SP
		// m16n8k32, the even chunks of 4 k then the odd ones.
		ms.sum.pairW = 4
	}
	ms.sat = m.sat
	s := &spSpec{mma: ms, sel: int(f.Val), ordered: ordered}
	// The selector picks one of 4/threads sets of lanes in each group of
	// four (PTX ISA: a thread pair 0 = T0,T1 or 1 = T2,T3; all four
	// threads, selector 0, for m16n8k64 .s8).
	if selMax := 4/s.spThreads() - 1; s.sel > selMax {
		dc.failIn(in, "sparsity selector %d is out of range for %s.%s (0..%d: %d of the 4 threads of a group hold the metadata)", s.sel, m.shape, a, selMax, s.spThreads())
	}
	half := mmaShape{shape.m, shape.n, shape.k / 2}
	s.na = half.m * half.k / 32 / a.perReg() // 16 × k/2 elements over 32 lanes
	ne := s.na * a.perReg()
	s.amap = make([]int32, 32*ne)
	for lane := 0; lane < 32; lane++ {
		for e := 0; e < ne; e++ {
			_, r, col := mmaFragPos(half, opA, a, true, lane, e)
			s.amap[lane*ne+e] = int32(r*half.k + col)
		}
	}
	var regs []uint32
	for i, o := range in.Operands[:4] {
		n := []int{ms.nregs[3], s.na, ms.nregs[1], ms.nregs[2]}[i]
		v, isVec := o.(*ptx.Vec)
		if !isVec || len(v.Elems) != n {
			dc.failIn(in, "operand %s must be a vector of %d registers", "dabc"[i:i+1], n)
		}
		regs = append(regs, dc.vecRegs(in, sc, v, ptx.B32, i == 0)...)
	}
	x.a = dc.src(in, sc, in.Operands[4], ptx.B32)
	x.fl, x.aux, x.aux2 = tcMMASp, int32(len(dc.p.tc.sp)), dc.vecIndex(regs)
	dc.p.tc.sp = append(dc.p.tc.sp, s)
	dc.emit(in, x)
}

// isSparseMMA reports whether an mma's extra modifiers make it mma.sp.
func isSparseMMA(in *ptx.Instr, m tcMods) bool {
	return in.Op == "mma" && len(m.rest) > 0 && strings.HasPrefix(m.rest[0], "sp")
}

// spUnit is the elements one metadata position stands for: 2 for the
// 4-bit types (their sparsity is on pairs), else 1.
func (s *spSpec) spUnit() int {
	if s.mma.a.bits() == 4 {
		return 2
	}
	return 1
}

// spChunks is the number of metadata chunks per row of A (a chunk is 4
// units, 2 for tf32), and spThreads the lanes of a group of four whose
// metadata the form reads.
func (s *spSpec) spChunks() int {
	if s.mma.a == mtTF32 {
		return s.mma.shape.k / 2
	}
	return s.mma.shape.k / 4 / s.spUnit()
}

func (s *spSpec) spThreads() int { return s.spChunks() / 4 }

// spMeta is the metadata nibble of chunk c of row r, and the lane it is
// read from. Each 32 bytes of A's row (4 chunks of 16-bit or tf32
// elements, 8 of 8-bit ones) take consecutive nibbles, row g's then row
// g+8's, and the nibbles of a group fill the metadata registers of its
// selected lanes in order, 8 per lane.
func (s *spSpec) spMeta(meta *[32]uint64, r, c int) (nib uint32, lane int) {
	per := 4 // nibbles per row per 32 bytes of k
	if s.mma.a.bits() <= 8 {
		per = 8
	}
	q := (c/per*2+r/8)*per + c%per
	lane = 4*(r%8) + s.sel*s.spThreads() + q/8
	return uint32(meta[lane]) >> uint(4*(q%8)) & 0xf, lane
}

// mmaSp runs mma.sp for warp w; false means a fault (bad metadata).
func (c *cta) mmaSp(w *warp, in *inst, m uint32) bool {
	s := c.p.tc.sp[in.aux]
	ms := s.mma
	vec := c.p.vec[in.aux2:]
	regs := make([]*[32]uint64, 0, 16)
	for _, slot := range vec[:ms.nregs[3]+s.na+ms.nregs[1]+ms.nregs[2]] {
		regs = append(regs, lanes(w.r, slot))
	}
	d, a := regs[:ms.nregs[3]], regs[ms.nregs[3]:]
	b := a[s.na:]
	cr := b[ms.nregs[1]:]
	meta := lanes(w.r, in.a)
	sh := ms.shape
	K := sh.k
	A := make([]uint64, sh.m*K+K*sh.n+2*sh.m*sh.n)
	B := A[sh.m*K:]
	C := B[K*sh.n:]
	D := C[sh.m*sh.n:]
	// The compressed A.
	comp := make([]uint64, sh.m*K/2)
	t := ms.a
	epr := t.perReg()
	ne := s.na * epr
	for lane := 0; lane < 32; lane++ {
		for e := 0; e < ne; e++ {
			comp[s.amap[lane*ne+e]] = t.elemBits(a[e/epr][lane], e%epr)
		}
	}
	// Expanded by the metadata.
	if !c.spExpand(w, s, comp, meta, A) {
		return false
	}
	ms.gather(1, b[:ms.nregs[1]], B)
	ms.gather(2, cr[:ms.nregs[2]], C)
	ms.compute(A, B, C, D)
	ms.scatter(D, d, m)
	return true
}

// spExpand expands the compressed A (16 rows of k/2 elements) into A (16 ×
// k) by the metadata of the lanes s.sel picks; false (and a fault naming
// the lane) for metadata the PTX ISA leaves undefined.
func (c *cta) spExpand(w *warp, s *spSpec, comp []uint64, meta *[32]uint64, A []uint64) bool {
	K := s.mma.shape.k
	tf32 := s.mma.a == mtTF32
	u := s.spUnit()
	for r := 0; r < 16; r++ {
		for ch := 0; ch < s.spChunks(); ch++ {
			nib, lane := s.spMeta(meta, r, ch)
			i0, i1 := int(nib&3), int(nib>>2)
			bad := i0 == i1 || s.ordered && i0 > i1
			if tf32 {
				bad = nib != 0x4 && nib != 0xe
			}
			if bad {
				c.fault = &fault{kind: fInvalid, warp: w.id, lane: lane, pc: c.pc,
					msg: sprintf("%s: invalid sparsity metadata %#x (bits %d..%d of lane %d's metadata, row %d of A): the positions of a chunk's elements must differ%s",
						map[bool]string{true: "wgmma.mma_async.sp", false: "mma.sp"}[s.wg], nib, 4*(ch%8), 4*(ch%8)+3, lane, r, map[bool]string{true: " (tf32: 0b0100 or 0b1110)", false: map[bool]string{true: " and be in order (::ordered_metadata)", false: ""}[s.ordered]}[tf32])}
				return false
			}
			if tf32 {
				A[r*K+ch*2+i0/2] = comp[r*K/2+ch]
				continue
			}
			for j := 0; j < u; j++ {
				A[r*K+(ch*4+i0)*u+j] = comp[r*K/2+2*ch*u+j]
				A[r*K+(ch*4+i1)*u+j] = comp[r*K/2+(2*ch+1)*u+j]
			}
		}
	}
	return true
}
