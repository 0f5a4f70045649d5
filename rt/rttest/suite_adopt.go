package rttest

import (
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// adopt checks rt's adoption of handles other code made (rt.Adopter) and
// the driver's handles rt gives out (rt.NativeHandler). The "other code" is
// the Driver called directly, as a C library calls libcuda: its contexts,
// streams, events and memory are none of rt's objects.
func (s *suite) adopt(t *testing.T) {
	if _, ok := s.d.(rt.Adopter); !ok {
		t.Skipf("backend %s cannot check foreign handles (rt.Adopter)", s.d.Name())
	}
	d := s.d

	t.Run("context", func(t *testing.T) {
		h, err := d.CtxCreate(0, 0)
		must(t, err)
		// A cleanup, not a defer: it must run after the cleanups of the
		// stream and buffers made in the context below (cleanups run last
		// first), as an owner destroys a context only after its users are
		// done; cuStreamDestroy in a destroyed context corrupts libcuda's heap.
		t.Cleanup(func() { d.CtxDestroy(h) })
		c, err := rt.AdoptContext(d, h)
		must(t, err)
		if c.Handle() != h || c.Device().Ordinal() != 0 || c.IsPrimary() {
			t.Errorf("adopted %#x: %v", uintptr(h), c)
		}
		v := newVecAdd(t, c, 100)
		st := newStream(t, c)
		must(t, v.run(s, rt.Linear(100, 64).On(st)))
		v.check(t, "vecAdd in an adopted context")
		wantCode(t, "Release of an adopted context", c.Release(), rt.ErrNotPermitted)
		_, err = rt.AdoptContext(d, 0)
		wantCode(t, "AdoptContext(0)", err, rt.ErrInvalidContext)
	})

	t.Run("stream", func(t *testing.T) {
		h, err := d.StreamCreate(s.b.Handle(), rt.StreamNonBlocking, 0)
		must(t, err)
		defer d.StreamDestroy(s.b.Handle(), h)
		st, err := rt.AdoptStream(d, h)
		must(t, err)
		if st.Handle() != h || st.Context().Handle() != s.b.Handle() || !st.Adopted() {
			t.Errorf("AdoptStream(%#x): stream %#x in %v (adopted %v), want context %v", uintptr(h), uintptr(st.Handle()), st.Context(), st.Adopted(), s.b)
		}
		v := newVecAdd(t, s.b, 300)
		must(t, v.run(s, rt.Linear(300, 128).On(st)))
		must(t, st.Synchronize())
		v.check(t, "vecAdd on an adopted stream")
		wantCode(t, "Destroy of an adopted stream", st.Destroy(), rt.ErrNotPermitted)
		wantCode(t, "Release of an adopted stream's context", st.Context().Release(), rt.ErrNotPermitted)
		// Refused, the stream is still the owner's and still works.
		must(t, v.run(s, rt.Linear(300, 128).On(st)))
		v.check(t, "vecAdd on an adopted stream after a refused Destroy")

		st2, err := s.b.AdoptStream(h)
		must(t, err)
		if st2.Context() != s.b || st2.Handle() != h {
			t.Errorf("Context.AdoptStream: %#x in %v", uintptr(st2.Handle()), st2.Context())
		}
		_, err = s.a.AdoptStream(h)
		wantCode(t, "adopting a stream of another context", err, rt.ErrInvalidContext)
		if ns, err := s.a.AdoptStream(0); err != nil || ns.Handle() != 0 || ns.Adopted() {
			t.Errorf("AdoptStream(0): %v, %v", ns, err)
		}
	})

	t.Run("special streams", func(t *testing.T) { s.specialStreams(t) })

	t.Run("event", func(t *testing.T) {
		if _, ok := d.(rt.Streamer); !ok {
			t.Skipf("backend %s has no stream dependencies (rt.Streamer)", d.Name())
		}
		ctx := s.a
		h, err := d.EventCreate(ctx.Handle(), rt.EventDisableTiming)
		must(t, err)
		defer d.EventDestroy(ctx.Handle(), h)
		e, err := ctx.AdoptEvent(h)
		must(t, err)
		if e.Handle() != h || e.Context() != ctx {
			t.Errorf("AdoptEvent(%#x): %#x in %v", uintptr(h), uintptr(e.Handle()), e.Context())
		}
		// Producer on one stream, consumer on another ordered by the adopted event.
		prod, cons := newStream(t, ctx), newStream(t, ctx)
		v := newVecAdd(t, ctx, 1<<12)
		out, err := rt.Alloc[float32](ctx, 1<<12)
		must(t, err)
		defer out.Free()
		must(t, s.scale.Set(ctx, 2))
		defer s.scale.Set(ctx, 2.5)
		must(t, v.run(s, rt.Linear(1<<12, 256).On(prod)))
		must(t, e.Record(prod))
		must(t, cons.WaitEvent(e))
		must(t, s.runScaleBy(rt.Linear(1<<12, 256).On(cons), out.Ptr, v.c.Const(), 1<<12))
		must(t, cons.Synchronize())
		got, err := out.ToHost()
		must(t, err)
		for i, w := range v.want {
			if got[i] != 2*w {
				t.Fatalf("scaleBy after an adopted event: out[%d] = %v, want %v", i, got[i], 2*w)
			}
		}
		wantCode(t, "Destroy of an adopted event", e.Destroy(), rt.ErrNotPermitted)
		if _, err := d.(rt.Adopter).EventContext(h); err == nil {
			_, err := s.b.AdoptEvent(h)
			wantCode(t, "adopting an event of another context", err, rt.ErrInvalidContext)
		} else {
			t.Logf("backend %s cannot tell an event's context (%v): an event of another context is not caught", d.Name(), err)
		}
		_, err = ctx.AdoptEvent(0)
		wantCode(t, "AdoptEvent(0)", err, rt.ErrInvalidHandle)
	})

	t.Run("device memory", func(t *testing.T) {
		ctx := s.a
		const n = 1024
		p, err := d.MemAlloc(ctx.Handle(), n*4)
		must(t, err)
		defer d.MemFree(ctx.Handle(), p)
		info, err := d.(rt.Adopter).PointerInfo(uint64(p) + 40)
		must(t, err)
		t.Logf("PointerInfo(cuMemAlloc base+40) = %+v", info)
		if info.Kind != rt.MemoryDevice || info.Base != uint64(p) || info.Size < n*4 || info.Ctx != ctx.Handle() || info.Device != 0 {
			t.Errorf("PointerInfo(%#x+40) = %+v, want device memory at %#x, at least %d bytes, in %v on device 0", uint64(p), info, uint64(p), n*4, ctx)
		}
		b, err := rt.AdoptBuffer[float32](ctx, p, n)
		must(t, err)
		if b.Ptr.Addr() != p || b.Len != n || !b.IsView() || b.Context() != ctx {
			t.Errorf("AdoptBuffer: %v×%d in %v", b.Ptr, b.Len, b.Context())
		}
		must(t, b.CopyFrom(iota32(n)))
		out, err := rt.Alloc[float32](ctx, n)
		must(t, err)
		defer out.Free()
		st := newStream(t, ctx)
		must(t, s.scale.Set(ctx, 2))
		defer s.scale.Set(ctx, 2.5)
		must(t, s.runScaleBy(rt.Linear(n, 256).On(st), out.Ptr, b.Const(), n))
		must(t, st.Synchronize())
		got, _ := out.ToHost()
		if got[n-1] != 2*float32(n-1) {
			t.Errorf("scaleBy of an adopted buffer: out[%d] = %v", n-1, got[n-1])
		}
		wantCode(t, "Free of an adopted buffer", b.Free(), rt.ErrNotPermitted)
		if back, err := b.ToHost(); err != nil || back[7] != 7 {
			t.Errorf("an adopted buffer after a refused Free: %v, %v", back[:8], err)
		}
		sub, err := b.Slice(10, 20)
		must(t, err)
		if sub.Ptr != b.Ptr.Add(10) || sub.Len != 10 || !sub.IsView() {
			t.Errorf("Slice(10, 20): %v×%d", sub.Ptr, sub.Len)
		}
		if x, _ := sub.ToHost(); x[0] != 10 {
			t.Errorf("Slice(10, 20)[0] = %v", x[0])
		}
		wantCode(t, "Free of a slice", sub.Free(), rt.ErrNotPermitted)
		_, err = b.Slice(5, n+1)
		wantCode(t, "Slice past the end", err, rt.ErrInvalidValue)
		_, err = out.Slice(3, 2)
		wantCode(t, "Slice(3, 2)", err, rt.ErrInvalidValue)

		if _, err := rt.AdoptBuffer[float32](ctx, p+40, n-10); err != nil {
			t.Errorf("adopting the interior of an allocation: %v", err)
		}
		_, err = rt.AdoptBuffer[float32](ctx, p+40, n-9)
		wantCode(t, "adopting past the end of an allocation", err, rt.ErrInvalidValue)
		_, err = rt.AdoptBuffer[float64](ctx, p+4, 1)
		wantCode(t, "adopting a misaligned float64", err, rt.ErrInvalidValue)
		_, err = rt.AdoptBuffer[float32](s.b, p, n)
		wantCode(t, "adopting memory of another context", err, rt.ErrInvalidContext)
		_, err = rt.AdoptBuffer[float32](ctx, 0, 1)
		wantCode(t, "adopting a null pointer", err, rt.ErrInvalidValue)
		_, err = rt.AdoptBuffer[float32](ctx, p, -1)
		wantCode(t, "adopting a negative length", err, rt.ErrInvalidValue)
		goMem := make([]float32, 16)
		_, err = rt.AdoptBuffer[float32](ctx, rt.DevPtr(uintptr(unsafe.Pointer(&goMem[0]))), 16)
		wantCode(t, "adopting Go memory as device memory", err, rt.ErrInvalidValue)

		// Managed memory is every context's.
		mp, err := s.total.Ptr(s.b)
		must(t, err)
		if _, err := rt.AdoptBuffer[uint32](s.a, mp.Addr(), 1); err != nil {
			t.Errorf("adopting managed memory in another context: %v", err)
		}
		if aa, ok := d.(rt.AsyncAllocator); ok {
			ap, err := aa.MemAllocAsync(ctx.Handle(), 4096, st.Handle(), 0)
			must(t, err)
			must(t, st.Synchronize())
			info, err := d.(rt.Adopter).PointerInfo(uint64(ap))
			t.Logf("PointerInfo(cuMemAllocAsync) = %+v, %v", info, err)
			if _, err := rt.AdoptBuffer[byte](ctx, ap, 4096); err != nil {
				t.Errorf("adopting stream-ordered memory: %v", err)
			}
			must(t, aa.MemFreeAsync(ctx.Handle(), ap, st.Handle()))
			must(t, st.Synchronize())
		}
	})

	t.Run("pinned memory", func(t *testing.T) {
		m, ok := d.(rt.MemoryOps)
		if !ok {
			t.Skipf("backend %s has no page-locked memory (rt.MemoryOps)", d.Name())
		}
		ctx := s.a
		const n = 1024
		hp, err := m.MemHostAlloc(ctx.Handle(), n*4)
		must(t, err)
		defer m.MemHostFree(ctx.Handle(), hp)
		info, err := d.(rt.Adopter).PointerInfo(uint64(uintptr(hp)) + 8)
		must(t, err)
		t.Logf("PointerInfo(cuMemHostAlloc base+8) = %+v", info)
		if info.Kind != rt.MemoryHost {
			t.Errorf("PointerInfo of page-locked memory: %+v", info)
		}
		pb, err := rt.AdoptPinned[float32](ctx, hp, n)
		must(t, err)
		if pb.Pointer() != hp || pb.Len() != n || len(pb.Slice()) != n {
			t.Errorf("AdoptPinned: %p, %d", pb.Pointer(), pb.Len())
		}
		copy(pb.Slice(), iota32(n))
		dev, err := rt.Alloc[float32](ctx, n)
		must(t, err)
		defer dev.Free()
		st := newStream(t, ctx)
		must(t, dev.CopyFromAsync(st, pb.Slice()))
		must(t, st.Synchronize())
		if got, _ := dev.ToHost(); got[n-1] != float32(n-1) {
			t.Errorf("copy from adopted pinned memory: %v", got[n-1])
		}
		wantCode(t, "Free of adopted pinned memory", pb.Free(), rt.ErrNotPermitted)
		if info.Size != 0 {
			_, err = rt.AdoptPinned[float32](ctx, hp, n+int(info.Size))
			wantCode(t, "adopting past the end of page-locked memory", err, rt.ErrInvalidValue)
		} else {
			t.Logf("backend %s does not tell the size of page-locked memory: lengths are not checked", d.Name())
		}
		goMem := make([]float32, 16)
		if gi, _ := d.(rt.Adopter).PointerInfo(uint64(uintptr(unsafe.Pointer(&goMem[0])))); gi.Kind == rt.MemoryUnregistered {
			_, err = rt.AdoptPinned[float32](ctx, unsafe.Pointer(&goMem[0]), 16)
			wantCode(t, "adopting Go memory as page-locked", err, rt.ErrInvalidValue)
		} else {
			t.Logf("the driver reports Go memory as %+v (pageable memory mapped for the GPU?): AdoptPinned cannot tell it from page-locked memory", gi)
		}
		type withPointer struct{ p *int }
		_, err = rt.AdoptPinned[withPointer](ctx, hp, 1)
		wantCode(t, "AdoptPinned of a type holding Go pointers", err, rt.ErrInvalidValue)

		// A capture records an async copy from adopted pinned memory (its
		// address outlives the call), and refuses one from Go memory.
		if _, ok := d.(rt.Grapher); ok && info.Size != 0 {
			cs := newStream(t, ctx)
			g, err := cs.Capture(func(cs *rt.Stream) error {
				if err := dev.CopyFromAsync(cs, pb.Slice()); err != nil {
					return err
				}
				wantCode(t, "a captured copy from Go memory", dev.CopyFromAsync(cs, goMem), rt.ErrStreamCaptureUnsupported)
				return nil
			})
			must(t, err)
			must(t, g.Destroy())
		}
	})

	t.Run("native handles", func(t *testing.T) {
		if _, ok := d.(rt.NativeHandler); !ok {
			t.Skipf("backend %s gives no native handles (rt.NativeHandler)", d.Name())
		}
		lib, err := s.lib.Native(d)
		must(t, err)
		k, err := s.vecAdd.Native(d)
		must(t, err)
		if (lib == 0 || k == 0) != s.opts.PerContextModules {
			t.Errorf("native library %#x, kernel %#x (per-context modules: %v)", lib, k, s.opts.PerContextModules)
		}
		fa, err := s.vecAdd.Function(s.a)
		must(t, err)
		fb, err := s.vecAdd.Function(s.b)
		must(t, err)
		if fa == 0 || fb == 0 {
			t.Errorf("vecAdd's functions: %#x in %v, %#x in %v", fa, s.a, fb, s.b)
		}
	})
}

// specialStreams checks CUDA's special stream handles as other libraries
// hand them out (cudaStreamLegacy, cudaStreamPerThread, a NULL
// cudaStream_t): adopted in the context named, or the thread's current
// one, or device 0's primary; launches, copies and host functions on them;
// the legacy stream's implicit synchronisation with blocking streams and
// not with non-blocking ones; the per-thread stream ordered with it.
func (s *suite) specialStreams(t *testing.T) {
	d, ctx := s.d, s.a
	specials := []rt.StreamHandle{0, rt.StreamLegacy, rt.StreamPerThread}
	onThread(t, d, s.b, func() {
		for _, h := range specials {
			st, err := rt.AdoptStream(d, h)
			if err != nil || st.Handle() != h || st.Context().Handle() != s.b.Handle() {
				t.Errorf("rt.AdoptStream(%#x) with context B current: %v, %v; want stream %#x of B", uintptr(h), st, err, uintptr(h))
			}
		}
	})
	onThread(t, d, nil, func() {
		st, err := rt.AdoptStream(d, rt.StreamLegacy)
		if err != nil || st.Context().Handle() != s.a.Handle() {
			t.Errorf("rt.AdoptStream(StreamLegacy) with no context current: %v, %v; want device 0's primary context %v", st, err, s.a)
		}
	})
	legacy, err := ctx.AdoptStream(rt.StreamLegacy)
	must(t, err)
	per, err := ctx.AdoptStream(rt.StreamPerThread)
	must(t, err)
	for _, st := range []*rt.Stream{legacy, per} {
		if st.Context() != ctx || !st.Adopted() {
			t.Errorf("Context.AdoptStream(%#x): in %v, adopted %v", uintptr(st.Handle()), st.Context(), st.Adopted())
		}
		wantCode(t, "Destroy of a special stream", st.Destroy(), rt.ErrNotPermitted)
	}
	if _, err := d.(rt.Adopter).StreamContext(rt.StreamLegacy); err == nil {
		t.Errorf("StreamContext(StreamLegacy) gave a context; it is every context's")
	}
	// Launches and async copies on each, in stream order.
	const n = 300
	pin, err := rt.AllocPinned[float32](ctx, n)
	must(t, err)
	t.Cleanup(func() { pin.Free() }) // after the holds below are released: freeing pinned memory waits for the context's work
	for _, st := range []*rt.Stream{legacy, per} {
		onThread(t, d, nil, func() { // CUDA picks the per-thread stream by OS thread
			v := newVecAdd(t, ctx, n)
			clear(pin.Slice())
			must(t, v.run(s, rt.Linear(n, 128).On(st)))
			must(t, v.c.CopyToAsync(st, pin.Slice()))
			must(t, st.Synchronize())
			if i := firstDiff(pin.Slice(), v.want); i >= 0 {
				t.Errorf("vecAdd and an async copy on stream %#x: c[%d] = %v, want %v", uintptr(st.Handle()), i, pin.Slice()[i], v.want[i])
			}
		})
	}
	if err := legacy.BeginCapture(rt.CaptureGlobal); err == nil {
		legacy.EndCapture()
		t.Errorf("capturing the legacy stream succeeded; CUDA cannot capture it")
	}

	if _, ok := d.(rt.Streamer); !ok {
		return
	}
	s.holdsLaunches(t)
	blocking, err := ctx.NewStreamWith(0, 0)
	must(t, err)
	t.Cleanup(func() { blocking.Destroy() })
	nonBlocking := newStream(t, ctx)
	// hold is rttest's hold, released at the latest when the test ends
	// (before the streams' cleanups), so that a failure cannot hang it.
	hold := func(t *testing.T, st *rt.Stream) func() {
		var once sync.Once
		r := hold(t, st)
		release := func() { once.Do(r) }
		t.Cleanup(release)
		return release
	}
	// notYet says whether ran stays open while the held work waits.
	notYet := func(what string, ran chan struct{}) {
		t.Helper()
		select {
		case <-ran:
			t.Errorf("%s ran before the held work it must wait for", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
	// Legacy work waits for a blocking stream's earlier work.
	release := hold(t, blocking)
	ran := make(chan struct{})
	must(t, legacy.LaunchHostFunc(func() { close(ran) }))
	notYet("the legacy stream's host function", ran)
	release()
	<-ran
	// A blocking stream's later work waits for the legacy stream's, and
	// so does the per-thread stream's.
	for _, st := range []*rt.Stream{blocking, per} {
		release = hold(t, legacy)
		ran = make(chan struct{})
		must(t, st.LaunchHostFunc(func() { close(ran) }))
		notYet("a blocking stream's host function after the legacy stream's", ran)
		release()
		<-ran
	}
	// A non-blocking stream is not ordered with it: a kernel on the legacy
	// stream finishes while the non-blocking stream is held.
	v := newVecAdd(t, ctx, n)
	e, err := ctx.NewEvent(rt.EventDisableTiming)
	must(t, err)
	t.Cleanup(func() { e.Destroy() })
	release = hold(t, nonBlocking)
	must(t, v.run(s, rt.Linear(n, 128).On(legacy)))
	must(t, e.Record(legacy))
	deadline := time.Now().Add(10 * time.Second)
	for {
		done, err := e.Query()
		must(t, err)
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("a kernel on the legacy stream waited for a non-blocking stream's work")
			break
		}
		time.Sleep(time.Millisecond)
	}
	release()
	v.check(t, "vecAdd on the legacy stream beside a held non-blocking stream")
}
