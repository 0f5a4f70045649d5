package rttest

import (
	"sync"
	"testing"

	"github.com/cugen/cugen/rt"
)

func (s *suite) devices(t *testing.T) {
	if s.d.Name() == "" {
		t.Error("Name() is empty")
	}
	// Limits every device of compute capability 7.0 and up has.
	exact := []struct {
		attr rt.DeviceAttr
		name string
		want int
	}{
		{rt.AttrWarpSize, "warp size", 32},
		{rt.AttrMaxThreadsPerBlock, "max threads per block", 1024},
		{rt.AttrMaxBlockDimX, "max block x", 1024},
		{rt.AttrMaxGridDimX, "max grid x", 1<<31 - 1},
		{rt.AttrMaxSharedMemoryPerBlock, "shared memory per block", 48 << 10},
	}
	for _, dev := range s.devs {
		name, err := dev.Name()
		must(t, err)
		major, minor, err := dev.ComputeCapability()
		must(t, err)
		sms, err := dev.Attribute(rt.AttrMultiprocessorCount)
		must(t, err)
		optin, err := dev.Attribute(rt.AttrMaxSharedMemoryPerBlockOptin)
		must(t, err)
		mem, err := dev.TotalMem()
		must(t, err)
		t.Logf("%v: %q, sm_%d%d, %d SMs, %d KiB shared opt-in, %d MiB", dev, name, major, minor, sms, optin>>10, mem>>20)
		if name == "" || major < 7 || sms < 1 || optin < 48<<10 || mem == 0 {
			t.Errorf("%v: implausible name %q, compute capability %d.%d, %d SMs, %d bytes opt-in shared memory, %d bytes", dev, name, major, minor, sms, optin, mem)
		}
		for _, a := range exact {
			if v, err := dev.Attribute(a.attr); err != nil || v != a.want {
				t.Errorf("%v: %s = %d (%v), want %d", dev, a.name, v, err, a.want)
			}
		}
	}
	for _, bad := range []int{len(s.devs), -1} {
		_, err := s.d.DeviceName(bad)
		wantCode(t, "DeviceName of a device that does not exist", err, rt.ErrInvalidDevice)
		_, err = s.d.DeviceAttribute(bad, rt.AttrWarpSize)
		wantCode(t, "DeviceAttribute of a device that does not exist", err, rt.ErrInvalidDevice)
		_, err = s.d.DeviceTotalMem(bad)
		wantCode(t, "DeviceTotalMem of a device that does not exist", err, rt.ErrInvalidDevice)
		_, err = s.d.PrimaryCtxRetain(bad)
		wantCode(t, "PrimaryCtxRetain of a device that does not exist", err, rt.ErrInvalidDevice)
		_, err = s.d.CtxCreate(bad, 0)
		wantCode(t, "CtxCreate on a device that does not exist", err, rt.ErrInvalidDevice)
	}
}

func (s *suite) contexts(t *testing.T) {
	dev := s.devs[0]
	// The primary context is one per device: retained again, it is the same.
	p, err := dev.Primary()
	must(t, err)
	if p.Handle() != s.a.Handle() || !p.IsPrimary() || p.Device().Ordinal() != 0 {
		t.Errorf("second retain of the primary context: %v, want %v", p, s.a)
	}
	if ord, err := s.d.CtxDevice(p.Handle()); err != nil || ord != 0 {
		t.Errorf("CtxDevice(primary) = %d, %v", ord, err)
	}
	must(t, p.Release())
	// One release of two retains leaves it alive.
	buf, err := rt.Alloc[byte](s.a, 64)
	must(t, err)
	must(t, buf.Free())

	// A created context is a context of its own.
	c, err := dev.NewContext(0)
	must(t, err)
	if c.Handle() == s.a.Handle() || c.Handle() == s.b.Handle() || c.IsPrimary() {
		t.Errorf("NewContext gave %v; the primary is %v, another created one %v", c, s.a, s.b)
	}
	if ord, err := s.d.CtxDevice(c.Handle()); err != nil || ord != 0 {
		t.Errorf("CtxDevice(created) = %d, %v", ord, err)
	}
	must(t, c.Synchronize())
	must(t, c.Release())

	if len(s.devs) > 1 {
		p1, err := s.devs[1].Primary()
		must(t, err)
		if p1.Handle() == s.a.Handle() {
			t.Errorf("devices 0 and 1 share primary context %v", p1)
		}
		if ord, err := s.d.CtxDevice(p1.Handle()); err != nil || ord != 1 {
			t.Errorf("CtxDevice(device 1's primary) = %d, %v", ord, err)
		}
		must(t, p1.Release())
	}
}

