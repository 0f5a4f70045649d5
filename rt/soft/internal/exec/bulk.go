// Bulk copies: cp.async.bulk between global memory and shared memory (the
// CTA's own, or any CTA's of the cluster, with .multicast::cluster to
// several), cp.reduce.async.bulk, and their .tensor forms, which copy a box
// of a tensor that a tensor map (rt.TensorMap, tensormap.go) describes. A
// copy happens when it is issued; one into shared memory then performs the
// complete-tx of its bytes on its mbarrier, which a valid program cannot
// tell from a copy that completes later (it may only read the data after
// the barrier's phase completes), so the .bulk_group commits and waits have
// nothing to wait for.

package exec

import (
	"math/bits"
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/devmem"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// Bulk operation kinds.
const (
	bkCopy         = iota // cp.async.bulk
	bkReduce              // cp.reduce.async.bulk
	bkTensorLoad          // cp.async.bulk.tensor, global → shared::cluster
	bkTensorStore         // cp.async.bulk.tensor, shared::cta → global
	bkTensorReduce        // cp.reduce.async.bulk.tensor
	bkStAsync             // st.async: a store into a CTA of the cluster, then its complete-tx
	bkRedAsync            // red.async: the same for a reduction
	bkTmapReplace         // tensormap.replace (tensormap_replace.go)
)

// bulkOp is a decoded bulk instruction (opBulk's aux indexes program.bulks).
type bulkOp struct {
	kind int
	// dst and src: base register and offset, state space (spGlobal,
	// spShared, spCluster).
	dst, src        uint32
	dstOff, srcOff  int64
	dstSpace, srcSp int
	size            uint32 // register with the byte count (bkCopy, bkReduce)
	mbar            uint32 // mbarrier address register (0: none)
	mbarOff         int64
	mask            uint32 // .multicast::cluster CTA mask register (0: none)
	multicast       bool
	red, redCls     int // reduction (atAdd…) and operand class (acU32…)
	dims            int
	coords          []uint32 // tensor coordinate registers, innermost first
	tmap            uint32   // tensor map generic address register
	tmapOff         int64
	vals            []uint32 // st.async/red.async: the value registers
	elem            uint64   // … and the element size
	tmr             *tmapReplace
}

// bulk runs a bulk copy for each lane of m, in lane order; false means a
// fault.
func (c *cta) bulk(w *warp, in *inst, m uint32) bool {
	op := &c.p.bulks[in.aux]
	r := w.r
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		at := func(reg uint32, off int64) uint64 { return r[reg+uint32(l)] + uint64(off) }
		var ok bool
		switch op.kind {
		case bkCopy, bkReduce:
			ok = c.bulkCopy(w, op, l, at(op.dst, op.dstOff), at(op.src, op.srcOff), r[op.size+uint32(l)]&0xffffffff)
		case bkStAsync, bkRedAsync:
			ok = c.asyncStore(w, op, l, at(op.dst, op.dstOff)&0xffffffff)
		case bkTmapReplace:
			ok = c.tmapReplaceRun(w, op, l)
		default:
			ok = c.tensorCopy(w, op, l)
		}
		if !ok {
			return false
		}
	}
	return true
}

// targets is the CTAs a copy into shared::cluster memory at dst reaches:
// dst's own, or those of a multicast's mask (at dst's offset in each).
func (c *cta) targets(w *warp, op *bulkOp, l int, dst uint64) ([]*cta, uint64, bool) {
	t, off, msg := c.clusterTarget(dst & 0xffffffff)
	if t == nil {
		c.memFault(dst, 16, spShared, true, l, msg)
		return nil, 0, false
	}
	if !op.multicast {
		return []*cta{t}, off, true
	}
	mask := w.r[op.mask+uint32(l)] & 0xffff
	var ts []*cta
	for ; mask != 0; mask &= mask - 1 {
		r := bits.TrailingZeros64(mask)
		if r >= len(c.cl.ctas) {
			c.fault = &fault{kind: fInvalid, warp: w.id, lane: l, pc: c.pc,
				msg: sprintf("multicast to the CTA of rank %d, but the cluster has %d", r, len(c.cl.ctas))}
			return nil, 0, false
		}
		ts = append(ts, c.cl.ctas[r])
	}
	return ts, off, true
}

