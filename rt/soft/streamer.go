package soft

import (
	"github.com/cugen/cugen/rt"
)

// Stream dependencies, event queries, host functions and priorities
// (rt.Streamer).

var _ rt.Streamer = (*Driver)(nil)

// Stream priorities: the range an H100 reports. Lower numbers are higher
// priorities; soft runs every stream's work as soon as it may, so a
// priority changes nothing but what StreamPriority reports.
const (
	leastPriority    = 0
	greatestPriority = -5
)

// StreamWaitEvent is cuStreamWaitEvent: s's later work waits for the
// event's most recent record, taken now. An event never recorded is
// complete.
func (d *Driver) StreamWaitEvent(ch rt.CtxHandle, sh rt.StreamHandle, eh rt.EventHandle, flags uint32) error {
	const op = "cuStreamWaitEvent"
	if flags&^rt.EventWaitExternal != 0 {
		return rt.Errorf(op, rt.ErrInvalidValue, "flags %#x", flags)
	}
	s, err := d.stream(op, ch, sh)
	if err != nil {
		return err
	}
	e, err := d.event(op, eh)
	if err != nil {
		return err
	}
	if handled, err := d.waitCaptured(op, s, e, flags); handled || err != nil {
		return err
	}
	e.mu.Lock()
	at := e.at
	e.mu.Unlock()
	if at.none() {
		return nil
	}
	o, err := d.submit(op, s, &snode{typ: rt.NodeWaitEvent, ev: e}, func() error {
		at.wait()
		return nil
	})
	if !o.none() {
		d.eventWaited(s, e)
		d.eventWaitedRace(s, e)
	}
	return err
}

// EventRecordWithFlags is cuEventRecordWithFlags.
func (d *Driver) EventRecordWithFlags(ch rt.CtxHandle, eh rt.EventHandle, sh rt.StreamHandle, flags uint32) error {
	const op = "cuEventRecordWithFlags"
	if flags&^rt.EventRecordExternal != 0 {
		return rt.Errorf(op, rt.ErrInvalidValue, "flags %#x", flags)
	}
	return d.eventRecord(op, ch, eh, sh, flags)
}

// EventQuery is cuEventQuery.
func (d *Driver) EventQuery(ch rt.CtxHandle, eh rt.EventHandle) (bool, error) {
	const op = "cuEventQuery"
	e, err := d.event(op, eh)
	if err != nil {
		return false, err
	}
	if err := d.capturedEvent(op, e); err != nil {
		return false, err
	}
	e.mu.Lock()
	at := e.at
	e.mu.Unlock()
	if !at.reached() {
		return false, nil
	}
	d.eventDone(e)
	d.eventSeenRace(e, false)
	return true, nil
}

// LaunchHostFunc is cuLaunchHostFunc: fn runs on the goroutine that runs
// s's work, after the work before it.
func (d *Driver) LaunchHostFunc(ch rt.CtxHandle, sh rt.StreamHandle, fn func()) error {
	const op = "cuLaunchHostFunc"
	if fn == nil {
		return rt.Errorf(op, rt.ErrInvalidValue, "nil function")
	}
	s, err := d.stream(op, ch, sh)
	if err != nil {
		return err
	}
	_, err = d.submit(op, s, &snode{typ: rt.NodeHost}, func() error {
		fn()
		return nil
	})
	return err
}

// StreamPriorityRange is cuCtxGetStreamPriorityRange.
func (d *Driver) StreamPriorityRange(ch rt.CtxHandle) (least, greatest int, err error) {
	if _, err := d.ctx("cuCtxGetStreamPriorityRange", ch); err != nil {
		return 0, 0, err
	}
	return leastPriority, greatestPriority, nil
}

// StreamPriority is cuStreamGetPriority.
func (d *Driver) StreamPriority(ch rt.CtxHandle, sh rt.StreamHandle) (int, error) {
	s, err := d.stream("cuStreamGetPriority", ch, sh)
	if err != nil {
		return 0, err
	}
	return s.priority, nil
}

// clampPriority is what cuStreamCreateWithPriority does with a priority out
// of range.
func clampPriority(p int) int { return min(max(p, greatestPriority), leastPriority) }
