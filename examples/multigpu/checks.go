package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cugen/cugen/examples/multigpu/kernels"
	"github.com/cugen/cugen/rt"
)

// place is a context the checks launch in, named the same way on every
// backend with the same number of devices (digest lines carry the name).
type place struct {
	name string
	ctx  *rt.Context
}

// contexts retains each device's primary context and, with created, makes
// one more context on each device (primaries first). release gives them
// all back.
func (b *backend) contexts(created bool) (ps []place, release func(), err error) {
	release = func() {
		for _, p := range ps {
			p.ctx.Release()
		}
	}
	for i, dev := range b.devs {
		c, err := dev.Primary()
		if err != nil {
			return ps, release, err
		}
		ps = append(ps, place{fmt.Sprintf("dev%d.primary", i), c})
	}
	if created {
		for i, dev := range b.devs {
			c, err := dev.NewContext(0)
			if err != nil {
				return ps, release, err
			}
			ps = append(ps, place{fmt.Sprintf("dev%d.created", i), c})
		}
	}
	return ps, release, nil
}

func (p place) String() string { return p.name }

const (
	goroutinesPerContext = 3
	rounds               = 3
	oneN                 = 4096 + 5 // not a multiple of the block: the kernels' bounds checks run
)

var axpyA = [rounds]float32{0.75, -1.5, 1.25}

