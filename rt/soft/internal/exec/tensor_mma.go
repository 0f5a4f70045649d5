// mma.sync and wmma: D = A·B + C, gathered from and scattered to the warp's
// registers by the fragment layouts of tensor_types.go and summed as the
// H100 sums products (tcSum, tensor_sum.go); every form is checked bit for
// bit against GPU recordings in testdata/mma.
//
// Executing the tensor-core instructions for a warp: mma and wmma.mma
// gather the fragments into matrices, compute and scatter D;
// wmma.load/store move each lane's fragment elements between registers and
// memory with the layout and stride; ldmatrix, stmatrix and movmatrix move
// 8×8 matrices of 16-bit elements between rows in shared memory (or
// registers) and the lanes that hold them. Like the warp collectives, each
// runs once for the warp: the lanes' registers are read before any is
// written, and lanes outside the mask keep their registers.

package exec

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// mmaSpec is one decoded mma.sync or wmma.mma instruction.
type mmaSpec struct {
	shape      mmaShape
	batch      int // independent products (4 for mma.m8n8k4 with .f16)
	a, b, c, d mmaType
	sat        bool // .satfinite: clamp integer results to int32
	bop        int  // b1: popcAnd or popcXor
	rnd        int  // f64 rounding
	sum        tcSum
	// maps[op] gives, for lane l's fragment element i, the element's index
	// q*rows*cols + row*cols + col in its matrix (op: opA, opB, opC; D
	// shares C's layout but may have another type, hence maps[3]).
	maps  [4][]int32
	nregs [4]int
}

const (
	popcXor = 1
	popcAnd = 2
)

// elems is the number of fragment elements per lane of operand i.
func (s *mmaSpec) elems(i int) int { return len(s.maps[i]) / 32 }

// typ is operand i's element type.
func (s *mmaSpec) typ(i int) mmaType { return [4]mmaType{s.a, s.b, s.c, s.d}[i] }

// gather reads operand i's matrix (element bits) from its registers;
// regs[r][lane] is register r of lane. Where a fragment repeats an element
// (wmma's f16 multiplicands), the first copy counts.
func (s *mmaSpec) gather(i int, regs []*[32]uint64, out []uint64) {
	t := s.typ(i)
	epr := t.perReg()
	n := s.elems(i)
	for lane := 0; lane < 32; lane++ {
		m := s.maps[i][lane*n : lane*n+n]
		for e := len(m) - 1; e >= 0; e-- {
			out[m[e]] = t.elemBits(regs[e/epr][lane], e%epr)
		}
	}
}

// scatter writes D's elements into its registers for the lanes in mask.
func (s *mmaSpec) scatter(d []uint64, regs []*[32]uint64, mask uint32) {
	t := s.d
	epr := t.perReg()
	n := s.elems(3)
	w := uint(t.bits())
	for lane := 0; lane < 32; lane++ {
		if mask>>uint(lane)&1 == 0 {
			continue
		}
		m := s.maps[3][lane*n : lane*n+n]
		for r := 0; r < s.nregs[3]; r++ {
			var v uint64
			for j := 0; j < epr; j++ {
				v |= d[m[r*epr+j]] << (uint(j) * w)
			}
			regs[r][lane] = v
		}
	}
}

