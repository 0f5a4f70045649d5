package exec

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// A tiled matmul's inner loop is a run of "ld.shared.f32 x, [A+i];
// ld.shared.f32 y, [B+j]; fma.rn.f32 s', x, y, s" triples: the same two
// base registers with offsets growing by a fixed stride, each fma adding to
// the previous one's result. The decoder marks the run's first load
// opLdChain (each triple stays an opLdLdFma, and every instruction keeps its
// pc). The warp then checks each lane's whole address range for the run
// once, keeps the sums in a local array across the triples, and writes only
// the registers something else reads: the last sum always, a loaded value
// or an intermediate sum only if the function mentions it anywhere but in
// its definition and its one use in the run.
//
// The triples touch nothing but their lane's registers and read shared
// memory nobody writes meanwhile, so any order that keeps each lane's
// triples in order gives each register what running them instruction by
// instruction gives. If any lane's range is out of the window or
// misaligned, nothing has been written yet and the run goes instruction by
// instruction as without the chain (the fault, if there is one, is the one
// those instructions report). Racecheck, which records every access, runs
// them one by one (instrument).

// ldChain is one run of k ≥ 2 chained triples.
type ldChain struct {
	n        int32  // instructions: 3k
	a, b     uint32 // the first and second loads' base registers
	o1, o2   int64  // the first triple's offsets
	s1, s2   int64  // the offsets' strides
	lo1, lo2 uint64 // the lowest offsets, as added to a base
	sp1, sp2 uint64 // the highest offset less the lowest
	swap     bool   // the fma's first operand is the first load's value
	c, d     uint32 // the first fma's addend, the last fma's destination
	// keep is, per triple, the registers of the first load, the second
	// load and the fma that must be written (0, the junk slot: none), or
	// nil when only d is.
	keep [][3]uint32
}

// chains finds the runs in the function at code[start:], whose body is f,
// after fuse has marked the single triples.
func (dc *decoder) chains(start int32, f *ptx.Func, targets map[int32]bool) {
	code := dc.p.code
	var mentions map[string]int
	for i := int(start); i+5 < len(code); i++ {
		h := &code[i]
		if h.op != opLdLdFma {
			continue
		}
		f0 := &code[i+2]
		swap := f0.a == h.d && f0.b == code[i+1].d
		ch := ldChain{a: h.a, b: code[i+1].a, o1: h.imm, o2: code[i+1].imm, swap: swap, c: f0.c}
		dests := map[uint32]bool{}
		k := 0
		for j := i; j+2 < len(code); j += 3 {
			x, y, fm := &code[j], &code[j+1], &code[j+2]
			ok := x.op == opLdLdFma && x.a == ch.a && y.a == ch.b && x.d != y.d && fm.d != x.d && fm.d != y.d &&
				(swap && fm.a == x.d && fm.b == y.d || !swap && fm.a == y.d && fm.b == x.d)
			if k == 0 {
				ok = ok && fm.c != x.d && fm.c != y.d
			} else {
				if k == 1 {
					ch.s1, ch.s2 = x.imm-h.imm, y.imm-code[i+1].imm
				}
				ok = ok && !targets[int32(j)] && fm.c == code[j-1].d &&
					x.imm-code[j-3].imm == ch.s1 && y.imm-code[j-2].imm == ch.s2
			}
			for _, r := range [3]uint32{x.d, y.d, fm.d} {
				ok = ok && !dests[r] && r != ch.a && r != ch.b
			}
			if !ok {
				break
			}
			dests[x.d], dests[y.d], dests[fm.d] = true, true, true
			k++
		}
		if k < 2 || ch.s1%4 != 0 || ch.s2%4 != 0 || absStride(ch.s1) > 1<<20 || absStride(ch.s2) > 1<<20 {
			continue
		}
		ch.n = int32(3 * k)
		ch.d = code[i+3*k-1].d
		ch.lo1, ch.sp1 = span(ch.o1, ch.s1, k)
		ch.lo2, ch.sp2 = span(ch.o2, ch.s2, k)
		if mentions == nil {
			mentions = regMentions(f)
		}
		keep := make([][3]uint32, k)
		any := false
		for t := range k {
			for u := range 3 {
				pc := i + 3*t + u
				if u == 2 && t == k-1 {
					continue // d: always written
				}
				// Mentioned by its definition and its one use here only.
				if src := dc.p.src[pc]; src != nil && len(src.Operands) > 0 {
					if d, ok := src.Operands[0].(*ptx.Reg); ok && mentions[d.Name] == 2 {
						continue
					}
				}
				keep[t][u] = code[pc].d
				any = true
			}
		}
		if any {
			ch.keep = keep
		}
		h.op, h.aux = opLdChain, int32(len(dc.p.chains))
		dc.p.chains = append(dc.p.chains, ch)
		i += 3*k - 1
	}
}

