package rttest

import (
	"testing"
	"time"

	"github.com/cugen/cugen/rt"
)

// The checks below hold a stream up with a host function that waits on a
// channel: work queued behind it has certainly not run until the channel is
// closed, on any backend. Nothing in such a window may synchronize the
// context, or wait for the held stream (the host function would never
// return), so what it needs is made before.

func (s *suite) streamer(t *testing.T) {
	t.Helper()
	if _, ok := s.d.(rt.Streamer); !ok {
		t.Skipf("backend %s has no host functions or stream dependencies (rt.Streamer)", s.d.Name())
	}
}

// holdsLaunches skips a check that launches behind held work, which a
// driver whose launches block cannot do.
func (s *suite) holdsLaunches(t *testing.T) {
	t.Helper()
	if s.opts.LaunchBlocking {
		t.Skip("launches block: none can be queued behind held work")
	}
}

// hold queues a host function on st that waits until the returned function
// is called.
func hold(t *testing.T, st *rt.Stream) (release func()) {
	t.Helper()
	ch := make(chan struct{})
	must(t, st.LaunchHostFunc(func() { <-ch }))
	return func() { close(ch) }
}

func (s *suite) streamDeps(t *testing.T) {
	s.streamer(t)
	ctx := s.a
	const n = 1000

	t.Run("WaitEvent, Query and host functions", func(t *testing.T) {
		s.holdsLaunches(t)
		st1, st2 := newStream(t, ctx), newStream(t, ctx)
		v := newVecAdd(t, ctx, n)
		pin, err := rt.AllocPinned[float32](ctx, n)
		must(t, err)
		defer pin.Free()
		e, err := ctx.NewEvent(rt.EventDisableTiming)
		must(t, err)
		defer e.Destroy()
		if done, err := e.Query(); err != nil || !done {
			t.Errorf("Query of an event never recorded: %v, %v; want done", done, err)
		}
		release := hold(t, st1)
		must(t, v.run(s, rt.Linear(n, 128).On(st1)))
		must(t, e.Record(st1))
		if done, err := e.Query(); err != nil || done {
			t.Errorf("Query of an event behind held work: %v, %v; want not done", done, err)
		}
		// st2 copies c once st1's kernel has written it, then a host
		// function reads the copy.
		must(t, st2.WaitEvent(e))
		must(t, v.c.CopyToAsync(st2, pin.Slice()))
		got := make(chan []float32, 1)
		must(t, st2.LaunchHostFunc(func() { got <- append([]float32(nil), pin.Slice()...) }))
		select {
		case <-got:
			t.Errorf("st2's host function ran before the event it waits for")
		case <-time.After(20 * time.Millisecond):
		}
		release()
		if i := firstDiff(<-got, v.want); i >= 0 {
			t.Errorf("the host function after WaitEvent and an async copy saw c[%d] wrong", i)
		}
		must(t, st2.Synchronize())
		if done, err := e.Query(); err != nil || !done {
			t.Errorf("Query after the work: %v, %v; want done", done, err)
		}
		// Host functions run in stream order, one after another.
		var order []int
		seen := make(chan []int, 1)
		for i := 0; i < 5; i++ {
			must(t, st1.LaunchHostFunc(func() { order = append(order, i) }))
		}
		must(t, st1.LaunchHostFunc(func() { seen <- order }))
		if o := <-seen; len(o) != 5 || o[0] != 0 || o[4] != 4 {
			t.Errorf("host functions ran in the order %v", o)
		}
		wantCode(t, "LaunchHostFunc(nil)", st1.LaunchHostFunc(nil), rt.ErrInvalidValue)
	})

	t.Run("across contexts", func(t *testing.T) {
		sa, sb := newStream(t, s.a), newStream(t, s.b)
		e, err := s.a.NewEvent(rt.EventDisableTiming)
		must(t, err)
		defer e.Destroy()
		release := hold(t, sa)
		must(t, e.Record(sa))
		must(t, sb.WaitEvent(e))
		ran := make(chan struct{})
		must(t, sb.LaunchHostFunc(func() { close(ran) }))
		select {
		case <-ran:
			t.Errorf("a stream of B ran past a wait for an event of A still pending")
		case <-time.After(20 * time.Millisecond):
		}
		release()
		<-ran
		must(t, sb.Synchronize())
	})

	t.Run("event flags", func(t *testing.T) {
		st := newStream(t, ctx)
		for _, flags := range []uint32{rt.EventDefault, rt.EventBlockingSync, rt.EventDisableTiming, rt.EventBlockingSync | rt.EventDisableTiming} {
			e, err := ctx.NewEvent(flags)
			must(t, err)
			release := hold(t, st)
			must(t, e.Record(st))
			if done, _ := e.Query(); done {
				t.Errorf("flags %#x: Query done behind held work", flags)
			}
			release()
			must(t, e.Synchronize())
			if done, err := e.Query(); err != nil || !done {
				t.Errorf("flags %#x: Query after Synchronize: %v, %v", flags, done, err)
			}
			_, err = rt.Elapsed(e, e)
			if flags&rt.EventDisableTiming != 0 {
				wantCode(t, "Elapsed of an event without timing", err, rt.ErrInvalidHandle)
			} else if err != nil {
				t.Errorf("flags %#x: Elapsed(e, e): %v", flags, err)
			}
			must(t, e.Destroy())
		}
		// Waiting on an event never recorded waits for nothing.
		e, err := ctx.NewEvent(rt.EventDisableTiming)
		must(t, err)
		defer e.Destroy()
		must(t, st.WaitEvent(e))
		must(t, st.Synchronize())
	})

	t.Run("priorities", func(t *testing.T) {
		least, greatest, err := ctx.StreamPriorityRange()
		must(t, err)
		if greatest > least {
			t.Fatalf("StreamPriorityRange = %d, %d: the greatest priority is the smallest number", least, greatest)
		}
		for _, tc := range []struct{ ask, want int }{{least, least}, {greatest, greatest}, {greatest - 100, greatest}, {least + 100, least}} {
			st, err := ctx.NewStreamWith(rt.StreamNonBlocking, tc.ask)
			must(t, err)
			if p, err := st.Priority(); err != nil || p != tc.want {
				t.Errorf("a stream created with priority %d has priority %d, %v; want %d (clamped to [%d, %d])", tc.ask, p, err, tc.want, greatest, least)
			}
			must(t, st.Destroy())
		}
		if p, err := ctx.NullStream().Priority(); err != nil || p != 0 {
			t.Errorf("the NULL stream's priority: %d, %v", p, err)
		}
	})
}

