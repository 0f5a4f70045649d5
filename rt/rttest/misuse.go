package rttest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cugen/cugen/rt"
)

// TestMisuse calls rt's exported functions and methods with the arguments
// a hurried programmer passes: nil and zero values, released contexts,
// destroyed streams, events, graphs, pools, arrays and textures, freed
// buffers, objects of another device and of another driver, sizes whose
// bytes overflow, and CUDA calls from a host function. Each case must
// return the error CUDA would give (the code it names), or, where rt's
// rules make the argument valid (a nil *Stream is the NULL stream of the
// context the call works in: see rt's check.go), succeed. No case may
// panic or hang, and after each the driver must still work: an
// allocation, copies both ways, a launch and a synchronization in two
// contexts (a case that leaves a context unusable fails).
//
// MisuseAPIs lists the exported names the cases cover; rttest's own test
// keeps it complete against rt's exported API, so that a new function
// without a misuse case fails CI.
//
// d must not be rt.Default's driver in a process where a case might make
// a context current that Default then sees; the suite leaves no context
// current. With one device the cases that need a second skip.
func TestMisuse(t *testing.T, d rt.Driver, opts Options) {
	e := newMisuseEnv(t, d, opts)
	defer e.close()
	var failed []string
	for _, c := range misuseCases() {
		t.Run(c.api+"/"+c.what, func(t *testing.T) {
			if c.needs != nil {
				if why := c.needs(e); why != "" {
					t.Skip(why)
				}
			}
			err, panicked, hung := e.run(c)
			switch {
			case hung:
				t.Errorf("%s (%s): did not return within %v", c.api, c.what, misuseTimeout)
				failed = append(failed, c.api+"/"+c.what)
				return
			case panicked != nil:
				t.Errorf("%s (%s): panic: %v", c.api, c.what, panicked)
			case !c.accepts(err):
				t.Errorf("%s (%s): %v, want %s", c.api, c.what, errOrNil(err), c.wantText())
			}
			herr, hp, hhung := e.run(misuseCase{run: func(e *misuseEnv) error { return e.health() }})
			switch {
			case hhung:
				t.Fatalf("%s (%s): the driver hangs afterwards (the health check did not return within %v)", c.api, c.what, misuseTimeout)
			case hp != nil:
				t.Fatalf("%s (%s): the health check panicked afterwards: %v", c.api, c.what, hp)
			case herr != nil:
				t.Errorf("%s (%s): the driver is not usable afterwards: %v", c.api, c.what, herr)
			}
			if t.Failed() {
				failed = append(failed, c.api+"/"+c.what)
			}
		})
	}
	t.Logf("MISUSE %s: %d cases, %d failed", d.Name(), len(misuseCases()), len(failed))
}

// MisuseAPIs are the exported names of rt (functions, and methods as
// Type.Method) that TestMisuse's cases call with bad arguments.
func MisuseAPIs() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range misuseCases() {
		if !seen[c.api] {
			seen[c.api] = true
			out = append(out, c.api)
		}
	}
	return out
}

const misuseTimeout = 20 * time.Second

// anyError accepts every error but none (for cases whose code the backend
// chooses, such as a freed device pointer in a copy).
const anyError rt.Result = -1

type misuseCase struct {
	api, what string
	want      []rt.Result // the codes accepted; rt.Success is no error
	needs     func(e *misuseEnv) string
	run       func(e *misuseEnv) error
}

func (c *misuseCase) accepts(err error) bool {
	for _, w := range c.want {
		switch {
		case w == rt.Success && err == nil:
			return true
		case w == anyError && err != nil:
			return true
		case err != nil && errors.Is(err, w):
			var re *rt.Error
			return errors.As(err, &re) // a code, and an *rt.Error that says where
		}
	}
	return false
}

func (c *misuseCase) wantText() string {
	var s []string
	for _, w := range c.want {
		switch w {
		case rt.Success:
			s = append(s, "no error")
		case anyError:
			s = append(s, "an error")
		default:
			s = append(s, w.Name())
		}
	}
	return strings.Join(s, " or ")
}

