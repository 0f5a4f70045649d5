// Memory access from the executor: a lane's address in a state space becomes
// a host pointer only after the bounds, alignment, context and read-only
// checks that make every launch a memcheck run; ld, st, ld.param and
// cp.async; and the specialised 32-bit loads and stores (and the
// ld-ld-fma superinstruction) the loop dispatches to. It is apart from the
// loop because the loop only asks whether an access succeeded, never where
// it landed. Atomics are in atom.go.

package exec

import (
	"math"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/cugen/cugen/rt/soft/internal/devmem"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

type gcache struct {
	lo, n uint64
	ptr   unsafe.Pointer
	ro    bool
}

func spaceOfGeneric(a uint64) int {
	switch {
	case a-sharedWin < winSize:
		return spShared
	case a-localWin < winSize:
		return spLocal
	case a-paramWin < winSize:
		return spParam
	}
	return spGlobal
}

// gptr resolves a global (or constant) address for an access of n bytes.
func (c *cta) gptr(addr, n uint64, write bool, lane int) unsafe.Pointer {
	e := &c.gc[c.pc]
	off := addr - e.lo
	if off < e.n && n <= e.n-off && !(write && e.ro) {
		return unsafe.Add(e.ptr, off)
	}
	return c.gslow(addr, n, write, lane)
}

func (c *cta) gslow(addr, n uint64, write bool, lane int) unsafe.Pointer {
	sp := c.l.Mem
	a := sp.Live(addr, n)
	if a == nil {
		c.memFault(addr, n, spGlobal, write, lane, sp.describe(addr, n))
		return nil
	}
	if a.Owner != nil && a.Owner != c.l.Host {
		if why := c.l.Host.Reach(a); why != "" {
			c.memFault(addr, n, spGlobal, write, lane, sprintf("address %#x belongs to an allocation of another context (%s), %s", addr, a.What, why))
			return nil
		}
	}
	if write && a.ReadOnly {
		c.memFault(addr, n, spGlobal, write, lane, sprintf("address %#x is in read-only constant memory (%s)", addr, a.What))
		return nil
	}
	ptr := unsafe.Pointer(a.ptr.Load())
	if ptr == nil { // freed since Live found it
		c.memFault(addr, n, spGlobal, write, lane, sp.describe(addr, n))
		return nil
	}
	c.gc[c.pc] = gcache{a.Base, a.Size, ptr, a.ReadOnly}
	return unsafe.Add(ptr, addr-a.Base)
}

func (c *cta) memFault(addr, n uint64, space int, write bool, lane int, msg string) {
	c.fault = &fault{kind: fIllegalAddress, warp: c.w.id, lane: lane, pc: c.pc, addr: addr, size: n, space: space, write: write, msg: msg}
}

// ptr resolves lane l's access of n bytes at addr in a state space and
// checks alignment; nil means a fault was recorded.
func (c *cta) ptr(w *warp, space int, addr, n uint64, write bool, l int) unsafe.Pointer {
	if addr&(n-1) != 0 && n&(n-1) == 0 {
		c.fault = &fault{kind: fMisaligned, warp: w.id, lane: l, pc: c.pc, addr: addr, size: n, space: space, write: write,
			msg: sprintf("address %#x is not aligned to the access size of %d bytes", addr, n)}
		return nil
	}
	switch space {
	case spGlobal, spConst:
		return c.gptr(addr, n, write, l)
	case spShared:
		if addr >= c.shLen || n > c.shLen-addr {
			if addr>>clusterRankShift == uint64(c.rank)+1 {
				// The CTA's own shared memory, as mapa names it.
				return c.clusterPtr(w, addr, n, write, l)
			}
			c.memFault(addr, n, space, write, l, sprintf("shared address %#x is out of bounds: the CTA has %s", addr, sharedDesc(c.shLen)))
			return nil
		}
		return unsafe.Add(c.shPtr, addr)
	case spCluster:
		if addr < c.shLen && n <= c.shLen-addr {
			return unsafe.Add(c.shPtr, addr)
		}
		return c.clusterPtr(w, addr, n, write, l)
	case spLocal:
		if addr >= w.lstride || n > w.lstride-addr {
			if addr >= dynBase {
				return c.dynPtr(w, addr, n, write, l)
			}
			c.memFault(addr, n, space, write, l, sprintf("local address %#x is out of bounds: the thread has %d bytes of local memory", addr, w.lstride))
			return nil
		}
		return unsafe.Add(w.lptr, uint64(l)*w.lstride+addr)
	case spParam:
		ps := uint64(len(c.l.Params))
		if write {
			c.memFault(addr, n, space, write, l, "kernel parameters are read-only")
			return nil
		}
		if addr >= ps || n > ps-addr {
			c.memFault(addr, n, space, write, l, sprintf("parameter address %#x is outside the %d-byte parameter buffer", addr, ps))
			return nil
		}
		return unsafe.Add(c.l.paramPtr, addr)
	}
	switch spaceOfGeneric(addr) {
	case spShared:
		return c.ptr(w, spCluster, addr-sharedWin, n, write, l)
	case spLocal:
		return c.ptr(w, spLocal, addr-localWin, n, write, l)
	case spParam:
		return c.ptr(w, spParam, addr-paramWin, n, write, l)
	}
	if addr == 0 || addr < 0x1000 {
		c.memFault(addr, n, spGeneric, write, l, sprintf("null pointer dereference (address %#x)", addr))
		return nil
	}
	return c.gptr(addr, n, write, l)
}

// load is the size-byte value at p, which an ld with a memory-ordering
// qualifier (atomicAccess: .volatile, .relaxed, .acquire) reads through
// sync/atomic, and any other through devmem (plainly, but for -race).
func load(p unsafe.Pointer, size uint16, atomicAccess bool) uint64 {
	if atomicAccess {
		switch size {
		case 4:
			return uint64(atomic.LoadUint32((*uint32)(p)))
		case 8:
			return atomic.LoadUint64((*uint64)(p))
		}
	}
	return devmem.Load(p, size)
}

// store writes the size-byte value v at p, as load reads it.
func store(p unsafe.Pointer, size uint16, v uint64, atomicAccess bool) {
	if atomicAccess {
		switch size {
		case 4:
			atomic.StoreUint32((*uint32)(p), uint32(v))
			return
		case 8:
			atomic.StoreUint64((*uint64)(p), v)
			return
		}
	}
	devmem.Store(p, size, v)
}

func (c *cta) ld(w *warp, in *inst, m uint32) bool {
	size := in.fl & 0xff
	cnt := in.e
	tot := uint64(size) * uint64(cnt)
	base := lanes(w.r, in.a)
	at := in.fl&memAtomic != 0
	space := int(in.aux2)
	// Fast path: a scalar global load of 4 bytes by the whole warp.
	if cnt == 1 && size == 4 && !at && (space == spGlobal || space == spShared) && in.fl&memSext == 0 {
		d := lanes(w.r, in.d)
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm) & 31
			addr := base[l] + uint64(in.imm)
			var p unsafe.Pointer
			if space == spShared && addr&3 == 0 && addr < c.shLen && c.shLen-addr >= 4 {
				p = unsafe.Add(c.shPtr, addr)
			} else if p = c.ptr(w, space, addr, 4, false, l); p == nil {
				return false
			}
			d[l] = uint64(devmem.Load32(p))
		}
		return true
	}
	// A scalar global load (bytes, halves, doublewords) whose active lanes
	// all address, aligned, the instruction's cached allocation.
	if e := &c.gc[c.pc]; cnt == 1 && !at && space == spGlobal && tot <= e.n && size&(size-1) == 0 &&
		inCache(base, m, uint64(in.imm)-e.lo, e.n-tot, tot-1) {
		d, imm := lanes(w.r, in.d), uint64(in.imm)
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm) & 31
			v := devmem.Load(unsafe.Add(e.ptr, base[l]+imm-e.lo), size)
			v = loadedValue(in, v, uint(size))
			d[l] = v
		}
		return true
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		addr := base[l] + uint64(in.imm)
		p := c.ptr(w, space, addr, tot, false, l)
		if p == nil {
			return false
		}
		for i := uint32(0); i < cnt; i++ {
			v := load(unsafe.Add(p, uint64(i)*uint64(size)), size, at)
			v = loadedValue(in, v, uint(size))
			dst := in.d
			if cnt > 1 {
				dst = c.p.vec[in.aux+int32(i)]
			}
			w.r[dst+uint32(l)] = v
		}
	}
	return true
}