// rt's synchronous copies wait for all work of their context, on every
// stream: none reads what a queued kernel has yet to write, or overwrites
// what it has yet to read.
func (s *suite) safeCopies(t *testing.T) {
	s.streamer(t)
	s.holdsLaunches(t)
	ctx := s.a
	const n = 1000
	st := newStream(t, ctx) // non-blocking: the NULL stream does not wait for it
	later := func(release func()) { time.AfterFunc(30*time.Millisecond, release) }

	v := newVecAdd(t, ctx, n)
	later(hold(t, st))
	must(t, v.run(s, rt.Linear(n, 128).On(st)))
	got, err := v.c.ToHost()
	must(t, err)
	if i := firstDiff(got, v.want); i >= 0 {
		t.Errorf("ToHost right after a launch on a non-blocking stream read c[%d] = %v, want %v", i, got[i], v.want[i])
	}

	// CopyFrom waits for the kernel that reads the old contents.
	must(t, v.c.Zero())
	later(hold(t, st))
	must(t, v.run(s, rt.Linear(n, 128).On(st)))
	must(t, v.a.CopyFrom(make([]float32, n)))
	must(t, st.Synchronize())
	v.check(t, "a kernel queued before a CopyFrom of its input")

	// Zero and Fill wait for the kernel that writes.
	later(hold(t, st))
	must(t, v.run(s, rt.Linear(n, 128).On(st)))
	must(t, v.c.Fill(-1))
	if c, _ := v.c.ToHost(); c[0] != -1 || c[n-1] != -1 {
		t.Errorf("Fill after a queued kernel: c = %v … %v; the kernel overwrote it", c[0], c[n-1])
	}

	// A __managed__ variable read after a kernel that adds to it.
	before, err := s.total.Get(ctx)
	must(t, err)
	later(hold(t, st))
	must(t, s.runAddManaged(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: st}, 5))
	if after, err := s.total.Get(ctx); err != nil || after != before+5 {
		t.Errorf("managedTotal read right after a kernel on a non-blocking stream: %d, %v; want %d", after, err, before+5)
	}
}