// compute fills D (element bits) from A, B and C.
func (s *mmaSpec) compute(A, B, C, D []uint64) {
	M, N, K := s.shape.m, s.shape.n, s.shape.k
	prods := make([]float64, K)
	exps := make([]int, K)
	for q := 0; q < s.batch; q++ {
		a, b := A[q*M*K:], B[q*K*N:]
		c, d := C[q*M*N:], D[q*M*N:]
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				o := i*N + j
				switch {
				case s.a == mtB1:
					var n int64
					for k := 0; k < K; k++ {
						x, y := a[i*K+k], b[k*N+j]
						if s.bop == popcAnd && x&y != 0 || s.bop == popcXor && x != y {
							n++
						}
					}
					d[o] = uint64(uint32(int32(n) + int32(c[o])))
				case !s.a.isFloat():
					n := s.c.toInt(c[o])
					for k := 0; k < K; k++ {
						n += s.a.toInt(a[i*K+k]) * s.b.toInt(b[k*N+j])
					}
					if s.sat {
						n = min(max(n, math.MinInt32), math.MaxInt32)
					}
					d[o] = uint64(uint32(n))
				case s.a == mtF64:
					acc := c[o]
					for k := 0; k < K; k++ {
						acc = dfma(a[i*K+k], b[k*N+j], acc, s.rnd)
					}
					d[o] = acc
				default:
					for k := 0; k < K; k++ {
						x, y := s.a.toFloat(a[i*K+k]), s.b.toFloat(b[k*N+j])
						prods[k] = x * y
						exps[k] = prodExp(s.a, x, s.b, y)
						if s.sum.fp8wg {
							exps[k] = fp8WGExp(s.a, x, s.b, y)
						}
					}
					d[o] = s.sum.dot(s.c.toFloat(c[o]), prods, exps, s.d)
				}
			}
		}
	}
}

// newMMASpec builds the spec of mma.sync with the given shape and types
// (layouts matter only for m8n8k4 with .f16).
func newMMASpec(shape mmaShape, a, b, c, d mmaType, arow, brow bool) *mmaSpec {
	s := &mmaSpec{shape: shape, batch: 1, a: a, b: b, c: c, d: d, rnd: gpumath.RN}
	if quadPair(shape, a) {
		s.batch = 4
	}
	for i, t := range []mmaType{a, b, c, d} {
		op, row := min(i, opC), []bool{arow, brow, true, true}[i]
		rows, cols := shape.dims(op)
		n := s.batch * rows * cols / 32
		s.maps[i] = make([]int32, 32*n)
		for lane := 0; lane < 32; lane++ {
			for e := 0; e < n; e++ {
				q, r, col := mmaFragPos(shape, op, t, row, lane, e)
				s.maps[i][lane*n+e] = int32(q*rows*cols + r*cols + col)
			}
		}
		s.nregs[i] = n / t.perReg()
	}
	s.sum = tcModel(shape, shape.k, a, c, d, s.batch == 4)
	return s
}

// newWMMASpec builds the spec of wmma.mma (its fragment layout does not
// depend on .row/.col: wmma.load arranges the registers).
func newWMMASpec(shape mmaShape, a, c, d mmaType) *mmaSpec {
	s := &mmaSpec{shape: shape, batch: 1, a: a, b: a, c: c, d: d, rnd: gpumath.RN}
	for i, t := range []mmaType{a, a, c, d} {
		op := min(i, opC)
		_, cols := shape.dims(op)
		nr := wmmaRegs(shape, op, t)
		n := nr * t.perReg()
		s.maps[i] = make([]int32, 32*n)
		for lane := 0; lane < 32; lane++ {
			for e := 0; e < n; e++ {
				r, col := wmmaFragPos(shape, op, a, t, lane, e)
				s.maps[i][lane*n+e] = int32(r*cols + col)
			}
		}
		s.nregs[i] = nr
	}
	s.sum = tcModel(shape, wmmaTile(a).k, a, c, d, false)
	if a == mtTF32 {
		s.sum.block = 4 // two chained HMMA.1684 per tile
	}
	return s
}

// tcModel is how the H100 sums an instruction's floating-point products
// (see the package doc; k is the k of one hardware instruction).
func tcModel(shape mmaShape, k int, a, c, d mmaType, quad bool) tcSum {
	m := tcSum{block: k, frac: 25, rnd: gpumath.RZ, prec: 24, emin: -126}
	if c == mtF16 && d == mtF16 {
		// HMMA.F16: f16 accumulation, rounded to nearest.
		m.rnd, m.prec, m.emin = gpumath.RN, 11, -14
	}
	switch {
	case quad:
		m.fma = true
	case a == mtE4M3 || a == mtE5M2:
		m.pairs, m.block = true, k/2
	}
	return m
}

