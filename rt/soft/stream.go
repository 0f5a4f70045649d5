package soft

import (
	"errors"
	"sync"
	"time"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
	"github.com/cugen/cugen/rt/soft/internal/gopool"
)

// Stream flags (CUstream_flags).
const streamNonBlocking = 1

// A stream's work runs in order on a goroutine of runners while the stream
// has any queued (soft's CUDA stream engine); each operation is a work,
// reused once it has run, so queuing a launch allocates nothing. Where an
// operation stands is a mark.

// work is one queued operation: fn, or, with fn nil, the kernel launch l.
type work struct {
	fn   func() error
	l    exec.Launch
	pbuf []uint64 // l.Params's storage, kept for the next launch
	deps []mark   // other streams' work to wait for (enqueue)
}

// mark is a point in a stream's work, reached once the stream has
// finished its first seq operations; or an event record node of a graph
// launch, reached when rec is closed (graphrun.go). The zero mark is
// reached.
type mark struct {
	s   *stream
	seq uint64
	rec chan struct{}
}

// none reports whether m is the zero mark.
func (m mark) none() bool { return m.s == nil && m.rec == nil }

// wait blocks until m is reached.
func (m mark) wait() {
	if s := m.s; s != nil {
		s.mu.Lock()
		for s.finished < m.seq {
			s.progress.Wait()
		}
		s.mu.Unlock()
	} else if m.rec != nil {
		<-m.rec
	}
}

// reached reports whether m is, without waiting.
func (m mark) reached() bool {
	if s := m.s; s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.finished >= m.seq
	}
	if m.rec != nil {
		select {
		case <-m.rec:
		default:
			return false
		}
	}
	return true
}

// stream is an ordered FIFO of asynchronous work.
type stream struct {
	ctx      *context
	h        rt.StreamHandle
	flags    uint32
	priority int

	// capt is the capture s takes part in, and ctail the nodes its next
	// captured work depends on (guarded by Driver.gx.mu; see graph.go).
	capt  *capture
	ctail []*snode

	mu       sync.Mutex
	progress sync.Cond // broadcast when finished grows
	queued   uint64    // operations ever queued
	finished uint64    // operations ever run (or skipped)
	q        []*work   // q[head:] is queued, not yet run
	head     int
	free     []*work // run, for reuse
	running  bool    // a runner owns q
	pending  error   // first failure not yet reported by a synchronising call
}

// runners run the streams that have work queued.
var runners = gopool.New(64)

// maxFree bounds a stream's works kept for reuse: enough for a burst of
// launches between synchronisations.
const maxFree = 1024

func newStream(c *context, h rt.StreamHandle, flags uint32, priority int) *stream {
	s := &stream{ctx: c, h: h, flags: flags, priority: priority}
	s.progress.L = &s.mu
	return s
}

// take is a work for s, to fill and enqueue.
func (s *stream) take() *work {
	s.mu.Lock()
	n := len(s.free)
	if n == 0 {
		s.mu.Unlock()
		return &work{}
	}
	w := s.free[n-1]
	s.free[n-1] = nil
	s.free = s.free[:n-1]
	s.mu.Unlock()
	return w
}

// last is the mark of the work queued on s so far.
func (s *stream) last() mark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return mark{s: s, seq: s.queued}
}

// enqueue appends fn to s.
func (c *context) enqueue(s *stream, fn func() error) mark {
	w := s.take()
	w.fn = fn
	return c.push(s, w)
}

// push appends w to s, honouring the legacy NULL stream's implicit
// synchronisation: NULL-stream work waits for all blocking streams of the
// context, and blocking-stream work waits for the NULL stream.
func (c *context) push(s *stream, w *work) mark {
	w.deps = w.deps[:0]
	dep := func(t *stream) {
		if m := t.last(); !m.reached() {
			w.deps = append(w.deps, m)
		}
	}
	c.mu.Lock()
	if s == c.null {
		for t := range c.streams {
			if t.flags&streamNonBlocking == 0 {
				dep(t)
			}
		}
	} else if s.flags&streamNonBlocking == 0 {
		dep(c.null)
	}
	s.mu.Lock()
	s.queued++
	m := mark{s: s, seq: s.queued}
	s.q = append(s.q, w)
	start := !s.running
	s.running = true
	s.mu.Unlock()
	c.mu.Unlock()
	if start {
		runners.Go(s)
	}
	return m
}

