package soft

import (
	"encoding/binary"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

// Stream hazards under racecheck (streamrace.go): work on two streams that
// touches the same bytes, one writing, with nothing ordering them, is
// reported naming both; ordered work is not.
func TestStreamHazards(t *testing.T) {
	const n = 1024
	type env struct {
		d        *Driver
		ctx      *rt.Context
		x, y     rt.Buffer[float32]
		nb1, nb2 *rt.Stream // non-blocking
		b1, b2   *rt.Stream // blocking
	}
	setup := func(t *testing.T, mode RaceMode) *env {
		d := New(Options{RaceCheck: mode, Stdout: discard{}})
		devs, err := rt.DevicesOf(d)
		mustT(t, err)
		e := &env{d: d}
		e.ctx, err = devs[0].Primary()
		mustT(t, err)
		e.x, err = rt.AllocFrom(e.ctx, make([]float32, n))
		mustT(t, err)
		e.y, err = rt.Alloc[float32](e.ctx, n)
		mustT(t, err)
		for _, p := range []**rt.Stream{&e.nb1, &e.nb2} {
			*p, err = e.ctx.NewStream()
			mustT(t, err)
		}
		for _, p := range []**rt.Stream{&e.b1, &e.b2} {
			*p, err = e.ctx.NewStreamWith(0, 0)
			mustT(t, err)
		}
		return e
	}
	// axpy writes y, reads x.
	axpy := func(e *env, s *rt.Stream) error {
		var p [32]byte
		binary.LittleEndian.PutUint64(p[0:], uint64(e.x.Ptr))
		binary.LittleEndian.PutUint64(p[8:], uint64(e.y.Ptr))
		binary.LittleEndian.PutUint32(p[16:], n)
		cfg := rt.Linear(n, 256)
		cfg.Stream = s
		return soakAxpy.Launch(cfg, p[:])
	}
	// half runs axpy in place on the n/2 elements of y from off.
	half := func(e *env, s *rt.Stream, off int) error {
		var p [32]byte
		binary.LittleEndian.PutUint64(p[0:], uint64(e.y.Ptr.Add(off)))
		binary.LittleEndian.PutUint64(p[8:], uint64(e.y.Ptr.Add(off)))
		binary.LittleEndian.PutUint32(p[16:], n/2)
		cfg := rt.Linear(n/2, 256)
		cfg.Stream = s
		return soakAxpy.Launch(cfg, p[:])
	}
	host := make([]float32, n)
	type step func(e *env) error
	cases := []struct {
		name  string
		steps []step
		want  []string // patterns of the last step's error; nil: no error
	}{
		{"kernel on s1, async copy of its output on s2", []step{
			func(e *env) error { return axpy(e, e.nb1) },
			func(e *env) error { return e.y.CopyToAsync(e.nb2, host) },
		}, []string{`stream hazard \(racecheck\): cuMemcpyDtoHAsync on non-blocking stream 0x[0-9a-f]+ of context 0x[0-9a-f]+ reads \[0x[0-9a-f]+, 0x[0-9a-f]+\) of the 4096-byte allocation`,
			`and kernel axpy on non-blocking stream 0x[0-9a-f]+ of context 0x[0-9a-f]+ may write where a pointer parameter points \(0x[0-9a-f]+\), with nothing ordering the two`}},
		{"ordered by an event", []step{
			func(e *env) error { return axpy(e, e.nb1) },
			func(e *env) error {
				ev, err := e.ctx.NewEvent(0)
				mustT(t, err)
				mustT(t, ev.Record(e.nb1))
				return e.nb2.WaitEvent(ev)
			},
			func(e *env) error { return e.y.CopyToAsync(e.nb2, host) },
		}, nil},
		{"ordered by synchronizing s1", []step{
			func(e *env) error { return axpy(e, e.nb1) },
			func(e *env) error { return e.nb1.Synchronize() },
			func(e *env) error { return e.y.CopyToAsync(e.nb2, host) },
		}, nil},
		{"ordered by the context's synchronization", []step{
			func(e *env) error { return axpy(e, e.nb1) },
			func(e *env) error { return e.ctx.Synchronize() },
			func(e *env) error { return axpy(e, e.nb2) },
		}, nil},
		{"one stream", []step{
			func(e *env) error { return axpy(e, e.nb1) },
			func(e *env) error { return e.y.CopyToAsync(e.nb1, host) },
		}, nil},
		{"two kernels writing one buffer", []step{
			func(e *env) error { return axpy(e, e.nb1) },
			func(e *env) error { return axpy(e, e.nb2) },
		}, []string{`kernel axpy on non-blocking stream .* may write where a pointer parameter points.*and kernel axpy on non-blocking stream .* may write`}},
		{"kernels on two streams, each on half of one buffer", []step{
			func(e *env) error { return half(e, e.nb1, 0) },
			func(e *env) error { return half(e, e.nb2, n/2) },
		}, nil},
		{"reads on two streams", []step{
			func(e *env) error { return e.x.CopyToAsync(e.nb1, host) },
			func(e *env) error { return e.x.CopyToAsync(e.nb2, make([]float32, n)) },
		}, nil},
		{"kernel on a non-blocking stream, async copy on the NULL stream", []step{
			func(e *env) error { return axpy(e, e.nb1) },
			func(e *env) error { return e.y.CopyFromAsync(e.ctx.NullStream(), host) },
		}, []string{`cuMemcpyHtoDAsync on the NULL stream of context .* may write .*and kernel axpy on non-blocking stream`}},
		{"kernel on a blocking stream, async copy on the NULL stream (legacy order)", []step{
			func(e *env) error { return axpy(e, e.b1) },
			func(e *env) error { return e.y.CopyFromAsync(e.ctx.NullStream(), host) },
		}, nil},
		{"NULL stream, then a blocking stream (legacy order)", []step{
			func(e *env) error { return e.y.CopyFromAsync(e.ctx.NullStream(), host) },
			func(e *env) error { return axpy(e, e.b2) },
		}, nil},
		{"two blocking streams", []step{
			func(e *env) error { return axpy(e, e.b1) },
			func(e *env) error { return e.y.CopyToAsync(e.b2, host) },
		}, []string{`on blocking stream .* reads .*and kernel axpy on blocking stream .* may write`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := setup(t, RaceOn)
			var err error
			for i, st := range c.steps {
				if err = st(e); err != nil && i < len(c.steps)-1 {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			if c.want == nil {
				if err != nil {
					t.Fatalf("ordered work reported: %v", err)
				}
				mustT(t, e.ctx.Synchronize())
				return
			}
			softtest.WantErr(t, err, rt.ErrIllegalState, c.want...)
			// Not sticky: the context works on.
			mustT(t, e.ctx.Synchronize())
			mustT(t, axpy(e, e.nb1))
			mustT(t, e.ctx.Synchronize())
		})
	}
	t.Run("off without racecheck", func(t *testing.T) {
		e := setup(t, RaceOff)
		mustT(t, axpy(e, e.nb1))
		mustT(t, e.y.CopyToAsync(e.nb2, host))
		mustT(t, e.ctx.Synchronize())
	})
}

// TestSyncCopyRacesKernelOfAnotherContext: a synchronous copy waits for its
// own context's blocking streams, not another context's: under racecheck,
// one that touches what a kernel on another context's stream writes is
// reported (hazard.go's check covers non-blocking streams only).
func TestSyncCopyRacesKernelOfAnotherContext(t *testing.T) {
	d := New(Options{Devices: 2, RaceCheck: RaceOn, Stdout: discard{}})
	devs, err := rt.DevicesOf(d)
	mustT(t, err)
	a, err := devs[0].Primary()
	mustT(t, err)
	b, err := devs[1].Primary()
	mustT(t, err)
	mustT(t, b.EnablePeerAccess(a))
	y, err := rt.Alloc[float32](a, 256)
	mustT(t, err)
	sb, err := b.NewStreamWith(0, 0) // blocking, in b
	mustT(t, err)
	var p [32]byte
	binary.LittleEndian.PutUint64(p[0:], uint64(y.Ptr))
	binary.LittleEndian.PutUint64(p[8:], uint64(y.Ptr))
	binary.LittleEndian.PutUint32(p[16:], 256)
	cfg := rt.Linear(256, 256)
	cfg.Stream = sb
	mustT(t, soakAxpy.Launch(cfg, p[:]))
	err = y.CopyFrom(make([]float32, 256))
	softtest.WantErr(t, err, rt.ErrIllegalState, `cuMemcpyHtoD on the NULL stream of context .* may write .*and kernel axpy on blocking stream .* of context`)
	mustT(t, b.Synchronize())
	// Once b's work is synchronized with, the copy is ordered after it.
	mustT(t, y.CopyFrom(make([]float32, 256)))
}