// tensor runs one opTensor; false means it faulted.
func (c *cta) tensor(w *warp, in *inst, m uint32) bool {
	switch in.fl {
	case tcMMA:
		c.mma(w, in, m)
	case tcMMASp:
		return c.mmaSp(w, in, m)
	case tcWMMALoad, tcWMMAStore:
		return c.wmmaMem(w, in, m)
	case tcLdmatrix, tcStmatrix:
		return c.ldmatrix(w, in, m)
	case tcMovmatrix:
		c.movmatrix(w, in, m)
	case tcWGFence, tcWGCommit, tcWGWait, tcWGMMA:
		return c.wgmma(w, in, m)
	case tcCvtTF32:
		d, a := lanes(w.r, in.d), lanes(w.r, in.a)
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm) & 31
			d[l] = uint64(toTF32(uint32(a[l]), int(in.aux), in.e&1 != 0, in.e&2 != 0))
		}
	}
	return true
}

// toTF32 converts f32 bits to tf32 (the low 13 bits cleared) as the H100
// does (recorded): .rna (rnd -1) rounds half away from zero and truncates
// infinities and NaNs (payload and sign kept), and .satfinite takes a
// result with an all-ones exponent one tf32 ulp down (a NaN stays a NaN);
// .rn (to nearest even) and .rz give NaN as 0x7fffe000, and .relu makes
// negative results +0.
func toTF32(x uint32, rnd int, sat, relu bool) uint32 {
	if rnd == -1 {
		if x&0x7f800000 != 0x7f800000 {
			x += 0x1000
		}
		x &^= 0x1fff
		if sat && x&0x7f800000 == 0x7f800000 {
			x -= 0x2000
		}
		return x
	}
	switch {
	case x&0x7f800000 == 0x7f800000 && x&0x7fffff != 0:
		return 0x7fffe000
	case relu && x&0x80000000 != 0:
		return 0
	case x&0x7fffffff == 0x7f800000:
		return x
	case rnd == gpumath.RN:
		x += 0xfff + x>>13&1
	}
	return x &^ 0x1fff
}

func (c *cta) mma(w *warp, in *inst, m uint32) {
	s := c.p.tc.mma[in.aux]
	vec := c.p.vec[in.aux2:]
	regs := make([]*[32]uint64, 0, 40)
	for _, slot := range vec[:s.nregs[3]+s.nregs[0]+s.nregs[1]+s.nregs[2]] {
		regs = append(regs, lanes(w.r, slot))
	}
	d, a := regs[:s.nregs[3]], regs[s.nregs[3]:]
	b := a[s.nregs[0]:]
	cr := b[s.nregs[1]:]
	sh := s.shape
	A := make([]uint64, s.batch*(sh.m*sh.k+sh.k*sh.n+2*sh.m*sh.n))
	B := A[s.batch*sh.m*sh.k:]
	C := B[s.batch*sh.k*sh.n:]
	D := C[s.batch*sh.m*sh.n:]
	s.gather(0, a[:s.nregs[0]], A)
	s.gather(1, b[:s.nregs[1]], B)
	s.gather(2, cr[:s.nregs[2]], C)
	s.compute(A, B, C, D)
	s.scatter(D, d, m)
}

// elemAddr is the byte address of element (row, col) of a wmma matrix and
// the element's bit offset in that byte (sub-byte types).
func (x *wmmaMem) elemAddr(base, stride uint64, row, col int) (addr uint64, bit uint) {
	i := uint64(col)*stride + uint64(row)
	if x.row {
		i = uint64(row)*stride + uint64(col)
	}
	b := uint64(x.t.bits())
	return base + i*b/8, uint(i * b % 8)
}

