package rttest

import (
	"testing"

	"github.com/cugen/cugen/rt"
)

// StickyFaultKinds names the faults TestStickyFault knows.
var StickyFaultKinds = []string{"trap", "assert"}

// TestStickyFault checks what a kernel fault of the given kind ("trap" or
// "assert", see StickyFaultKinds) does to the process, on a driver that no
// test uses afterwards: run each kind on a driver of its own (rt/soft: a
// new soft.Driver; rt/cgo: a new process).
//
// CUDA documents the launch-failure codes as leaving "the process in an
// inconsistent state and any further CUDA work will return the same error.
// To continue using CUDA, the process must be terminated and relaunched."
// (driver API, CUresult; the quotes below are from there too). An H100
// (driver 580.159.04) was measured to do that: after a trap in a created
// context, the device's primary context, a new context and a primary
// context retained again after every context was released all fail with
// the fault's code. So the fault must be reported with its code, stick in
// its context, and reach every other context of the device, context
// creation, and a fresh retain of the primary context. Whether a second
// device stays usable is not checked: it was not measured.
func TestStickyFault(t *testing.T, d rt.Driver, kind string, opts Options) {
	s := newSuite(t, d, opts)
	var (
		k    *rt.Kernel
		code rt.Result
	)
	switch kind {
	case "trap":
		// The PTX ISA says only that trap aborts the kernel "and generates
		// an interrupt to the host"; CUDA documents no code for it. The
		// H100 reports CUDA_ERROR_LAUNCH_FAILED ("an exception occurred on
		// the device while executing a kernel").
		k, code = s.faultTrap, rt.ErrLaunchFailed
	case "assert":
		// CUDA_ERROR_ASSERT: "A device-side assert triggered during kernel
		// execution. The context cannot be used anymore, and must be
		// destroyed."
		k, code = s.faultAssert, rt.ErrAssert
	default:
		t.Fatalf("TestStickyFault: unknown fault %q (want one of %v)", kind, StickyFaultKinds)
	}
	before, err := rt.AllocFrom(s.a, iota32(64)) // the primary context's memory, made before the fault
	must(t, err)

	// The fault, in a created context.
	s.fault(t, s.b, k, code)

	// Another context of the device: "any further CUDA work".
	wantCode(t, "cuCtxSynchronize in the device's primary context", s.a.Synchronize(), code)
	_, err = before.ToHost()
	wantCode(t, "a synchronous copy in the primary context", err, code)
	_, err = rt.Alloc[float32](s.a, 16)
	wantCode(t, "an allocation in the primary context", err, code)
	err = s.runVecAdd(rt.Linear(64, 32).On(s.a.NullStream()), before.Const(), before.Const(), before.Ptr, 64)
	if err == nil {
		err = s.a.Synchronize()
	}
	wantCode(t, "a launch in the primary context", err, code)
	if c, err := s.devs[0].NewContext(0); err == nil {
		c.Release()
		t.Errorf("cuCtxCreate after the fault succeeded, want %s", code.Name())
	} else {
		wantCode(t, "cuCtxCreate after the fault", err, code)
	}

	// Leaving: releasing every context works or reports the fault (the
	// driver API says cuCtxDestroy "may also return error codes from
	// previous, asynchronous launches"); the device stays unusable.
	for _, c := range []*rt.Context{s.b, s.a} {
		if err := c.Release(); err != nil {
			t.Logf("releasing %v after the fault: %v", c, err)
		}
	}
	if p, err := s.devs[0].Primary(); err == nil {
		p.Release()
		t.Errorf("retaining the primary context again after every context was released succeeded, want %s", code.Name())
	} else {
		wantCode(t, "retaining the primary context again after every context was released", err, code)
	}
}

// fault launches k, which faults, in ctx, and checks that the fault is
// reported with code and then sticks: ctx's synchronisation, a launch of a
// good kernel, a synchronous copy and an allocation all return it.
func (s *suite) fault(t *testing.T, ctx *rt.Context, k *rt.Kernel, code rt.Result) {
	t.Helper()
	buf, err := rt.AllocFrom(ctx, iota32(64)) // memory made before the fault
	must(t, err)
	// A launch is asynchronous: the launch itself reports the fault only
	// when it waits for the kernel (rt/soft's LaunchBlocking); otherwise
	// the next synchronising call does. cuCtxSynchronize "may also return
	// error codes from previous, asynchronous launches".
	err = k.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: ctx.NullStream()}, nil)
	if err == nil {
		err = ctx.Synchronize()
	}
	wantCode(t, "the faulting launch", err, code)
	// "Any further CUDA work will return the same error."
	wantCode(t, "cuCtxSynchronize again", ctx.Synchronize(), code)
	err = s.runVecAdd(rt.Linear(64, 32).On(ctx.NullStream()), buf.Const(), buf.Const(), buf.Ptr, 64)
	if err == nil {
		err = ctx.Synchronize()
	}
	wantCode(t, "a launch of a good kernel in the faulted context", err, code)
	_, err = buf.ToHost()
	wantCode(t, "a synchronous copy in the faulted context", err, code)
	_, err = rt.Alloc[float32](ctx, 16)
	wantCode(t, "an allocation in the faulted context", err, code)
}