// currentPerThread: the current context is per OS thread; a launch or call
// with neither stream nor context runs in it; creating a context leaves it
// alone; with none current such calls fail with ErrInvalidContext.
func (s *suite) currentPerThread(t *testing.T) {
	scaleBy, err := s.scaleBy.Handle(s.d)
	must(t, err)
	must(t, s.scale.Set(s.a, 2.5))
	must(t, s.scale.Set(s.b, 3))
	defer s.scale.Set(s.b, 2.5)

	// Each thread runs scaleBy with no stream and no context: the result
	// shows whose `scale` it read. (On other goroutines than the test's
	// the checks report with Error: Fatal must not be called there.)
	const n = 256
	runCurrent := func(ctx *rt.Context) ([]float32, error) {
		in, err := rt.AllocFrom(ctx, iota32(n))
		if err != nil {
			return nil, err
		}
		defer in.Free()
		out, err := rt.Alloc[float32](ctx, n)
		if err != nil {
			return nil, err
		}
		defer out.Free()
		p := make([]byte, 20)
		le.PutUint64(p[0:], uint64(out.Ptr))
		le.PutUint64(p[8:], uint64(in.Ptr))
		le.PutUint32(p[16:], n)
		if err := s.d.Launch(scaleBy, raw(rt.LaunchArgs{Grid: rt.D1(1), Block: rt.D1(n)}, p)); err != nil {
			return nil, err
		}
		if err := s.d.CtxSynchronize(0); err != nil {
			return nil, err
		}
		return out.ToHost()
	}
	checkScaled := func(who string, got []float32, err error, scale float32) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", who, err)
			return
		}
		for i, v := range got {
			if v != float32(i)*scale {
				t.Errorf("%s: out[%d] = %v, want %v (its context's scale %v)", who, i, v, float32(i)*scale, scale)
				return
			}
		}
	}

	aSet, bChecked := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		onThread(t, s.d, s.a, func() {
			close(aSet)
			<-bChecked
			if cur, err := s.d.CtxGetCurrent(); err != nil || cur != s.a.Handle() {
				t.Errorf("thread 1 set A current, then thread 2 set B: thread 1 sees %#x (%v), want A %#x", cur, err, s.a.Handle())
			}
			got, err := runCurrent(s.a)
			checkScaled("launch in thread 1's current context A", got, err, 2.5)
			// Creating a context does not make it current.
			c, err := s.devs[0].NewContext(0)
			if err != nil {
				t.Error(err)
				return
			}
			if cur, _ := s.d.CtxGetCurrent(); cur != s.a.Handle() {
				t.Errorf("CtxCreate changed the current context from A %#x to %#x", s.a.Handle(), cur)
			}
			if err := c.Release(); err != nil {
				t.Error(err)
			}
		})
	}()
	go func() {
		defer wg.Done()
		<-aSet
		onThread(t, s.d, s.b, func() {
			if cur, err := s.d.CtxGetCurrent(); err != nil || cur != s.b.Handle() {
				t.Errorf("thread 2 sees %#x (%v) after setting B %#x current", cur, err, s.b.Handle())
			}
			close(bChecked)
			got, err := runCurrent(s.b)
			checkScaled("launch in thread 2's current context B", got, err, 3)
		})
	}()
	wg.Wait()

	onThread(t, s.d, nil, func() {
		if cur, err := s.d.CtxGetCurrent(); err != nil || cur != 0 {
			t.Errorf("CtxGetCurrent after CtxSetCurrent(0) = %#x, %v; want 0, nil", cur, err)
		}
		_, err := s.d.MemAlloc(0, 16)
		wantCode(t, "MemAlloc with no context given or current", err, rt.ErrInvalidContext)
		err = s.d.Launch(scaleBy, raw(rt.LaunchArgs{Grid: rt.D1(1), Block: rt.D1(1)}, make([]byte, 20)))
		wantCode(t, "a launch with no stream, context or current context", err, rt.ErrInvalidContext)
	})
}
