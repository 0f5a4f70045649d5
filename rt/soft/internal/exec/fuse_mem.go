package exec

import (
	"math/bits"
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/devmem"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// Address folding: "add.s64 %x, %u, %v; ... ld.global [%x+imm]" (or st)
// where %x is read by that access alone runs as one dispatch. The add
// becomes a nop (so instruction counts, the budget and pcs stay as they
// are) and the access, opLdGAdd or opStGAdd, adds u and v itself: b = u,
// c = v (aux 1: v's lane 0, the add being a uniform-B twin). It writes the
// sum into %x as the add did, so that its general path (anything but an
// access in the cached allocation) is the plain ld or st, with the same
// faults. The add and the access are in one straight run (no branch target
// between them, nothing between that writes u or v, nothing but arithmetic,
// comparisons, nops and plain loads and stores), so every lane that runs
// the access ran the add, with the same u and v. Racecheck programs undo
// the folds (Program.folds). An atom.shared.add.u32 (or .s32) folds a
// 32-bit uniform-B add (histogram bins: the shared array's address plus a
// lane's offset) as opAtomSAdd: aux = u, c = v (lane 0).

// foldAddrs turns address folding on (tests compare with it off).
var foldAddrs = true

// memFold is an instruction as it was before folding.
type memFold struct {
	pc int32
	in inst
}

// foldWindow bounds how far before an access its address add is looked for.
const foldWindow = 12

// foldAddr folds the address adds of global accesses in the function f
// starting at pc start (targets: the pcs branches reach).
func (dc *decoder) foldAddr(start int32, f *ptx.Func, targets map[int32]bool) {
	if !foldAddrs {
		return
	}
	mentions := regMentions(f)
	code := dc.p.code
	for i := int(start); i < len(code); i++ {
		x := &code[i]
		if !foldable(x) || targets[int32(i)] {
			continue
		}
		j := dc.addrDef(start, i, targets)
		if j < 0 {
			continue
		}
		ad := &code[j]
		if x.op == opAtom && ad.op != opAdd32UB || x.op != opAtom && ad.op != opAdd64 && ad.op != opAdd64UB {
			continue
		}
		s, ok := dc.p.src[j].Operands[0].(*ptx.Reg)
		if !ok || mentions[s.Name] != 2 || dc.fixed[ad.d] {
			continue
		}
		if x.op != opStG32 && (x.d == ad.a || x.d == ad.b) {
			continue
		}
		dc.p.folds = append(dc.p.folds, memFold{int32(j), *ad}, memFold{int32(i), *x})
		u, v, uni := ad.a, ad.b, int32(0)
		if ad.op == opAdd64UB {
			uni = 1
		}
		*ad = inst{op: opNop, gp: -1}
		switch x.op {
		case opAtom:
			x.op, x.aux, x.c = opAtomSAdd, int32(u), v
			continue
		case opStG32:
			x.op = opStGAdd
		default:
			x.op = opLdGAdd
		}
		x.b, x.c, x.aux = u, v, uni
	}
}

// foldable reports whether x is an access whose address add foldAddr may
// fold: a global 32-bit store, or a plain scalar global load of 1 to 8
// bytes.
func foldable(x *inst) bool {
	switch x.op {
	case opLdG32, opStG32:
		return true
	case opLd:
		size := x.fl & 0xff
		return x.aux2 == spGlobal && x.e == 1 && x.fl&(memSext|memAtomic) == 0 && size <= 8 && size&(size-1) == 0
	case opAtom:
		return sharedAdd32(x)
	}
	return false
}

// sharedAdd32 reports whether x is a scalar atom.shared.add of 32-bit
// integers (whose c operand, the compare value of a cas, is unused).
func sharedAdd32(x *inst) bool {
	cls := int(x.fl >> 4)
	return x.op == opAtom && x.e <= 1 && x.aux2 == spShared && int(x.fl&15) == gpumath.AtAdd && (cls == gpumath.AcU32 || cls == gpumath.AcS32)
}

// addrDef is the pc of the unguarded 64-bit add defining the address
// register of the access at pc i, in i's straight run, with nothing
// between them writing its sources or the address, or -1.
func (dc *decoder) addrDef(start int32, i int, targets map[int32]bool) int {
	code := dc.p.code
	x := code[i].a
	var srcs [2]uint32
	found := -1
	for j := i - 1; j >= int(start) && j >= i-foldWindow; j-- {
		if targets[int32(j+1)] {
			// A branch reaches j+1 (i itself is no target): a lane may
			// run the access without what comes before it.
			return -1
		}
		y := &code[j]
		if (y.op == opAdd64 || y.op == opAdd64UB || y.op == opAdd32UB) && y.d == x {
			if y.gp >= 0 {
				return -1
			}
			found, srcs = j, [2]uint32{y.a, y.b}
			break
		}
		if w, ok := writes(y); !ok || w == x {
			return -1
		}
	}
	if found < 0 {
		return -1
	}
	for k := found + 1; k < i; k++ {
		if w, _ := writes(&code[k]); w != 0 && (w == srcs[0] || w == srcs[1]) {
			return -1
		}
	}
	return found
}

// writes is the register an instruction between a folded add and its
// access writes (0: none), and false for an instruction that may not be
// between them.
func writes(y *inst) (uint32, bool) {
	switch {
	case y.op == opNop, y.op == opStG32, y.op == opStS32, y.op == opStGAdd, y.op >= opCmp:
		// (y.op >= opCmp: comparisons write predicates only.)
		return 0, true
	case y.op >= opALU, y.op == opLdG32, y.op == opLdS32, y.op == opLdGAdd, y.op == opMov, y.op == opCvtII:
		return y.d, true
	case y.op == opLd && y.e == 1:
		return y.d, true
	}
	return 0, false
}

// addrs writes the folded address sum into the access's address register
// for the lanes of m.
func addrs(r []uint64, in *inst, m uint32) {
	x, u := lanes(r, in.a), lanes(r, in.b)
	if in.aux != 0 {
		v := r[in.c]
		for ; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m) & 31
			x[l] = u[l] + v
		}
		return
	}
	v := lanes(r, in.c)
	for ; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m) & 31
		x[l] = u[l] + v[l]
	}
}