func errOrNil(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// misuseEnv is what the cases share: device 0's primary context ctx, a
// context of its own ctx2 on the same device, device 1's primary context
// far (nil with one device), a context of another driver (a Fake), and a
// stream and buffer in ctx. Every case makes its own dead objects.
type misuseEnv struct {
	t          *testing.T
	d          rt.Driver
	opts       Options
	devs       []rt.Device
	ctx, ctx2  *rt.Context
	far        *rt.Context
	fake       *rt.Context
	s          *rt.Stream
	buf        rt.Buffer[float32]
	lib        *rt.Library
	vecAdd     *rt.Kernel
	empty      *rt.Kernel
	scale      *rt.Global[float32]
	total      *rt.Managed[uint32]
	fakeDriver *Fake
}

func newMisuseEnv(t *testing.T, d rt.Driver, opts Options) *misuseEnv {
	t.Helper()
	e := &misuseEnv{t: t, d: d, opts: opts}
	e.lib = rt.NewLibrary("suite.ptx", suitePTX)
	p := func(off, size uint32) rt.ParamSpec { return rt.ParamSpec{Offset: off, Size: size} }
	e.vecAdd = e.lib.Kernel("vecAdd", p(0, 8), p(8, 8), p(16, 8), p(24, 4))
	e.empty = e.lib.Kernel("empty")
	e.scale = rt.NewGlobal[float32](e.lib, "scale", 1)
	e.total = rt.NewManaged[uint32](e.lib, "managedTotal", 1)
	var err error
	if e.devs, err = rt.DevicesOf(d); err != nil {
		t.Fatal(err)
	}
	if e.ctx, err = e.devs[0].Primary(); err != nil {
		t.Fatal(err)
	}
	if e.ctx2, err = e.devs[0].NewContext(0); err != nil {
		t.Fatal(err)
	}
	if len(e.devs) > 1 {
		if e.far, err = e.devs[1].Primary(); err != nil {
			t.Fatal(err)
		}
	}
	e.fakeDriver = &Fake{Kernels: []string{"vecAdd", "empty"}}
	fd, _ := rt.DevicesOf(e.fakeDriver)
	if e.fake, err = fd[0].Primary(); err != nil {
		t.Fatal(err)
	}
	if e.s, err = e.ctx.NewStream(); err != nil {
		t.Fatal(err)
	}
	if e.buf, err = rt.Alloc[float32](e.ctx, 64); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *misuseEnv) close() {
	e.buf.Free()
	e.s.Destroy()
	e.lib.Unload(e.d)
	if e.far != nil {
		e.far.Release()
	}
	e.ctx2.Release()
	e.ctx.Release()
}

// run runs c on a goroutine of its own, locked to its OS thread (which
// exits with it, so no context a case makes current outlives it), and
// waits for it at most misuseTimeout.
func (e *misuseEnv) run(c misuseCase) (err error, panicked any, hung bool) {
	type result struct {
		err error
		p   any
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		var r result
		defer func() {
			r.p = recover()
			done <- r
		}()
		r.err = c.run(e)
	}()
	select {
	case r := <-done:
		return r.err, r.p, false
	case <-time.After(misuseTimeout):
		return nil, nil, true
	}
}

// health checks that ctx and ctx2 still allocate, copy, launch and
// synchronize.
func (e *misuseEnv) health() error {
	for _, c := range []*rt.Context{e.ctx, e.ctx2} {
		if err := e.healthIn(c); err != nil {
			return fmt.Errorf("%v: %w", c, err)
		}
	}
	return nil
}

func (e *misuseEnv) healthIn(c *rt.Context) error {
	const n = 40
	x := iota32(n)
	a, err := rt.AllocFrom(c, x)
	if err != nil {
		return err
	}
	defer a.Free()
	out, err := rt.Alloc[float32](c, n)
	if err != nil {
		return err
	}
	defer out.Free()
	s, err := c.NewStream()
	if err != nil {
		return err
	}
	defer s.Destroy()
	var p [28]byte
	le.PutUint64(p[0:], uint64(a.Ptr))
	le.PutUint64(p[8:], uint64(a.Ptr))
	le.PutUint64(p[16:], uint64(out.Ptr))
	le.PutUint32(p[24:], n)
	if err := e.vecAdd.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(64), Stream: s}, p[:]); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	got, err := out.ToHost()
	if err != nil {
		return err
	}
	for i := range got {
		if got[i] != 2*x[i] {
			return fmt.Errorf("vecAdd: c[%d] = %v, want %v", i, got[i], 2*x[i])
		}
	}
	return c.Synchronize()
}

