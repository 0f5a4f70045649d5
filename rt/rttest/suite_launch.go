package rttest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cugen/cugen/rt"
)

func (s *suite) launch(t *testing.T) {
	const n = 1000
	t.Run("streams and NULL streams", func(t *testing.T) {
		for _, ctx := range []*rt.Context{s.a, s.b} {
			st, err := ctx.NewStream()
			must(t, err)
			v := newVecAdd(t, ctx, n)
			for i := 0; i < 2; i++ { // the first launch in a driver binds, the second takes the fast path
				must(t, v.run(s, rt.Linear(n, 128).On(st)))
				must(t, st.Synchronize())
				v.check(t, fmt.Sprintf("vecAdd on a stream of %v, launch %d", ctx, i+1))
			}
			must(t, v.run(s, rt.Linear(n, 128).On(ctx.NullStream())))
			v.check(t, fmt.Sprintf("vecAdd on the NULL stream of %v", ctx))
			must(t, st.Destroy())
		}
	})

	// A launch that names its stream runs in the stream's context, whatever
	// is current on the calling thread, and leaves the current context alone.
	t.Run("a stream names its context", func(t *testing.T) {
		h, err := s.vecAdd.Handle(s.d)
		must(t, err)
		st, err := s.b.NewStream()
		must(t, err)
		defer st.Destroy()
		v := newVecAdd(t, s.b, n)
		onThread(t, s.d, s.a, func() {
			if err := s.d.Launch(h, raw(rt.LaunchArgs{Stream: st.Handle(), Grid: rt.D1((n + 127) / 128), Block: rt.D1(128)}, v.args())); err != nil {
				t.Errorf("launch on B's stream with A current: %v", err)
			}
			if err := s.d.StreamSynchronize(0, st.Handle()); err != nil {
				t.Errorf("StreamSynchronize(0, B's stream): %v", err)
			}
			if cur, _ := s.d.CtxGetCurrent(); cur != s.a.Handle() {
				t.Errorf("the launch changed the current context from A %#x to %#x", s.a.Handle(), cur)
			}
		})
		v.check(t, "vecAdd on B's stream while A is current")
	})

	// rt normalizes shapes: a zero component counts as 1, and backends run
	// what they are given.
	t.Run("zero components count as 1", func(t *testing.T) {
		v := newVecAdd(t, s.a, n)
		must(t, v.run(s, rt.Config{Grid: rt.Dim3{X: (n + 255) / 256}, Block: rt.Dim3{X: 256}, Stream: s.a.NullStream()}))
		v.check(t, "vecAdd with Y and Z left 0")
	})

	t.Run("mixed parameter layout", func(t *testing.T) {
		out, err := rt.Alloc[uint32](s.a, 5)
		must(t, err)
		defer out.Free()
		// mixed(u8 a, struct {u32 x; u64 y; u32 z} s, u32* out), as
		// generated code packs it: a at 0, s at 8, out at 32.
		var p [40]byte
		p[0] = 7
		le.PutUint32(p[8:], 11)
		le.PutUint64(p[16:], 0x0000_0016_0000_0021)
		le.PutUint32(p[24:], 44)
		le.PutUint64(p[32:], uint64(out.Ptr))
		must(t, s.mixed.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: s.a.NullStream()}, p[:]))
		got, err := out.ToHost()
		must(t, err)
		if fmt.Sprint(got) != "[7 11 33 22 44]" {
			t.Errorf("mixed stored %v, want [7 11 33 22 44]", got)
		}
	})

	t.Run("dynamic shared memory", func(t *testing.T) {
		const block, blocks = 128, 8
		in, err := rt.AllocFrom(s.a, iota32(block*blocks))
		must(t, err)
		defer in.Free()
		out, err := rt.Alloc[float32](s.a, block*blocks)
		must(t, err)
		defer out.Free()
		var p [16]byte
		le.PutUint64(p[0:], uint64(out.Ptr))
		le.PutUint64(p[8:], uint64(in.Ptr))
		must(t, s.reverse.Launch(rt.Config{Grid: rt.D1(blocks), Block: rt.D1(block), SharedMem: 4 * block, Stream: s.a.NullStream()}, p[:]))
		got, err := out.ToHost()
		must(t, err)
		for i, v := range got {
			if want := float32(i/block*block + block - 1 - i%block); v != want {
				t.Fatalf("reverse: out[%d] = %v, want %v", i, v, want)
			}
		}
	})

	t.Run("parameter buffer of the wrong size", func(t *testing.T) {
		v := newVecAdd(t, s.a, n)
		args := v.args()
		err := s.vecAdd.Launch(rt.Linear(n, 128).On(s.a.NullStream()), args[:20])
		wantCode(t, "rt.Kernel.Launch with 20 of vecAdd's 28 parameter bytes", err, rt.ErrInvalidValue)
		got, err := v.c.ToHost()
		must(t, err)
		if got[1] != 0 {
			t.Errorf("the refused launch ran: c[1] = %v", got[1])
		}
	})

	t.Run("priority", func(t *testing.T) {
		st, err := s.a.NewStream()
		must(t, err)
		defer st.Destroy()
		v := newVecAdd(t, s.a, n)
		cfg := rt.Linear(n, 128).On(st)
		cfg.Priority = -1
		must(t, v.run(s, cfg))
		must(t, st.Synchronize())
		v.check(t, "vecAdd with launch priority -1")
	})

	t.Run("concurrent streams", func(t *testing.T) {
		type job struct {
			st *rt.Stream
			v  *vecAddIn
		}
		var jobs []job
		for g := 0; g < 4; g++ {
			ctx := []*rt.Context{s.a, s.b}[g%2]
			st, err := ctx.NewStream()
			must(t, err)
			defer st.Destroy()
			jobs = append(jobs, job{st, newVecAdd(t, ctx, 1<<14)})
		}
		var wg sync.WaitGroup
		for _, j := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 16; i++ {
					if err := j.v.run(s, rt.Linear(1<<14, 256).On(j.st)); err != nil {
						t.Error(err)
						return
					}
				}
				if err := j.st.Synchronize(); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		for _, j := range jobs {
			j.v.check(t, "vecAdd from 4 goroutines at once")
		}
	})
}