// Run runs s's queued work in order until none is left (a gopool.Job).
// Work queued behind a failed operation, or after a kernel faulted
// anywhere in the process, does not run, as on a GPU; the failure is
// reported at the next sync.
func (s *stream) Run(r *gopool.Worker) {
	d := s.ctx.d
	s.mu.Lock()
	for {
		w := s.q[s.head]
		s.q[s.head] = nil
		s.head++
		s.mu.Unlock()
		for _, m := range w.deps {
			m.wait()
		}
		s.mu.Lock()
		poisoned := s.pending != nil || d.fault.Load() != nil
		s.mu.Unlock()
		var err error
		if !poisoned {
			if w.fn != nil {
				err = w.fn()
			} else {
				err = d.run(&w.l)
			}
		}
		w.done()
		s.mu.Lock()
		if err != nil && s.pending == nil {
			s.pending = err
		}
		s.finished++
		if len(s.free) < maxFree {
			s.free = append(s.free, w)
		}
		if s.head == len(s.q) {
			s.q, s.head = s.q[:0], 0
			r.Free()
			s.running = false
			s.progress.Broadcast()
			s.mu.Unlock()
			return
		}
		if s.head >= 64 && s.head*2 >= len(s.q) {
			n := copy(s.q, s.q[s.head:])
			clear(s.q[n:])
			s.q, s.head = s.q[:n], 0
		}
		s.progress.Broadcast()
	}
}

// done drops what w's operation referred to, so that a work kept for
// reuse keeps nothing alive.
func (w *work) done() {
	w.fn = nil
	w.l = exec.Launch{}
	clear(w.deps)
	if cap(w.pbuf) > 512 {
		w.pbuf = nil
	}
}

// wait blocks until everything queued so far is done and returns (and
// clears) the stream's pending error.
func (s *stream) wait() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for end := s.queued; s.finished < end; {
		s.progress.Wait()
	}
	err := s.pending
	s.pending = nil
	return err
}

// query reports whether the stream is idle without waiting.
func (s *stream) query() (bool, error) {
	s.mu.Lock()
	busy := s.finished < s.queued
	s.mu.Unlock()
	if busy {
		return false, nil
	}
	return true, s.wait()
}

// asyncErr re-labels an error left by earlier asynchronous work as
// reported by op, the way CUDA reports it from the next synchronising call.
func asyncErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *rt.Error
	if errors.As(err, &e) {
		c := *e
		c.Op, c.Async = op, true
		return &c
	}
	return &rt.Error{Op: op, Code: rt.ErrUnknown, Detail: err.Error(), Async: true}
}

// stream resolves (ctx, s) to a stream: a non-zero s names its own context;
// 0 is ctx's NULL stream. A context that has faulted fails the call.
func (d *Driver) stream(op string, ch rt.CtxHandle, sh rt.StreamHandle) (*stream, error) {
	s, err := d.streamAny(op, ch, sh)
	if err != nil {
		return nil, err
	}
	if err := s.ctx.unusable(op); err != nil {
		return nil, err
	}
	return s, nil
}

// streamAny is stream for the calls that stay usable after a fault.
// CUDA's special handles (rt.StreamLegacy, rt.StreamPerThread) and the
// NULL stream are the context's own: ch says which context's.
func (d *Driver) streamAny(op string, ch rt.CtxHandle, sh rt.StreamHandle) (*stream, error) {
	if sh <= rt.StreamPerThread {
		c, err := d.lookup(op, ch)
		if err != nil {
			return nil, err
		}
		if sh == rt.StreamPerThread {
			return c.perThread(), nil
		}
		return c.null, nil
	}
	d.mu.Lock()
	s := d.streams[sh]
	d.mu.Unlock()
	if s == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidHandle, "stream %#x does not exist", uintptr(sh))
	}
	return s, nil
}

// StreamCreate is cuStreamCreateWithPriority.
func (d *Driver) StreamCreate(ch rt.CtxHandle, flags uint32, priority int) (rt.StreamHandle, error) {
	c, err := d.ctx("cuStreamCreate", ch)
	if err != nil {
		return 0, err
	}
	if flags&^streamNonBlocking != 0 {
		return 0, rt.Errorf("cuStreamCreate", rt.ErrInvalidValue, "unknown stream flags %#x", flags)
	}
	s := newStream(c, 0, flags, clampPriority(priority))
	d.mu.Lock()
	s.h = rt.StreamHandle(d.handle())
	for s.h <= rt.StreamPerThread { // CUDA's special handles are no stream's
		s.h = rt.StreamHandle(d.handle())
	}
	d.streams[s.h] = s
	d.mu.Unlock()
	c.mu.Lock()
	c.streams[s] = struct{}{}
	c.mu.Unlock()
	return s.h, nil
}