func absStride(s int64) int64 { return max(s, -s) }

// span is the lowest of the k offsets o, o+s, … and the distance to the
// highest.
func span(o, s int64, k int) (lo, sp uint64) {
	last := o + s*int64(k-1)
	return uint64(min(o, last)), uint64(absStride(s) * int64(k-1))
}

// regMentions counts each register name's mentions in f's body, as a
// source, a destination or a guard.
func regMentions(f *ptx.Func) map[string]int {
	n := map[string]int{}
	count := func(name string) { n[name]++ }
	for _, in := range instrsOf(f.Body) {
		if in.Guard != "" {
			n[in.Guard]++
		}
		for _, o := range in.Operands {
			eachReg(o, count)
		}
	}
	return n
}

// ldChain runs chain ch for lanes m and reports whether it did: false if
// some lane's addresses leave the shared window or are misaligned, with
// nothing written.
func (c *cta) ldChain(w *warp, ch *ldChain, m uint32) bool {
	n := c.shLen
	if n < 4 || n-4 < ch.sp1 || n-4 < ch.sp2 {
		return false
	}
	r := w.r
	a, b := lanes(r, ch.a), lanes(r, ch.b)
	lim1, lim2 := n-4-ch.sp1, n-4-ch.sp2
	ok := true
	// rowA, rowB: a's or b's lanes hold one address per half-warp;
	// colA, colB: the half-warps' lanes hold the same addresses.
	rowA, rowB, colA, colB := false, false, false, false
	if m == fullMask {
		// The shapes first, branch-free, then the range of the distinct
		// addresses only (a tiled matmul's operands have 2 and 16).
		// A tiled matmul's shapes (a the row, b the column) first: then
		// rowB and colA do not matter.
		var ra, cb uint64
		for l := range 16 {
			ra |= (a[l] ^ a[0]) | (a[l+16] ^ a[16])
			cb |= b[l] ^ b[l+16]
		}
		rowA, colB = ra == 0, cb == 0
		if !rowA || !colB {
			var rb, ca uint64
			for l := range 16 {
				rb |= (b[l] ^ b[0]) | (b[l+16] ^ b[16])
				ca |= a[l] ^ a[l+16]
			}
			rowB, colA = rb == 0, ca == 0
		}
		ok = inWindow(a, rowA, colA, ch.lo1, lim1) && inWindow(b, rowB, colB, ch.lo2, lim2)
	} else {
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm) & 31
			x, y := a[l]+ch.lo1, b[l]+ch.lo2
			ok = ok && x <= lim1 && x&3 == 0 && y <= lim2 && y&3 == 0
		}
	}
	if !ok {
		return false
	}
	if ch.keep != nil {
		c.ldChainKeep(w, ch, m)
		return true
	}
	// Triple by triple, each over the lanes: the lanes' sums are
	// independent, so their fmas overlap (one lane's triples in a row
	// would wait on each other's roundings).
	sh := c.shPtr
	var acc [32]float32
	cs, ds := lanes(r, ch.c), lanes(r, ch.d)
	o1, o2 := uint64(ch.o1), uint64(ch.o2)
	if m == fullMask {
		for l := range 32 {
			acc[l] = math.Float32frombits(uint32(cs[l]))
		}
		s1, s2 := uint64(ch.s1), uint64(ch.s2)
		if rowA || rowB {
			col := colA // the other operand's, a's if b is the row
			if rowA {
				col = colB
			}
			chainRows(sh, ch, a, b, rowA, col, int(ch.n/3), &acc)
			for l := range 32 {
				ds[l] = uint64(math.Float32bits(acc[l]))
			}
			return true
		}
		for k := int(ch.n / 3); k > 0; k -= 2 {
			q := min(k, 2)
			chainSteps(sh, a, b, o1, o2, s1, s2, q, &acc, ch.swap)
			o1, o2 = o1+uint64(q)*s1, o2+uint64(q)*s2
		}
		for l := range 32 {
			ds[l] = uint64(math.Float32bits(acc[l]))
		}
		return true
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		acc[l] = math.Float32frombits(uint32(cs[l]))
	}
	for range ch.n / 3 {
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm) & 31
			acc[l] = chainFma(sh, a[l]+o1, b[l]+o2, acc[l], ch.swap)
		}
		o1, o2 = o1+uint64(ch.s1), o2+uint64(ch.s2)
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		ds[l] = uint64(math.Float32bits(acc[l]))
	}
	return true
}

