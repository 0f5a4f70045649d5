package rt

// Stream dependencies, event queries, host functions and priorities: the
// Streamer capability at rt's level.

// capability returns d as the optional interface C, or an ErrNotSupported
// error for op naming what the backend lacks.
func capability[C any](d Driver, op, what string) (C, error) {
	c, ok := d.(C)
	if !ok {
		return c, Errorf(op, ErrNotSupported, "backend %s has no %s", d.Name(), what)
	}
	return c, nil
}

func (c *Context) streamer(op string) (Streamer, error) {
	return capability[Streamer](c.drv, op, "stream dependencies or host functions (rt.Streamer)")
}

// WaitEvent makes the work queued on s after this call wait until the work
// before e's most recent Record has completed (cuStreamWaitEvent). The
// event may belong to another stream, context or device. It does not block
// the calling goroutine: it is how one stream's work depends on another's.
//
// During a capture, waiting on an event recorded in the capture joins s to
// the capture (a fork); see Stream.BeginCapture.
func (s *Stream) WaitEvent(e *Event) error { return s.WaitEventWithFlags(e, EventDefault) }

// WaitEventWithFlags is WaitEvent with cuStreamWaitEvent's flags:
// EventWaitExternal, during a capture, records an event wait node in the
// graph instead of a fork/join dependency.
func (s *Stream) WaitEventWithFlags(e *Event, flags uint32) error {
	const op = "rt.Stream.WaitEvent"
	if s == nil {
		return Errorf(op, ErrInvalidHandle, "a nil stream (wait on a context's NULL stream with Context.NullStream().WaitEvent)")
	}
	if err := s.check(op); err != nil {
		return err
	}
	if err := e.check(op); err != nil {
		return err
	}
	if err := sameDriver(op, s.ctx, e.ctx); err != nil {
		return err
	}
	st, err := s.ctx.streamer("cuStreamWaitEvent")
	if err != nil {
		return err
	}
	return st.StreamWaitEvent(s.ctx.h, s.h, e.h, flags)
}

// RecordWithFlags is Record with cuEventRecordWithFlags' flags:
// EventRecordExternal, during a capture, records an event record node in
// the graph, which records e at every launch of the graph.
func (e *Event) RecordWithFlags(s *Stream, flags uint32) error {
	s, err := e.on("rt.Event.RecordWithFlags", s)
	if err != nil {
		return err
	}
	st, err := e.ctx.streamer("cuEventRecordWithFlags")
	if err != nil {
		return err
	}
	return st.EventRecordWithFlags(e.ctx.h, e.h, s.h, flags)
}

// Query reports whether the work before e's most recent Record has
// completed, without waiting (cuEventQuery). An event never recorded is
// done.
func (e *Event) Query() (bool, error) {
	if err := e.check("rt.Event.Query"); err != nil {
		return false, err
	}
	st, err := e.ctx.streamer("cuEventQuery")
	if err != nil {
		return false, err
	}
	return st.EventQuery(e.ctx.h, e.h)
}

// LaunchHostFunc queues fn on s (cuLaunchHostFunc): it runs once the work
// queued before it has completed, and the work queued after it waits until
// fn returns. Captured, it becomes a host node that runs at every launch of
// the graph.
//
// fn runs on a thread of the backend's (the CUDA driver's own thread for
// rt/cgo), not on the goroutine that queued it. What it may do there is
// what CUDA allows a host function: no CUDA calls at all — no rt copy,
// launch, synchronize or allocation, on any stream, which may deadlock or
// fail (CUDA_ERROR_NOT_PERMITTED) — and nothing that waits for later work
// of any stream. It should be short: the stream, and every stream of the
// context behind it, waits for it. Updating Go variables, closing or
// sending on a buffered channel and signalling a goroutine that then does
// CUDA work are the intended uses. A panic in fn ends the program, as in
// any goroutine.
func (s *Stream) LaunchHostFunc(fn func()) error {
	if fn == nil {
		return Errorf("cuLaunchHostFunc", ErrInvalidValue, "nil function")
	}
	if s == nil {
		return Errorf("rt.Stream.LaunchHostFunc", ErrInvalidHandle, "a nil stream (queue on a context's NULL stream with Context.NullStream().LaunchHostFunc)")
	}
	if err := s.check("rt.Stream.LaunchHostFunc"); err != nil {
		return err
	}
	st, err := s.ctx.streamer("cuLaunchHostFunc")
	if err != nil {
		return err
	}
	return st.LaunchHostFunc(s.ctx.h, s.h, hostFunc(fn))
}

// StreamPriorityRange is the range of stream priorities in c
// (cuCtxGetStreamPriorityRange): least is the lowest priority (0 in
// practice) and greatest the highest, a smaller number (-5 on an H100).
// NewStreamWith clamps priorities to this range.
func (c *Context) StreamPriorityRange() (least, greatest int, err error) {
	if err := c.check("rt.Context.StreamPriorityRange"); err != nil {
		return 0, 0, err
	}
	st, err := c.streamer("cuCtxGetStreamPriorityRange")
	if err != nil {
		return 0, 0, err
	}
	return st.StreamPriorityRange(c.h)
}

// Priority is the stream's priority (cuStreamGetPriority).
func (s *Stream) Priority() (int, error) {
	if s == nil {
		return 0, Errorf("rt.Stream.Priority", ErrInvalidHandle, "a nil stream")
	}
	if err := s.check("rt.Stream.Priority"); err != nil {
		return 0, err
	}
	st, err := s.ctx.streamer("cuStreamGetPriority")
	if err != nil {
		return 0, err
	}
	return st.StreamPriority(s.ctx.h, s.h)
}
