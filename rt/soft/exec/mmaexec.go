// Executing the tensor-core instructions for a warp: mma and wmma.mma
// gather the fragments into matrices, compute (mma.go) and scatter D;
// wmma.load/store move each lane's fragment elements between registers and
// memory with the layout and stride; ldmatrix, stmatrix and movmatrix move
// 8×8 matrices of 16-bit elements between rows in shared memory (or
// registers) and the lanes that hold them. Like the warp collectives, each
// runs once for the warp: the lanes' registers are read before any is
// written, and lanes outside the mask keep their registers.

package exec

import (
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
	"math/bits"
	"unsafe"
)

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
