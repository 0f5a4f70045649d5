package soft

import (
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestMbarrierTraceH100 runs nvcc's mbarTrace (testdata/async/mbarrier.cu):
// one thread through five phases of an mbarrier (arrive with and without
// counts, arrive_drop, expect_tx, complete_tx before and after the
// arrivals, arrive.expect_tx, a negative tx-count, inval and init), each
// step's pending_count of the returned state and the test_wait,
// try_wait and parity results against the H100's.
func TestMbarrierTraceH100(t *testing.T) {
	rec := readRecording(t, "mbarrier_h100.txt")
	want := recorded(t, rec, "trace")
	e := newEnv(t, Options{})
	k := e.kernel(e.load("async/mbarrier.ptx"), "mbarTrace")
	out := e.buf(u32s(128))
	e.launch(k, rt.D1(1), rt.D1(1), 0, out)
	got := u32s(128)
	e.get(out, got)
	compareWords(t, "trace", got[:len(want)], want)
	if got[len(want)] != 0xffffffff {
		t.Errorf("the trace is longer than the H100's")
	}
}

// TestMbarrierPipelineH100: a producer warp and a consumer warp hand six
// rounds of data over through a full and an empty barrier, each waiting
// with try_wait.parity in a loop.
func TestMbarrierPipelineH100(t *testing.T) {
	rec := readRecording(t, "mbarrier_h100.txt")
	want := recorded(t, rec, "pipeline")
	for _, det := range []bool{false, true} {
		e := newEnv(t, Options{Deterministic: det})
		k := e.kernel(e.load("async/mbarrier.ptx"), "mbarPipeline")
		out := e.buf(u32s(6 * 32))
		e.launch(k, rt.D1(1), rt.D1(64), 0, out, int32(6))
		got := u32s(6 * 32)
		e.get(out, got)
		compareWords(t, "pipeline", got, want)
	}
}

const mbarPTX = `
.version 8.0
.target sm_90
.address_size 64

// wait: every thread waits on a barrier that expects one arrival more
// than ever come.
.visible .entry wait(.param .u64 out)
{
	.reg .pred %p<3>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra L1;
	mbarrier.init.shared.b64 [bar], 65;
L1:
	bar.sync 0;
	mbarrier.arrive.shared.b64 %rd1, [bar];
L2:
	mbarrier.try_wait.shared.b64 %p2, [bar], %rd1;
	@!%p2 bra L2;
	ret;
}

// uninit: arrives on a barrier nobody initialised.
.visible .entry uninit()
{
	.reg .b64 %rd<2>;
	.shared .align 8 .b64 bar;
	st.shared.u64 [bar], 0;
	mbarrier.arrive.shared.b64 %rd1, [bar];
	ret;
}

// over: arrives twice on a barrier that expects one arrival per phase,
// with a count of 2.
.visible .entry over()
{
	.reg .b64 %rd<2>;
	.shared .align 8 .b64 bar;
	mbarrier.init.shared.b64 [bar], 1;
	mbarrier.arrive.shared::cta.b64 %rd1, [bar], 2;
	ret;
}

// spin: warp 1 polls with test_wait until warp 0 (which first spends a
// while counting) arrives; out[0] = the count warp 1 saw.
.visible .entry spin(.param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	.shared .align 8 .b64 bar;
	.shared .align 4 .u32 count;
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra L1;
	mbarrier.init.shared.b64 [bar], 1;
	st.shared.u32 [count], 0;
L1:
	bar.sync 0;
	setp.lt.u32 %p1, %r1, 32;
	@!%p1 bra CONSUMER;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mov.u32 %r2, 0;
LOOP:
	add.u32 %r2, %r2, 1;
	st.shared.u32 [count], %r2;
	setp.lt.u32 %p2, %r2, 1000;
	@%p2 bra LOOP;
	mbarrier.arrive.shared.b64 %rd1, [bar];
	bra DONE;
CONSUMER:
	setp.ne.u32 %p1, %r1, 32;
	@%p1 bra DONE;
POLL:
	mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;
	@!%p3 bra POLL;
	ld.shared.u32 %r3, [count];
	st.global.u32 [%rd2], %r3;
DONE:
	ret;
}
`

// TestMbarrierErrors: a barrier that can never complete is a deadlock
// naming it; using an uninitialised barrier and arriving more often than
// the phase expects are errors, not silent corruption.
func TestMbarrierErrors(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.loadSrc("mbar.ptx", mbarPTX)
	for _, c := range []struct {
		kernel string
		block  int
		args   []any
		want   []string
	}{
		{"wait", 64, []any{rt.DevPtr(0)}, []string{"deadlock", "mbarrier at shared address 0x400 waits for 1 of 65 arrivals", "mbar.ptx:22"}},
		{"uninit", 1, nil, []string{"not initialised", "mbar.ptx:33"}},
		{"over", 1, nil, []string{"2 arrivals, but the current phase has 1 pending", "mbar.ptx:44"}},
	} {
		err := e.launchErr(e.kernel(lib, c.kernel), rt.D1(1), rt.D1(c.block), 0, c.args...)
		e.reset() // the fault is sticky
		if err == nil {
			t.Errorf("%s: no error", c.kernel)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.kernel, err, w)
			}
		}
	}
}

// TestMbarrierTestWaitYields: a warp polling with test_wait lets the warp
// it waits for run (soft runs a CTA's warps on one goroutine).
func TestMbarrierTestWaitYields(t *testing.T) {
	e := newEnv(t, Options{InstrBudget: 1 << 24})
	k := e.kernel(e.loadSrc("mbar.ptx", mbarPTX), "spin")
	out := e.buf(u32s(1))
	e.launch(k, rt.D1(1), rt.D1(64), 0, out)
	got := u32s(1)
	e.get(out, got)
	if got[0] != 1000 {
		t.Errorf("the consumer saw count %d after the barrier, want 1000", got[0])
	}
}