// sharedSpan is n bytes of CTA t's shared memory at off, or nil after a
// fault.
func (c *cta) sharedSpan(t *cta, off, n uint64, write bool, l int) []byte {
	if off >= t.shLen && n > 0 || n > t.shLen-off {
		c.memFault(off, n, spShared, write, l, sprintf("a bulk copy of %d bytes at shared address %#x runs past the CTA's %s", n, off, sharedDesc(t.shLen)))
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(t.shPtr, off)), n)
}

// globalSpan is n bytes of global memory at addr, or nil after a fault.
func (c *cta) globalSpan(addr, n uint64, write bool, l int) []byte {
	if n == 0 {
		return []byte{}
	}
	p := c.gptr(addr, n, write, l)
	if p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}

func (c *cta) misaligned(w *warp, l int, addr, n uint64, space int, write bool, what string) bool {
	c.fault = &fault{kind: fMisaligned, warp: w.id, lane: l, pc: c.pc, addr: addr, size: n, space: space, write: write,
		msg: sprintf("%s %#x is not a multiple of 16", what, addr)}
	return false
}

// bulkCopy copies (or reduces) n bytes from src to dst for lane l.
func (c *cta) bulkCopy(w *warp, op *bulkOp, l int, dst, src, n uint64) bool {
	switch {
	case n%16 != 0:
		return c.misaligned(w, l, n, n, op.dstSpace, true, "bulk copy size")
	case dst%16 != 0:
		return c.misaligned(w, l, dst, n, op.dstSpace, true, "bulk copy destination")
	case src%16 != 0:
		return c.misaligned(w, l, src, n, op.srcSp, false, "bulk copy source")
	}
	var from []byte
	if op.srcSp == spGlobal {
		from = c.globalSpan(src, n, false, l)
	} else {
		from = c.sharedSpan(c, src&0xffffffff, n, false, l)
	}
	if from == nil {
		return false
	}
	if op.dstSpace == spGlobal {
		to := c.globalSpan(dst, n, true, l)
		if to == nil {
			return false
		}
		c.bulkMove(to, from, op)
		return true
	}
	ts, off, ok := c.targets(w, op, l, dst)
	if !ok {
		return false
	}
	for _, t := range ts {
		to := c.sharedSpan(t, off, n, true, l)
		if to == nil {
			return false
		}
		c.bulkMove(to, from, op)
		if op.mbar != 0 && !t.completeTx(c, w, op, l, n) {
			return false
		}
	}
	return true
}

// completeTx performs a copy's complete-tx of n bytes on the mbarrier in
// t at the offset of the instruction's mbarrier operand (issued by c).
func (t *cta) completeTx(c *cta, w *warp, op *bulkOp, l int, n uint64) bool {
	// The barrier is in the CTA the data went to (each one's, for a
	// multicast), at the operand's offset.
	off := (w.r[op.mbar+uint32(l)] + uint64(op.mbarOff)) & clusterOffMask
	return c.mbCompleteTx(w, uint64(t.rank+1)<<clusterRankShift|off, n, l)
}

// bulkMove copies from into to, or reduces it into to elementwise.
func (c *cta) bulkMove(to, from []byte, op *bulkOp) {
	if op.kind != bkReduce && op.kind != bkTensorReduce {
		devmem.Copy(to, from)
		return
	}
	size := int(atomSize[op.redCls])
	for i := 0; i+size <= len(to); i += size {
		p := unsafe.Pointer(&to[i])
		q := unsafe.Pointer(&from[i])
		switch size {
		case 4:
			gpumath.Atomic32((*uint32)(p), op.red, op.redCls, uint32(devmem.Load(q, 4)), 0)
		case 8:
			gpumath.Atomic64((*uint64)(p), op.red, op.redCls, devmem.Load(q, 8), 0)
		default:
			gpumath.Atomic16(p, op.red, op.redCls, uint16(devmem.Load(q, 2)), 0)
		}
	}
}

