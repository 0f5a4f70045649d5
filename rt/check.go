package rt

import (
	"math/bits"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
)

// Misuse checks: every exported function and method that takes a Driver,
// Device, Context, Stream, Event, graph, pool, array, texture or surface
// checks it here before anything reaches the backend, so that a nil, zero,
// released, destroyed or foreign argument gets an *Error naming it, never a
// nil dereference in rt or a stale handle in the driver (which CUDA does
// not always survive: a destroyed stream's handle is freed memory to it).
//
// The rules, in one place:
//
//   - A nil *Stream is the NULL stream of the context the call works in:
//     the context of the buffer, event, array, pitched array or graph it
//     works on, as Event.Record(nil) has always had it; for a call that
//     names no other context (a launch, AllocAsync, AllocFromPool,
//     Copy2D.RunAsync, Copy3D.RunAsync) the context a launch with no
//     stream runs in (implicitContext: the current one, else device 0's
//     primary context). A zero rt.Stream{} is not a stream, and
//     the methods of a nil *Stream have no context: ErrInvalidHandle. (The
//     Stream type's comment says this to users.)
//   - A nil or zero Context, Device or Driver is ErrInvalidContext
//     (ErrInvalidDevice for a Device, ErrInvalidValue for a Driver). A
//     context Release destroyed (a created one, or a primary context whose
//     last retain through rt it dropped) is ErrInvalidContext for every
//     later call on it or on what was made in it; releasing one value
//     twice is ErrInvalidContext too.
//   - A destroyed Stream, Event, Graph, GraphExec, MemPool, Array, Texture
//     or Surface, and a zero one, is ErrInvalidHandle.
//   - An object of another driver (a soft stream for a cuda buffer) is
//     ErrInvalidHandle; a stream of another device's context for a
//     buffer, array or event is ErrInvalidValue (copy between devices
//     with CopyFromPeerAsync). Contexts of one device may share streams
//     and memory as far as the backend lets them.
//   - A CUDA call from a host function (Stream.LaunchHostFunc) is
//     ErrNotPermitted (see hostCalls).
//   - A size whose bytes do not fit in 64 bits is ErrInvalidValue, before
//     anything is allocated; one the device (or, for rt/soft, the host)
//     cannot hold is the backend's ErrOutOfMemory.

// ctxLife is whether a context still exists, shared by every Context value
// of it that rt made: one for a created context, one per retained primary
// context (counting rt's retains), none for a borrowed one.
type ctxLife struct {
	refs int // rt's retains of a primary context, guarded by lifeMu
	dead atomic.Bool
}

type primaryKey struct {
	d   Driver
	dev int
}

var (
	lifeMu    sync.Mutex
	primaries = map[primaryKey]*ctxLife{}
)

// retainLife counts one more retain of d's primary context of dev.
func retainLife(d Driver, dev int) *ctxLife {
	if !reflect.TypeOf(d).Comparable() {
		return nil
	}
	lifeMu.Lock()
	defer lifeMu.Unlock()
	k := primaryKey{d, dev}
	l := primaries[k]
	if l == nil {
		l = &ctxLife{}
		primaries[k] = l
	}
	l.refs++
	return l
}

// releaseLife drops one retain; the last marks the context dead (the
// driver has destroyed it, and a later retain makes a new one).
func releaseLife(d Driver, dev int, l *ctxLife) {
	if l == nil {
		return
	}
	lifeMu.Lock()
	defer lifeMu.Unlock()
	if l.refs--; l.refs <= 0 {
		l.dead.Store(true)
		if k := (primaryKey{d, dev}); primaries[k] == l {
			delete(primaries, k)
		}
	}
}

// check refuses a nil, zero or destroyed context for op.
func (c *Context) check(op string) error {
	if c == nil || c.drv == nil {
		return Errorf(op, ErrInvalidContext, "a nil or zero rt.Context (contexts come from Device.Primary, Device.NewContext or Current)")
	}
	if inHostFunc() {
		return notPermitted(op)
	}
	if c.dead() {
		return Errorf(op, ErrInvalidContext, "%v was released", c)
	}
	return nil
}

func (c *Context) dead() bool { return c.life != nil && c.life.dead.Load() }

// check refuses a zero or destroyed stream, or one of a destroyed context.
// s must not be nil (see in).
func (s *Stream) check(op string) error {
	switch {
	case s.ctx == nil:
		return Errorf(op, ErrInvalidHandle, "a zero rt.Stream, or the NULL stream of a nil Context (streams come from Context.NewStream and NullStream; pass nil for the NULL stream)")
	case s.gone.Load():
		return Errorf(op, ErrInvalidHandle, "stream %#x was destroyed", uintptr(s.h))
	}
	return s.ctx.check(op)
}

