package exec

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// nopSrc has runs of opNops (parameter loads, specials, cvta, a folded
// add) that a branch enters in the middle, that a divergent branch's join
// splits (the inline split stops inside the run), that end the code
// before a guarded nop, and that a loop crosses REPS times.
const nopSrc = ptxHeader + `
.visible .entry k(.param .u64 out, .param .u32 reps)
{
	.reg .b32 %t, %v, %k, %c, %n, %x, %y, %z, %w;
	.reg .b64 %o, %g, %q, %a;
	.reg .pred %p, %s;
	ld.param.u32 %n, [reps];
	mov.u32 %t, %tid.x;
	mov.u32 %v, 0;
	mov.u32 %k, 0;
	mov.u32 %x, %ntid.x;
	mov.u32 %y, %nctaid.x;
TOP:
	and.b32 %c, %t, 3;
	setp.eq.u32 %p, %c, 1;
	@%p bra MID;
	mov.u32 %z, %ctaid.x;
	ld.param.u64 %o, [out];
MID:
	cvta.to.global.u64 %g, %o;
	mov.u32 %w, %ctaid.y;
	add.u32 %v, %v, %x;
	add.u32 %v, %v, %t;
	xor.b32 %v, %v, %k;
	add.u32 %k, %k, 1;
	setp.lt.u32 %s, %k, %n;
	@%s bra TOP;
	mov.u32 %z, %ctaid.x;
	mad.lo.u32 %z, %z, %x, %t;
	mul.wide.u32 %q, %z, 4;
	add.s64 %a, %g, %q;
	add.u32 %v, %v, %y;
	add.u32 %v, %v, %w;
	st.global.u32 [%a], %v;
	ret;
}
`

// nopRun launches nopSrc (3 CTAs of 80 threads), its nop runs kept or
// undone, and returns the stores, the fault and the thread-instructions
// executed.
func nopRun(t *testing.T, runs bool, reps int, budget uint64) ([]uint32, string, uint64) {
	t.Helper()
	e := newEnv(t, Config{Workers: 1, InstrBudget: budget})
	lib := e.loadSrc("nop.ptx", strings.Replace(nopSrc, "REPS", strconv.Itoa(reps), 1))
	k := e.kernel(lib, "k")
	p := e.kernels[k]
	long := 0
	for i := range p.code {
		if in := &p.code[i]; in.op == opNop && in.gp < 0 {
			if in.aux > 1 {
				long++
			}
			if !runs {
				in.aux = 1
			}
		}
	}
	if long < 3 {
		t.Fatalf("only %d nops start runs: the kernel tests too little", long)
	}
	out := e.buf(make([]uint32, 80*3))
	l, err := e.run(k, rt.D1(3), rt.D1(80), 0, out, uint32(reps))
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	got := make([]uint32, 80*3)
	e.get(out, got)
	return got, msg, l.Executed()
}

// TestNopRuns: stepping over a run of nops at once stores, counts and
// meets the instruction budget as running them one by one does.
func TestNopRuns(t *testing.T) {
	want, msgW, nW := nopRun(t, false, 5, 0)
	got, msgG, nG := nopRun(t, true, 5, 0)
	if msgW != "" || msgG != "" {
		t.Fatalf("faults: %q one by one, %q in runs", msgW, msgG)
	}
	if nG != nW {
		t.Errorf("executed %d thread-instructions in runs, %d one by one", nG, nW)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("thread %d: %d in runs, %d one by one", i, got[i], want[i])
		}
	}
	const reps = 20000
	_, _, total := nopRun(t, false, reps, 0)
	for _, budget := range []uint64{1, 5 << 20, total - 1, total} {
		_, msgW, nW := nopRun(t, false, reps, budget)
		_, msgG, nG := nopRun(t, true, reps, budget)
		if budget < total && !strings.Contains(msgW, "instruction budget") {
			t.Fatalf("budget %d of %d: no budget fault: %q", budget, total, msgW)
		}
		if msgG != msgW || nG != nW {
			t.Errorf("budget %d:\nruns:       %q (%d executed)\none by one: %q (%d executed)", budget, msgG, nG, msgW, nW)
		}
	}
}
