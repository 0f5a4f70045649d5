package soft

import (
	"sync"
	"sync/atomic"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

// context is a CUDA context: it owns allocations, streams, events and the
// per-context instances of the libraries used in it.
type context struct {
	d       *Driver
	h       rt.CtxHandle
	dev     *device
	primary bool

	null *stream // the legacy NULL stream (also rt.StreamLegacy)

	fault atomic.Pointer[rt.Error] // the sticky fault (sticky.go); nil while usable

	mu        sync.Mutex
	destroyed bool
	streams   map[*stream]struct{}   // created streams and ptds (not the NULL stream)
	ptds      *stream                // the per-thread default stream, once used (perThread)
	allocs    map[uint64]*exec.Alloc // live allocations by base
	insts     map[*library]*instance

	runtime exec.Runtime // the device runtime's state (executor.go)
}

func (d *Driver) newContext(dv *device, primary bool) *context {
	c := &context{d: d, dev: dv, primary: primary,
		streams: map[*stream]struct{}{}, allocs: map[uint64]*exec.Alloc{}, insts: map[*library]*instance{}}
	c.null = newStream(c, 0, 0, 0)
	d.mu.Lock()
	c.h = rt.CtxHandle(d.handle())
	d.ctxs[c.h] = c
	d.mu.Unlock()
	return c
}

// ctx resolves a handle for a call that works in the context: 0 is the
// calling thread's current context, and a context that has faulted fails
// the call with its sticky fault.
func (d *Driver) ctx(op string, h rt.CtxHandle) (*context, error) {
	c, err := d.lookup(op, h)
	if err != nil {
		return nil, err
	}
	if err := c.unusable(op); err != nil {
		return nil, err
	}
	return c, nil
}

// lookup is ctx for the calls that stay usable after a fault.
func (d *Driver) lookup(op string, h rt.CtxHandle) (*context, error) {
	if h == 0 {
		c := d.cur()
		if c == nil {
			return nil, rt.Errorf(op, rt.ErrInvalidContext, "no current context on this OS thread (call CtxSetCurrent, with runtime.LockOSThread, or pass a context)")
		}
		return c, nil
	}
	d.mu.Lock()
	c := d.ctxs[h]
	d.mu.Unlock()
	if c == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidContext, "context %#x does not exist (destroyed or released?)", uintptr(h))
	}
	return c, nil
}

func (d *Driver) cur() *context {
	d.curMu.Lock()
	defer d.curMu.Unlock()
	return d.current[tid()]
}

// PrimaryCtxRetain is cuDevicePrimaryCtxRetain.
func (d *Driver) PrimaryCtxRetain(ord int) (rt.CtxHandle, error) {
	dv, err := d.dev("cuDevicePrimaryCtxRetain", ord)
	if err != nil {
		return 0, err
	}
	if err := d.faulted("cuDevicePrimaryCtxRetain", d.fault.Load()); err != nil {
		return 0, err
	}
	dv.mu.Lock()
	defer dv.mu.Unlock()
	if dv.primary == nil {
		dv.primary = d.newContext(dv, true)
	}
	dv.prRefs++
	return dv.primary.h, nil
}

// PrimaryCtxRelease is cuDevicePrimaryCtxRelease: the last release destroys
// the primary context and frees its memory; a later retain makes a new one.
func (d *Driver) PrimaryCtxRelease(ord int) error {
	dv, err := d.dev("cuDevicePrimaryCtxRelease", ord)
	if err != nil {
		return err
	}
	dv.mu.Lock()
	if dv.primary == nil || dv.prRefs == 0 {
		dv.mu.Unlock()
		return rt.Errorf("cuDevicePrimaryCtxRelease", rt.ErrInvalidContext, "device %d's primary context is not retained", ord)
	}
	dv.prRefs--
	var c *context
	if dv.prRefs == 0 {
		c, dv.primary = dv.primary, nil
	}
	dv.mu.Unlock()
	if c != nil {
		d.destroy(c)
	}
	return nil
}

// CtxCreate is cuCtxCreate, except that, as rt.Driver has it, the calling
// thread's current context stays as it was.
func (d *Driver) CtxCreate(ord int, flags uint32) (rt.CtxHandle, error) {
	dv, err := d.dev("cuCtxCreate", ord)
	if err != nil {
		return 0, err
	}
	if err := d.faulted("cuCtxCreate", d.fault.Load()); err != nil {
		return 0, err
	}
	return d.newContext(dv, false).h, nil
}