func (c *cta) st(w *warp, in *inst, m uint32) bool {
	size := in.fl & 0xff
	cnt := in.e
	tot := uint64(size) * uint64(cnt)
	base := lanes(w.r, in.a)
	at := in.fl&memAtomic != 0
	space := int(in.aux2)
	if cnt == 1 && size == 4 && !at && (space == spGlobal || space == spShared) {
		v := lanes(w.r, in.d)
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm) & 31
			addr := base[l] + uint64(in.imm)
			var p unsafe.Pointer
			if space == spShared && addr&3 == 0 && addr < c.shLen && c.shLen-addr >= 4 {
				p = unsafe.Add(c.shPtr, addr)
			} else if p = c.ptr(w, space, addr, 4, true, l); p == nil {
				return false
			}
			devmem.Store32(p, uint32(v[l]))
		}
		return true
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		addr := base[l] + uint64(in.imm)
		p := c.ptr(w, space, addr, tot, true, l)
		if p == nil {
			return false
		}
		for i := uint32(0); i < cnt; i++ {
			src := in.d
			if cnt > 1 {
				src = c.p.vec[in.aux+int32(i)]
			}
			store(unsafe.Add(p, uint64(i)*uint64(size)), size, w.r[src+uint32(l)], at)
		}
	}
	return true
}