func (c *cta) wmmaMem(w *warp, in *inst, m uint32) bool {
	x := c.p.tc.mem[in.aux]
	store := in.fl == tcWMMAStore
	vec := c.p.vec[in.e : in.e+uint32(x.nregs)]
	base, stride := lanes(w.r, in.a), lanes(w.r, in.b)
	t := x.t
	epr := t.perReg()
	size := uint64(max(t.bits()/8, 1))
	n := x.nregs * epr
	space := int(in.aux2)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		pos := x.pos[l*n : l*n+n]
		b0, st := base[l]+uint64(in.imm), stride[l]&0xffffffff
		for r, slot := range vec {
			reg := &w.r[slot+uint32(l)]
			var v uint64
			for j := 0; j < epr; j++ {
				p := pos[r*epr+j]
				addr, bit := x.elemAddr(b0, st, int(p>>16), int(p&0xffff))
				ptr := c.ptr(w, space, addr, size, store, l)
				if ptr == nil {
					return false
				}
				sh := uint(j * t.bits())
				if store {
					store_(ptr, size, *reg>>sh)
					continue
				}
				e := load(ptr, uint16(size), false)
				if t.bits() < 8 {
					e = e >> bit & (1<<uint(t.bits()) - 1)
				}
				v |= e << sh
			}
			if !store {
				*reg = v
			}
		}
	}
	return true
}

func store_(p unsafe.Pointer, size uint64, v uint64) { store(p, uint16(size), v, false) }

// ldmatrix runs ldmatrix and stmatrix: matrix j's row r is at the address
// lane 8j+r holds; lane t holds row t/4's elements 2(t%4) and 2(t%4)+1 (or,
// .trans, column t/4's), in register j.
func (c *cta) ldmatrix(w *warp, in *inst, m uint32) bool {
	s := c.p.tc.ldm[in.aux]
	store := in.fl == tcStmatrix
	vec := c.p.vec[in.e : in.e+uint32(s.num)]
	addr := lanes(w.r, in.a)
	space := int(in.aux2)
	// Resolve the rows (8 per matrix), checking each is 16 aligned bytes
	// of shared memory; a lane of the row-address group supplies it even
	// if it is not active, as on the GPU.
	var rows [32]unsafe.Pointer
	for i := 0; i < 8*s.num; i++ {
		p := c.ptr(w, space, addr[i]+uint64(in.imm), 16, store, i)
		if p == nil {
			return false
		}
		rows[i] = p
	}
	half := func(p unsafe.Pointer, i int) *uint16 { return (*uint16)(unsafe.Add(p, 2*i)) }
	if !store {
		var out [4][32]uint32
		for j := 0; j < s.num; j++ {
			for t := 0; t < 32; t++ {
				if s.trans {
					out[j][t] = uint32(*half(rows[8*j+2*(t%4)], t/4)) | uint32(*half(rows[8*j+2*(t%4)+1], t/4))<<16
				} else {
					out[j][t] = *(*uint32)(unsafe.Add(rows[8*j+t/4], 4*(t%4)))
				}
			}
		}
		for j, slot := range vec {
			d := lanes(w.r, slot)
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm) & 31
				d[l] = uint64(out[j][l])
			}
		}
		return true
	}
	for j, slot := range vec {
		v := lanes(w.r, slot)
		for mm := m; mm != 0; mm &= mm - 1 {
			t := bits.TrailingZeros32(mm) & 31
			x := uint32(v[t])
			if s.trans {
				*half(rows[8*j+2*(t%4)], t/4) = uint16(x)
				*half(rows[8*j+2*(t%4)+1], t/4) = uint16(x >> 16)
			} else {
				*(*uint32)(unsafe.Add(rows[8*j+t/4], 4*(t%4))) = x
			}
		}
	}
	return true
}

// movmatrix transposes an 8×8 matrix of 16-bit elements held like an
// ldmatrix fragment: lane t receives rows 2(t%4) and 2(t%4)+1 of column
// t/4.
func (c *cta) movmatrix(w *warp, in *inst, m uint32) {
	a := *lanes(w.r, in.a)
	d := lanes(w.r, in.d)
	elem := func(r, col int) uint64 { return a[4*r+col/2] >> (16 * uint(col%2)) & 0xffff }
	for mm := m; mm != 0; mm &= mm - 1 {
		t := bits.TrailingZeros32(mm) & 31
		d[t] = elem(2*(t%4), t/4) | elem(2*(t%4)+1, t/4)<<16
	}
}