// StreamDestroy is cuStreamDestroy: queued work still completes.
func (d *Driver) StreamDestroy(ch rt.CtxHandle, sh rt.StreamHandle) error {
	if sh <= rt.StreamPerThread {
		return rt.Errorf("cuStreamDestroy", rt.ErrInvalidHandle, "the NULL, legacy or per-thread default stream (%#x) cannot be destroyed", uintptr(sh))
	}
	s, err := d.streamAny("cuStreamDestroy", ch, sh)
	if err != nil {
		return err
	}
	d.mu.Lock()
	delete(d.streams, sh)
	d.mu.Unlock()
	d.dropCapture(s)
	go func() {
		_ = s.wait()
		s.ctx.mu.Lock()
		delete(s.ctx.streams, s)
		s.ctx.mu.Unlock()
		d.hz.mu.Lock()
		if len(d.hz.streams[s]) == 0 {
			delete(d.hz.streams, s) // nothing the host must still synchronize with
		}
		d.hz.mu.Unlock()
	}()
	return nil
}

// StreamSynchronize is cuStreamSynchronize.
func (d *Driver) StreamSynchronize(ch rt.CtxHandle, sh rt.StreamHandle) error {
	s, err := d.streamAny("cuStreamSynchronize", ch, sh)
	if err != nil {
		return err
	}
	if err := d.capturedStream("cuStreamSynchronize", s); err != nil {
		return err
	}
	defer d.synced(nil, s, d.hz.now())
	defer d.hostSynced(nil, s, false)
	return s.ctx.afterSync("cuStreamSynchronize", s.wait())
}

// StreamQuery is cuStreamQuery: done=false (and no error) while work is
// queued, as CUDA's CUDA_ERROR_NOT_READY.
func (d *Driver) StreamQuery(ch rt.CtxHandle, sh rt.StreamHandle) (bool, error) {
	s, err := d.stream("cuStreamQuery", ch, sh)
	if err != nil {
		return false, err
	}
	if err := d.capturedStream("cuStreamQuery", s); err != nil {
		return false, err
	}
	seen := d.hz.now()
	done, err := s.query()
	if done {
		d.synced(nil, s, seen)
		d.hostSynced(nil, s, false)
	}
	return done, asyncErr("cuStreamQuery", err)
}

// event records a point in a stream.
type event struct {
	ctx   *context
	flags uint32

	mu  sync.Mutex
	at  mark      // the recording op, none if never recorded
	t   time.Time // set when at has run
	gen int       // bumped on every record, so a stale op does not set t

	// capt is the capture the event was last recorded in, and cnodes the
	// nodes it marks there (guarded by Driver.gx.mu; see graph.go).
	capt   *capture
	cnodes []*snode
}

func (d *Driver) event(op string, h rt.EventHandle) (*event, error) {
	d.mu.Lock()
	e := d.events[h]
	d.mu.Unlock()
	if e == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidHandle, "event %#x does not exist", uintptr(h))
	}
	return e, nil
}

// EventCreate is cuEventCreate.
func (d *Driver) EventCreate(ch rt.CtxHandle, flags uint32) (rt.EventHandle, error) {
	c, err := d.ctx("cuEventCreate", ch)
	if err != nil {
		return 0, err
	}
	switch {
	case flags&^(rt.EventBlockingSync|rt.EventDisableTiming|rt.EventInterprocess) != 0:
		return 0, rt.Errorf("cuEventCreate", rt.ErrInvalidValue, "flags %#x: bits CUDA does not define", flags)
	case flags&rt.EventInterprocess != 0 && flags&rt.EventDisableTiming == 0:
		return 0, rt.Errorf("cuEventCreate", rt.ErrInvalidValue, "an interprocess event (EventInterprocess) must also be EventDisableTiming")
	}
	e := &event{ctx: c, flags: flags}
	d.mu.Lock()
	h := rt.EventHandle(d.handle())
	d.events[h] = e
	d.mu.Unlock()
	return h, nil
}

