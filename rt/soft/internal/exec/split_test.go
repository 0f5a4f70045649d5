package exec

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// splitSrc diverges every way exec's inline split handles or declines: a
// forward if with a nested if, lanes that exit inside one side, a loop
// whose trip count depends on the lane (a split at a backward branch),
// a branch to the next instruction, a guarded skip onto the join, and a
// barrier after the sides meet, all REPS times over; activemask shows
// which lanes run together where sides meet. TRAP, when set,
// faults one lane inside a side.
const splitSrc = ptxHeader + `
.visible .entry k(.param .u64 out)
{
	.reg .b32 %t, %l, %v, %i, %n, %g, %k, %am;
	.reg .b64 %o, %q;
	.reg .pred %p, %r, %s;
	mov.u32 %t, %tid.x;
	and.b32 %l, %t, 31;
	mov.u32 %v, 1;
	mov.u32 %k, 0;
TOP:
	setp.lt.u32 %p, %l, 11;
	@%p bra SKIP;
	add.u32 %v, %v, 10;
	setp.eq.u32 %r, %l, 20;
	@%r bra INNER;
	add.u32 %v, %v, 100;
INNER:
	activemask.b32 %am;
	xor.b32 %v, %v, %am;
	TRAP
	mul.lo.u32 %v, %v, 3;
SKIP:
	setp.gt.u32 %s, %t, 90;
	@%s bra NEXT;
NEXT:
	setp.eq.u32 %s, %l, 7;
	@%s ret;
	and.b32 %n, %t, 5;
	mov.u32 %i, 0;
LOOP:
	add.u32 %v, %v, %i;
	add.u32 %i, %i, 1;
	setp.le.u32 %r, %i, %n;
	@%r bra LOOP;
	activemask.b32 %am;
	xor.b32 %v, %v, %am;
	setp.lt.u32 %p, %l, 16;
	@%p bra JOIN;
	add.u32 %v, %v, 1000;
	@%p add.u32 %v, %v, 1;
JOIN:
	bar.sync 0;
	add.u32 %k, %k, 1;
	setp.lt.u32 %s, %k, REPS;
	@%s bra TOP;
	ld.param.u64 %o, [out];
	mov.u32 %g, %ctaid.x;
	mad.lo.u32 %g, %g, 80, %t;
	mul.wide.u32 %q, %g, 4;
	add.s64 %o, %o, %q;
	st.global.u32 [%o], %v;
	ret;
}
`

// splitRun launches splitSrc with splitInline as given and returns the
// stores, the fault and the thread-instructions executed.
func splitRun(t *testing.T, inline bool, trap string, reps int, budget uint64) ([]uint32, string, uint64) {
	t.Helper()
	defer func(v bool) { splitInline = v }(splitInline)
	splitInline = inline
	e := newEnv(t, Config{Workers: 1, InstrBudget: budget})
	src := strings.Replace(strings.Replace(splitSrc, "TRAP", trap, 1), "REPS", strconv.Itoa(reps), 1)
	lib := e.loadSrc("split.ptx", src)
	var k rt.KernelHandle
	k = e.kernel(lib, "k")
	out := e.buf(make([]uint32, 80*3))
	l, err := e.run(k, rt.D1(3), rt.D1(80), 0, out)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	got := make([]uint32, 80*3)
	e.get(out, got)
	return got, msg, l.Executed()
}

// TestSplitInline: going on with one side of a divergent branch inside exec
// (and taking the other side in where they meet) stores what the way
// through the scheduler stores, and faults, counts instructions and hits
// the instruction budget at the same points, with the same messages.
func TestSplitInline(t *testing.T) {
	want, msgW, nW := splitRun(t, false, "", 3, 0)
	got, msgG, nG := splitRun(t, true, "", 3, 0)
	if msgW != "" || msgG != "" {
		t.Fatalf("faults: %q without the inline split, %q with it", msgW, msgG)
	}
	if nG != nW {
		t.Errorf("executed %d thread-instructions inline, %d through the scheduler", nG, nW)
	}
	distinct := map[uint32]bool{}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("thread %d of CTA %d: %d inline, %d through the scheduler", i%80, i/80, got[i], want[i])
		}
		distinct[want[i]] = true
	}
	if len(distinct) < 6 {
		t.Fatalf("only %d distinct results: the kernel diverges too little", len(distinct))
	}
	trap := "setp.eq.u32 %s, %t, 45;\n\t@%s trap;"
	_, msgW, nW = splitRun(t, false, trap, 3, 0)
	_, msgG, nG = splitRun(t, true, trap, 3, 0)
	if msgW == "" || msgG != msgW || nG != nW {
		t.Errorf("trap in a side:\ninline:    %q (%d executed)\nscheduler: %q (%d executed)", msgG, nG, msgW, nW)
	}
	// The budget is charged in chunks of 4M thread-instructions: a long
	// run meets it at several points, each a charge (a backward branch or
	// the end of a group's run).
	const reps = 1500
	_, _, total := splitRun(t, false, "", reps, 0)
	for _, budget := range []uint64{1, 5 << 20, 9 << 20, total - 1} {
		_, msgW, nW := splitRun(t, false, "", reps, budget)
		_, msgG, nG := splitRun(t, true, "", reps, budget)
		if !strings.Contains(msgW, "instruction budget") {
			t.Fatalf("budget %d of %d: no budget fault: %q", budget, total, msgW)
		}
		t.Logf("budget %d of %d: %d executed: %s", budget, total, nW, msgW)
		if msgG != msgW || nG != nW {
			t.Errorf("budget %d:\ninline:    %q (%d executed)\nscheduler: %q (%d executed)", budget, msgG, nG, msgW, nW)
		}
	}
}