// inWindow reports whether every lane's address v[l]+lo is at most lim
// and 4-aligned, reading lane 0 and 16 only if row (each half-warp's lanes
// hold one address), lanes 0 to 15 only if col (the half-warps hold the
// same ones).
func inWindow(v *[32]uint64, row, col bool, lo, lim uint64) bool {
	n, step := 32, 1
	switch {
	case row:
		n, step = 32, 16
	case col:
		n = 16
	}
	for l := 0; l < n; l += step {
		if x := v[l] + lo; x > lim || x&3 != 0 {
			return false
		}
	}
	return true
}

// chainSteps runs q (1 or 2) triples of a chain for a full warp from the
// offsets o1 and o2 on: lane l's sum acc[l] += [sh+a[l]+o1]·[sh+b[l]+o2],
// then again with o1+s1 and o2+s2. Two triples per lane keep the sum in a
// register between them; more would make the lanes' roundings wait on
// each other's rather than overlap (and, here, run out of registers).
func chainSteps(sh unsafe.Pointer, a, b *[32]uint64, o1, o2, s1, s2 uint64, q int, acc *[32]float32, swap bool) {
	// fmaRN32 by hand (it is too big to inline); the operand order
	// matters to its slow path only. The lanes that need that redo their
	// triples after the loop, so that it holds no call (with one, the
	// compiler keeps the loop's variables on the stack). The lanes are
	// read through unsafe.Add, which the compiler does not nil-check in
	// the loop as it does a, b and acc.
	var slow uint32
	pa, pb, pacc := unsafe.Pointer(a), unsafe.Pointer(b), unsafe.Pointer(acc)
	if q == 2 {
		for l := range 32 {
			x, y := *(*uint64)(unsafe.Add(pa, l*8))+o1, *(*uint64)(unsafe.Add(pb, l*8))+o2
			sum := (*float32)(unsafe.Add(pacc, l*4))
			fs := float64(*(*float32)(unsafe.Add(sh, x)))*float64(*(*float32)(unsafe.Add(sh, y))) + float64(*sum)
			if !roundsPlain(fs) {
				slow |= 1 << l
				continue
			}
			x, y = x+s1, y+s2
			fs = float64(*(*float32)(unsafe.Add(sh, x)))*float64(*(*float32)(unsafe.Add(sh, y))) + float64(float32(fs))
			if !roundsPlain(fs) {
				slow |= 1 << l
				continue
			}
			*sum = float32(fs)
		}
	} else {
		for l := range 32 {
			x, y := *(*uint64)(unsafe.Add(pa, l*8))+o1, *(*uint64)(unsafe.Add(pb, l*8))+o2
			sum := (*float32)(unsafe.Add(pacc, l*4))
			fs := float64(*(*float32)(unsafe.Add(sh, x)))*float64(*(*float32)(unsafe.Add(sh, y))) + float64(*sum)
			if !roundsPlain(fs) {
				slow |= 1 << l
				continue
			}
			*sum = float32(fs)
		}
	}
	for ; slow != 0; slow &= slow - 1 {
		l := bits.TrailingZeros32(slow) & 31
		x, y := a[l]+o1, b[l]+o2
		for range q {
			acc[l] = chainFma(sh, x, y, acc[l], swap)
			x, y = x+s1, y+s2
		}
	}
}