func (c *cta) ldParam(w *warp, in *inst, m uint32) {
	size := uint64(in.fl & 0xff)
	params := c.l.Params
	for i := uint32(0); i < in.e; i++ {
		off := uint64(in.imm) + uint64(i)*size
		var v uint64
		if off+size <= uint64(len(params)) {
			for k := uint64(0); k < size; k++ {
				v |= uint64(params[off+k]) << (8 * k)
			}
		}
		v = loadedValue(in, v, uint(size))
		dst := in.d
		if in.e > 1 {
			dst = c.p.vec[in.aux+int32(i)]
		}
		d := lanes(w.r, dst)
		for mm := m; mm != 0; mm &= mm - 1 {
			d[bits.TrailingZeros32(mm)&31] = v
		}
	}
}

// readMem reads len(b) bytes of lane l's view of a generic address into b
// (used by printf); false with a recorded fault when they are not readable.
func (c *cta) readMem(w *warp, addr uint64, b []byte, l int) bool {
	n := uint64(len(b))
	if n == 0 {
		return true
	}
	p := c.ptr(w, spGeneric, addr, 1, false, l)
	if p == nil {
		return false
	}
	// Check the whole span (byte granularity: strings may be unaligned).
	if c.ptr(w, spGeneric, addr+n-1, 1, false, l) == nil {
		return false
	}
	devmem.CopyOut(b, unsafe.Slice((*byte)(p), n))
	return true
}

// Specialised 32-bit loads and stores: check every active lane's address
// against the shared window or the cached global allocation first, then
// move the data in a tight loop; anything unusual takes the general path
// lane by lane (loads re-read the address register per lane, so a
// destination that is also the address is safe).

func (c *cta) ldS32(w *warp, in *inst, m uint32) bool {
	d, a := lanes(w.r, in.d), lanes(w.r, in.a)
	sh, n, imm := c.shPtr, c.shLen, uint64(in.imm)
	if m == fullMask && n >= 4 && in.d != in.a {
		// One pass; a bad lane hands the rest to the general path (the
		// lanes done so far cannot have changed any address).
		lim := n - 4
		for l := 0; l < 32; l++ {
			addr := a[l] + imm
			if addr > lim || addr&3 != 0 {
				return c.ld(w, in, m&^(1<<l-1))
			}
			d[l] = uint64(*(*uint32)(unsafe.Add(sh, addr)))
		}
		return true
	}
	if m == fullMask && n >= 4 {
		lim := n - 4
		ok := true
		for l := 0; l < 32; l++ {
			addr := a[l] + imm
			ok = ok && addr <= lim && addr&3 == 0
		}
		if ok {
			for l := 0; l < 32; l++ {
				d[l] = uint64(*(*uint32)(unsafe.Add(sh, a[l]+imm)))
			}
			return true
		}
	}
	return c.ld(w, in, m)
}

func (c *cta) stS32(w *warp, in *inst, m uint32) bool {
	v, a := lanes(w.r, in.d), lanes(w.r, in.a)
	sh, n, imm := c.shPtr, c.shLen, uint64(in.imm)
	if m == fullMask && n >= 4 {
		lim := n - 4
		ok := true
		for l := 0; l < 32; l++ {
			addr := a[l] + imm
			ok = ok && addr <= lim && addr&3 == 0
		}
		if ok {
			for l := 0; l < 32; l++ {
				*(*uint32)(unsafe.Add(sh, a[l]+imm)) = uint32(v[l])
			}
			return true
		}
	}
	return c.st(w, in, m)
}