// Decoding.

var bulkRedOps = map[string]int{"add": gpumath.AtAdd, "min": gpumath.AtMin, "max": gpumath.AtMax, "inc": gpumath.AtInc, "dec": gpumath.AtDec,
	"and": gpumath.AtAnd, "or": gpumath.AtOr, "xor": gpumath.AtXor}

// bulkInstr decodes cp.async.bulk* and cp.reduce.async.bulk*.
func (dc *decoder) bulkInstr(in *ptx.Instr, sc *scope, m modset, x inst) {
	ops := in.Operands
	if m.flags["commit_group"] || m.flags["wait_group"] || m.flags["prefetch"] {
		// Copies complete when issued; L2 prefetches change nothing.
		x.op = opNop
		dc.emit(in, x)
		return
	}
	op := bulkOp{kind: bkCopy, red: -1}
	withMbar := false
	reduce := m.flags["reduce"]
	tensor := m.flags["tensor"]
	// The first state space named is the destination's.
	var spaces []int
	for _, f := range m.list {
		switch f {
		case "global":
			spaces = append(spaces, spGlobal)
		case "shared::cta", "shared":
			spaces = append(spaces, spShared)
		case "shared::cluster":
			spaces = append(spaces, spCluster)
		case "1d", "2d", "3d", "4d", "5d":
			op.dims = int(f[0] - '0')
		case "tile":
		case "im2col", "im2col_no_offs", "tile::gather4", "tile::scatter4", "im2col::w", "im2col::w::128":
			dc.failIn(in, "the .%s load mode is not supported by the soft backend (tile mode is)", f)
		case "multicast::cluster":
			op.multicast = true
		case "mbarrier::complete_tx::bytes":
			withMbar = true
		case "async", "bulk", "reduce", "tensor", "bulk_group", "L2::cache_hint", "noftz", "cta_group::1", "cta_group::2":
		default:
			if k, ok := bulkRedOps[f]; ok && reduce {
				op.red = k
				continue
			}
			if !ignorable[f] {
				dc.failIn(in, "modifier .%s is not supported", f)
			}
		}
	}
	if len(spaces) != 2 {
		dc.failIn(in, "expected a destination and a source state space")
	}
	op.dstSpace, op.srcSp = spaces[0], spaces[1]
	switch [2]int{op.dstSpace, op.srcSp} {
	case [2]int{spCluster, spGlobal}, [2]int{spShared, spGlobal}, [2]int{spCluster, spShared}, [2]int{spGlobal, spShared}:
	default:
		dc.failIn(in, "copies from .%s to .%s are not a bulk copy", spaceNames[op.srcSp], spaceNames[op.dstSpace])
	}
	if op.dstSpace == spShared {
		op.dstSpace = spCluster // the CTA's own, as a .shared::cluster address
	}
	if reduce {
		op.kind = bkReduce
		t := m.typ()
		cls, ok := atomClasses[t]
		if op.red < 0 || !ok {
			dc.failIn(in, "unsupported bulk reduction")
		}
		if (t == ptx.F16 || t == ptx.BF16) && op.red == gpumath.AtAdd && !m.flags["noftz"] {
			dc.failIn(in, ".add.%s needs .noftz", t)
		}
		op.redCls = cls
	}
	if !withMbar && op.dstSpace != spGlobal {
		dc.failIn(in, "a bulk copy into shared memory completes on an mbarrier (.mbarrier::complete_tx::bytes)")
	}
	addr := func(o ptx.Operand, space int) (uint32, int64) {
		if space == spCluster {
			space = spShared
		}
		b, off, _ := dc.memAddr(in, sc, o, space)
		return b, off
	}
	// Trailing operands in order: [mbar], ctaMask, cache policy.
	rest := func(i int) {
		if withMbar {
			if i >= len(ops) {
				dc.failIn(in, "missing the mbarrier operand")
			}
			op.mbar, op.mbarOff = addr(ops[i], spShared)
			i++
		}
		if op.multicast {
			if i >= len(ops) {
				dc.failIn(in, "missing the CTA mask of .multicast::cluster")
			}
			op.mask = dc.src(in, sc, ops[i], ptx.U16)
			i++
		}
		if m.flags["L2::cache_hint"] {
			i++
		}
		if i != len(ops) {
			dc.failIn(in, "wrong number of operands (%d)", len(ops))
		}
	}
	if !tensor {
		if len(ops) < 3 {
			dc.failIn(in, "wrong number of operands (%d)", len(ops))
		}
		op.dst, op.dstOff = addr(ops[0], op.dstSpace)
		op.src, op.srcOff = addr(ops[1], op.srcSp)
		op.size = dc.src(in, sc, ops[2], ptx.U32)
		rest(3)
	} else {
		if op.dims == 0 {
			dc.failIn(in, "missing the tensor's dimension (.1d to .5d)")
		}
		tm, box := 0, 1
		switch {
		case op.dstSpace == spGlobal:
			op.kind = bkTensorStore
			if reduce {
				op.kind = bkTensorReduce
			}
		case reduce:
			dc.failIn(in, "tensor reductions write global memory")
		default:
			op.kind = bkTensorLoad
			tm, box = 1, 0
		}
		if len(ops) < 2 {
			dc.failIn(in, "wrong number of operands (%d)", len(ops))
		}
		dc.tensorOperand(in, sc, ops[tm], &op)
		if op.kind == bkTensorLoad {
			op.dst, op.dstOff = addr(ops[box], op.dstSpace)
		} else {
			op.src, op.srcOff = addr(ops[box], op.srcSp)
		}
		rest(2)
	}
	x.op, x.aux = opBulk, int32(len(dc.p.bulks))
	dc.p.bulks = append(dc.p.bulks, op)
	dc.emit(in, x)
}