// chainRows runs k triples for a full warp whose loads from one base (a's
// if rowA, else b's) read one address per half-warp, as a tiled matmul's
// row operand does: each half-warp reads that operand once per triple and
// converts it once, and each lane runs four triples in a row, its sum
// in a register between them. If the other operand's half-warps read the
// same addresses (col: As[ty][k]·Bs[k][tx] with two rows of threads a
// warp), lanes l and l+16 run together, sharing their second loads.
func chainRows(sh unsafe.Pointer, ch *ldChain, a, b *[32]uint64, rowA, col bool, k int, acc *[32]float32) {
	u, v := a, b
	ou, ov, su, sv := uint64(ch.o1), uint64(ch.o2), uint64(ch.s1), uint64(ch.s2)
	if !rowA {
		u, v = b, a
		ou, ov, su, sv = ov, ou, sv, su
	}
	redo := func(l int, x, y uint64, q int) {
		xl, yl := x, v[l]+y
		for range q {
			if rowA {
				acc[l] = chainFma(sh, xl, yl, acc[l], ch.swap)
			} else {
				acc[l] = chainFma(sh, yl, xl, acc[l], ch.swap)
			}
			xl, yl = xl+su, yl+sv
		}
	}
	t := 0
	if col {
		// Two lanes' sums, each a chain of roundings, side by side.
		pv, pacc := unsafe.Pointer(v), unsafe.Pointer(acc)
		x, z, y := u[0]+ou, u[16]+ou, ov
		for ; k-t >= 4; t += 4 {
			if chainFMA {
				var xz [8]float32
				for j := range 4 {
					xz[j], xz[j+4] = *(*float32)(unsafe.Add(sh, x+uint64(j)*su)), *(*float32)(unsafe.Add(sh, z+uint64(j)*su))
				}
				for slow := fmaRow4x2(sh, pv, pacc, y, sv, &xz); slow != 0; slow &= slow - 1 {
					l := bits.TrailingZeros32(slow) & 15
					redo(l, x, y, 4)
					redo(l+16, z, y, 4)
				}
				x, z, y = x+4*su, z+4*su, y+4*sv
				continue
			}
			var xz [8]float64
			slow := uint32(0)
			strong := true
			for j := range 4 {
				u1, u2 := *(*uint32)(unsafe.Add(sh, x+uint64(j)*su)), *(*uint32)(unsafe.Add(sh, z+uint64(j)*su))
				if !wideUlp(u1) || !wideUlp(u2) {
					slow = 0xffff
				}
				strong = strong && strongRow(u1) && strongRow(u2)
				xz[j], xz[j+4] = float64(math.Float32frombits(u1)), float64(math.Float32frombits(u2))
			}
			if slow == 0 {
				if strong && chainStrongRows {
					slow = chainRow4x2s(sh, pv, pacc, y, sv, &xz)
				} else {
					slow = chainRow4x2(sh, pv, pacc, y, sv, &xz)
				}
			}
			for ; slow != 0; slow &= slow - 1 {
				l := bits.TrailingZeros32(slow) & 15
				redo(l, x, y, 4)
				redo(l+16, z, y, 4)
			}
			x, z, y = x+4*su, z+4*su, y+4*sv
		}
		ou, ov = x-u[0], y
	}
	if t == k {
		return
	}
	for h := 0; h < 32; h += 16 {
		pv, pacc := unsafe.Pointer(&v[h]), unsafe.Pointer(&acc[h])
		x, y := u[h]+ou, ov // the row's address, the lanes' offset
		for t := t; t < k; {
			q := 1
			var slow uint32
			if k-t >= 4 {
				q = 4
				slow = chainRow4(sh, pv, pacc, y, sv,
					float64(*(*float32)(unsafe.Add(sh, x))), float64(*(*float32)(unsafe.Add(sh, x+su))),
					float64(*(*float32)(unsafe.Add(sh, x+2*su))), float64(*(*float32)(unsafe.Add(sh, x+3*su))))
			} else {
				slow = chainRow1(sh, pv, pacc, y, float64(*(*float32)(unsafe.Add(sh, x))))
			}
			for ; slow != 0; slow &= slow - 1 {
				redo(h+bits.TrailingZeros32(slow)&15, x, y, q)
			}
			t += q
			x, y = x+uint64(q)*su, y+uint64(q)*sv
		}
	}
}

