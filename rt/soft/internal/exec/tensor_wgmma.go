// Warpgroup MMA (wgmma, sm_90a): D = A·B + D for a 64×N×K tile, issued by
// the 128 threads of a warpgroup (four consecutive warps), A from registers
// or a shared-memory matrix descriptor, B from a descriptor.
//
// Warp q of the warpgroup (warp id mod 4) holds rows 16q..16q+15 of D and,
// from registers, of A; those rows depend on nothing else the other warps
// hold (B comes from shared memory), so each warp computes its own slice
// with the mma.sync arithmetic of tensor_mma.go, and no warp waits for another.
// wgmma.mma_async only records the operation (with its descriptors and
// scale-d, read at issue); wgmma.commit_group closes a group, and
// wgmma.wait_group N runs the warp's groups but the newest N, in order,
// reading A, B and the accumulators then and writing D. A program that
// touches the accumulators, A's registers or the shared-memory operands
// before the wait is undefined on the GPU; here it sees the old values, or
// changes the inputs. Operations never waited for are dropped at exit.

package exec

import (
	"math/bits"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// wgSpec is a decoded wgmma.mma_async.
type wgSpec struct {
	mma            *mmaSpec // one warp's 16×N×K slice
	n, k           int
	nd             int // D registers per thread
	aDesc          bool
	negA, negB     bool
	transA, transB bool
	// sp: wgmma.mma_async.sp, A compressed to 64 × k/2 (its registers and
	// descriptor those of a dense A of k/2 columns), expanded by the
	// metadata register (last in the vector) as mma.sp m16nNk reads it.
	sp *spSpec
}

// sparse turns a spec built for k/2 (A's stored columns) into the sparse
// wgmma of k.
func (s *wgSpec) sparse(k int) {
	ms := s.mma
	s.k = k
	ms.shape.k = k
	if !ms.sum.fp8wg {
		ms.sum = tcModel(ms.shape, k, ms.a, ms.c, ms.d, false)
	}
	s.sp = &spSpec{mma: ms, wg: true}
}

// newWGSpec builds the spec for the types (c: the accumulator's type as
// read, which is d's).
func newWGSpec(n, k int, a, b, c, d mmaType) *wgSpec {
	sh := mmaShape{16, n, k}
	s := &wgSpec{n: n, k: k}
	ms := &mmaSpec{shape: sh, batch: 1, a: a, b: b, c: c, d: d, rnd: gpumath.RN}
	// A from registers: the m16nNkK A fragment of mma.sync, four registers.
	ne := 4 * a.perReg()
	ms.maps[0] = make([]int32, 32*ne)
	for lane := 0; lane < 32; lane++ {
		for e := 0; e < ne; e++ {
			_, r, col := mmaFragPos(sh, opA, a, true, lane, e)
			ms.maps[0][lane*ne+e] = int32(r*k + col)
		}
	}
	ms.nregs[0] = 4
	// D (and C): per 8 columns, the m16n8 accumulator fragment.
	nd := n / 2
	for i := 2; i <= 3; i++ {
		ms.maps[i] = make([]int32, 32*nd)
		for lane := 0; lane < 32; lane++ {
			for e := 0; e < nd; e++ {
				r, col := wgAccPos(lane, e)
				ms.maps[i][lane*nd+e] = int32(r*n + col)
			}
		}
		ms.nregs[i] = nd / d.perReg()
	}
	s.nd = ms.nregs[3]
	ms.sum = tcModel(sh, k, a, c, d, false)
	if a == mtE4M3 || a == mtE5M2 {
		ms.sum = tcSum{fp8wg: true}
	}
	s.mma = ms
	return s
}

// wgAccPos is the PTX ISA's wgmma accumulator layout within a warp's 16
// rows: element e of lane is (row, col).
func wgAccPos(lane, e int) (row, col int) {
	g, t := lane>>2, lane&3
	return g + 8*(e>>1&1), 8*(e>>2) + 2*t + e&1
}

// wgOp is an issued, not yet completed wgmma.mma_async.
type wgOp struct {
	spec         *wgSpec
	vec          int32
	descA, descB uint64
	scaleD       bool
	pc           int32
}

// wgState is a warp's wgmma queue: operations not yet committed, and the
// committed groups, oldest first.
type wgState struct {
	open   []wgOp
	groups [][]wgOp
}

// wgmma runs a wgmma instruction for warp w; false means a fault.
func (c *cta) wgmma(w *warp, in *inst, m uint32) bool {
	if m != fullMask || w.live != fullMask {
		c.fault = &fault{kind: fInvalid, warp: w.id, lane: bits.TrailingZeros32(m), pc: c.pc,
			msg: sprintf("wgmma is .sync.aligned: all 32 lanes of the warp must execute it (mask %#x)", m)}
		return false
	}
	if (w.id/4+1)*128 > c.nthr {
		c.fault = &fault{kind: fInvalid, warp: w.id, lane: 0, pc: c.pc,
			msg: sprintf("wgmma needs a whole warpgroup (threads %d..%d) but the CTA has %d threads", w.id/4*128, w.id/4*128+127, c.nthr)}
		return false
	}
	if w.wg == nil {
		w.wg = &wgState{}
	}
	q := w.wg
	switch in.fl {
	case tcWGCommit:
		q.groups = append(q.groups, q.open)
		q.open = nil
	case tcWGWait:
		for len(q.groups) > int(in.imm) {
			for i := range q.groups[0] {
				if !c.wgRun(w, &q.groups[0][i]) {
					return false
				}
			}
			q.groups = q.groups[1:]
		}
	case tcWGMMA:
		s := c.p.tc.wg[in.aux]
		op := wgOp{spec: s, vec: in.aux2, pc: c.pc}
		uniform := func(slot uint32, what string) (uint64, bool) {
			v := lanes(w.r, slot)
			for l := 1; l < 32; l++ {
				if v[l] != v[0] {
					c.fault = &fault{kind: fInvalid, warp: w.id, lane: l, pc: c.pc,
						msg: sprintf("the %s differs between lanes (%#x in lane 0, %#x in lane %d): it must be the same across the warpgroup", what, v[0], v[l], l)}
					return 0, false
				}
			}
			return v[0], true
		}
		var ok bool
		if s.aDesc {
			if op.descA, ok = uniform(in.a, "matrix descriptor of A"); !ok {
				return false
			}
		}
		if op.descB, ok = uniform(in.b, "matrix descriptor of B"); !ok {
			return false
		}
		switch p := w.pr[in.c]; {
		case in.e&2 != 0:
			op.scaleD = in.e&4 != 0
		case p != 0 && p != fullMask:
			c.fault = &fault{kind: fInvalid, warp: w.id, lane: bits.TrailingZeros32(^p), pc: c.pc,
				msg: "scale-d differs between lanes: it must be the same across the warpgroup"}
			return false
		default:
			op.scaleD = (p != 0) != (in.e&1 != 0)
		}
		q.open = append(q.open, op)
	}
	return true
}

// wgRun completes one wgmma.mma_async for warp w.
func (c *cta) wgRun(w *warp, op *wgOp) bool {
	s := op.spec
	ms := s.mma
	N, K := s.n, s.k
	save := c.pc
	c.pc = op.pc // a fault names the wgmma.mma_async
	defer func() { c.pc = save }()
	A := make([]uint64, 16*K+K*N+2*16*N)
	B := A[16*K:]
	C := B[K*N:]
	D := C[16*N:]
	vec := c.p.vec[op.vec:]
	Ka, Aa := K, A // A as stored: compressed when sparse
	if s.sp != nil {
		Ka = K / 2
		Aa = make([]uint64, 16*Ka)
	}
	regs := make([]*[32]uint64, 0, s.nd+4)
	for _, slot := range vec[:s.nd] {
		regs = append(regs, lanes(w.r, slot))
	}
	for k := 0; k < K; k++ {
		for n := 0; n < N; n++ {
			v, ok := c.wgElem(w, op.descB, n, k, ms.b, s.transB)
			if !ok {
				return false
			}
			B[k*N+n] = v
		}
	}
	if s.aDesc {
		row0 := 16 * (w.id % 4)
		for i := 0; i < 16; i++ {
			for k := 0; k < Ka; k++ {
				v, ok := c.wgElem(w, op.descA, row0+i, k, ms.a, s.transA)
				if !ok {
					return false
				}
				Aa[i*Ka+k] = v
			}
		}
	} else {
		var ar []*[32]uint64
		for _, slot := range vec[s.nd : s.nd+4] {
			ar = append(ar, lanes(w.r, slot))
		}
		ms.gather(0, ar, Aa)
	}
	if s.negA {
		negElems(Aa[:16*Ka], ms.a)
	}
	if s.sp != nil {
		na := 4
		if s.aDesc {
			na = 0
		}
		if !c.spExpand(w, s.sp, Aa, lanes(w.r, vec[s.nd+na]), A) {
			return false
		}
	}
	if s.negB {
		negElems(B[:K*N], ms.b)
	}
	if op.scaleD {
		ms.gather(2, regs, C)
	}
	ms.compute(A[:16*K], B[:K*N], C[:16*N], D)
	ms.scatter(D, regs, fullMask)
	return true
}

// negElems flips the sign of floating-point elements (imm-scale -1).
func negElems(x []uint64, t mmaType) {
	sign := uint64(1) << uint(t.bits()-1)
	for i := range x {
		x[i] ^= sign
	}
}

// Swizzle modes of a matrix descriptor (bits 62-63).
const (
	swzNone = 0
	swz128  = 1
	swz64   = 2
	swz32   = 3
)

// wgDesc is a decoded shared-memory matrix descriptor.
type wgDesc struct {
	start, lbo, sbo uint64 // bytes
	base            uint64 // matrix base offset (bits 49-51)
	swz             int
}

func decodeWGDesc(d uint64) wgDesc {
	return wgDesc{
		start: d & 0x3fff << 4,
		lbo:   d >> 16 & 0x3fff << 4,
		sbo:   d >> 32 & 0x3fff << 4,
		base:  d >> 49 & 7,
		swz:   int(d >> 62),
	}
}

// width is the swizzle's row width in bytes (16 with no swizzle: a core
// matrix row).
func (d wgDesc) width() uint64 {
	return [4]uint64{16, 128, 64, 32}[d.swz]
}

// addr is the byte address of element (mn, k) of an operand (mn: its row
// of A or column of B) of elemBits-bit elements, in its canonical layout:
// K-major (A as .row, B as .col) or, transposed, MN-major. Core matrices
// are 8 rows of 16 bytes. K-major: rows (mn) are 16 bytes apart in a core
// matrix with no swizzle, and core matrices LBO apart along k and SBO
// apart along mn; with a swizzle, rows are the swizzle's width apart, k
// runs along the row (and on, LBO apart, for each further width of k:
// only sparse B with 32-byte swizzling has more k than one row holds), and
// groups of 8 rows are SBO apart. MN-major: the
// roles of mn and k swap (16-byte rows along mn, 8 k per core matrix);
// with no swizzle core matrices are SBO apart along mn and LBO along k,
// with a swizzle a row holds width bytes of mn, repeats along mn are LBO
// apart and groups of 8 k are SBO apart. The swizzle then XORs address
// bits 4-6 with bits 7-9 (128B), 4-5 with 7-8 (64B) or 4 with 7 (32B),
// bits 7-9 taken after subtracting the descriptor's base offset.
func (d wgDesc) addr(mn, k, elemBits int, mnMajor bool) (uint64, uint) {
	W := d.width()
	var off, bit uint64
	if !mnMajor {
		kb := uint64(k * elemBits / 8)
		bit = uint64(k * elemBits % 8)
		r, g := uint64(mn%8), uint64(mn/8)
		if d.swz == swzNone {
			off = g*d.sbo + r*16 + kb/16*d.lbo + kb%16
		} else {
			// k beyond the swizzle's width (sparse B with 32-byte
			// swizzling: 64 bytes of k) goes on LBO bytes further (H100,
			// measured).
			off = g*d.sbo + r*W + kb%W + kb/W*d.lbo
		}
	} else {
		mb := uint64(mn * elemBits / 8)
		r, g := uint64(k%8), uint64(k/8)
		if d.swz == swzNone {
			off = mb/16*d.sbo + g*d.lbo + r*16 + mb%16
		} else {
			off = mb/W*d.lbo + g*d.sbo + r*W + mb%W
		}
	}
	a := d.start + off
	if d.swz != swzNone {
		// The pattern's row is counted from the base offset (H100,
		// measured: bits 7-9 of the address minus the base offset).
		mask := W/16 - 1
		a ^= ((a>>7 - d.base) & mask) << 4
	}
	return a, uint(bit)
}

// wgElem reads element (mn, k) of an operand from shared memory.
func (c *cta) wgElem(w *warp, desc uint64, mn, k int, t mmaType, mnMajor bool) (uint64, bool) {
	d := decodeWGDesc(desc)
	a, bit := d.addr(mn, k, t.bits(), mnMajor)
	size := uint64(max(t.bits()/8, 1))
	p := c.ptr(w, spShared, a, size, false, 0)
	if p == nil {
		return 0, false
	}
	v := load(p, uint16(size), false)
	if t.bits() < 8 {
		v = v >> bit & (1<<uint(t.bits()) - 1)
	}
	return v, true
}
