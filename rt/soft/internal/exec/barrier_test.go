package exec

import (
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// namedBarriersSrc has three warps meet on barriers 3 and 15 with thread
// counts, in an order where each is open while the other fills (warp 0
// arrives on 3 and waits on 15, warp 1 waits on 3, warp 2 arrives on 15),
// then on barrier 0 and on barrier 3 again without a count, which threads
// 90 and up reach by exiting. Each thread stores what it read through
// shared memory, plus 100 per barrier phase it passed.
const namedBarriersSrc = ptxHeader + `
.visible .entry k(.param .u64 out)
{
	.shared .align 4 .b32 box[2];
	.reg .b32 %t, %w, %v, %g;
	.reg .b64 %o, %q;
	.reg .pred %p, %x;
	mov.u32 %t, %tid.x;
	shr.u32 %w, %t, 5;
	mov.u32 %v, 0;
	setp.eq.u32 %p, %w, 1;
	@%p bra W1;
	setp.eq.u32 %p, %w, 2;
	@%p bra W2;
	st.shared.u32 [box], 11;
	bar.arrive 3, 64;
	bar.sync 15, 64;
	ld.shared.u32 %v, [box+4];
	bra.uni JOIN;
W1:
	bar.sync 3, 64;
	ld.shared.u32 %v, [box];
	bra.uni JOIN;
W2:
	st.shared.u32 [box+4], 22;
	bar.arrive 15, 64;
JOIN:
	setp.ge.u32 %x, %t, 90;
	@%x ret;
	bar.sync 0;
	add.u32 %v, %v, 100;
	bar.sync 3;
	add.u32 %v, %v, 100;
	ld.param.u64 %o, [out];
	mov.u32 %g, %ctaid.x;
	mad.lo.u32 %g, %g, 96, %t;
	mul.wide.u32 %q, %g, 4;
	add.s64 %o, %o, %q;
	st.global.u32 [%o], %v;
	ret;
}
`

// TestNamedBarriersInterleaved: release frees each barrier when its own
// count is complete, with others open at the same time, and counts exited
// threads for the barriers without a count, in every CTA of a grid run by
// one worker (the same CTA state reused) and by several.
func TestNamedBarriersInterleaved(t *testing.T) {
	for _, workers := range []int{1, 3} {
		e := newEnv(t, Config{Workers: workers})
		lib := e.loadSrc("named.ptx", namedBarriersSrc)
		const ctas = 5
		init := make([]uint32, 96*ctas)
		for i := range init {
			init[i] = 0xdead
		}
		out := e.buf(init)
		e.launch(e.kernel(lib, "k"), rt.D1(ctas), rt.D1(96), 0, out)
		got := make([]uint32, 96*ctas)
		e.get(out, got)
		for i, v := range got {
			tid := i % 96
			want := uint32(0xdead)
			if tid < 90 {
				want = []uint32{22, 11, 0}[tid/32] + 200
			}
			if v != want {
				t.Fatalf("workers %d: CTA %d thread %d stored %d, want %d", workers, i/96, tid, v, want)
			}
		}
	}
}

// TestNamedBarriersDeadlock: with barriers 3 and 15 both open and never
// completed, the report names each with its count, in barrier order, and
// the first waiting lane.
func TestNamedBarriersDeadlock(t *testing.T) {
	e := newEnv(t, Config{})
	// Warp 2 never arrives on 15: warp 0 waits there, and warps 1 (whom
	// warp 0's arrival frees from 3) and 2 on 0.
	src := strings.Replace(namedBarriersSrc, "\tbar.arrive 15, 64;\n", "\tbar.sync 0;\n", 1)
	lib := e.loadSrc("named.ptx", src)
	out := e.buf(make([]uint32, 96))
	err := e.launchErr(e.kernel(lib, "k"), rt.D1(1), rt.D1(96), 0, out)
	if err == nil {
		t.Fatal("no deadlock reported")
	}
	msg := err.Error()
	for _, want := range []string{"deadlock", "barrier 0 has 64 of 96 threads", "barrier 15 has 32 of 64 threads", "named.ptx:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("deadlock report %q lacks %q", msg, want)
		}
	}
	if i, j := strings.Index(msg, "barrier 0 has"), strings.Index(msg, "barrier 15 has"); i > j {
		t.Errorf("deadlock report %q names barrier 15 before 0", msg)
	}
	if strings.Contains(msg, "barrier 3 has") {
		t.Errorf("deadlock report %q names barrier 3, which completed", msg)
	}
}