// chainRow4 runs four triples for 16 lanes: lane l's sum acc[l] gets
// [sh+v[l]+o]·xj added for j = 0…3, o growing by s. It reports the lanes
// that need fmaRN32's slow path, their sums untouched.
func chainRow4(sh, v, acc unsafe.Pointer, o, s uint64, x0, x1, x2, x3 float64) (slow uint32) {
	for l := range 16 {
		y := *(*uint64)(unsafe.Add(v, l*8)) + o
		sum := (*float32)(unsafe.Add(acc, l*4))
		fs := float64(*(*float32)(unsafe.Add(sh, y)))*x0 + float64(*sum)
		if !roundsPlain(fs) {
			slow |= 1 << l
			continue
		}
		fs = float64(*(*float32)(unsafe.Add(sh, y+s)))*x1 + float64(float32(fs))
		if !roundsPlain(fs) {
			slow |= 1 << l
			continue
		}
		fs = float64(*(*float32)(unsafe.Add(sh, y+2*s)))*x2 + float64(float32(fs))
		if !roundsPlain(fs) {
			slow |= 1 << l
			continue
		}
		fs = float64(*(*float32)(unsafe.Add(sh, y+3*s)))*x3 + float64(float32(fs))
		if !roundsPlain(fs) {
			slow |= 1 << l
			continue
		}
		*sum = float32(fs)
	}
	return slow
}

// chainRow4x2 is chainRow4 for lanes l and l+16 at once, both reading
// [sh+v[l]+o+js], the first multiplying by xj, the second by zj. Its bit
// l says that lanes l and l+16 need the slow path, their sums untouched.
//
// It tests less per fma than roundsPlain, only that fs is no float32
// midpoint (range tests made it 1.5x slower, measured); the operands
// stand in for the rest. With every nonzero w and xj, zj (chainRows
// tests those) at least 2^-66 in magnitude (wideUlp), a product is a
// multiple of 2^-178, as is every float32 sum, so a sum below the float32
// normal range is exact in float64 and float32(fs) rounds it once, as
// fma.rn does, zeros' signs included; one above it overflows to Inf as
// fma.rn does, and an Inf sum stays Inf. Only a NaN differs (the GPU's is
// canonical), and it stays NaN to the last sum, which is tested.
func chainRow4x2(sh, v, acc unsafe.Pointer, o, s uint64, xz *[8]float64) (slow uint32) {
	// The row values come through memory (xz), not as eight float64
	// arguments, which the compiler kept moving between registers.
	for l := range 16 {
		y := *(*uint64)(unsafe.Add(v, l*8)) + o
		sum, sum2 := (*float32)(unsafe.Add(acc, l*4)), (*float32)(unsafe.Add(acc, l*4+64))
		u := *(*uint32)(unsafe.Add(sh, y))
		if !wideUlp(u) {
			slow |= 1 << l
			continue
		}
		w := float64(*(*float32)(unsafe.Add(sh, y)))
		fs, ft := w*xz[0]+float64(*sum), w*xz[4]+float64(*sum2)
		// Two tests, not one ||: the compiler lays this loop out faster so
		// (matmul 1.18× slower with ||, measured).
		if !noMidpoint(fs) {
			slow |= 1 << l
			continue
		}
		if !noMidpoint(ft) {
			slow |= 1 << l
			continue
		}
		u = *(*uint32)(unsafe.Add(sh, y+s))
		if !wideUlp(u) {
			slow |= 1 << l
			continue
		}
		w = float64(*(*float32)(unsafe.Add(sh, y+s)))
		fs, ft = w*xz[1]+float64(float32(fs)), w*xz[5]+float64(float32(ft))
		if !noMidpoint(fs) {
			slow |= 1 << l
			continue
		}
		if !noMidpoint(ft) {
			slow |= 1 << l
			continue
		}
		u = *(*uint32)(unsafe.Add(sh, y+2*s))
		if !wideUlp(u) {
			slow |= 1 << l
			continue
		}
		w = float64(*(*float32)(unsafe.Add(sh, y+2*s)))
		fs, ft = w*xz[2]+float64(float32(fs)), w*xz[6]+float64(float32(ft))
		if !noMidpoint(fs) {
			slow |= 1 << l
			continue
		}
		if !noMidpoint(ft) {
			slow |= 1 << l
			continue
		}
		u = *(*uint32)(unsafe.Add(sh, y+3*s))
		if !wideUlp(u) {
			slow |= 1 << l
			continue
		}
		w = float64(*(*float32)(unsafe.Add(sh, y+3*s)))
		fs, ft = w*xz[3]+float64(float32(fs)), w*xz[7]+float64(float32(ft))
		if !noMidpoint(fs) {
			slow |= 1 << l
			continue
		}
		if !noMidpoint(ft) {
			slow |= 1 << l
			continue
		}
		if fs != fs || ft != ft {
			slow |= 1 << l
			continue
		}
		*sum, *sum2 = float32(fs), float32(ft)
	}
	return slow
}

