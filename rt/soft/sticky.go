// Sticky faults: a kernel that faults leaves its context unusable, as on a
// GPU. CUDA documents each launch-failure code (rt.Result.Sticky lists
// them) as leaving the context in a state where "any further CUDA work will
// return the same error", and for CUDA_ERROR_ASSERT that "the context cannot
// be used anymore, and must be destroyed". soft does the same, context by
// context: the first fault is recorded in its context, every later call
// that works in that context returns it, queued work there does not run
// and running launches there stop at their next CTA. Other contexts and
// devices are untouched. Destroying the context (CtxDestroy), or releasing
// every retain of a primary context, which resets it as
// cuDevicePrimaryCtxRelease does, is the way back: the next
// PrimaryCtxRetain makes a fresh one.
//
// What stays usable in a dead context is what is needed to leave it:
// CtxDestroy, PrimaryCtxRelease, CtxSetCurrent, CtxGetCurrent, CtxDevice,
// StreamDestroy and EventDestroy.

package soft

import (
	"errors"

	"github.com/cugen/cugen/rt"
)

// poison records err as c's sticky fault if its code leaves a context
// unusable; the first fault wins.
func (c *context) poison(err error) {
	var e *rt.Error
	if errors.As(err, &e) && e.Code.Sticky() {
		c.fault.CompareAndSwap(nil, e)
	}
}

// unusable returns the error op reports in a context that has faulted, or
// nil: the fault's code, marked as coming from earlier asynchronous work,
// with the fault's description.
func (c *context) unusable(op string) error {
	f := c.fault.Load()
	if f == nil {
		return nil
	}
	return &rt.Error{Op: op, Code: f.Code, Async: true,
		Detail: "the context is unusable after a kernel fault (destroy it, or release the primary context fully, and use a new one); the fault: " + f.Detail}
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
