package rt

import (
	"fmt"
	"sync/atomic"
)

// Context is a CUDA context on one device of one driver. A Device makes one
// (Primary, NewContext); values are cheap handles: copying one does not copy
// the context.
type Context struct {
	drv      Driver
	h        CtxHandle
	dev      int
	primary  bool
	borrowed bool // from Current or AdoptContext: neither retained nor created by rt
	// life says whether the context still exists (check.go); released
	// that this value's retain or creation was given back.
	life     *ctxLife
	released atomic.Bool
}

// Current returns the calling OS thread's current context on the default
// driver, or an error with ErrInvalidContext if none is current. The caller
// should hold runtime.LockOSThread: without it the answer may describe another
// thread by the time it is used. The context is borrowed, not retained: its
// Release fails with ErrNotPermitted.
func Current() (*Context, error) {
	d, err := Default()
	if err != nil {
		return nil, err
	}
	h, err := d.CtxGetCurrent()
	if err != nil {
		return nil, err
	}
	if h == 0 {
		return nil, &Error{Op: "cuCtxGetCurrent", Code: ErrInvalidContext, Detail: "no context is current on this OS thread"}
	}
	dev, err := d.CtxDevice(h)
	if err != nil {
		return nil, err
	}
	return &Context{drv: d, h: h, dev: dev, borrowed: true}, nil
}

// Release drops the context: a primary context is released once, a created
// context is destroyed.
func (c *Context) Release() error {
	const op = "rt.Context.Release"
	if err := c.check(op); err != nil {
		return err
	}
	if c.borrowed {
		return Errorf(op, ErrNotPermitted, "%v was not retained or created through rt (it came from Current or AdoptContext): its owner releases it", c)
	}
	if !c.released.CompareAndSwap(false, true) {
		return Errorf(op, ErrInvalidContext, "%v was already released through this value", c)
	}
	if c.primary {
		if err := c.drv.PrimaryCtxRelease(c.dev); err != nil {
			c.released.Store(false)
			return err
		}
		releaseLife(c.drv, c.dev, c.life)
		return nil
	}
	if err := c.drv.CtxDestroy(c.h); err != nil {
		c.released.Store(false)
		return err
	}
	destroyedCtxs.add(ctxKey{refTo(c.drv), c.h})
	if c.life != nil {
		c.life.dead.Store(true)
	}
	return nil
}

// Driver is the backend the context lives in.
func (c *Context) Driver() Driver {
	if c == nil {
		return nil
	}
	return c.drv
}

// Handle is the backend's handle (a CUcontext for rt/cgo).
func (c *Context) Handle() CtxHandle {
	if c == nil {
		return 0
	}
	return c.h
}

// Device is the context's device.
func (c *Context) Device() Device {
	if c == nil {
		return Device{}
	}
	return Device{drv: c.drv, ord: c.dev}
}

// IsPrimary reports whether this is the device's primary context.
func (c *Context) IsPrimary() bool { return c != nil && c.primary }

func (c *Context) String() string {
	if c == nil || c.drv == nil {
		return "zero rt.Context"
	}
	kind := "context"
	if c.primary {
		kind = "primary context"
	}
	return fmt.Sprintf("%s %#x on %s device %d", kind, uintptr(c.h), c.drv.Name(), c.dev)
}

// SetCurrent makes c current on the calling OS thread. Call
// runtime.LockOSThread first; see the package documentation.
func (c *Context) SetCurrent() error {
	if err := c.check("rt.Context.SetCurrent"); err != nil {
		return err
	}
	return c.drv.CtxSetCurrent(c.h)
}

// Synchronize waits for all work in the context.
func (c *Context) Synchronize() error {
	if err := c.check("rt.Context.Synchronize"); err != nil {
		return err
	}
	return c.drv.CtxSynchronize(c.h)
}