// paramLayouts: a driver that reports parameter layouts reports the PTX's
// here, and rt refuses a kernel declared with another before it launches.
func (s *suite) paramLayouts(t *testing.T) {
	pi, ok := s.d.(rt.ParamInfoer)
	if !ok {
		t.Skipf("%s does not report parameter layouts (rt.ParamInfoer)", s.d.Name())
	}
	for _, k := range []*rt.Kernel{s.vecAdd, s.mixed, s.empty, s.scaleBy} {
		h, err := k.Handle(s.d)
		must(t, err)
		got, err := pi.KernelParamInfo(h)
		if rt.CodeOf(err) == rt.ErrNotSupported {
			t.Skipf("%s cannot report parameter layouts: %v", s.d.Name(), err)
		}
		must(t, err)
		if !slices.Equal(got, k.Params()) {
			t.Errorf("%s: parameter layout %v, want %v", k.Name(), got, k.Params())
		}
	}
	// What an outdated generated package would declare.
	stale := rt.NewLibrary("suite.ptx", suitePTX)
	k := stale.Kernel("vecAdd", rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 4})
	defer stale.Unload(s.d)
	v := newVecAdd(t, s.a, 32)
	err := k.Launch(rt.Linear(32, 32).On(s.a.NullStream()), v.args()[:12])
	t.Logf("stale layout: %v", err)
	wantCode(t, "a launch with a stale parameter layout", err, rt.ErrInvalidValue)
	if err == nil || !strings.Contains(err.Error(), "regenerate") {
		t.Errorf("the error does not say to regenerate: %v", err)
	}
	if _, err := k.Handle(s.d); err == nil {
		t.Error("Handle of a kernel with a stale layout succeeded")
	}
	if got, _ := v.c.ToHost(); got[1] != 0 {
		t.Errorf("the kernel with a stale layout ran: c[1] = %v", got[1])
	}
}