// tensorOperand decodes [tensorMap, {c0, c1, ...}].
func (dc *decoder) tensorOperand(in *ptx.Instr, sc *scope, o ptx.Operand, op *bulkOp) {
	t, ok := o.(*ptx.Tuple)
	if !ok || len(t.Elems) != 2 {
		dc.failIn(in, "expected [tensorMap, {coordinates}]")
	}
	switch b := t.Elems[0].(type) {
	case *ptx.Reg:
		op.tmap = dc.src(in, sc, b, ptx.U64)
	case *ptx.Sym:
		s := dc.resolve(sc, b.Name, b.Pos)
		switch s.kind {
		case skKernelParam:
			// The parameter itself, as a generic address of the .param space.
			op.tmap, op.tmapOff = dc.constSlot(0), int64(paramWin)+int64(s.off)
		case skGlobal:
			op.tmap = dc.symSlot(s.vi)
		default:
			dc.failIn(in, "%s cannot hold a tensor map", b.Name)
		}
	default:
		dc.failIn(in, "expected a tensor map address")
	}
	v, ok := t.Elems[1].(*ptx.Vec)
	if !ok {
		v = &ptx.Vec{Elems: []ptx.Operand{t.Elems[1]}}
	}
	if len(v.Elems) != op.dims {
		dc.failIn(in, "%d coordinates for a %dd tensor", len(v.Elems), op.dims)
	}
	for _, e := range v.Elems {
		op.coords = append(op.coords, dc.src(in, sc, e, ptx.S32))
	}
}

