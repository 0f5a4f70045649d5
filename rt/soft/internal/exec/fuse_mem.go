package exec

import (
	"math/bits"
	"slices"
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/devmem"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// Address folding: "add.s64 %x, %u, %v; ... ld.global [%x+imm]" (or st)
// where %x is read by that access alone runs as one dispatch. The add
// becomes a nop (so instruction counts, the budget and pcs stay as they
// are) and the access, opLdGAdd or opStGAdd, adds u and v itself
// (Program.foldOps[aux]). Its general path (anything but a full warp's
// access in the cached allocation) writes the sum into %x as the add did
// and is the plain ld or st, with the same faults. The add and the access
// are in one straight run (no branch target between them, nothing between
// that writes u or v, nothing but arithmetic, comparisons, nops and plain
// loads and stores), so every lane that runs the access ran the add, with
// the same u and v. An atom.shared.add.u32 (or .s32) folds a 32-bit
// uniform-B add likewise (opAtomSAdd: histogram bins, the shared array's
// address plus a lane's offset). The integer op or conversion defining u
// (or v) moves into the access too when only the add reads it (cvt.s64.s32
// of an index, its shift or mul.wide): the access runs it first, for its
// own lanes, on sources nothing between writes. Racecheck programs undo
// the folds (Program.folds).

// foldAddrs turns address folding on (tests compare with it off).
var foldAddrs = true

// memFold is an instruction as it was before folding.
type memFold struct {
	pc int32
	in inst
}

// foldOp is what a folded access adds for its address.
type foldOp struct {
	u, v uint32 // the add's sources
	uni  bool   // v is read from lane 0 (the add is a uniform-B twin)
	pre  inst   // the moved definition of u or v (opNop: none)
}

// foldWindow bounds how far before an access its address add (and before
// that add the definition of its source) is looked for.
const foldWindow = 12

// foldAddr folds the address adds of global accesses in the function f
// starting at pc start (targets: the pcs branches reach).
func (dc *decoder) foldAddr(start int32, f *ptx.Func, targets map[int32]bool) {
	if !foldAddrs {
		return
	}
	mentions := regMentions(f)
	code := dc.p.code
	once := func(pc int, slot uint32) bool {
		s, ok := dc.p.src[pc].Operands[0].(*ptx.Reg)
		return ok && mentions[s.Name] == 2 && !dc.fixed[slot]
	}
	for i := int(start); i < len(code); i++ {
		x := &code[i]
		if !foldable(x) || targets[int32(i)] {
			continue
		}
		j := dc.defBefore(start, i, x.a, targets)
		if j < 0 {
			continue
		}
		ad := &code[j]
		if x.op == opAtom && ad.op != opAdd32UB || x.op != opAtom && ad.op != opAdd64 && ad.op != opAdd64UB ||
			ad.gp >= 0 || !once(j, ad.d) || x.op != opStG32 && (x.d == ad.a || x.d == ad.b) {
			continue
		}
		fo := foldOp{u: ad.a, v: ad.b, uni: ad.op != opAdd64, pre: inst{op: opNop}}
		dc.p.folds = append(dc.p.folds, memFold{int32(j), *ad}, memFold{int32(i), *x})
		*ad = inst{op: opNop, gp: -1}
		cands := []uint32{fo.u}
		if !fo.uni {
			cands = append(cands, fo.v)
		}
		for _, src := range cands {
			k := dc.defBefore(start, j, src, targets)
			if k < 0 {
				continue
			}
			y := &code[k]
			if y.gp >= 0 || !(y.op >= opALU && y.op < opCmp || y.op == opCvtII) || !once(k, y.d) {
				continue
			}
			srcs := genSources(y)
			if dc.written(k+1, i, srcs) {
				continue
			}
			dc.p.folds = append(dc.p.folds, memFold{int32(k), *y})
			fo.pre = *y
			*y = inst{op: opNop, gp: -1}
			break
		}
		x.aux = int32(len(dc.p.foldOps))
		dc.p.foldOps = append(dc.p.foldOps, fo)
		switch x.op {
		case opAtom:
			x.op = opAtomSAdd
		case opStG32:
			x.op = opStGAdd
		default:
			x.op = opLdGAdd
		}
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

// defBefore is the pc of the instruction that writes slot x for the one
// at pc i, in i's straight run, with only instructions that writes allows
// between them and none of those writing the definition's sources
// (genSources), or -1.
func (dc *decoder) defBefore(start int32, i int, x uint32, targets map[int32]bool) int {
	code := dc.p.code
	for j := i - 1; j >= int(start) && j >= i-foldWindow; j-- {
		if targets[int32(j+1)] {
			// A branch reaches j+1 (i itself is no target): a lane may
			// run i without what comes before.
			return -1
		}
		y := &code[j]
		w, ok := writes(y)
		if !ok {
			return -1
		}
		if w == x {
			if y.op < opALU || y.op >= opCmp && y.op != opCvtII || dc.written(j+1, i, genSources(y)) {
				return -1
			}
			return j
		}
	}
	return -1
}

// written reports whether an instruction in [from, to) writes one of srcs.
func (dc *decoder) written(from, to int, srcs []uint32) bool {
	for k := from; k < to; k++ {
		if w, _ := writes(&dc.p.code[k]); w != 0 && slices.Contains(srcs, w) {
			return true
		}
	}
	return false
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

// addrs writes the folded address sums into the access's address register,
// in every lane: only the access reads the register, and only in its own
// lanes, so a branch-free loop costs less than picking the lanes of m.
func addrs(r []uint64, in *inst, f *foldOp) {
	x, u := lanes(r, in.a), lanes(r, f.u)
	if f.uni {
		v := r[f.v]
		for l := range x {
			x[l] = u[l] + v
		}
		return
	}
	v := lanes(r, f.v)
	for l := range x {
		x[l] = u[l] + v[l]
	}
}

// pure reports that f's moved definition is lane-pure (aluDense, or an
// integer cvt without .sat), so that it may run on lanes that exited.
func (f *foldOp) pure() bool {
	switch op := f.pre.op; {
	case op == opNop:
		return true
	case op == opCvtII:
		return f.pre.imm&(1<<18) == 0
	case op >= opALU && op < opCmp:
		return aluDense[op%opCmp]
	}
	return false
}

// run runs a folded access's moved definition for the lanes of m.
func (f *foldOp) run(r []uint64, m uint32) {
	switch {
	case f.pre.op == opNop:
	case f.pre.op == opCvtII:
		cvtII(&f.pre, r, m)
	default:
		execALU(&f.pre, r, m)
	}
}

// ldGAdd runs opLdGAdd. The lanes of m load in one pass while their
// addresses lie in the cached allocation (no address register written:
// only the access reads it); from the first lane outside it on, the sums
// are written and the general ld goes on.
func (c *cta) ldGAdd(w *warp, in *inst, m uint32) bool {
	r := w.r
	f := &c.p.foldOps[in.aux]
	run := warpAsm && f.uni && (m == fullMask || w.restExited(m) && f.pure())
	if run {
		f.run(r, fullMask)
	} else {
		f.run(r, m)
	}
	e := &c.gc[c.pc]
	size := uint64(in.fl & 0xff)
	if run && size == 4 && e.n >= 128 && e.n <= maxRotN {
		// One 128-byte run (a coalesced access) in one assembly step;
		// lanes that have exited may take part (runRead).
		u, d := lanes(r, f.u), lanes(r, in.d)
		if off := u[0] + r[f.v] + uint64(in.imm) - e.lo; inWord(off, (e.n-4)>>2-31) && loadRun32(d, u, unsafe.Add(e.ptr, off)) {
			return true
		}
	}
	if run && size == 1 && e.n >= 32 {
		// The same for bytes: one 32-byte run, zero-extended as below.
		u, d := lanes(r, f.u), lanes(r, in.d)
		if off := u[0] + r[f.v] + uint64(in.imm) - e.lo; off <= e.n-32 && loadRun8(d, u, unsafe.Add(e.ptr, off)) {
			return true
		}
	}
	if e.n < size || size != 4 && size != 1 {
		addrs(r, in, f)
		if size == 4 {
			return c.ldG32(w, in, m)
		}
		return c.ld(w, in, m)
	}
	u, d := lanes(r, f.u), lanes(r, in.d)
	lo, p, lim := e.lo, e.ptr, e.n-size
	l := 0
	switch {
	case f.uni && size == 4 && m == fullMask && e.n <= maxRotN:
		// A full warp: one test a lane (inWord), no mask bits.
		k, q := r[f.v]+uint64(in.imm)-lo, lim>>2
		for ; l < 32; l++ {
			off := u[l] + k
			if !inWord(off, q) {
				break
			}
			d[l] = uint64(devmem.Load32(unsafe.Add(p, off)))
		}
	case f.uni && size == 4:
		k := r[f.v] + uint64(in.imm) - lo
		for ; l < 32; l++ {
			if m&(1<<l) == 0 {
				continue
			}
			off := u[l] + k
			if off > lim || off&3 != 0 {
				break
			}
			d[l] = uint64(devmem.Load32(unsafe.Add(p, off)))
		}
	case size == 4:
		v, k := lanes(r, f.v), uint64(in.imm)-lo
		for ; l < 32; l++ {
			if m&(1<<l) == 0 {
				continue
			}
			off := u[l] + v[l] + k
			if off > lim || off&3 != 0 {
				break
			}
			d[l] = uint64(devmem.Load32(unsafe.Add(p, off)))
		}
	case f.uni:
		k := r[f.v] + uint64(in.imm) - lo
		for ; l < 32; l++ {
			if m&(1<<l) == 0 {
				continue
			}
			off := u[l] + k
			if off > lim {
				break
			}
			d[l] = devmem.Load(unsafe.Add(p, off), 1)
		}
	default:
		v, k := lanes(r, f.v), uint64(in.imm)-lo
		for ; l < 32; l++ {
			if m&(1<<l) == 0 {
				continue
			}
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
	rest := m &^ (1<<l - 1)
	addrs(r, in, f)
	return c.ld(w, in, rest)
}

// stGAdd runs opStGAdd as ldGAdd runs opLdGAdd.
func (c *cta) stGAdd(w *warp, in *inst, m uint32) bool {
	r := w.r
	f := &c.p.foldOps[in.aux]
	f.run(r, m)
	e := &c.gc[c.pc]
	if e.n < 4 || e.ro {
		addrs(r, in, f)
		return c.stG32(w, in, m)
	}
	u, val := lanes(r, f.u), lanes(r, in.d)
	lo, p, lim := e.lo, e.ptr, e.n-4
	l := 0
	if f.uni && m == fullMask && e.n <= maxRotN {
		k, q := r[f.v]+uint64(in.imm)-lo, lim>>2
		if off := u[0] + k; warpAsm && q >= 31 && inWord(off, q-31) && storeRun32(unsafe.Add(p, off), u, val) {
			l = 32
		}
		for ; l < 32; l++ {
			off := u[l] + k
			if !inWord(off, q) {
				break
			}
			devmem.Store32(unsafe.Add(p, off), uint32(val[l]))
		}
	} else if f.uni {
		k := r[f.v] + uint64(in.imm) - lo
		for ; l < 32; l++ {
			if m&(1<<l) == 0 {
				continue
			}
			off := u[l] + k
			if off > lim || off&3 != 0 {
				break
			}
			devmem.Store32(unsafe.Add(p, off), uint32(val[l]))
		}
	} else {
		v, k := lanes(r, f.v), uint64(in.imm)-lo
		for ; l < 32; l++ {
			if m&(1<<l) == 0 {
				continue
			}
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
	rest := m &^ (1<<l - 1)
	addrs(r, in, f)
	return c.st(w, in, rest)
}

// atomSAdd runs opAtomSAdd: atom's unsynchronised add on the CTA's own
// shared memory, lane by lane in lane order, the address the 32-bit sum;
// from the first lane outside the window on, the sums are written and
// the general atom goes on.
func (c *cta) atomSAdd(w *warp, in *inst, m uint32) bool {
	r := w.r
	f := &c.p.foldOps[in.aux]
	f.run(r, m)
	u, b, d := lanes(r, f.u), lanes(r, in.b), lanes(r, in.d)
	v := r[f.v]
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