// in resolves s for work in ctx: nil is ctx's NULL stream; a stream of
// another driver or of another device's context is refused. ctx is checked
// too.
func (s *Stream) in(op string, ctx *Context) (*Stream, error) {
	if err := ctx.check(op); err != nil {
		return nil, err
	}
	if s == nil {
		return ctx.NullStream(), nil
	}
	if err := s.check(op); err != nil {
		return nil, err
	}
	if err := sameDriver(op, s.ctx, ctx); err != nil {
		return nil, err
	}
	if s.ctx.dev != ctx.dev {
		return nil, Errorf(op, ErrInvalidValue, "a stream of %v for work in %v, a context of another device (copy between devices with CopyFromPeer or CopyFromPeerAsync)", s.ctx, ctx)
	}
	return s, nil
}

// orCurrent resolves s for a call that names no other context: nil is the
// NULL stream of the context a launch with no stream runs in.
func (s *Stream) orCurrent(op string) (*Stream, error) {
	if s != nil {
		if err := s.check(op); err != nil {
			return nil, err
		}
		return s, nil
	}
	c, err := implicitFor(op)
	if err != nil {
		return nil, err
	}
	return c.NullStream(), nil
}

// implicitFor is the context a launch with no stream runs in
// (implicitContext: the calling thread's current context on the default
// driver, else device 0's primary context), for op.
func implicitFor(op string) (*Context, error) {
	d, err := defaultDriver()
	if err != nil {
		return nil, err
	}
	if inHostFunc() {
		return nil, notPermitted(op)
	}
	h, err := implicitContext(d)
	if err != nil {
		return nil, err
	}
	dev, err := d.CtxDevice(h)
	if err != nil {
		return nil, err
	}
	return &Context{drv: d, h: h, dev: dev, borrowed: true}, nil
}

// sameDriver refuses objects of two drivers in one call.
func sameDriver(op string, a, b *Context) error {
	if a.drv != b.drv {
		return Errorf(op, ErrInvalidHandle, "%v and %v belong to different backends", a, b)
	}
	return nil
}

// checkDriver refuses a nil Driver.
func checkDriver(op string, d Driver) error {
	if d == nil {
		return Errorf(op, ErrInvalidValue, "a nil rt.Driver (drivers come from rt.Default, rt.Open or a backend's New)")
	}
	if inHostFunc() {
		return notPermitted(op)
	}
	return nil
}

// check refuses a zero Device.
func (d Device) check(op string) error {
	if d.drv == nil {
		return Errorf(op, ErrInvalidDevice, "a zero rt.Device (devices come from rt.Devices or rt.DevicesOf)")
	}
	if inHostFunc() {
		return notPermitted(op)
	}
	return nil
}

// bytesOf is n elements of elem bytes, or an ErrInvalidValue for op when
// the product does not fit in 64 bits (or n is negative).
func bytesOf(op string, n int, elem uint64) (uint64, error) {
	if n < 0 {
		return 0, Errorf(op, ErrInvalidValue, "negative length %d", n)
	}
	hi, lo := bits.Mul64(uint64(n), elem)
	if hi != 0 {
		return 0, Errorf(op, ErrInvalidValue, "%d elements of %d bytes: more than 2^64 bytes", n, elem)
	}
	return lo, nil
}

// hostCalls tracks the goroutines running a host function
// (Stream.LaunchHostFunc) now: CUDA forbids CUDA calls there
// (CUDA_ERROR_NOT_PERMITTED, or a deadlock: a host function that waits for
// its own stream waits for itself), and rt refuses them, on every backend.
// n makes the check one atomic load while no host function runs.
var hostCalls struct {
	n  atomic.Int32
	mu sync.Mutex
	gs map[uint64]int
}

// hostFunc wraps fn so that rt calls made while it runs, on its goroutine,
// fail with ErrNotPermitted.
func hostFunc(fn func()) func() {
	return func() {
		id := goid()
		hostCalls.mu.Lock()
		if hostCalls.gs == nil {
			hostCalls.gs = map[uint64]int{}
		}
		hostCalls.gs[id]++
		hostCalls.mu.Unlock()
		hostCalls.n.Add(1)
		defer func() {
			hostCalls.n.Add(-1)
			hostCalls.mu.Lock()
			if hostCalls.gs[id]--; hostCalls.gs[id] <= 0 {
				delete(hostCalls.gs, id)
			}
			hostCalls.mu.Unlock()
		}()
		fn()
	}
}

// inHostFunc reports whether the calling goroutine runs a host function.
func inHostFunc() bool {
	if hostCalls.n.Load() == 0 {
		return false
	}
	id := goid()
	hostCalls.mu.Lock()
	defer hostCalls.mu.Unlock()
	return hostCalls.gs[id] > 0
}

func notPermitted(op string) error {
	return Errorf(op, ErrNotPermitted, "a CUDA call from a host function (Stream.LaunchHostFunc), which must make none: signal a goroutine that makes it")
}

// goid is the calling goroutine's id, from its stack trace's first line
// ("goroutine 18 [running]:"): only asked while a host function runs.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = b[len("goroutine "):]
	var id uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