// asyncStore runs lane l's st.async or red.async: the values go to (or
// are reduced into) a CTA of the cluster, whose mbarrier then counts their
// bytes.
func (c *cta) asyncStore(w *warp, op *bulkOp, l int, dst uint64) bool {
	n := op.elem * uint64(len(op.vals))
	p := c.ptr(w, spCluster, dst, n, true, l)
	if p == nil {
		return false
	}
	for i, v := range op.vals {
		q := unsafe.Add(p, uint64(i)*op.elem)
		x := w.r[v+uint32(l)]
		switch {
		case op.kind == bkStAsync:
			store(q, uint16(op.elem), x, false)
		case op.elem == 8:
			gpumath.Atomic64((*uint64)(q), op.red, op.redCls, x, 0)
		default:
			gpumath.Atomic32((*uint32)(q), op.red, op.redCls, uint32(x), 0)
		}
	}
	t, _, msg := c.clusterTarget(dst)
	if t == nil {
		c.memFault(dst, n, spShared, true, l, msg)
		return false
	}
	return t.completeTx(c, w, op, l, n)
}

// asyncStoreInstr decodes st.async and red.async.
func (dc *decoder) asyncStoreInstr(in *ptx.Instr, sc *scope, m modset, x inst) {
	ops := in.Operands
	op := bulkOp{kind: bkStAsync, dstSpace: spCluster, red: -1}
	if in.Op == "red" {
		op.kind = bkRedAsync
	}
	n := 1
	for _, f := range m.list {
		switch f {
		case "async", "weak", "relaxed", "cluster", "shared::cluster", "mbarrier::complete_tx::bytes":
		case "v2":
			n = 2
		case "v4":
			n = 4
		default:
			if k, ok := bulkRedOps[f]; ok && op.kind == bkRedAsync {
				op.red = k
				continue
			}
			dc.failIn(in, "modifier .%s is not supported", f)
		}
	}
	t := m.typ()
	op.elem = uint64(t.Size())
	if op.elem != 4 && op.elem != 8 || op.kind == bkRedAsync && (op.red < 0 || n != 1) {
		dc.failIn(in, "unsupported form")
	}
	if op.kind == bkRedAsync {
		op.redCls = atomClasses[t]
	}
	dc.nops(in, 3)
	op.dst, op.dstOff, _ = dc.memAddr(in, sc, ops[0], spShared)
	op.vals = dc.vecRegs(in, sc, ops[1], t, false)
	if len(op.vals) != n {
		dc.failIn(in, "expected %d values", n)
	}
	op.mbar, op.mbarOff, _ = dc.memAddr(in, sc, ops[2], spShared)
	x.op, x.aux = opBulk, int32(len(dc.p.bulks))
	dc.p.bulks = append(dc.p.bulks, op)
	dc.emit(in, x)
}

// tensormapInstr decodes tensormap.cp_fenceproxy, a 128-byte copy of a
// tensor map from shared to global memory (the fence is implied: soft has
// one memory). tensormap.replace is refused: the PTX ISA names the fields
// it changes but not how their values are encoded, and no recording shows
// it.
func (dc *decoder) tensormapInstr(in *ptx.Instr, sc *scope, m modset, x inst) {
	if !m.flags["cp_fenceproxy"] {
		dc.failIn(in, "tensormap.replace is not supported by the soft backend; build the map on the host with tensormap.EncodeTiled")
	}
	if !m.flags["global"] || !m.flags["shared::cta"] {
		dc.failIn(in, "expected .global.shared::cta")
	}
	dc.nops(in, 3)
	op := bulkOp{kind: bkCopy, dstSpace: spGlobal, srcSp: spShared, red: -1}
	op.dst, op.dstOff, _ = dc.memAddr(in, sc, in.Operands[0], spGlobal)
	op.src, op.srcOff, _ = dc.memAddr(in, sc, in.Operands[1], spShared)
	op.size = dc.src(in, sc, in.Operands[2], ptx.U32)
	x.op, x.aux = opBulk, int32(len(dc.p.bulks))
	dc.p.bulks = append(dc.p.bulks, op)
	dc.emit(in, x)
}