// Stream is a CUDA stream in a context. A launch on a stream runs in the
// stream's context whatever is current on the calling thread.
//
// A nil *Stream passed to a call is the NULL stream of the context the call
// works in: the context of the buffer, event, array or graph it is given
// (b.CopyFromAsync(nil, x) is b's context's NULL stream), or, for a call
// that is given no other (a launch, AllocAsync, Copy2D.RunAsync), the
// context a launch with no stream runs in. Methods of a nil *Stream, and
// every use of a zero Stream{} or of a destroyed one, fail with
// ErrInvalidHandle.
type Stream struct {
	ctx *Context
	h   StreamHandle
	// into is the graph a capture started by BeginCaptureInto fills, for
	// EndCapture to return.
	into *Graph
	gone atomic.Bool // destroyed
	// adopted: made by other code (AdoptStream), which destroys it.
	adopted bool
}

// Stream flags (CUstream_flags).
const (
	StreamDefault     uint32 = 0
	StreamNonBlocking uint32 = 1
)

// NewStream creates a non-blocking stream in c.
func (c *Context) NewStream() (*Stream, error) { return c.NewStreamWith(StreamNonBlocking, 0) }

// NewStreamWith creates a stream with CUstream_flags and a priority (lower is higher priority).
func (c *Context) NewStreamWith(flags uint32, priority int) (*Stream, error) {
	if err := c.check("rt.Context.NewStream"); err != nil {
		return nil, err
	}
	h, err := c.drv.StreamCreate(c.h, flags, priority)
	if err != nil {
		return nil, err
	}
	return &Stream{ctx: c, h: h}, nil
}

// NullStream is c's NULL (legacy default) stream. Launching on it runs in c
// without making c current on the calling thread.
func (c *Context) NullStream() *Stream { return &Stream{ctx: c} }

// Context is the stream's context (nil for a nil stream).
func (s *Stream) Context() *Context {
	if s == nil {
		return nil
	}
	return s.ctx
}

// Handle is the backend's stream handle (0 for a NULL stream).
func (s *Stream) Handle() StreamHandle {
	if s == nil {
		return 0
	}
	return s.h
}

// Synchronize waits for the stream's work.
func (s *Stream) Synchronize() error {
	if s == nil {
		return Errorf("rt.Stream.Synchronize", ErrInvalidHandle, "a nil stream")
	}
	if err := s.check("rt.Stream.Synchronize"); err != nil {
		return err
	}
	return s.ctx.drv.StreamSynchronize(s.ctx.h, s.h)
}

// Done reports whether all the stream's work has completed.
func (s *Stream) Done() (bool, error) {
	if s == nil {
		return false, Errorf("rt.Stream.Done", ErrInvalidHandle, "a nil stream")
	}
	if err := s.check("rt.Stream.Done"); err != nil {
		return false, err
	}
	return s.ctx.drv.StreamQuery(s.ctx.h, s.h)
}

// Destroy destroys the stream (a NULL stream is left alone; an adopted
// one is its owner's to destroy: ErrNotPermitted). Using it afterwards is
// ErrInvalidHandle, destroying it again too.
func (s *Stream) Destroy() error {
	const op = "rt.Stream.Destroy"
	if s == nil {
		return Errorf(op, ErrInvalidHandle, "a nil stream")
	}
	if err := s.check(op); err != nil {
		return err
	}
	if s.h == 0 {
		return nil
	}
	if s.adopted && special(s.h) {
		return Errorf(op, ErrNotPermitted, "stream %#x is CUDA's legacy or per-thread default stream, which no one destroys", uintptr(s.h))
	}
	if s.adopted {
		return Errorf(op, ErrNotPermitted, "stream %#x was made by other code (AdoptStream): its owner destroys it", uintptr(s.h))
	}
	if !s.gone.CompareAndSwap(false, true) {
		return Errorf(op, ErrInvalidHandle, "stream %#x was destroyed", uintptr(s.h))
	}
	if err := s.ctx.drv.StreamDestroy(s.ctx.h, s.h); err != nil {
		s.gone.Store(false)
		return err
	}
	return nil
}

// Event is a CUDA event in a context.
type Event struct {
	ctx     *Context
	h       EventHandle
	gone    atomic.Bool // destroyed
	adopted bool        // made by other code (AdoptEvent), which destroys it
}