// oneLibrary launches the library's kernels in every device's primary
// context and in a created context on each device, from several
// goroutines per context, each with a stream of its own; one goroutine per
// context has another context (another device's, where there is one)
// current on its OS thread while it launches. It checks every result, the
// per-context __device__ counter, and that the library was loaded once,
// and prints the evidence as a line "ONE-LOAD: …".
func oneLibrary(b *backend, w io.Writer, note func(string)) error {
	ps, release, err := b.contexts(true)
	defer release()
	if err != nil {
		return err
	}
	if len(b.devs) < 2 {
		note("one device: its primary context and a created one; the launches on a second device are skipped")
	}
	before := make([]uint32, len(ps))
	for k, p := range ps {
		if before[k], err = kernels.Launches.Get(p.ctx); err != nil {
			return err
		}
	}
	type result struct {
		mix [rounds][]uint32
		y   []float32
	}
	results := make([][goroutinesPerContext]result, len(ps))
	errs := make([]error, len(ps)*goroutinesPerContext)
	var wg sync.WaitGroup
	for k := range ps {
		for g := range goroutinesPerContext {
			wg.Go(func() {
				err := launchRounds(ps, k, g, &results[k][g].mix, &results[k][g].y)
				if err != nil {
					errs[k*goroutinesPerContext+g] = fmt.Errorf("%v, goroutine %d: %w", ps[k], g, err)
				}
			})
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for k, p := range ps {
		var mix []uint32
		var ys []float32
		for g := range goroutinesPerContext {
			for r := range rounds {
				mix = append(mix, results[k][g].mix[r]...)
			}
			ys = append(ys, results[k][g].y...)
		}
		digest(w, "one-library/mix/"+p.name, mix)
		digest(w, "one-library/axpy/"+p.name, ys)
	}

	// The __device__ counter: one per context, each counting its own launches.
	addrs := map[rt.Ptr[uint32]]bool{}
	for k, p := range ps {
		n, err := kernels.Launches.Get(p.ctx)
		if err != nil {
			return err
		}
		if want := before[k] + goroutinesPerContext*rounds; n != want {
			return fmt.Errorf("%v: the launches counter is %d, want %d", p, n, want)
		}
		a, err := kernels.Launches.Ptr(p.ctx)
		if err != nil {
			return err
		}
		addrs[a] = true
	}
	if len(addrs) != len(ps) {
		return fmt.Errorf("%d contexts share %d addresses of the __device__ counter", len(ps), len(addrs))
	}

	// One load: counted at the backend, and the driver's own handles.
	loads := b.loads.Load()
	if loads != 1 {
		return fmt.Errorf("the library was loaded %d times in %s; want once for every context and device", loads, b.drv.Name())
	}
	lib, err := kernels.Library.Native(b.drv)
	if err != nil {
		return err
	}
	kern, err := kernels.MixKernel.Native(b.drv)
	if err != nil {
		return err
	}
	var fns []string
	distinct := map[uintptr]bool{}
	for _, p := range ps {
		f, err := kernels.MixKernel.Function(p.ctx)
		if err != nil {
			return err
		}
		fns = append(fns, fmt.Sprintf("%#x", f))
		distinct[f] = true
	}
	mode := "not reported by the backend"
	if lm, ok := b.drv.(rt.LoadingModer); ok {
		lazy, err := lm.LoadingMode()
		switch {
		case err != nil:
			mode = err.Error()
		case lazy:
			mode = "lazy (a context loads a kernel at its first use there)"
		default:
			mode = "eager"
		}
	}
	path := "context-independent"
	if lib == 0 {
		path = "legacy: a module per context"
	}
	fmt.Fprintf(w, "ONE-LOAD: %s: %d library load (%s) for %d contexts on %s, %d goroutines, %d launches; "+
		"library %#x and kernel mix %#x in every context; mix's function per context %s (%d distinct); "+
		"the __device__ counter at %d addresses, %d launches each; loading mode %s\n",
		b.drv.Name(), loads, path, len(ps), plural(len(b.devs), "device"), len(ps)*goroutinesPerContext, 2*len(ps)*goroutinesPerContext*rounds,
		lib, kern, strings.Join(fns, " "), len(distinct), len(addrs), goroutinesPerContext*rounds, mode)
	return nil
}

// launchRounds is one goroutine of oneLibrary: rounds of mix and axpy on a
// stream of its own in ps[k], results checked.
func launchRounds(ps []place, k, g int, mix *[rounds][]uint32, y *[]float32) error {
	p := ps[k]
	if g == 0 && len(ps) > 1 {
		// Another context current on this thread: a launch runs in its
		// stream's context whatever is current.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		other := ps[(k+1)%len(ps)].ctx
		if err := other.SetCurrent(); err != nil {
			return err
		}
		defer other.Driver().CtxSetCurrent(0)
	}
	s, err := p.ctx.NewStream()
	if err != nil {
		return err
	}
	defer s.Destroy()
	const n = oneN
	seed := uint32(1000*k + 100*g)
	x, y0 := floats(seed+77, n), floats(seed+78, n)
	out, err := rt.Alloc[uint32](p.ctx, n)
	if err != nil {
		return err
	}
	defer out.Free()
	xb, err := rt.AllocFrom(p.ctx, x)
	if err != nil {
		return err
	}
	defer xb.Free()
	yb, err := rt.AllocFrom(p.ctx, y0)
	if err != nil {
		return err
	}
	defer yb.Free()
	cfg := rt.Linear(n, 128).On(s)
	want := y0
	for r := range rounds {
		if err := kernels.Mix(cfg, out.Ptr, seed+uint32(r), n); err != nil {
			return err
		}
		got := make([]uint32, n)
		if err := out.CopyToAsync(s, got); err != nil {
			return err
		}
		if err := kernels.Axpy(cfg, yb.Ptr, xb.Const(), axpyA[r], n); err != nil {
			return err
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
		if err := same(fmt.Sprintf("round %d: mix", r), got, mixRef(seed+uint32(r), n)); err != nil {
			return err
		}
		mix[r] = got
		want = axpyRef(want, x, axpyA[r])
	}
	got, err := yb.ToHostAsync(s)
	if err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	*y = got
	return same("axpy", got, want)
}

const peerN = 3*4096 + 7

// peers checks peer access, peer copies (synchronous, and stream-ordered
// on either context's stream, after the other device's kernels through an
// event) and kernels that read and write the other device's memory,
// between device 0's and device 1's primary contexts; with one device,
// between its primary context and a created one (copies only).
func peers(b *backend, w io.Writer, note func(string)) error {
	two := len(b.devs) >= 2
	c0, err := b.devs[0].Primary()
	if err != nil {
		return err
	}
	defer c0.Release()
	var c1 *rt.Context
	if two {
		c1, err = b.devs[1].Primary()
	} else {
		note("one device: peer copies between two contexts of device 0; peer access and kernels reading another device's memory need two devices: skipped")
		c1, err = b.devs[0].NewContext(0)
	}
	if err != nil {
		return err
	}
	defer c1.Release()
	fr := &frees{}
	defer fr.free()
	s0, err := c0.NewStream()
	if err != nil {
		return err
	}
	defer s0.Destroy()
	s1, err := c1.NewStream()
	if err != nil {
		return err
	}
	defer s1.Destroy()
	ev1, err := c1.NewEvent(rt.EventDisableTiming)
	if err != nil {
		return err
	}
	defer ev1.Destroy()

	access := false
	if two {
		ok, err := enablePeers(b.devs[0], b.devs[1], c0, c1, w)
		if err != nil {
			return err
		}
		if ok {
			access = true
			defer c0.DisablePeerAccess(c1)
			defer c1.DisablePeerAccess(c0)
		} else {
			note("devices 0 and 1 cannot access each other's memory: peer copies go through the host, and the peer kernels are skipped")
		}
	}

	const n = peerN
	A, B := floats(11, n), floats(12, n)
	xa := alloc(fr, c0, A)
	xb := alloc(fr, c1, B)
	y0 := alloc(fr, c0, make([]float32, n))
	sums := alloc(fr, c0, make([]float32, (n+255)/256))
	z1 := alloc(fr, c1, make([]float32, n))
	if fr.err != nil {
		return fr.err
	}
	cfg := rt.Linear(n, 256)

	// Synchronous.
	if err := y0.CopyFromPeer(xb); err != nil {
		return err
	}
	got, err := y0.ToHost()
	if err != nil {
		return err
	}
	if err := same("CopyFromPeer", got, B); err != nil {
		return err
	}
	digest(w, "peer/sync", got)

	// On the destination's stream, after device 1's kernel: an event of
	// device 1 that device 0's stream waits for.
	const a1, a2 = 0.75, -1.5
	B1 := axpyRef(B, B, a1)
	err = errors.Join(
		kernels.Axpy(cfg.On(s1), xb.Ptr, xb.Const(), a1, n),
		ev1.Record(s1),
		s0.WaitEvent(ev1),
		y0.CopyFromPeerAsync(s0, xb),
		kernels.Axpy(cfg.On(s0), y0.Ptr, xa.Const(), a2, n))
	if err != nil {
		return err
	}
	if got, err = hostAsync(s0, y0); err != nil {
		return err
	}
	if err := same("CopyFromPeerAsync on the destination's stream", got, axpyRef(B1, A, a2)); err != nil {
		return err
	}
	digest(w, "peer/destination-stream", got)

	// On the source's stream: the copy runs in device 1's context, and
	// device 0's kernel waits for it through the event.
	B2 := axpyRef(B1, B1, a1)
	err = errors.Join(
		kernels.Axpy(cfg.On(s1), xb.Ptr, xb.Const(), a1, n),
		y0.CopyFromPeerAsync(s1, xb),
		ev1.Record(s1),
		s0.WaitEvent(ev1),
		kernels.BlockSum(rt.Config{Grid: rt.D1((n + 255) / 256), Block: rt.D1(256), Stream: s0}, sums.Ptr, y0.Const(), n))
	if err != nil {
		return err
	}
	if got, err = hostAsync(s0, sums); err != nil {
		return err
	}
	if err := same("blockSum of CopyFromPeerAsync on the source's stream", got, blockSumRef(B2)); err != nil {
		return err
	}
	digest(w, "peer/source-stream", got)

	// The other way, on the destination's NULL stream; the source's NULL
	// stream is refused (the copy would not be in its order).
	if err := z1.CopyFromPeerAsync(c0.NullStream(), xa); !errors.Is(err, rt.ErrInvalidValue) {
		return fmt.Errorf("CopyFromPeerAsync on the source's NULL stream: %v, want an ErrInvalidValue error", err)
	}
	if err := z1.CopyFromPeerAsync(nil, xa); err != nil { // nil: the destination's NULL stream
		return err
	}
	if got, err = hostAsync(c1.NullStream(), z1); err != nil {
		return err
	}
	if err := same("CopyFromPeerAsync on the destination's NULL stream", got, A); err != nil {
		return err
	}

	if !access {
		return nil
	}
	// Kernels on each device reading the other's memory, and one writing it.
	out0 := alloc(fr, c0, make([]float32, n))
	out1 := alloc(fr, c1, make([]float32, n))
	far1 := alloc(fr, c1, make([]float32, n))
	if fr.err != nil {
		return fr.err
	}
	err = errors.Join(
		kernels.PeerAdd(cfg.On(s0), out0.Ptr, xa.Const(), xb.Const(), n), // reads device 1
		kernels.PeerAdd(cfg.On(s1), out1.Ptr, xb.Const(), xa.Const(), n), // reads device 0
		kernels.PeerAdd(cfg.On(s0), far1.Ptr, xa.Const(), xa.Const(), n), // writes device 1
		s0.Synchronize(), s1.Synchronize())
	if err != nil {
		return err
	}
	for _, r := range []struct {
		name string
		buf  rt.Buffer[float32]
		want []float32
	}{
		{"peer/kernel-reads-device1", out0, addRef(A, B2)},
		{"peer/kernel-reads-device0", out1, addRef(B2, A)},
		{"peer/kernel-writes-device1", far1, addRef(A, A)},
	} {
		got, err := r.buf.ToHost()
		if err != nil {
			return err
		}
		if err := same(r.name, got, r.want); err != nil {
			return err
		}
		digest(w, r.name, got)
	}
	return nil
}

// enablePeers enables peer access both ways between c0 and c1 where the
// devices can, and checks that enabling it again fails as CUDA says.
func enablePeers(d0, d1 rt.Device, c0, c1 *rt.Context, w io.Writer) (bool, error) {
	can01, err := d0.CanAccessPeer(d1)
	if err != nil {
		return false, err
	}
	can10, err := d1.CanAccessPeer(d0)
	if err != nil {
		return false, err
	}
	rank, _ := d0.P2PAttribute(d1, rt.P2PPerformanceRank)
	atomics, _ := d0.P2PAttribute(d1, rt.P2PNativeAtomicSupported)
	fmt.Fprintf(w, "peer: device 0 can access 1: %v, 1 can access 0: %v (performance rank %d, native atomics %d)\n", can01, can10, rank, atomics)
	if !can01 || !can10 {
		return false, nil
	}
	for _, pr := range [][2]*rt.Context{{c0, c1}, {c1, c0}} {
		if err := pr[0].EnablePeerAccess(pr[1]); err != nil && !errors.Is(err, rt.ErrPeerAccessAlreadyEnabled) {
			return false, err
		}
		if err := pr[0].EnablePeerAccess(pr[1]); !errors.Is(err, rt.ErrPeerAccessAlreadyEnabled) {
			return false, fmt.Errorf("enabling peer access twice: %v, want ErrPeerAccessAlreadyEnabled", err)
		}
	}
	return true, nil
}

// graphs captures mix, axpy and blockSum into a graph on each device's
// stream (with one device, on its primary context's and a created one's),
// instantiates each, and launches them: twice from one goroutine, the
// devices interleaved, then once more from a goroutine per device at once.
func graphs(b *backend, w io.Writer, note func(string)) error {
	ps, release, err := b.contexts(len(b.devs) < 2)
	defer release()
	if err != nil {
		return err
	}
	if len(b.devs) < 2 {
		note("one device: a graph in each of two contexts of device 0 stands in for a graph per device")
	}
	fr := &frees{}
	defer fr.free()
	const n = oneN
	blocks := (n + 255) / 256
	type dev struct {
		s    *rt.Stream
		x    *rt.GraphExec
		u    rt.Buffer[uint32]
		y    rt.Buffer[float32]
		sums rt.Buffer[float32]
	}
	ds := make([]dev, len(ps))
	for k, p := range ps {
		s, err := p.ctx.NewStream()
		if err != nil {
			return err
		}
		defer s.Destroy()
		d := &ds[k]
		d.s = s
		d.u = alloc(fr, p.ctx, make([]uint32, n))
		xb := alloc(fr, p.ctx, floats(uint32(200+k), n))
		d.y = alloc(fr, p.ctx, floats(uint32(300+k), n))
		d.sums = alloc(fr, p.ctx, make([]float32, blocks))
		if fr.err != nil {
			return fr.err
		}
		seed, a := uint32(400+k), axpyA[k%rounds]
		g, err := s.Capture(func(s *rt.Stream) error {
			cfg := rt.Linear(n, 256).On(s)
			return errors.Join(
				kernels.Mix(cfg, d.u.Ptr, seed, n),
				kernels.Axpy(cfg, d.y.Ptr, xb.Const(), a, n),
				kernels.BlockSum(rt.Config{Grid: rt.D1(blocks), Block: rt.D1(256), Stream: s}, d.sums.Ptr, d.y.Const(), n))
		})
		if err != nil {
			return fmt.Errorf("%v: capture: %w", p, err)
		}
		d.x, err = g.Instantiate()
		g.Destroy()
		if err != nil {
			return fmt.Errorf("%v: instantiate: %w", p, err)
		}
		defer d.x.Destroy()
	}
	for range 2 {
		for k := range ds {
			if err := ds[k].x.Launch(ds[k].s); err != nil {
				return fmt.Errorf("%v: launch: %w", ps[k], err)
			}
		}
	}
	errs := make([]error, len(ds))
	var wg sync.WaitGroup
	for k := range ds {
		wg.Go(func() { errs[k] = errors.Join(ds[k].x.Launch(ds[k].s), ds[k].s.Synchronize()) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for k, p := range ps {
		d := ds[k]
		x := floats(uint32(200+k), n)
		y := floats(uint32(300+k), n)
		for range 3 {
			y = axpyRef(y, x, axpyA[k%rounds])
		}
		u, err := d.u.ToHost()
		if err != nil {
			return err
		}
		gy, err := d.y.ToHost()
		if err != nil {
			return err
		}
		sums, err := d.sums.ToHost()
		if err != nil {
			return err
		}
		err = errors.Join(
			same(p.name+": graph's mix", u, mixRef(uint32(400+k), n)),
			same(p.name+": graph's axpy, 3 launches", gy, y),
			same(p.name+": graph's blockSum", sums, blockSumRef(y)))
		if err != nil {
			return err
		}
		digest(w, "graph/mix/"+p.name, u)
		digest(w, "graph/axpy-blocksum/"+p.name, gy, sums)
	}
	return nil
}

// peerCopy is a large copy from device 1 (or, with one device, a second
// context of device 0) to device 0, with peer access on where the devices
// have it, for measuring bandwidth.
type peerCopy struct {
	dst, src rt.Buffer[byte]
	s        *rt.Stream
	what     string
	close    func()
}

func newPeerCopy(b *backend, bytes int) (*peerCopy, error) {
	c0, err := b.devs[0].Primary()
	if err != nil {
		return nil, err
	}
	fr := &frees{}
	pc := &peerCopy{}
	var c1 *rt.Context
	pc.close = func() {
		fr.free()
		if pc.s != nil {
			pc.s.Destroy()
		}
		if c1 != nil {
			c1.Release()
		}
		c0.Release()
	}
	from, access := "device 1", "peer access off"
	if len(b.devs) >= 2 {
		c1, err = b.devs[1].Primary()
		if err == nil {
			var ok bool
			if ok, err = enablePeers(b.devs[0], b.devs[1], c0, c1, io.Discard); ok {
				access = "peer access on"
			}
		}
	} else {
		from, access = "a second context of device 0", "one device"
		c1, err = b.devs[0].NewContext(0)
	}
	if err != nil {
		pc.close()
		return nil, err
	}
	src := make([]byte, bytes)
	for i := range src {
		src[i] = byte(i*7 + i>>12)
	}
	pc.src = alloc(fr, c1, src)
	pc.dst = alloc(fr, c0, make([]byte, bytes))
	if fr.err != nil {
		pc.close()
		return nil, fr.err
	}
	if pc.s, err = c0.NewStream(); err != nil {
		pc.close()
		return nil, err
	}
	pc.what = fmt.Sprintf("%s, %s to device 0, %s, rt.Buffer.CopyFromPeerAsync", b.drv.Name(), from, access)
	return pc, nil
}

// copies queues n copies on the destination's stream and waits for them.
func (pc *peerCopy) copies(n int) error {
	for range n {
		if err := pc.dst.CopyFromPeerAsync(pc.s, pc.src); err != nil {
			return err
		}
	}
	return pc.s.Synchronize()
}

// check compares the destination with the source at a spread of offsets.
func (pc *peerCopy) check() error {
	got, err := pc.dst.ToHost()
	if err != nil {
		return err
	}
	for i := 0; i < len(got); i += 4093 {
		if want := byte(i*7 + i>>12); got[i] != want {
			return fmt.Errorf("peer copy: byte %d is %d, want %d", i, got[i], want)
		}
	}
	return nil
}

// line is the "PEER-BW: …" line for n copies in d.
func (pc *peerCopy) line(n int, d time.Duration) string {
	return fmt.Sprintf("PEER-BW: bytes %d GB/s %.2f (%s, %d copies in %v)",
		pc.dst.Len, float64(pc.dst.Len)*float64(n)/d.Seconds()/1e9, pc.what, n, d.Round(time.Microsecond))
}

// peerBandwidth times n copies of the given size after three untimed ones.
func peerBandwidth(b *backend, bytes, n int) (string, error) {
	pc, err := newPeerCopy(b, bytes)
	if err != nil {
		return "", err
	}
	defer pc.close()
	if err := pc.copies(3); err != nil {
		return "", err
	}
	t0 := time.Now()
	if err := pc.copies(n); err != nil {
		return "", err
	}
	d := time.Since(t0)
	return pc.line(n, d), pc.check()
}

// frees collects buffers to free and the first allocation error.
type frees struct {
	fs  []func() error
	err error
}

func (f *frees) free() {
	for _, fn := range slices.Backward(f.fs) {
		fn()
	}
	f.fs = nil
}

// alloc allocates a copy of host in ctx, to be freed with f; after an
// error it returns a zero buffer and f.err says what failed.
func alloc[T any](f *frees, ctx *rt.Context, host []T) rt.Buffer[T] {
	if f.err != nil {
		return rt.Buffer[T]{}
	}
	b, err := rt.AllocFrom(ctx, host)
	if err != nil {
		f.err = err
		return b
	}
	f.fs = append(f.fs, b.Free)
	return b
}

// hostAsync copies b to the host in s's order and waits for s.
func hostAsync[T any](s *rt.Stream, b rt.Buffer[T]) ([]T, error) {
	got, err := b.ToHostAsync(s)
	if err != nil {
		return nil, err
	}
	return got, s.Synchronize()
}