// cooperative: every block of a cooperative launch is resident at once, so
// a grid-wide handshake completes; a grid that cannot be is refused.
func (s *suite) cooperative(t *testing.T) {
	const blocks, threads = 8, 32
	arrived, err := rt.Alloc[uint32](s.a, 1)
	must(t, err)
	defer arrived.Free()
	must(t, arrived.Zero())
	out, err := rt.Alloc[uint32](s.a, blocks)
	must(t, err)
	defer out.Free()
	var p [16]byte
	le.PutUint64(p[0:], uint64(arrived.Ptr))
	le.PutUint64(p[8:], uint64(out.Ptr))
	cfg := rt.Config{Grid: rt.D1(blocks), Block: rt.D1(threads), Cooperative: true, Stream: s.a.NullStream()}
	must(t, s.gridSync.Launch(cfg, p[:]))
	must(t, s.a.Synchronize())
	got, err := out.ToHost()
	must(t, err)
	for b, v := range got {
		if v != blocks*threads {
			t.Errorf("block %d saw %d arrivals, want %d", b, v, blocks*threads)
		}
	}
	cfg.Grid = rt.D1(100000)
	wantCode(t, "a cooperative launch of 100000 blocks", s.gridSync.Launch(cfg, p[:]), rt.ErrCooperativeLaunchTooLarge)
}

// sm90 is device 0's compute capability major, or a skip below 9.
func (s *suite) needSM90(t *testing.T) {
	major, _, err := s.devs[0].ComputeCapability()
	must(t, err)
	if major < 9 {
		t.Skipf("needs sm_90; device 0 is sm_%d", major)
	}
}

// cluster: a launch with a cluster shape runs every block, each in a
// consistent place of its cluster.
func (s *suite) cluster(t *testing.T) {
	s.needSM90(t)
	const blocks = 8
	out, err := rt.Alloc[uint32](s.a, 3*blocks)
	must(t, err)
	defer out.Free()
	var p [8]byte
	le.PutUint64(p[0:], uint64(out.Ptr))
	cfg := rt.Config{Grid: rt.D1(blocks), Block: rt.D1(32), Cluster: rt.Dim3{X: 2}, Stream: s.a.NullStream()}
	must(t, s.clusterInfo.Launch(cfg, p[:]))
	must(t, s.a.Synchronize())
	got, err := out.ToHost()
	must(t, err)
	size := got[1]
	t.Logf("cluster launch of %d blocks with cluster 2x1x1: the kernel sees clusters of %d", blocks, size)
	for b := 0; b < blocks; b++ {
		rank, n, id := got[3*b], got[3*b+1], got[3*b+2]
		if n != size || (n != 1 && n != 2) || rank >= n || id*n+rank != uint32(b) {
			t.Errorf("block %d: rank %d of %d in cluster %d; want rank %d of 2 in cluster %d", b, rank, n, id, b%2, b/2)
		}
	}
}

// programmatic: a consumer launched with ProgrammaticSerialization may
// start before its producer ends, and waits (griddepcontrol.wait) for its
// stores: every pair still agrees. Every other producer has a priority.
func (s *suite) programmatic(t *testing.T) {
	s.needSM90(t)
	st, err := s.a.NewStream()
	must(t, err)
	defer st.Destroy()
	cell, err := rt.Alloc[uint32](s.a, 1)
	must(t, err)
	defer cell.Free()
	const pairs = 64
	out, err := rt.Alloc[uint32](s.a, pairs)
	must(t, err)
	defer out.Free()
	cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: st}
	pdl, urgent := cfg, cfg
	pdl.ProgrammaticSerialization = true
	urgent.Priority = -1
	for i := 0; i < pairs; i++ {
		var pp [12]byte
		le.PutUint64(pp[0:], uint64(cell.Ptr))
		le.PutUint32(pp[8:], uint32(i*7))
		pcfg := cfg
		if i%2 == 1 {
			pcfg = urgent
		}
		must(t, s.pdlProducer.Launch(pcfg, pp[:]))
		var cp [20]byte
		le.PutUint64(cp[0:], uint64(cell.Ptr))
		le.PutUint64(cp[8:], uint64(out.Ptr))
		le.PutUint32(cp[16:], uint32(i))
		must(t, s.pdlConsumer.Launch(pdl, cp[:]))
	}
	must(t, st.Synchronize())
	got, err := out.ToHost()
	must(t, err)
	for i, v := range got {
		if v != uint32(i*7+1) {
			t.Fatalf("pair %d: the consumer read %d, want %d", i, v-1, i*7)
		}
	}
}
