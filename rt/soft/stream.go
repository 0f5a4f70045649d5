package soft

import (
	"errors"
	"sync"
	"time"

	"github.com/cugen/cugen/rt"
)

// Stream flags (CUstream_flags).
const streamNonBlocking = 1

// Event flags (CUevent_flags).
const eventDisableTiming = 2

// op is one queued piece of stream work. Each op runs on its own goroutine
// once its predecessor in the stream and its cross-stream dependencies are
// done; done is closed when it has finished (or was skipped).
type op struct {
	done chan struct{}
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

	mu      sync.Mutex
	tail    *op
	pending error // first failure not yet reported by a synchronising call
}

// enqueue appends fn to s, honouring the legacy NULL stream's implicit
// synchronisation: NULL-stream work waits for all blocking streams of the
// context, and blocking-stream work waits for the NULL stream.
func (c *context) enqueue(s *stream, fn func() error) *op {
	o := &op{done: make(chan struct{})}
	var deps []*op
	c.mu.Lock()
	if s == c.null {
		for t := range c.streams {
			if t.flags&streamNonBlocking == 0 {
				if p := t.last(); p != nil {
					deps = append(deps, p)
				}
			}
		}
	} else if s.flags&streamNonBlocking == 0 {
		if p := c.null.last(); p != nil {
			deps = append(deps, p)
		}
	}
	s.mu.Lock()
	if s.tail != nil {
		deps = append(deps, s.tail)
	}
	s.tail = o
	s.mu.Unlock()
	c.mu.Unlock()
	go func() {
		for _, p := range deps {
			<-p.done
		}
		s.mu.Lock()
		poisoned := s.pending != nil || c.d.fault.Load() != nil
		s.mu.Unlock()
		// Work queued behind a failed operation, or after a kernel
		// faulted anywhere in the process, does not run, as on a GPU; the
		// failure is reported at the next sync.
		if !poisoned {
			if err := fn(); err != nil {
				s.mu.Lock()
				if s.pending == nil {
					s.pending = err
				}
				s.mu.Unlock()
			}
		}
		close(o.done)
	}()
	return o
}

func (s *stream) last() *op {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tail
}

// wait blocks until everything queued so far is done and returns (and
// clears) the stream's pending error.
func (s *stream) wait() error {
	if t := s.last(); t != nil {
		<-t.done
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.pending
	s.pending = nil
	return err
}

// query reports whether the stream is idle without waiting.
func (s *stream) query() (bool, error) {
	if t := s.last(); t != nil {
		select {
		case <-t.done:
		default:
			return false, nil
		}
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
	s := &stream{ctx: c, flags: flags, priority: clampPriority(priority)}
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
	at  *op       // the recording op, nil if never recorded
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
	if at != nil {
		<-at.done
	}
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
	if a.flags&eventDisableTiming != 0 || b.flags&eventDisableTiming != 0 {
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
	if e.at == nil {
		return t, false, false
	}
	select {
	case <-e.at.done:
	default:
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
		c.ptds = &stream{ctx: c, h: rt.StreamPerThread}
		c.streams[c.ptds] = struct{}{}
	}
	return c.ptds
}
