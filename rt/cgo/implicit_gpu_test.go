//go:build cgo

package cgo

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestLaunchWithoutStreamGPU: on the GPU, a launch with no stream and no
// current context runs in device 0's primary context (where the CUDA runtime
// API would run it), leaving no context current; with a context current it
// runs there. kernels.ptx's scaleBy multiplies by its context's `scale`,
// which says where it ran.
func TestLaunchWithoutStreamGPU(t *testing.T) {
	gpu(t)
	def, err := rt.Default()
	if err != nil {
		t.Skipf("no default driver: %v", err)
	}
	if _, ok := def.(*Driver); !ok {
		t.Skipf("the default driver is %s, not rt/cgo", def.Name())
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	must(t, def.CtxSetCurrent(0))
	devs, err := rt.DevicesOf(def)
	must(t, err)
	primary0, err := devs[0].Primary()
	must(t, err)
	defer primary0.Release()
	created, err := devs[0].NewContext(0)
	must(t, err)
	defer created.Release()

	lib := rt.NewLibrary("kernels.ptx", kernelsPTX)
	scaleBy := lib.Kernel("scaleBy", rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 8}, rt.ParamSpec{Offset: 16, Size: 4})
	scale := rt.NewGlobal[float32](lib, "scale", 1)
	const n = 256
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	run := func(what string, ctx *rt.Context, factor float32) {
		t.Helper()
		must(t, scale.Set(ctx, factor))
		din, err := rt.AllocFrom(ctx, in)
		must(t, err)
		defer din.Free()
		dout, err := rt.Alloc[float32](ctx, n)
		must(t, err)
		defer dout.Free()
		var p [20]byte
		binary.LittleEndian.PutUint64(p[0:], uint64(dout.Ptr))
		binary.LittleEndian.PutUint64(p[8:], uint64(din.Ptr))
		binary.LittleEndian.PutUint32(p[16:], n)
		if err := scaleBy.Launch(rt.Linear(n, 128), p[:]); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		must(t, ctx.Synchronize())
		got, err := dout.ToHost()
		must(t, err)
		for i, v := range got {
			if v != in[i]*factor {
				t.Fatalf("%s: out[%d] = %v, want %v (the kernel ran elsewhere)", what, i, v, in[i]*factor)
			}
		}
	}
	run("no stream, no current context", primary0, 4)
	if cur, err := def.CtxGetCurrent(); err != nil || cur != 0 {
		t.Errorf("the launch left %#x current (%v), want none", cur, err)
	}
	must(t, created.SetCurrent())
	run("no stream, a created context current", created, 6)
	must(t, def.CtxSetCurrent(0))
	run("no stream, none current again", primary0, 8)
	t.Logf("IMPLICIT-CONTEXT: launches without a stream ran in device 0's primary context, and in the current context when one was set")
}
