package rt_test

import (
	"encoding/binary"
	"runtime"
	"sync"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
)

// implicitPTX: whoami stores its context's `tag` at out[0].
const implicitPTX = `.version 7.0
.target sm_70
.address_size 64
.visible .global .align 4 .u32 tag;
.visible .entry whoami(.param .u64 out)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	ld.global.u32 %r1, [tag];
	st.global.u32 [%rd2], %r1;
	ret;
}
`

// retainCounter is a soft driver of two devices that counts primary-context
// retains; the rt_test binary registers it as the preferred backend, so
// that it is rt.Default (no test here uses Default otherwise).
type retainCounter struct {
	rt.Driver
	mu      sync.Mutex
	retains [2]int
}

func (r *retainCounter) PrimaryCtxRetain(dev int) (rt.CtxHandle, error) {
	r.mu.Lock()
	if dev >= 0 && dev < len(r.retains) {
		r.retains[dev]++
	}
	r.mu.Unlock()
	return r.Driver.PrimaryCtxRetain(dev)
}

func (r *retainCounter) count(dev int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.retains[dev]
}

var counting = &retainCounter{Driver: soft.New(soft.Options{Devices: 2})}

func init() { rt.Register("retaincounter", -1, func() (rt.Driver, error) { return counting, nil }) }

// TestLaunchWithoutStream: a launch with no stream runs where CUDA's runtime
// API runs it: with no context current on the thread, in device 0's primary
// context, which rt retains once for all such launches; with a context
// current, in that one; with a stream, in the stream's, whatever is current.
// Each context's `tag` says where the kernel ran (and its output buffer is
// that context's: soft faults on another's).
func TestLaunchWithoutStream(t *testing.T) {
	d, err := rt.Default()
	if err != nil || d != rt.Driver(counting) {
		t.Fatalf("rt.Default() = %v, %v; want the retain counter", d, err)
	}
	devs, err := rt.Devices()
	if err != nil {
		t.Fatal(err)
	}
	lib := rt.NewLibrary("implicit.ptx", []byte(implicitPTX))
	whoami := lib.Kernel("whoami", rt.ParamSpec{Offset: 0, Size: 8})
	tag := rt.NewGlobal[uint32](lib, "tag", 1)
	launch := func(cfg rt.Config, out rt.Buffer[uint32]) error {
		var p [8]byte
		binary.LittleEndian.PutUint64(p[:], uint64(out.Ptr))
		return whoami.Launch(cfg, p[:])
	}
	primary0, err := devs[0].Primary()
	if err != nil {
		t.Fatal(err)
	}
	defer primary0.Release()
	created, err := devs[0].NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	defer created.Release()
	primary1, err := devs[1].Primary()
	if err != nil {
		t.Fatal(err)
	}
	defer primary1.Release()
	outs := map[*rt.Context]rt.Buffer[uint32]{}
	for ctx, v := range map[*rt.Context]uint32{primary0: 7, created: 9, primary1: 11} {
		if err := tag.Set(ctx, v); err != nil {
			t.Fatal(err)
		}
		if outs[ctx], err = rt.Alloc[uint32](ctx, 1); err != nil {
			t.Fatal(err)
		}
		defer outs[ctx].Free()
	}
	check := func(what string, ctx *rt.Context, want uint32) {
		t.Helper()
		if err := ctx.Synchronize(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		got, err := outs[ctx].ToHost()
		if err != nil || got[0] != want {
			t.Errorf("%s: tag %v (%v), want %d", what, got, err, want)
		}
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cur, _ := d.CtxGetCurrent(); cur != 0 {
		t.Fatalf("a context is current on a fresh thread: %#x", cur)
	}
	before := counting.count(0)
	for i := 0; i < 3; i++ {
		if err := launch(rt.Linear(1, 1), outs[primary0]); err != nil {
			t.Fatalf("launch %d with no stream and no current context: %v", i+1, err)
		}
	}
	check("no stream, no current context", primary0, 7)
	if n := counting.count(0) - before; n != 1 {
		t.Errorf("three launches retained device 0's primary context %d times, want once", n)
	}
	if cur, _ := d.CtxGetCurrent(); cur != 0 {
		t.Errorf("the launch made %#x current", cur)
	}
	// Releasing the program's own retain leaves rt's: the context lives on.
	extra, err := devs[0].Primary()
	if err != nil {
		t.Fatal(err)
	}
	extra.Release()
	if err := launch(rt.Linear(1, 1), outs[primary0]); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	check("after the program released a retain of its own", primary0, 7)

	if err := created.SetCurrent(); err != nil {
		t.Fatal(err)
	}
	if err := launch(rt.Linear(1, 1), outs[created]); err != nil {
		t.Fatal(err)
	}
	check("no stream, a created context current", created, 9)
	s, err := primary1.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	if err := launch(rt.Linear(1, 1).On(s), outs[primary1]); err != nil {
		t.Fatal(err)
	}
	check("a stream of device 1 while device 0's created context is current", primary1, 11)
	if err := d.CtxSetCurrent(0); err != nil {
		t.Fatal(err)
	}
	if n := counting.count(0) - before; n != 2 { // the launches' one, and extra
		t.Errorf("device 0's primary context retained %d times since the first launch, want 2", n)
	}
}
