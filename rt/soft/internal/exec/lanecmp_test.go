package exec

import (
	"testing"

	"github.com/cugen/cugen/rt"
)

// laneCmpSrc compares %tid.x and %laneid with uniform values of every
// kind cmpLane meets: a loop counter halved from %ntid (a candidate), a
// kernel parameter (signed negative, or above 2^31 unsigned), the operands
// either way round, every relation, a guarded compare, and a candidate
// that only some lanes defined (%w, which cmpLane must not take for one
// value; and the lane test before it). Each thread folds its predicates
// into %v.
const laneCmpSrc = ptxHeader + `
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .b32 %t, %l, %s, %n, %v, %w, %m, %g, %y, %x;
	.reg .b64 %o, %q;
	.reg .pred %p, %e;
	ld.param.u32 %n, [n];
	mov.u32 %t, %tid.x;
	mov.u32 %l, %laneid;
	mov.u32 %s, %ntid.x;
	mov.u32 %w, 0;
	mov.u32 %v, 0;
LOOP:
	shr.u32 %s, %s, 1;
	setp.lt.u32 %p, %t, %s;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.le.s32 %p, %t, %s;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.gt.u32 %p, %t, %n;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.ge.s32 %p, %t, %n;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.eq.u32 %p, %t, %s;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.ne.b32 %p, %l, %s;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.lo.u32 %p, %l, %n;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.hs.u32 %p, %t, %s;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.hi.u32 %p, %s, %t;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.ls.u32 %p, %n, %t;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.lt.s32 %p, %n, %t;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.eq.s32 %p, %l, %n;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.gt.s32 %p, %t, %s;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	and.b32 %x, %t, 6;
	setp.ne.u32 %e, %x, 2;
	@%e setp.lt.u32 %p, %t, %s;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.lt.u32 %e, %l, 5;
	@%e bra SKIP;
	add.u32 %w, %s, 3;
SKIP:
	setp.ge.u32 %p, %t, %w;
	selp.u32 %m, 1, 0, %p;
	mad.lo.u32 %v, %v, 3, %m;
	setp.ne.u32 %e, %s, 0;
	@%e bra LOOP;
	ld.param.u64 %o, [out];
	mov.u32 %g, %ctaid.x;
	mov.u32 %y, %tid.y;
	mov.u32 %x, %ntid.x;
	mad.lo.u32 %y, %y, %x, %t;
	mov.u32 %x, %ntid.y;
	mov.u32 %m, %ntid.x;
	mul.lo.u32 %x, %x, %m;
	mad.lo.u32 %g, %g, %x, %y;
	mul.wide.u32 %q, %g, 4;
	add.s64 %o, %o, %q;
	st.global.u32 [%o], %v;
	ret;
}
`

// TestLaneCmp: computing a comparison of the lane index with a uniform
// value from the run of lanes sets the predicates that comparing lane by
// lane sets, with the same instruction count, in block shapes whose warps
// hold one run of %tid.x (1-D, a row of a multiple of 32) or two (a row of
// 48), with a partial last warp, and with racecheck.
func TestLaneCmp(t *testing.T) {
	run := func(shift bool, cfg Config, block rt.Dim3, n uint32) (*Program, []uint32, uint64) {
		defer func(v bool) { laneCmpShift = v }(laneCmpShift)
		laneCmpShift = shift
		cfg.Workers = 1
		e := newEnv(t, cfg)
		k := e.kernel(e.loadSrc("lanecmp.ptx", laneCmpSrc), "k")
		const grid = 2
		out := e.buf(make([]uint32, grid*block.Count()))
		p := e.kernels[k]
		l, err := e.run(k, rt.D1(grid), block, 0, out, n)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, grid*block.Count())
		e.get(out, got)
		return p, got, l.Executed()
	}
	for _, cfg := range []Config{{}, {RaceCheck: RaceOn}} {
		for _, block := range []rt.Dim3{rt.D1(256), rt.D1(80), rt.D2(32, 3), rt.D2(48, 2), rt.D1(7)} {
			for _, n := range []uint32{7, 40, 0xfffffff0, 1 << 31} {
				p, want, nW := run(false, cfg, block, n)
				_, got, nG := run(true, cfg, block, n)
				lc := 0
				for _, in := range p.code {
					if in.op == opCmpLane {
						lc++
					}
				}
				if lc != 16 {
					t.Fatalf("%d comparisons run as opCmpLane, want 16", lc)
				}
				if nG != nW {
					t.Errorf("block %v n %#x: executed %d thread-instructions from the run of lanes, %d lane by lane", block, n, nG, nW)
				}
				distinct := map[uint32]bool{}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("race %v block %v n %#x: thread %d of CTA %d: %#x from the run of lanes, %#x lane by lane",
							cfg.RaceCheck, block, n, i%int(block.Count()), i/int(block.Count()), got[i], want[i])
					}
					distinct[want[i]] = true
				}
				if len(distinct) < min(int(block.X)/2, 12) {
					t.Fatalf("block %v n %#x: only %d distinct results", block, n, len(distinct))
				}
			}
		}
	}
}