// ldGAdd runs opLdGAdd. A full warp's lanes load in one pass while their
// addresses lie in the cached allocation (no address register written:
// only the access reads it); from the first lane outside it on, the sums
// are written and the general ld goes on.
func (c *cta) ldGAdd(w *warp, in *inst, m uint32) bool {
	r := w.r
	e := &c.gc[c.pc]
	size := uint64(in.fl & 0xff)
	if m != fullMask || e.n < size || size != 4 && size != 1 {
		addrs(r, in, m)
		if size == 4 {
			return c.ldG32(w, in, m)
		}
		return c.ld(w, in, m)
	}
	u, d := lanes(r, in.b), lanes(r, in.d)
	lo, p, lim := e.lo, e.ptr, e.n-size
	l := 0
	switch {
	case in.aux != 0 && size == 4:
		k := r[in.c] + uint64(in.imm) - lo
		for ; l < 32; l++ {
			off := u[l] + k
			if off > lim || off&3 != 0 {
				break
			}
			d[l] = uint64(devmem.Load32(unsafe.Add(p, off)))
		}
	case size == 4:
		v, k := lanes(r, in.c), uint64(in.imm)-lo
		for ; l < 32; l++ {
			off := u[l] + v[l] + k
			if off > lim || off&3 != 0 {
				break
			}
			d[l] = uint64(devmem.Load32(unsafe.Add(p, off)))
		}
	case in.aux != 0:
		k := r[in.c] + uint64(in.imm) - lo
		for ; l < 32; l++ {
			off := u[l] + k
			if off > lim {
				break
			}
			d[l] = devmem.Load(unsafe.Add(p, off), 1)
		}
	default:
		v, k := lanes(r, in.c), uint64(in.imm)-lo
		for ; l < 32; l++ {
			off := u[l] + v[l] + k
			if off > lim {
				break
			}
			d[l] = devmem.Load(unsafe.Add(p, off), 1)
		}
	}
	if l == 32 {
		return true
	}
	rest := fullMask &^ (1<<l - 1)
	addrs(r, in, rest)
	return c.ld(w, in, rest)
}

// stGAdd runs opStGAdd as ldGAdd runs opLdGAdd.
func (c *cta) stGAdd(w *warp, in *inst, m uint32) bool {
	r := w.r
	e := &c.gc[c.pc]
	if m != fullMask || e.n < 4 || e.ro {
		addrs(r, in, m)
		return c.stG32(w, in, m)
	}
	u, val := lanes(r, in.b), lanes(r, in.d)
	lo, p, lim := e.lo, e.ptr, e.n-4
	l := 0
	if in.aux != 0 {
		k := r[in.c] + uint64(in.imm) - lo
		for ; l < 32; l++ {
			off := u[l] + k
			if off > lim || off&3 != 0 {
				break
			}
			devmem.Store32(unsafe.Add(p, off), uint32(val[l]))
		}
	} else {
		v, k := lanes(r, in.c), uint64(in.imm)-lo
		for ; l < 32; l++ {
			off := u[l] + v[l] + k
			if off > lim || off&3 != 0 {
				break
			}
			devmem.Store32(unsafe.Add(p, off), uint32(val[l]))
		}
	}
	if l == 32 {
		return true
	}
	rest := fullMask &^ (1<<l - 1)
	addrs(r, in, rest)
	return c.st(w, in, rest)
}

// atomSAdd runs opAtomSAdd: atom's unsynchronised add on the CTA's own
// shared memory, lane by lane in lane order, the address the 32-bit sum;
// from the first lane outside the window on, the sums are written and
// the general atom goes on.
func (c *cta) atomSAdd(w *warp, in *inst, m uint32) bool {
	r := w.r
	u, b, d := lanes(r, uint32(in.aux)), lanes(r, in.b), lanes(r, in.d)
	v := r[in.c]
	if sh, n, imm := c.shPtr, c.shLen, uint64(in.imm); n >= 4 {
		lim := n - 4
		for ; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m) & 31
			addr := uint64(uint32(u[l]+v)) + imm
			if addr > lim || addr&3 != 0 {
				break
			}
			p := (*uint32)(unsafe.Add(sh, addr))
			old := *p
			*p = old + uint32(b[l])
			d[l] = uint64(old)
		}
	}
	if m == 0 {
		return true
	}
	x := lanes(r, in.a)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		x[l] = uint64(uint32(u[l] + v))
	}
	return c.atom(w, in, m)
}
