// Sticky faults: a kernel that faults leaves the process unable to use
// CUDA, as on a GPU. CUDA documents each launch-failure code
// (rt.Result.Sticky lists them) as leaving "the process in an inconsistent
// state and any further CUDA work will return the same error. To continue
// using CUDA, the process must be terminated and relaunched." An H100
// (driver 580.159.04) does exactly that, past what the context-level
// wording of CUDA_ERROR_ASSERT suggests: after a trap in a created context,
// the device's primary context (held throughout) failed its next
// allocation, cuCtxCreate failed, and after every context had been
// destroyed or released cuDevicePrimaryCtxRetain still failed, each with
// the fault's code (rt/cgo's TestStickyFaults runs each fault in a process
// of its own for that reason).
//
// soft does the same for the Driver as a whole, since a Driver stands for
// a process: the first fault is recorded in its context and in the Driver;
// every later call that works in any context of any device returns it,
// and so do context creation and primary-context retains; queued work does
// not run and running launches stop at their next CTA. Whether a second GPU
// stays usable was not measured (one GPU was lent): soft follows the
// documentation. A new Driver (soft.New) is the new process.
//
// What stays usable is what is needed to leave: CtxDestroy,
// PrimaryCtxRelease, CtxSetCurrent, CtxGetCurrent, CtxDevice, StreamDestroy
// and EventDestroy, and the device queries.

package soft

import (
	"errors"

	"github.com/cugen/cugen/rt"
)

// Abort stops every launch of the Driver, running or queued, and leaves
// the Driver unusable as a kernel fault does: running kernels stop within
// a few milliseconds, and every later call that works in a context returns
// CUDA_ERROR_LAUNCH_TIMEOUT (rt.ErrLaunchTimeout) with reason, as after a
// GPU watchdog's timeout. What is needed to leave (Context.Release,
// Stream.Destroy, ...) still works, so a program can abort on an interrupt
// and clean up:
//
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
//	defer stop()
//	go func() { <-ctx.Done(); drv.Abort("interrupted") }()
//
// Abort after an earlier fault changes nothing; a new Driver is the way
// back.
func (d *Driver) Abort(reason string) {
	d.fault.CompareAndSwap(nil, &rt.Error{Op: "soft.Driver.Abort", Code: rt.ErrLaunchTimeout, Detail: "aborted: " + reason})
}

// poison records err as the sticky fault of c and of its Driver if its code
// is sticky; the first fault wins.
func (c *context) poison(err error) {
	var e *rt.Error
	if errors.As(err, &e) && e.Code.Sticky() {
		c.fault.CompareAndSwap(nil, e)
		c.d.fault.CompareAndSwap(nil, e)
	}
}

// unusable returns the error op reports in a context once a kernel has
// faulted (in it, or anywhere in the Driver), or nil: the fault's code,
// marked as coming from earlier asynchronous work, with its description.
func (c *context) unusable(op string) error {
	f := c.fault.Load()
	if f == nil {
		f = c.d.fault.Load()
	}
	return c.d.faulted(op, f)
}

// faulted is the error op reports after the fault f, nil if f is.
func (d *Driver) faulted(op string, f *rt.Error) error {
	if f == nil {
		return nil
	}
	return &rt.Error{Op: op, Code: f.Code, Async: true,
		Detail: "CUDA is unusable in this process after a kernel fault (a new process, here a new soft Driver, is the way back); the fault: " + f.Detail}
}

// afterSync is what a synchronising call returns once it has waited: the
// error its wait collected (the fault itself, the first time), else the
// context's sticky fault.
func (c *context) afterSync(op string, waited error) error {
	if waited != nil {
		return asyncErr(op, waited)
	}
	return c.unusable(op)
}
