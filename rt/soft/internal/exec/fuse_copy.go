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