// EventRecord is cuEventRecord.
func (d *Driver) EventRecord(ch rt.CtxHandle, eh rt.EventHandle, sh rt.StreamHandle) error {
	return d.eventRecord("cuEventRecord", ch, eh, sh, 0)
}

// eventRecord is cuEventRecordWithFlags; a record in a capture is
// recordCaptured's.
func (d *Driver) eventRecord(op string, ch rt.CtxHandle, eh rt.EventHandle, sh rt.StreamHandle, flags uint32) error {
	e, err := d.event(op, eh)
	if err != nil {
		return err
	}
	s, err := d.stream(op, ch, sh)
	if err != nil {
		return err
	}
	if s.ctx != e.ctx {
		return rt.Errorf(op, rt.ErrInvalidHandle, "event and stream belong to different contexts")
	}
	if captured, err := d.recordCaptured(op, e, s, flags); captured || err != nil {
		return err
	}
	d.gx.mu.Lock()
	if err := d.legacyImplicit(op, s); err != nil {
		d.gx.mu.Unlock()
		return err
	}
	d.gx.mu.Unlock()
	e.mu.Lock()
	e.gen++
	gen := e.gen
	e.t = time.Time{}
	e.at = s.ctx.enqueue(s, func() error {
		now := time.Now()
		e.mu.Lock()
		if e.gen == gen {
			e.t = now
		}
		e.mu.Unlock()
		return nil
	})
	e.mu.Unlock()
	d.recorded(e, s)
	d.eventRecordedRace(e, s)
	return nil
}

// EventSynchronize is cuEventSynchronize.
func (d *Driver) EventSynchronize(ch rt.CtxHandle, eh rt.EventHandle) error {
	e, err := d.event("cuEventSynchronize", eh)
	if err != nil {
		return err
	}
	if err := d.capturedEvent("cuEventSynchronize", e); err != nil {
		return err
	}
	e.mu.Lock()
	at := e.at
	e.mu.Unlock()
	at.wait()
	d.eventDone(e)
	d.eventSeenRace(e, false)
	return e.ctx.unusable("cuEventSynchronize")
}

// EventElapsed is cuEventElapsedTime, in milliseconds of host wall time.
func (d *Driver) EventElapsed(ch rt.CtxHandle, start, end rt.EventHandle) (float32, error) {
	const op = "cuEventElapsedTime"
	a, err := d.event(op, start)
	if err != nil {
		return 0, err
	}
	b, err := d.event(op, end)
	if err != nil {
		return 0, err
	}
	if err := d.capturedEvent(op, a); err != nil {
		return 0, err
	}
	if err := d.capturedEvent(op, b); err != nil {
		return 0, err
	}
	if a.flags&rt.EventDisableTiming != 0 || b.flags&rt.EventDisableTiming != 0 {
		return 0, rt.Errorf(op, rt.ErrInvalidHandle, "event created with CU_EVENT_DISABLE_TIMING")
	}
	ta, okA, recA := a.stamp()
	tb, okB, recB := b.stamp()
	if !recA || !recB {
		return 0, rt.Errorf(op, rt.ErrInvalidHandle, "event was never recorded")
	}
	if !okA || !okB {
		return 0, rt.Errorf(op, rt.ErrNotReady, "event has not completed")
	}
	return float32(tb.Sub(ta).Seconds() * 1000), nil
}

func (e *event) stamp() (t time.Time, done, recorded bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.at.none() {
		return t, false, false
	}
	if !e.at.reached() {
		return t, false, true
	}
	return e.t, !e.t.IsZero(), true
}

// EventDestroy is cuEventDestroy.
func (d *Driver) EventDestroy(ch rt.CtxHandle, eh rt.EventHandle) error {
	e, err := d.event("cuEventDestroy", eh)
	if err != nil {
		return err
	}
	d.eventGone(e)
	d.eventSeenRace(e, true)
	d.mu.Lock()
	delete(d.events, eh)
	d.mu.Unlock()
	return nil
}

// perThread is c's per-thread default stream (CU_STREAM_PER_THREAD), made
// at its first use: a blocking stream, so the legacy NULL stream's implicit
// synchronisation orders it, with the handle rt.StreamPerThread. CUDA has
// one per OS thread; soft has one per context, as if every call came from
// one thread (Go code that wants CUDA's order locks its OS thread anyway).
func (c *context) perThread() *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ptds == nil {
		c.ptds = newStream(c, rt.StreamPerThread, 0, 0)
		c.streams[c.ptds] = struct{}{}
	}
	return c.ptds
}