// chainRow4x2s is chainRow4x2 for rows whose values xj, zj are all zero
// or at least 2^-6 in magnitude (strongRow): a product with any float32
// w, a multiple of 2^-149, is then a multiple of 2^-178 as chainRow4x2's
// argument needs, and w goes untested. A NaN w still makes the last sum
// NaN, which is tested.
func chainRow4x2s(sh, v, acc unsafe.Pointer, o, s uint64, xz *[8]float64) (slow uint32) {
	// The row values come through memory (xz), not as eight float64
	// arguments, which the compiler kept moving between registers.
	for l := range 16 {
		y := *(*uint64)(unsafe.Add(v, l*8)) + o
		sum, sum2 := (*float32)(unsafe.Add(acc, l*4)), (*float32)(unsafe.Add(acc, l*4+64))
		w := float64(*(*float32)(unsafe.Add(sh, y)))
		fs, ft := w*xz[0]+float64(*sum), w*xz[4]+float64(*sum2)
		if !noMidpoint(fs) {
			slow |= 1 << l
			continue
		}
		if !noMidpoint(ft) {
			slow |= 1 << l
			continue
		}
		w = float64(*(*float32)(unsafe.Add(sh, y+s)))
		fs, ft = w*xz[1]+float64(float32(fs)), w*xz[5]+float64(float32(ft))
		if !noMidpoint(fs) {
			slow |= 1 << l
			continue
		}
		if !noMidpoint(ft) {
			slow |= 1 << l
			continue
		}
		w = float64(*(*float32)(unsafe.Add(sh, y+2*s)))
		fs, ft = w*xz[2]+float64(float32(fs)), w*xz[6]+float64(float32(ft))
		if !noMidpoint(fs) {
			slow |= 1 << l
			continue
		}
		if !noMidpoint(ft) {
			slow |= 1 << l
			continue
		}
		w = float64(*(*float32)(unsafe.Add(sh, y+3*s)))
		fs, ft = w*xz[3]+float64(float32(fs)), w*xz[7]+float64(float32(ft))
		if !noMidpoint(fs) {
			slow |= 1 << l
			continue
		}
		if !noMidpoint(ft) {
			slow |= 1 << l
			continue
		}
		if fs != fs || ft != ft {
			slow |= 1 << l
			continue
		}
		*sum, *sum2 = float32(fs), float32(ft)
	}
	return slow
}

// wideUlp reports whether the float32 with bits u is zero, or at least
// 2^-66 in magnitude (Inf and NaN included): its ulp is then at least
// 2^-89, or it is zero.
func wideUlp(u uint32) bool { return u<<1-1 >= 61<<24-1 }

// strongRow reports whether the float32 with bits u is zero, or at least
// 2^-6 in magnitude (Inf and NaN included): its ulp is then at least
// 2^-29, or it is zero.
func strongRow(u uint32) bool { return u<<1-1 >= 121<<24-1 }

// chainStrongRows lets chainRows take chainRow4x2s; tests turn it off to
// compare with chainRow4x2.
var chainStrongRows = true

