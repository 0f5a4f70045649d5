package soft

import (
	"errors"
	"testing"
	"time"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

// Runaway kernels: Options.LaunchTimeout, Driver.Abort and the call-depth
// limit (internal/exec/interrupt.go).

const spinPTX = ptxHeader + `
.visible .entry spin()
{
L:
	bra L;
}
.visible .entry poll(.param .u64 flag)
{
	.reg .b64 %a;
	.reg .b32 %v;
	.reg .pred %p;
	ld.param.u64 %a, [flag];
L:
	ld.volatile.global.u32 %v, [%a];
	setp.eq.u32 %p, %v, 0;
	@%p bra L;
	ret;
}
.visible .entry nop()
{
	ret;
}
`

// stopTime launches k (1 thread per block) and returns the synchronisation's
// error and how long after the launch it came. The test's bound (a minute)
// only catches a hang: the figure is logged.
func stopTime(t *testing.T, e *env, k rt.KernelHandle, grid rt.Dim3, args ...any) (error, time.Duration) {
	t.Helper()
	start := time.Now()
	err := e.launchErr(k, grid, rt.D1(1), 0, args...)
	took := time.Since(start)
	t.Logf("stopped after %v: %v", took.Round(time.Millisecond), err)
	if took > time.Minute {
		t.Errorf("the launch took %v to stop", took)
	}
	return err, took
}

func TestLaunchTimeoutStopsRunaways(t *testing.T) {
	for _, c := range []struct {
		name, kernel string
		grid         rt.Dim3
		flag         bool
	}{
		{"infinite loop", "spin", rt.D1(1), false},
		{"polling loop that is never released", "poll", rt.D1(1), true},
		{"2^31-1 trivial blocks", "nop", rt.D1(1<<31 - 1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, Options{LaunchTimeout: 200 * time.Millisecond, Workers: 2})
			k := e.kernel(e.loadSrc("spin.ptx", spinPTX), c.kernel)
			var args []any
			if c.flag {
				args = append(args, e.buf(make([]uint32, 1)))
			}
			err, _ := stopTime(t, e, k, c.grid, args...)
			softtest.WantErr(t, err, rt.ErrLaunchTimeout, `kernel `+c.kernel+`, block`, `wall-clock limit of 200ms \(soft.Options.LaunchTimeout\)`, `watchdog`)
			// Sticky, as a watchdog timeout is on a GPU: the Driver is done.
			if _, err := e.d.CtxCreate(0, 0); !errors.Is(err, rt.ErrLaunchTimeout) {
				t.Errorf("CtxCreate after the timeout: %v, want CUDA_ERROR_LAUNCH_TIMEOUT", err)
			}
			if err := e.d.PrimaryCtxRelease(0); err != nil {
				t.Errorf("PrimaryCtxRelease after the timeout: %v", err)
			}
			// A new Driver (the new process) works.
			e2 := newEnv(t, Options{LaunchTimeout: time.Minute})
			e2.launch(e2.kernel(e2.loadSrc("spin.ptx", spinPTX), "nop"), rt.D1(4), rt.D1(32), 0)
		})
	}
}

// TestLaunchTimeoutAllowsShortKernels: a launch that ends within the limit
// is not affected by it.
func TestLaunchTimeoutAllowsShortKernels(t *testing.T) {
	e := newEnv(t, Options{LaunchTimeout: time.Minute})
	k := e.kernel(e.loadSrc("spin.ptx", spinPTX), "nop")
	for range 3 {
		e.launch(k, rt.D1(5000), rt.D1(64), 0)
	}
}

// TestAbortStopsARunningKernel: Driver.Abort from another goroutine stops
// an endless kernel on a non-blocking stream; the error is sticky and the
// context can still be released and its stream destroyed.
func TestAbortStopsARunningKernel(t *testing.T) {
	e := newEnv(t, Options{})
	k := e.kernel(e.loadSrc("spin.ptx", spinPTX), "spin")
	s, err := e.d.StreamCreate(e.ctx, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.d.Launch(k, rt.LaunchArgs{Ctx: e.ctx, Stream: s, Grid: rt.D1(4), Block: rt.D1(64)}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	e.d.Abort("interrupted by the test")
	err = e.d.StreamSynchronize(e.ctx, s)
	took := time.Since(start)
	t.Logf("stopped %v after Abort", took.Round(time.Millisecond))
	softtest.WantErr(t, err, rt.ErrLaunchTimeout, `aborted: interrupted by the test`)
	if took > time.Minute {
		t.Errorf("Abort took %v to stop the kernel", took)
	}
	if _, err := e.d.MemAlloc(e.ctx, 16); !errors.Is(err, rt.ErrLaunchTimeout) {
		t.Errorf("MemAlloc after Abort: %v, want CUDA_ERROR_LAUNCH_TIMEOUT", err)
	}
	if err := e.d.StreamDestroy(e.ctx, s); err != nil {
		t.Errorf("StreamDestroy after Abort: %v", err)
	}
	if err := e.d.PrimaryCtxRelease(0); err != nil {
		t.Errorf("PrimaryCtxRelease after Abort: %v", err)
	}
}

// TestRecursionDepthLimit: a function that calls itself with no local
// frame used to grow host memory without bound (the stack limit counted
// local memory only); each call now takes at least MinFrameBytes.
func TestRecursionDepthLimit(t *testing.T) {
	src := ptxHeader + `
.func deeper()
{
	call.uni deeper;
	ret;
}
.visible .entry k()
{
	call.uni deeper;
	ret;
}
`
	e := newEnv(t, Options{StackBytes: 64 << 10})
	err := e.launchErr(e.kernel(e.loadSrc("rec.ptx", src), "k"), rt.D1(2), rt.D1(64), 0)
	softtest.WantErr(t, err, rt.ErrHardwareStackError, `kernel k, block \(0,0,0\), thread \(0,0,0\), at rec\.ptx:7:2 \(call\.uni\)`, `calling deeper 4097 frames deep, the limit is 4096 \(soft\.Options\.StackBytes 65536 / 16 bytes`)
}
