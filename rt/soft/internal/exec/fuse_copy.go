package exec

import (
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/devmem"
)

// Tile copies: "ld.global.b32 %f, [g]; st.shared.b32 [s], %f", a tiled
// kernel's staging of global data in shared memory, runs as one dispatch
// (opLdGStS at the load; the store keeps its op and pc, so branch targets,
// fault positions and instruction counts stay as they are). A full warp
// whose global addresses all lie, aligned, in the load's cached allocation
// and whose shared addresses all lie, aligned, in the window copies lane by
// lane, writing %f only if something else reads it (inst.aux 1). Anything
// else runs the load as opLdG32 and goes on to the store: nothing has been
// written yet, so the faults are the ones the two instructions report.
// The load reads global memory and the store writes shared memory, which
// never alias, so copying lane by lane reads what the load would. Racecheck
// programs undo the fusion (Program.folds).

// fuseCopies turns tile-copy fusion on (tests compare with it off).
var fuseCopies = true

// copies marks the tile copies in the function f starting at pc start
// (targets: the pcs branches reach).
func (dc *decoder) copies(start int32, f *ptx.Func, targets map[int32]bool) {
	if !fuseCopies {
		return
	}
	var mentions map[string]int
	code := dc.p.code
	for i := int(start); i+1 < len(code); i++ {
		x, y := &code[i], &code[i+1]
		if x.op != opLdG32 || y.op != opStS32 || targets[int32(i+1)] || y.d != x.d || y.a == x.d ||
			y.gp != x.gp || y.gx != x.gx {
			continue
		}
		if mentions == nil {
			mentions = regMentions(f)
		}
		keep := int32(1)
		if d, ok := dc.p.src[i].Operands[0].(*ptx.Reg); ok && mentions[d.Name] == 2 && !dc.fixed[x.d] {
			keep = 0
		}
		dc.p.folds = append(dc.p.folds, memFold{int32(i), *x})
		x.op, x.aux = opLdGStS, keep
		i++
	}
}

// ldGStS runs opLdGStS at c.pc for a full warp, the store st at the next
// pc, and reports whether it did: false, with nothing written, if some
// address is not one the fast loops take.
func (c *cta) ldGStS(w *warp, in, st *inst) bool {
	e := &c.gc[c.pc]
	if e.n < 4 || c.shLen < 4 {
		return false
	}
	r := w.r
	g, s := lanes(r, in.a), lanes(r, st.a)
	gk, sk, glim, slim := uint64(in.imm)-e.lo, uint64(st.imm), e.n-4, c.shLen-4
	if !devmem.Race && in.aux == 0 && runs16 && copyRuns(c.shPtr, e.ptr, g, s, gk, sk, glim, slim) {
		return true
	}
	// A tight check first (branches that always go one way cost less
	// than inCache's branch-free maxima), then the copy.
	for l := range 32 {
		x, y := g[l]+gk, s[l]+sk
		if x > glim || y > slim || (x|y)&3 != 0 {
			return false
		}
	}
	p, sh := e.ptr, c.shPtr
	if in.aux == 0 {
		for l := range 32 {
			*(*uint32)(unsafe.Add(sh, s[l]+sk)) = devmem.Load32(unsafe.Add(p, g[l]+gk))
		}
		return true
	}
	d := lanes(r, in.d)
	for l := range 32 {
		v := devmem.Load32(unsafe.Add(p, g[l]+gk))
		*(*uint32)(unsafe.Add(sh, s[l]+sk)) = v
		d[l] = uint64(v)
	}
	return true
}

// runs16 lets ldGStS copy whole half-warps; tests turn it off to compare
// with the lane-by-lane loop.
var runs16 = true

// copyRuns is ldGStS's copy when each half-warp's global and shared
// addresses are 16 consecutive words (a tile's row, as a coalesced load
// reads it): it checks each run's two ends and copies the run as one
// 64-byte block. It reports false, with nothing written, when some
// half-warp's addresses are not such a run or a run is not entirely in
// the allocation and the window; then the lanes go one by one, which
// find the same fault, if any, as the instructions would.
func copyRuns(sh, p unsafe.Pointer, g, s *[32]uint64, gk, sk, glim, slim uint64) bool {
	if glim < 60 || slim < 60 {
		return false
	}
	x0, x1, y0, y1 := g[0]+gk, g[16]+gk, s[0]+sk, s[16]+sk
	if x0 > glim-60 || x1 > glim-60 || y0 > slim-60 || y1 > slim-60 || (x0|x1|y0|y1)&3 != 0 || !runs(g) || !runs(s) {
		return false
	}
	// The runs may overlap each other in shared memory (a later lane's
	// store wins, as lane by lane): the first run first.
	copy64(unsafe.Add(sh, y0), unsafe.Add(p, x0))
	copy64(unsafe.Add(sh, y1), unsafe.Add(p, x1))
	return true
}

// runs reports whether each half-warp's lanes of v hold 16 consecutive
// words' addresses.
func runs(v *[32]uint64) bool {
	a, b := v[0], v[16]
	var d uint64
	for l := 1; l < 16; l++ {
		d |= (v[l] - a - uint64(4*l)) | (v[l+16] - b - uint64(4*l))
	}
	return d == 0
}

// copy64 copies the 64 bytes at src to dst, 4-byte aligned, in 8-byte
// words (a [16]uint32 assignment calls memmove), all loaded first.
func copy64(dst, src unsafe.Pointer) {
	w := func(o uintptr) uint64 { return *(*uint64)(unsafe.Add(src, o)) }
	a, b, c, d, e, f, g, h := w(0), w(8), w(16), w(24), w(32), w(40), w(48), w(56)
	st := func(o uintptr, v uint64) { *(*uint64)(unsafe.Add(dst, o)) = v }
	st(0, a)
	st(8, b)
	st(16, c)
	st(24, d)
	st(32, e)
	st(40, f)
	st(48, g)
	st(56, h)
}