// noMidpoint reports whether fs, a float64, is no float32 rounding
// midpoint at float32's normal precision (see roundsPlain).
func noMidpoint(fs float64) bool { return (math.Float64bits(fs)^0x10000000)&0x1fffffff != 0 }

// chainRow1 is chainRow4 for one triple.
func chainRow1(sh, v, acc unsafe.Pointer, o uint64, x0 float64) (slow uint32) {
	for l := range 16 {
		y := *(*uint64)(unsafe.Add(v, l*8)) + o
		sum := (*float32)(unsafe.Add(acc, l*4))
		fs := float64(*(*float32)(unsafe.Add(sh, y)))*x0 + float64(*sum)
		if !roundsPlain(fs) {
			slow |= 1 << l
			continue
		}
		*sum = float32(fs)
	}
	return slow
}

// chainFma is one lane's triple: the sum acc plus the values at sh+x and
// sh+y.
//
//go:noinline
func chainFma(sh unsafe.Pointer, x, y uint64, acc float32, swap bool) float32 {
	v1, v2 := *(*uint32)(unsafe.Add(sh, x)), *(*uint32)(unsafe.Add(sh, y))
	if swap {
		return math.Float32frombits(fmaRN32(v1, v2, math.Float32bits(acc)))
	}
	return math.Float32frombits(fmaRN32(v2, v1, math.Float32bits(acc)))
}

// ldChainKeep is ldChain's loop for a chain with registers to write.
func (c *cta) ldChainKeep(w *warp, ch *ldChain, m uint32) {
	r := w.r
	a, b := lanes(r, ch.a), lanes(r, ch.b)
	cs, ds := lanes(r, ch.c), lanes(r, ch.d)
	sh := c.shPtr
	for mm := m; mm != 0; mm &= mm - 1 {
		l := uint32(bits.TrailingZeros32(mm) & 31)
		acc := uint32(cs[l])
		for t, kp := range ch.keep {
			v1 := *(*uint32)(unsafe.Add(sh, a[l]+uint64(ch.o1+int64(t)*ch.s1)))
			v2 := *(*uint32)(unsafe.Add(sh, b[l]+uint64(ch.o2+int64(t)*ch.s2)))
			if ch.swap {
				acc = fmaRN32(v1, v2, acc)
			} else {
				acc = fmaRN32(v2, v1, acc)
			}
			r[kp[0]+l], r[kp[1]+l], r[kp[2]+l] = uint64(v1), uint64(v2), uint64(acc)
		}
		ds[l] = uint64(acc)
	}
}

// fmaRN32 is fma.rn.f32 on register bits: x*y+z rounded once.
func fmaRN32(x, y, z uint32) uint32 {
	fs := float64(math.Float32frombits(x))*float64(math.Float32frombits(y)) + float64(math.Float32frombits(z))
	if roundsPlain(fs) {
		return math.Float32bits(float32(fs))
	}
	return fmaRN32Slow(x, y, z)
}

// roundsPlain reports whether float32(fs), fs an f32 product (exact in
// float64) plus an f32, is fma.rn.f32's one rounding: fs is no float32
// rounding midpoint and its float32 is normal (so no NaN either), or fs
// is zero. The xor leaves the exponent alone, and bs>>31 is the exponent
// and mantissa without the sign, whose one mantissa bit at the bottom
// cannot move it across a multiple of 1<<21. A zero sum of such values is
// exact (a product and a float32 that cancel, or zeros: nothing that
// small rounds to zero in float64), with the sign float64's addition
// gives it, which is fma.rn's; a kernel's zero products (padding, masks)
// stay off the slow path.
func roundsPlain(fs float64) bool {
	bs := math.Float64bits(fs) ^ 0x10000000
	return bs&0x1fffffff != 0 && uint32(bs>>31)-0x381<<21 < (0x47f-0x381)<<21 || fs == 0
}

//go:noinline
func fmaRN32Slow(x, y, z uint32) uint32 {
	return uint32(gpumath.R32(gpumath.Fma32(math.Float32frombits(x), math.Float32frombits(y), math.Float32frombits(z), gpumath.RN)))
}
