package soft

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// reset gives e a fresh primary context after a sticky fault: it releases
// the primary context fully and retains it again, with the Driver's fault
// forgotten. On a GPU that needs a new process (sticky.go); the tests that
// check one fault after another would otherwise reload every library, so
// they start the new "process" this way. Loaded libraries stay.
func (e *env) reset() {
	e.t.Helper()
	if err := e.d.PrimaryCtxRelease(0); err != nil {
		e.t.Fatal(err)
	}
	e.d.fault.Store(nil)
	ctx, err := e.d.PrimaryCtxRetain(0)
	if err != nil {
		e.t.Fatal(err)
	}
	e.ctx = ctx
}

// TestStickyFault: after a kernel fault, every call that works in the
// context returns the fault, while the calls that leave it still work, and
// the whole Driver (the process) stays unusable.
func TestStickyFault(t *testing.T) {
	e := newEnv(t, Options{Devices: 2})
	lib := e.load("typical_sm90.ptx")
	vadd := e.kernel(lib, "_Z4vaddPKfS0_Pfi")
	spin := e.loadSrc("spin.ptx", kernelSrc(".param .u64 count", `
	.reg .b64 %rd<2>;
	.reg .b32 %r<3>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [count];
	mov.u32 %r1, 0;
L:
	add.u32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 200;
	@%p1 bra L;
	atom.global.add.u32 %r2, [%rd1], 1;
	ret;`))
	pa := e.buf(make([]float32, 4))
	st, err := e.d.StreamCreate(e.ctx, streamNonBlocking, 0)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := e.d.EventCreate(e.ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A long launch on another stream, then the fault.
	count := e.buf(make([]uint32, 1))
	const ctas = 1 << 20
	p := params(count)
	la := rt.LaunchArgs{Stream: st, Grid: rt.D1(ctas), Block: rt.D1(32), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}
	if err := e.d.Launch(e.kernel(spin, "k"), la); err != nil {
		t.Fatal(err)
	}
	first := wantErr(t, e.launchErr(vadd, rt.D1(1), rt.D1(64), 0, pa, pa, pa, 64), rt.ErrIllegalAddress, `out of bounds`)
	if first.Op != "cuCtxSynchronize" || strings.Contains(first.Detail, "unusable") {
		t.Errorf("the first report is not the fault itself: %+v", first)
	}

	// Every call that works in the context: the same code, async, naming
	// the fault.
	var x [4]byte
	calls := map[string]error{
		"cuCtxSynchronize":    e.d.CtxSynchronize(e.ctx),
		"cuStreamSynchronize": e.d.StreamSynchronize(e.ctx, st),
		"cuLaunchKernel":      e.launchErr(vadd, rt.D1(1), rt.D1(4), 0, pa, pa, pa, 4),
		"cuMemcpyDtoH":        e.d.MemcpyDtoH(e.ctx, unsafe.Pointer(&x[0]), pa, 4, 0, false),
		"cuMemsetD8":          e.d.MemsetD8(e.ctx, pa, 0, 4, 0, false),
		"cuMemFree":           e.d.MemFree(e.ctx, pa),
		"cuEventRecord":       e.d.EventRecord(e.ctx, ev, st),
	}
	_, calls["cuMemAlloc"] = e.d.MemAlloc(e.ctx, 16)
	_, calls["cuStreamCreate"] = e.d.StreamCreate(e.ctx, 0, 0)
	_, calls["cuEventCreate"] = e.d.EventCreate(e.ctx, 0)
	_, _, calls["cuLibraryGetGlobal"] = e.d.LibraryGlobal(e.ctx, lib, "nothing")
	_, calls["cuStreamQuery"] = e.d.StreamQuery(e.ctx, st)
	for op, err := range calls {
		if op == "cuLaunchKernel" {
			op = "cuCtxSynchronize" // launchErr's launch fails, or its sync does
			if ee, ok := err.(*rt.Error); ok && ee.Op == "cuLaunchKernel" {
				op = "cuLaunchKernel"
			}
		}
		ee := wantErr(t, err, rt.ErrIllegalAddress, `unusable`, `typical_sm90\.ptx:\d+`)
		if !ee.Async || ee.Op != op {
			t.Errorf("%s: %+v, want the sticky fault reported by %s as async", op, ee, op)
		}
	}
	// The long launch stopped at its next CTA.
	if err := e.d.StreamSynchronize(e.ctx, st); !errors.Is(err, rt.ErrIllegalAddress) {
		t.Errorf("the other stream's sync: %v", err)
	}
	if a := e.d.mem.Live(uint64(count), 4); a == nil {
		t.Error("the counter's allocation is gone")
	} else if n := binary.LittleEndian.Uint32(a.Bytes()); n >= ctas {
		t.Errorf("the long launch ran all its %d CTAs after its context faulted", n)
	} else {
		t.Logf("the long launch stopped after %d of %d CTAs", n, ctas)
	}

	// What leaves the context still works.
	if dev, err := e.d.CtxDevice(e.ctx); err != nil || dev != 0 {
		t.Errorf("CtxDevice: %d, %v", dev, err)
	}
	for _, err := range []error{e.d.CtxSetCurrent(e.ctx), e.d.CtxSetCurrent(0), e.d.StreamDestroy(e.ctx, st), e.d.EventDestroy(e.ctx, ev)} {
		if err != nil {
			t.Errorf("a call that leaves the context: %v", err)
		}
	}

	// The process is done with CUDA: other contexts of the device and of
	// the other device, new contexts, and a primary context retained
	// again after its full release all report the fault.
	b, err := e.d.PrimaryCtxRetain(1)
	if err == nil {
		t.Errorf("retaining device 1's primary context after the fault succeeded")
		e.d.PrimaryCtxRelease(1)
	} else {
		wantErr(t, err, rt.ErrIllegalAddress, `unusable`)
	}
	_, err = e.d.CtxCreate(0, 0)
	wantErr(t, err, rt.ErrIllegalAddress, `unusable`)
	if err := e.d.PrimaryCtxRelease(0); err != nil {
		t.Fatal(err)
	}
	_, err = e.d.PrimaryCtxRetain(0)
	wantErr(t, err, rt.ErrIllegalAddress, `unusable`)
	_ = b

	// A new Driver is the new process.
	e2 := newEnv(t, Options{})
	lib2 := e2.load("typical_sm90.ptx")
	in := e2.buf([]float32{1, 2, 3, 4})
	e2.launch(e2.kernel(lib2, "_Z4vaddPKfS0_Pfi"), rt.D1(1), rt.D1(4), 0, in, in, in, 4)
	var got [4]float32
	e2.get(in, got[:])
	if got[3] != 8 {
		t.Errorf("a new Driver: vadd gave %v", got)
	}
}

// TestStickyCodes: each kind of fault is sticky with its own code.
func TestStickyCodes(t *testing.T) {
	for _, c := range []struct {
		name, body string
		opt        Options
		code       rt.Result
	}{
		{"trap", "trap;", Options{}, rt.ErrLaunchFailed},
		{"misaligned", ".reg .b64 %rd<2>;\n.reg .b32 %r<2>;\nmov.u64 %rd1, 0x700000000002;\nld.global.u32 %r1, [%rd1];\nret;", Options{}, rt.ErrMisalignedAddress},
		{"timeout", "L:\nbra.uni L;", Options{InstrBudget: 1 << 16}, rt.ErrLaunchTimeout},
		{"deadlock", "bar.sync 0, 64;\nret;", Options{}, rt.ErrLaunchFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.opt)
			k := e.kernel(e.loadSrc(c.name+".ptx", kernelSrc("", c.body)), "k")
			wantErr(t, e.launchErr(k, rt.D1(1), rt.D1(32), 0), c.code)
			if !c.code.Sticky() {
				t.Errorf("%s is not Sticky", c.code.Name())
			}
			ee := wantErr(t, e.launchErr(e.kernel(e.loadSrc("ok.ptx", kernelSrc("", "ret;")), "k"), rt.D1(1), rt.D1(1), 0), c.code, `unusable`)
			if ee.Op != "cuLaunchKernel" {
				t.Errorf("a launch after the fault: %+v", ee)
			}
		})
	}
	for _, r := range []rt.Result{rt.ErrInvalidValue, rt.ErrOutOfMemory, rt.ErrInvalidContext, rt.ErrNotReady} {
		if r.Sticky() {
			t.Errorf("%s is Sticky", r.Name())
		}
	}
}
