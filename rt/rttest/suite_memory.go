package rttest

import (
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

func (s *suite) memory(t *testing.T) {
	ctx := s.a
	const n = 4096
	src := iota32(n)
	b, err := rt.AllocFrom(ctx, src)
	must(t, err)
	defer b.Free()
	if got, err := b.ToHost(); err != nil || firstDiff(got, src) >= 0 {
		t.Fatalf("AllocFrom then ToHost does not give the input back (%v)", err)
	}

	// Device to device, and Zero.
	c, err := rt.Alloc[float32](ctx, n)
	must(t, err)
	defer c.Free()
	must(t, c.Zero())
	if got, _ := c.ToHost(); firstDiff(got, make([]float32, n)) >= 0 {
		t.Errorf("Zero left %v…", got[:4])
	}
	must(t, c.CopyFromBuffer(b))
	if got, _ := c.ToHost(); firstDiff(got, src) >= 0 {
		t.Errorf("CopyFromBuffer copied %v…, want %v…", got[:4], src[:4])
	}
	head, err := rt.AllocFrom(ctx, []float32{-1, -2})
	must(t, err)
	defer head.Free()
	must(t, c.CopyFromBuffer(head))
	part := make([]float32, 4)
	must(t, c.CopyTo(part))
	if part[0] != -1 || part[1] != -2 || part[2] != 2 || part[3] != 3 {
		t.Errorf("a 2-element CopyFromBuffer into 4096: the start reads %v, want [-1 -2 2 3]", part)
	}

	// Memset and the asynchronous copies on a stream, in stream order.
	st, err := ctx.NewStream()
	must(t, err)
	defer st.Destroy()
	p, q := b.Ptr.Addr(), c.Ptr.Addr()
	must(t, s.d.MemsetD8(ctx.Handle(), p, 0xab, 4*n, st.Handle(), true))
	must(t, s.d.MemcpyDtoD(ctx.Handle(), q, p, 4*n, st.Handle(), true))
	host := make([]byte, 4*n)
	must(t, s.d.MemcpyDtoH(ctx.Handle(), unsafe.Pointer(&host[0]), q, 4*n, st.Handle(), true))
	must(t, st.Synchronize())
	for i, v := range host {
		if v != 0xab {
			t.Fatalf("byte %d = %#x after async memset, DtoD and DtoH, want 0xab", i, v)
		}
	}
	for i := range host {
		host[i] = byte(i * 7)
	}
	must(t, s.d.MemcpyHtoD(ctx.Handle(), p, unsafe.Pointer(&host[0]), 4*n, st.Handle(), true))
	must(t, st.Synchronize())
	must(t, s.d.MemsetD8(ctx.Handle(), q, 0, 4*n, 0, false))
	must(t, s.d.MemcpyDtoD(ctx.Handle(), q, p, 4*n, 0, false))
	back := make([]byte, 4*n)
	must(t, s.d.MemcpyDtoH(ctx.Handle(), unsafe.Pointer(&back[0]), q, 4*n, 0, false))
	if i := firstDiff(back, host); i >= 0 {
		t.Errorf("byte %d = %d after async HtoD and synchronous DtoD, DtoH; want %d", i, back[i], host[i])
	}

	// Bad sizes and pointers.
	_, err = s.d.MemAlloc(ctx.Handle(), 0)
	wantCode(t, "MemAlloc of 0 bytes", err, rt.ErrInvalidValue)
	err = s.d.MemFree(ctx.Handle(), p+16)
	wantCode(t, "MemFree of an address inside an allocation", err, rt.ErrInvalidValue)
	err = s.d.MemcpyHtoD(ctx.Handle(), p, nil, 16, 0, false)
	wantCode(t, "MemcpyHtoD from a nil host pointer", err, rt.ErrInvalidValue)
	// rt's own checks.
	_, err = rt.Alloc[float32](ctx, -1)
	wantCode(t, "rt.Alloc of -1 elements", err, rt.ErrInvalidValue)
	wantCode(t, "Buffer.CopyFrom of more than the buffer holds", head.CopyFrom(src), rt.ErrInvalidValue)
	wantCode(t, "Buffer.CopyTo of more than the buffer holds", head.CopyTo(part), rt.ErrInvalidValue)
	wantCode(t, "Buffer.CopyFromBuffer of more than the buffer holds", head.CopyFromBuffer(b), rt.ErrInvalidValue)
	// The failed calls left the memory intact.
	must(t, s.d.MemcpyDtoH(ctx.Handle(), unsafe.Pointer(&back[0]), p, 4*n, 0, false))
	if i := firstDiff(back, host); i >= 0 {
		t.Errorf("byte %d changed to %d by failing calls", i, back[i])
	}
	must(t, ctx.Synchronize())
}

// cuEventCreate's CU_EVENT_DISABLE_TIMING.
const eventDisableTiming = 2

func (s *suite) streamsAndEvents(t *testing.T) {
	ctx := s.a
	nonBlocking, err := ctx.NewStream()
	must(t, err)
	defer func() { must(t, nonBlocking.Destroy()) }()
	blocking, err := ctx.NewStreamWith(rt.StreamDefault, 0)
	must(t, err)
	defer func() { must(t, blocking.Destroy()) }()
	urgent, err := ctx.NewStreamWith(rt.StreamNonBlocking, -1) // a higher priority
	must(t, err)
	defer func() { must(t, urgent.Destroy()) }()

	start, err := ctx.NewEvent(0)
	must(t, err)
	defer func() { must(t, start.Destroy()) }()
	end, err := ctx.NewEvent(0)
	must(t, err)
	defer func() { must(t, end.Destroy()) }()
	_, err = rt.Elapsed(start, end)
	wantCode(t, "Elapsed of events never recorded", err, rt.ErrInvalidHandle)

	// Work on each stream runs in its order, bracketed by events.
	const n = 1 << 16
	for _, st := range []*rt.Stream{nonBlocking, blocking, urgent} {
		v := newVecAdd(t, ctx, n)
		must(t, start.Record(st))
		for i := 0; i < 8; i++ {
			must(t, v.run(s, rt.Linear(n, 256).On(st)))
		}
		must(t, end.Record(st))
		must(t, end.Synchronize())
		if done, err := st.Done(); err != nil || !done {
			t.Errorf("stream %#x: Done after its last event completed = %v, %v; want true", st.Handle(), done, err)
		}
		ms, err := rt.Elapsed(start, end)
		must(t, err)
		t.Logf("stream %#x: 8 vecAdd launches of %d elements in %.3f ms", st.Handle(), n, ms)
		if !(ms >= 0) {
			t.Errorf("Elapsed = %v ms, want ≥ 0", ms)
		}
		must(t, st.Synchronize())
		v.check(t, "vecAdd on a stream")
	}

	// The legacy NULL stream waits for blocking streams: a synchronous copy
	// after a launch on one sees its result without a synchronize.
	v := newVecAdd(t, ctx, n)
	must(t, v.run(s, rt.Linear(n, 256).On(blocking)))
	got := make([]float32, n)
	must(t, v.c.CopyTo(got))
	if i := firstDiff(got, v.want); i >= 0 {
		t.Errorf("a synchronous copy after a launch on a blocking stream read c[%d] = %v, want %v", i, got[i], v.want[i])
	}

	// An event on the NULL stream; an event without timing has no elapsed time.
	must(t, start.Record(nil))
	must(t, start.Synchronize())
	untimed, err := ctx.NewEvent(eventDisableTiming)
	must(t, err)
	defer func() { must(t, untimed.Destroy()) }()
	must(t, untimed.Record(nonBlocking))
	must(t, untimed.Synchronize())
	_, err = rt.Elapsed(untimed, end)
	wantCode(t, "Elapsed of an event created with CU_EVENT_DISABLE_TIMING", err, rt.ErrInvalidHandle)

	must(t, ctx.Synchronize())
	if done, err := s.d.StreamQuery(ctx.Handle(), 0); err != nil || !done {
		t.Errorf("StreamQuery of the NULL stream after a context synchronize = %v, %v", done, err)
	}
}