func (c *cta) ldG32(w *warp, in *inst, m uint32) bool {
	d, a := lanes(w.r, in.d), lanes(w.r, in.a)
	e := &c.gc[c.pc]
	lo, n, p, imm := e.lo, e.n, e.ptr, uint64(in.imm)
	if warpAsm && n >= 128 && n <= maxRotN && in.d != in.a && (m == fullMask || w.restExited(m)) {
		// One 128-byte run (a coalesced access) in one assembly step;
		// lanes that have exited may take part (runRead).
		if off := a[0] + imm - lo; inWord(off, (n-4)>>2-31) && loadRun32(d, a, unsafe.Add(p, off)) {
			return true
		}
	}
	if m == fullMask && n >= 4 && n <= maxRotN && in.d != in.a {
		// A full warp: one test a lane (inWord), no mask bits.
		k, q := imm-lo, (n-4)>>2
		for l := range d {
			off := a[l] + k
			if !inWord(off, q) {
				return c.ld(w, in, m&^(1<<l-1))
			}
			d[l] = uint64(devmem.Load32(unsafe.Add(p, off)))
		}
		return true
	}
	if n >= 4 && in.d != in.a {
		// One pass; a bad lane hands the rest to the general path (the
		// lanes done so far cannot have changed any address). A partial
		// warp's lanes outside m (a stencil's edge lanes) are skipped in
		// the same pass: a check of all lanes first costs more.
		lim := n - 4
		for l := range d {
			if m&(1<<l) == 0 {
				continue
			}
			off := a[l] + imm - lo
			if off > lim || off&3 != 0 {
				return c.ld(w, in, m&^(1<<l-1))
			}
			d[l] = uint64(devmem.Load32(unsafe.Add(p, off)))
		}
		return true
	}
	if n < 4 || !inCache(a, m, imm-lo, n-4, 3) {
		return c.ld(w, in, m)
	}
	// Every lane reads its address before it writes its destination, so a
	// destination that is also the address register is safe.
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		d[l] = uint64(devmem.Load32(unsafe.Add(p, a[l]+imm-lo)))
	}
	return true
}

// runRead: a warp whose missing lanes have all exited (warp.restExited)
// loads one 128-byte run for them too when their scratch address
// registers (the ALU ran them as a full warp) continue the run: every byte
// of it lies in the allocation, so nothing faults that would not, and
// only the exited lanes' scratch destinations see the extra words.
// Racecheck, which would record those reads, runs its own ops.

// maxRotN bounds the allocations inWord checks offsets in.
const maxRotN = 1 << 62

// inWord reports whether a 4-byte access at offset off is aligned and lies
// in an allocation of n bytes, n ≤ maxRotN, q = (n-4)/4, in one compare:
// rotated right by two, a misaligned offset has a top bit set and exceeds
// q, and an aligned one is off/4, at most q exactly when off ≤ n-4.
func inWord(off, q uint64) bool {
	return bits.RotateLeft64(off, -2) <= q
}

// inCache reports whether every lane l of m has an offset a[l]+delta of at
// most lim with the bits of align clear: each lane's access lies, aligned,
// in the instruction's cached allocation (whose base is AllocAlign-aligned,
// so the offset's alignment is the address's). It visits all 32 lanes
// without a branch, the inactive ones contributing offset 0, in two
// independent chains: a lane-by-lane loop over m (or a flag that the
// compiler keeps on the stack) costs more than the access it guards.
func inCache(a *[32]uint64, m uint32, delta, lim, align uint64) bool {
	var mx0, mx1, or0, or1 uint64
	mm := uint64(m)
	for l := 0; l < 32; l += 2 {
		o0 := (a[l] + delta) & -(mm & 1)
		o1 := (a[l+1] + delta) & -(mm >> 1 & 1)
		mm >>= 2
		mx0, mx1 = max(mx0, o0), max(mx1, o1)
		or0, or1 = or0|o0, or1|o1
	}
	return max(mx0, mx1) <= lim && (or0|or1)&align == 0
}

func (c *cta) stG32(w *warp, in *inst, m uint32) bool {
	v, a := lanes(w.r, in.d), lanes(w.r, in.a)
	e := &c.gc[c.pc]
	lo, n, p, imm := e.lo, e.n, e.ptr, uint64(in.imm)
	if n < 4 || e.ro {
		return c.st(w, in, m)
	}
	// One pass over the lanes of m, as ldG32's; a bad lane hands the rest
	// to the general path, which stores lane by lane in the same order.
	if m == fullMask && n <= maxRotN {
		k, q := imm-lo, (n-4)>>2
		if off := a[0] + k; warpAsm && q >= 31 && inWord(off, q-31) && storeRun32(unsafe.Add(p, off), a, v) {
			return true
		}
		for l := range v {
			off := a[l] + k
			if !inWord(off, q) {
				return c.st(w, in, m&^(1<<l-1))
			}
			devmem.Store32(unsafe.Add(p, off), uint32(v[l]))
		}
		return true
	}
	lim := n - 4
	for l := range v {
		if m&(1<<l) == 0 {
			continue
		}
		off := a[l] + imm - lo
		if off > lim || off&3 != 0 {
			return c.st(w, in, m&^(1<<l-1))
		}
		devmem.Store32(unsafe.Add(p, off), uint32(v[l]))
	}
	return true
}

