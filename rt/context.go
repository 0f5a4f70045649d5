package rt

import "fmt"

// Context is a CUDA context on one device of one driver. A Device makes one
// (Primary, NewContext); values are cheap handles: copying one does not copy
// the context.
type Context struct {
	drv      Driver
	h        CtxHandle
	dev      int
	primary  bool
	borrowed bool // from Current or AdoptContext: neither retained nor created by rt
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
	switch {
	case c.borrowed:
		return Errorf("rt.Context.Release", ErrNotPermitted, "%v was not retained or created through rt (it came from Current or AdoptContext): its owner releases it", c)
	case c.primary:
		return c.drv.PrimaryCtxRelease(c.dev)
	}
	return c.drv.CtxDestroy(c.h)
}

// Driver is the backend the context lives in.
func (c *Context) Driver() Driver { return c.drv }

// Handle is the backend's handle (a CUcontext for rt/cgo).
func (c *Context) Handle() CtxHandle { return c.h }

// Device is the context's device.
func (c *Context) Device() Device { return Device{drv: c.drv, ord: c.dev} }

// IsPrimary reports whether this is the device's primary context.
func (c *Context) IsPrimary() bool { return c.primary }

func (c *Context) String() string {
	kind := "context"
	if c.primary {
		kind = "primary context"
	}
	return fmt.Sprintf("%s %#x on %s device %d", kind, uintptr(c.h), c.drv.Name(), c.dev)
}

// SetCurrent makes c current on the calling OS thread. Call
// runtime.LockOSThread first; see the package documentation.
func (c *Context) SetCurrent() error { return c.drv.CtxSetCurrent(c.h) }

// Synchronize waits for all work in the context.
func (c *Context) Synchronize() error { return c.drv.CtxSynchronize(c.h) }

// Stream is a CUDA stream in a context. A launch on a stream runs in the
// stream's context whatever is current on the calling thread.
type Stream struct {
	ctx *Context
	h   StreamHandle
	// into is the graph a capture started by BeginCaptureInto fills, for
	// EndCapture to return.
	into *Graph
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
	h, err := c.drv.StreamCreate(c.h, flags, priority)
	if err != nil {
		return nil, err
	}
	return &Stream{ctx: c, h: h}, nil
}

// NullStream is c's NULL (legacy default) stream. Launching on it runs in c
// without making c current on the calling thread.
func (c *Context) NullStream() *Stream { return &Stream{ctx: c} }

// Context is the stream's context.
func (s *Stream) Context() *Context { return s.ctx }

// Handle is the backend's stream handle (0 for a NULL stream).
func (s *Stream) Handle() StreamHandle { return s.h }

// Synchronize waits for the stream's work.
func (s *Stream) Synchronize() error { return s.ctx.drv.StreamSynchronize(s.ctx.h, s.h) }

// Done reports whether all the stream's work has completed.
func (s *Stream) Done() (bool, error) { return s.ctx.drv.StreamQuery(s.ctx.h, s.h) }

// Destroy destroys the stream (a NULL stream is left alone; an adopted
// one is its owner's to destroy: ErrNotPermitted).
func (s *Stream) Destroy() error {
	if s.h == 0 {
		return nil
	}
	if s.adopted {
		return Errorf("rt.Stream.Destroy", ErrNotPermitted, "stream %#x was made by other code (AdoptStream): its owner destroys it", uintptr(s.h))
	}
	return s.ctx.drv.StreamDestroy(s.ctx.h, s.h)
}

// Event is a CUDA event in a context.
type Event struct {
	ctx     *Context
	h       EventHandle
	adopted bool // made by other code (AdoptEvent), which destroys it
}

// NewEvent creates an event with CUevent_flags: EventDefault records
// timing, EventDisableTiming makes a cheaper event for dependencies alone
// (Stream.WaitEvent, Query), EventBlockingSync makes Synchronize block the
// thread instead of spinning.
func (c *Context) NewEvent(flags uint32) (*Event, error) {
	h, err := c.drv.EventCreate(c.h, flags)
	if err != nil {
		return nil, err
	}
	return &Event{ctx: c, h: h}, nil
}

// Record records the event on s (nil: the context's NULL stream).
func (e *Event) Record(s *Stream) error {
	var sh StreamHandle
	if s != nil {
		sh = s.h
	}
	return e.ctx.drv.EventRecord(e.ctx.h, e.h, sh)
}

// Synchronize waits for the event.
func (e *Event) Synchronize() error { return e.ctx.drv.EventSynchronize(e.ctx.h, e.h) }

// Destroy destroys the event (an adopted one is its owner's to destroy:
// ErrNotPermitted).
func (e *Event) Destroy() error {
	if e.adopted {
		return Errorf("rt.Event.Destroy", ErrNotPermitted, "event %#x was made by other code (AdoptEvent): its owner destroys it", uintptr(e.h))
	}
	return e.ctx.drv.EventDestroy(e.ctx.h, e.h)
}

// Elapsed is the time in milliseconds between two recorded events.
func Elapsed(start, end *Event) (float32, error) {
	return start.ctx.drv.EventElapsed(start.ctx.h, start.h, end.h)
}