// ---- dead and foreign objects, made per case ----

// released is a context of its own on device 0, already released.
func (e *misuseEnv) released() *rt.Context {
	c, err := e.devs[0].NewContext(0)
	if err != nil {
		panic(err)
	}
	if err := c.Release(); err != nil {
		panic(err)
	}
	return c
}

// releasedStream is a stream of a released context.
func (e *misuseEnv) releasedStream() *rt.Stream {
	c, err := e.devs[0].NewContext(0)
	if err != nil {
		panic(err)
	}
	s, err := c.NewStream()
	if err != nil {
		panic(err)
	}
	if err := c.Release(); err != nil {
		panic(err)
	}
	return s
}

func (e *misuseEnv) deadStream() *rt.Stream {
	s, err := e.ctx.NewStream()
	if err != nil {
		panic(err)
	}
	if err := s.Destroy(); err != nil {
		panic(err)
	}
	return s
}

func (e *misuseEnv) fakeStream() *rt.Stream {
	s, err := e.fake.NewStream()
	if err != nil {
		panic(err)
	}
	return s
}

func (e *misuseEnv) farStream() *rt.Stream {
	s, err := e.far.NewStream()
	if err != nil {
		panic(err)
	}
	return s
}

func (e *misuseEnv) deadEvent() *rt.Event {
	ev, err := e.ctx.NewEvent(rt.EventDefault)
	if err != nil {
		panic(err)
	}
	if err := ev.Destroy(); err != nil {
		panic(err)
	}
	return ev
}

func (e *misuseEnv) event(c *rt.Context) *rt.Event {
	ev, err := c.NewEvent(rt.EventDefault)
	if err != nil {
		panic(err)
	}
	return ev
}

// freed is a buffer of 64 float32 in ctx, freed.
func (e *misuseEnv) freed() rt.Buffer[float32] {
	b, err := rt.Alloc[float32](e.ctx, 64)
	if err != nil {
		panic(err)
	}
	if err := b.Free(); err != nil {
		panic(err)
	}
	return b
}

// bufIn is a buffer of 64 float32 in c (the case frees it if it must).
func bufIn(c *rt.Context) rt.Buffer[float32] {
	b, err := rt.Alloc[float32](c, 64)
	if err != nil {
		panic(err)
	}
	return b
}

// releasedBuf is a buffer of a released context.
func (e *misuseEnv) releasedBuf() rt.Buffer[float32] {
	c, err := e.devs[0].NewContext(0)
	if err != nil {
		panic(err)
	}
	b := bufIn(c)
	if err := c.Release(); err != nil {
		panic(err)
	}
	return b
}

// needsTwo skips a case without a second device.
func needsTwo(e *misuseEnv) string {
	if e.far == nil {
		return "needs a second device"
	}
	return ""
}

// needs skips a case where the driver lacks capability C.
func needs[C any](what string) func(e *misuseEnv) string {
	return func(e *misuseEnv) string {
		if _, ok := e.d.(C); !ok {
			return fmt.Sprintf("backend %s has no %s", e.d.Name(), what)
		}
		return ""
	}
}

func both(a, b func(e *misuseEnv) string) func(e *misuseEnv) string {
	return func(e *misuseEnv) string {
		if w := a(e); w != "" {
			return w
		}
		return b(e)
	}
}