// NewEvent creates an event with CUevent_flags: EventDefault records
// timing, EventDisableTiming makes a cheaper event for dependencies alone
// (Stream.WaitEvent, Query), EventBlockingSync makes Synchronize block the
// thread instead of spinning.
func (c *Context) NewEvent(flags uint32) (*Event, error) {
	if err := c.check("rt.Context.NewEvent"); err != nil {
		return nil, err
	}
	h, err := c.drv.EventCreate(c.h, flags)
	if err != nil {
		return nil, err
	}
	return &Event{ctx: c, h: h}, nil
}

// Record records the event on s (nil: the context's NULL stream).
func (e *Event) Record(s *Stream) error {
	const op = "rt.Event.Record"
	s, err := e.on(op, s)
	if err != nil {
		return err
	}
	return e.ctx.drv.EventRecord(e.ctx.h, e.h, s.h)
}

// Synchronize waits for the event.
func (e *Event) Synchronize() error {
	if err := e.check("rt.Event.Synchronize"); err != nil {
		return err
	}
	return e.ctx.drv.EventSynchronize(e.ctx.h, e.h)
}

// Destroy destroys the event (an adopted one is its owner's to destroy:
// ErrNotPermitted). Using it afterwards is ErrInvalidHandle, destroying it
// again too.
func (e *Event) Destroy() error {
	const op = "rt.Event.Destroy"
	if err := e.check(op); err != nil {
		return err
	}
	if e.adopted {
		return Errorf(op, ErrNotPermitted, "event %#x was made by other code (AdoptEvent): its owner destroys it", uintptr(e.h))
	}
	if !e.gone.CompareAndSwap(false, true) {
		return Errorf(op, ErrInvalidHandle, "event %#x was destroyed", uintptr(e.h))
	}
	if err := e.ctx.drv.EventDestroy(e.ctx.h, e.h); err != nil {
		e.gone.Store(false)
		return err
	}
	return nil
}

// check refuses a nil, zero or destroyed event.
func (e *Event) check(op string) error {
	switch {
	case e == nil || e.ctx == nil:
		return Errorf(op, ErrInvalidHandle, "a nil or zero rt.Event (events come from Context.NewEvent)")
	case e.gone.Load():
		return Errorf(op, ErrInvalidHandle, "event %#x was destroyed", uintptr(e.h))
	}
	return e.ctx.check(op)
}

// on checks e and resolves s, a stream to record e on (nil: the NULL
// stream of e's context), which must be a stream of e's context.
func (e *Event) on(op string, s *Stream) (*Stream, error) {
	if err := e.check(op); err != nil {
		return nil, err
	}
	if s == nil {
		return e.ctx.NullStream(), nil
	}
	if err := s.check(op); err != nil {
		return nil, err
	}
	if s.ctx.drv != e.ctx.drv || s.ctx.h != e.ctx.h {
		return nil, Errorf(op, ErrInvalidHandle, "event of %v, stream of %v: an event is recorded on a stream of its own context", e.ctx, s.ctx)
	}
	return s, nil
}

// Elapsed is the time in milliseconds between two recorded events.
func Elapsed(start, end *Event) (float32, error) {
	const op = "rt.Elapsed"
	if err := start.check(op); err != nil {
		return 0, err
	}
	if err := end.check(op); err != nil {
		return 0, err
	}
	if err := sameDriver(op, start.ctx, end.ctx); err != nil {
		return 0, err
	}
	return start.ctx.drv.EventElapsed(start.ctx.h, start.h, end.h)
}

// destroyedCtxs holds the handles of the contexts rt destroyed, per driver,
// until the driver hands the same handle out again. libcuda frees a destroyed
// context: asking it about the handle (cuCtxGetDevice in AdoptContext) reads
// freed memory and can crash the process, so rt refuses the handles it knows
// are dead before the driver sees them. It keeps the latest 4096, without
// keeping their drivers alive.
var destroyedCtxs = boundedSet[ctxKey]{max: 4096}

type ctxKey struct {
	d driverRef
	h CtxHandle
}

// destroyedThroughRt reports whether rt destroyed the context h of d.
func destroyedThroughRt(d Driver, h CtxHandle) bool {
	return destroyedCtxs.has(ctxKey{refTo(d), h})
}