// ldLdFma runs the fused "ld.shared.f32 x; ld.shared.f32 y; fma.rn.f32"
// for a full warp. Each lane performs the three steps in order on its own
// registers, which is what the three instructions do; from the first lane
// with an unusual address on, the three instructions run one by one for
// the remaining lanes (false: one of them faulted).
func (c *cta) ldLdFma(w *warp, i1, i2, f *inst) bool {
	r := w.r
	n := c.shLen
	if n < 4 {
		return c.fuseRest(w, i1, i2, f, fullMask)
	}
	lim := n - 4
	sh := c.shPtr
	a1, a2 := lanes(r, i1.a), lanes(r, i2.a)
	im1, im2 := uint64(i1.imm), uint64(i2.imm)
	d1, d2 := lanes(r, i1.d), lanes(r, i2.d)
	fd, fc := lanes(r, f.d), lanes(r, f.c)
	// The fma's operands are usually the two loaded values.
	swap := f.a == i1.d && f.b == i2.d
	if !swap && !(f.a == i2.d && f.b == i1.d) || f.c == i1.d || f.c == i2.d {
		return c.fuseRest(w, i1, i2, f, fullMask)
	}
	for l := 0; l < 32; l++ {
		x, y := a1[l]+im1, a2[l]+im2
		if x > lim || x&3 != 0 || y > lim || y&3 != 0 {
			return c.fuseRest(w, i1, i2, f, fullMask&^(1<<l-1))
		}
		v1 := *(*uint32)(unsafe.Add(sh, x))
		v2 := *(*uint32)(unsafe.Add(sh, y))
		d1[l], d2[l] = uint64(v1), uint64(v2)
		fx, fy, fz := math.Float32frombits(v2), math.Float32frombits(v1), gpumath.F32(fc[l])
		if swap {
			fx, fy = fy, fx
		}
		fs := float64(fx)*float64(fy) + float64(fz)
		if roundsPlain(fs) {
			fd[l] = uint64(math.Float32bits(float32(fs)))
		} else {
			fd[l] = gpumath.R32(gpumath.Fma32(fx, fy, fz, gpumath.RN))
		}
	}
	return true
}

// fuseRest runs the three fused instructions one after another for lanes m.
func (c *cta) fuseRest(w *warp, i1, i2, f *inst, m uint32) bool {
	pc := c.pc
	if !c.ldS32(w, i1, m) {
		return false
	}
	c.pc = pc + 1
	if !c.ldS32(w, i2, m) {
		return false
	}
	execALU(f, w.r, m)
	c.pc = pc
	return true
}

// cpAsync performs cp.async at once: the copy is complete before any
// cp.async.wait_* can be reached, which a valid program cannot tell apart.
func (c *cta) cpAsync(w *warp, in *inst, m uint32) bool {
	size := uint64(in.fl)
	dst, src, soff, ss := lanes(w.r, in.a), lanes(w.r, in.b), lanes(w.r, in.c), lanes(w.r, in.d)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		to := c.ptr(w, spShared, dst[l]+uint64(in.imm), size, true, l)
		if to == nil {
			return false
		}
		n := min(ss[l]&0xffffffff, size)
		buf := unsafe.Slice((*byte)(to), size)
		if n > 0 {
			from := c.ptr(w, spGlobal, src[l]+soff[l], size, false, l)
			if from == nil {
				return false
			}
			devmem.Copy(buf[:n], unsafe.Slice((*byte)(from), n))
		}
		clear(buf[n:])
	}
	return true
}

// sharedDesc describes a CTA's shared window of n bytes for a fault: the
// reserved KB at its start, then the kernel's own static and dynamic
// shared memory.
func sharedDesc(n uint64) string {
	return sprintf("%d bytes of shared memory (the %d the system reserves at 0, then %d of its own)", n, ReservedShared, n-ReservedShared)
}

// loadedValue is the value v of a size-byte load as its destination takes
// it: sign-extended to the destination's in.c bytes for a signed load.
func loadedValue(in *inst, v uint64, size uint) uint64 {
	if in.fl&memSext != 0 {
		return uint64(gpumath.Sext(v, size*8)) & gpumath.Mask(uint(in.c)*8)
	}
	return v
}