// CtxDestroy is cuCtxDestroy. Primary contexts are released, not destroyed.
func (d *Driver) CtxDestroy(h rt.CtxHandle) error {
	if h == 0 {
		return rt.Errorf("cuCtxDestroy", rt.ErrInvalidValue, "null context")
	}
	c, err := d.lookup("cuCtxDestroy", h)
	if err != nil {
		return err
	}
	if c.primary {
		return rt.Errorf("cuCtxDestroy", rt.ErrInvalidContext, "context %#x is a primary context; release it with PrimaryCtxRelease", uintptr(h))
	}
	d.destroy(c)
	return nil
}

// destroy waits for the context's work, frees everything it owns and
// invalidates its handles.
func (d *Driver) destroy(c *context) {
	_ = c.synchronize()
	c.mu.Lock()
	c.destroyed = true
	streams := c.streams
	allocs := c.allocs
	insts := c.insts
	c.streams, c.allocs, c.insts = map[*stream]struct{}{}, map[uint64]*exec.Alloc{}, map[*library]*instance{}
	c.ptds = nil
	c.mu.Unlock()
	for s := range streams {
		d.dropCapture(s) // a capture in c must not outlive it
	}
	for _, a := range allocs {
		d.mem.Free(a)
		c.dev.release(a.Size)
		d.poolFreed(a.Base, a.Size) // a stream-ordered one's pool entry
	}
	// What the driver keeps of c's objects goes with it (CUDA frees
	// everything of a destroyed context), so a careless program's
	// forgotten textures and unsynchronized work do not pile up.
	d.synced(c, nil, ^uint64(0))
	d.hz.mu.Lock()
	for s := range streams {
		delete(d.hz.streams, s)
	}
	delete(d.hz.streams, c.null)
	d.hz.mu.Unlock()
	d.hostSynced(c, nil, true)
	d.forgetTextures(c)
	for lib := range insts {
		lib.mu.Lock()
		delete(lib.insts, c)
		lib.mu.Unlock()
	}
	d.mu.Lock()
	delete(d.ctxs, c.h)
	for s := range streams {
		delete(d.streams, s.h)
	}
	for h, e := range d.events {
		if e.ctx == c {
			delete(d.events, h)
		}
	}
	d.mu.Unlock()
	d.curMu.Lock()
	for t, cc := range d.current {
		if cc == c {
			delete(d.current, t)
		}
	}
	d.curMu.Unlock()
}

// CtxSetCurrent is cuCtxSetCurrent for the calling OS thread; 0 unbinds.
func (d *Driver) CtxSetCurrent(h rt.CtxHandle) error {
	if h == 0 {
		d.curMu.Lock()
		delete(d.current, tid())
		d.curMu.Unlock()
		return nil
	}
	c, err := d.lookup("cuCtxSetCurrent", h)
	if err != nil {
		return err
	}
	d.curMu.Lock()
	d.current[tid()] = c
	d.curMu.Unlock()
	return nil
}

// CtxGetCurrent is cuCtxGetCurrent: 0 and no error when none is current.
func (d *Driver) CtxGetCurrent() (rt.CtxHandle, error) {
	if c := d.cur(); c != nil {
		return c.h, nil
	}
	return 0, nil
}

// CtxDevice is cuCtxGetDevice.
func (d *Driver) CtxDevice(h rt.CtxHandle) (int, error) {
	c, err := d.lookup("cuCtxGetDevice", h)
	if err != nil {
		return 0, err
	}
	return c.dev.ord, nil
}

// CtxSynchronize is cuCtxSynchronize: waits for every stream of the context
// and reports the first error left by asynchronous work.
func (d *Driver) CtxSynchronize(h rt.CtxHandle) error {
	c, err := d.lookup("cuCtxSynchronize", h)
	if err != nil {
		return err
	}
	if err := d.forbidden("cuCtxSynchronize", c, true); err != nil {
		return err
	}
	defer d.synced(c, nil, d.hz.now())
	defer d.hostSynced(c, nil, false)
	return c.afterSync("cuCtxSynchronize", c.synchronize())
}

// synchronize waits for all streams and collects (and clears) their
// pending asynchronous errors, returning the first.
func (c *context) synchronize() error {
	var buf [16]*stream // a synchronisation allocates nothing for the usual few streams
	c.mu.Lock()
	list := append(buf[:0], c.null)
	for s := range c.streams {
		list = append(list, s)
	}
	c.mu.Unlock()
	var first error
	for _, s := range list {
		if err := s.wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// blockingPending takes the first pending error of the context's blocking
// streams whose queued work has finished.
func (c *context) blockingPending() error {
	var buf [16]*stream
	c.mu.Lock()
	list := buf[:0]
	for s := range c.streams {
		if s.flags&streamNonBlocking == 0 {
			list = append(list, s)
		}
	}
	c.mu.Unlock()
	for _, s := range list {
		if done, err := s.query(); done && err != nil {
			return err
		}
	}
	return nil
}
