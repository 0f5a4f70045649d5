package rt

import "sync"

// A launch with no stream runs as CUDA's runtime API runs one: in the
// calling OS thread's current context when there is one, else in device 0's
// primary context, which rt retains on that first use and keeps for the
// process (as the runtime does; it is released with the driver). rt does
// not make it current on the thread: the launch names it, so nothing a Go
// program does with its goroutines and threads changes where later such
// launches go. A stream, or a context made current with SetCurrent under
// runtime.LockOSThread, still decides.

var (
	implicitMu  sync.Mutex
	implicitCtx = map[driverRef]CtxHandle{} // device 0's primary context, per driver, once retained (not keeping it alive)
)

// implicitContext is the context a launch without a stream runs in on d.
func implicitContext(d Driver) (CtxHandle, error) {
	h, err := d.CtxGetCurrent()
	if err != nil || h != 0 {
		return h, err
	}
	implicitMu.Lock()
	defer implicitMu.Unlock()
	if h, ok := implicitCtx[refTo(d)]; ok {
		return h, nil
	}
	h, err = d.PrimaryCtxRetain(0)
	if err != nil {
		return 0, err
	}
	for r := range implicitCtx {
		if !r.alive() {
			delete(implicitCtx, r)
		}
	}
	implicitCtx[refTo(d)] = h
	return h, nil
}
