//go:build cgo

package nccl_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/cgo"
	"github.com/cugen/cugen/rt/nccl"
	"github.com/cugen/cugen/rt/nccl/internal/devtest"
)

// These tests need a GPU, libcuda.so.1 and libnccl.so.2; without them
// every test skips and says why. Build them here and run them on a GPU
// machine (rt/nccl/testdata/gpu.sh does, and prints a table):
//
//	go test -c -o .gpu/nccl.test ./rt/nccl && ./.gpu/nccl.test -test.v -test.run GPU
//
// On one GPU they run every operation on one-rank communicators, inside
// and outside graphs, and the error paths; with two or more, the
// multi-device and multi-process tests run too (testdata/two-gpu.sh).

// gpuDevices is the GPU backend's devices, or skips.
func gpuDevices(t testing.TB) []rt.Device {
	t.Helper()
	d, err := cgo.New()
	if err != nil {
		t.Skipf("skipped: no GPU: %v", err)
	}
	devs, err := rt.DevicesOf(d)
	if err != nil {
		t.Skipf("skipped: no GPU: %v", err)
	}
	return devs
}

// gpuRanks is a communicator over the first n GPUs (InitAll), or skips
// when there are fewer or NCCL is missing.
func gpuRanks(t testing.TB, n int) *ranks {
	t.Helper()
	devs := gpuDevices(t)
	if len(devs) < n {
		t.Skipf("skipped: needs %d GPUs, has %d", n, len(devs))
	}
	r := &ranks{}
	for _, dv := range devs[:n] {
		c, err := dv.Primary()
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		r.ctxs, r.ss = append(r.ctxs, c), append(r.ss, s)
	}
	var err error
	r.comms, err = nccl.InitAll(r.ctxs, nil)
	if err != nil && strings.Contains(err.Error(), "no usable libnccl.so.2") {
		t.Skipf("skipped: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := nccl.DestroyAll(r.comms...); err != nil {
			t.Error(err)
		}
		for _, s := range r.ss {
			s.Destroy()
		}
	})
	return r
}

// oneRank checks every operation on a one-rank communicator, where each
// result is NCCL's one-rank rule: the input, copied (a pre-multiplied sum
// multiplies it). With graph set the operations are captured and the
// graph is launched twice with new inputs.
func oneRank(t *testing.T, c *nccl.Comm, ctx *rt.Context, s *rt.Stream, graph bool) {
	in := func(v ...float32) rt.Buffer[float32] {
		b, err := rt.AllocFrom(ctx, v)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Free() })
		return b
	}
	const n = 6
	src := in(make([]float32, n)...)
	type result struct {
		name string
		buf  rt.Buffer[float32]
		want func(x []float32) []float32
	}
	var results []result
	byName := map[string]rt.Buffer[float32]{}
	// out is the named result buffer, made at the first (uncaptured) run.
	out := func(name string, want func(x []float32) []float32) rt.Buffer[float32] {
		if b, ok := byName[name]; ok {
			return b
		}
		b := in(make([]float32, n)...)
		byName[name] = b
		results = append(results, result{name, b, want})
		return b
	}
	same := func(x []float32) []float32 { return x }
	pre, err := nccl.NewPreMulSum(c, float32(3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.DestroyOp(pre)
	ops := func(s *rt.Stream) error {
		var errs []error
		for _, op := range []nccl.RedOp{nccl.Sum, nccl.Prod, nccl.Max, nccl.Min, nccl.Avg} {
			errs = append(errs, nccl.AllReduce(c, src, out("AllReduce "+op.String(), same), op, s))
		}
		errs = append(errs,
			nccl.AllReduce(c, src, out("AllReduce premulsum", func(x []float32) []float32 {
				y := slices.Clone(x)
				for i := range y {
					y[i] *= 3
				}
				return y
			}), pre, s),
			nccl.Broadcast(c, src, out("Broadcast", same), 0, s),
			nccl.Reduce(c, src, out("Reduce", same), nccl.Max, 0, s),
			nccl.AllGather(c, src, out("AllGather", same), s),
			nccl.ReduceScatter(c, src, out("ReduceScatter", same), nccl.Sum, s),
			nccl.AllReducePtr(c, src.Ptr, out("AllReducePtr", same).Ptr, n, nccl.Sum, s),
			nccl.AllToAll(c, src, out("AllToAll", same), s),
		)
		// An in-place operation on a copy: the copy, unchanged.
		cp := out("AllReduceInPlace", same)
		errs = append(errs, cp.CopyFromBufferAsync(s, src), nccl.AllReduceInPlace(c, cp, nccl.Sum, s))
		bc := out("BroadcastInPlace", same)
		errs = append(errs, bc.CopyFromBufferAsync(s, src), nccl.BroadcastInPlace(c, bc, 0, s))
		// Send to oneself, with the matching Recv, in a group.
		recv := out("Send/Recv", same)
		errs = append(errs, nccl.Group(func() error {
			return errors.Join(nccl.Send(c, src, 0, s), nccl.Recv(c, recv, 0, s))
		}))
		return errors.Join(errs...)
	}
	launch := ops
	if graph {
		if err := ops(s); err != nil { // makes the buffers: no allocation may be captured
			t.Fatal(err)
		}
		g, err := s.Capture(ops)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Destroy()
		x, err := g.Instantiate()
		if err != nil {
			t.Fatal(err)
		}
		defer x.Destroy()
		launch = x.Launch
	}
	for round := range 2 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(round*100 + i - 2)
		}
		if err := src.CopyFromAsync(s, x); err != nil {
			t.Fatal(err)
		}
		if err := launch(s); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		if err := c.AsyncError(); err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			if got := host(t, r.buf); !slices.Equal(got, r.want(x)) {
				t.Errorf("round %d, %s: %v, want %v", round, r.name, got, r.want(x))
			}
		}
	}
}

func TestGPUOneRank(t *testing.T) {
	r := gpuRanks(t, 1)
	c, ctx, s := r.comms[0], r.ctxs[0], r.ss[0]
	t.Logf("%v", c)
	t.Run("InitAll", func(t *testing.T) { oneRank(t, c, ctx, s, false) })
	t.Run("InitAllGraph", func(t *testing.T) { oneRank(t, c, ctx, s, true) })
	// One process per GPU: a UniqueID and InitRank.
	id, err := nccl.NewUniqueID(ctx.Driver())
	if err != nil {
		t.Fatal(err)
	}
	c2, err := nccl.InitRank(t.Context(), ctx, id, 0, 1, &nccl.Options{CommName: "cugen-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Destroy()
	t.Run("InitRank", func(t *testing.T) { oneRank(t, c2, ctx, s, false) })
	t.Run("InitRankGraph", func(t *testing.T) { oneRank(t, c2, ctx, s, true) })
	// A nonblocking communicator: every call waits out ncclInProgress.
	c3, err := nccl.InitRank(t.Context(), ctx, mustID(t, ctx), 0, 1, &nccl.Options{NonBlocking: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Destroy()
	t.Run("NonBlocking", func(t *testing.T) { oneRank(t, c3, ctx, s, false) })
	// Split: color 0 gives a one-rank communicator, NoColor none.
	sub, err := c.Split(0, 0, nil)
	if err != nil || sub == nil || sub.Rank() != 0 || sub.Size() != 1 {
		t.Fatalf("Split: %v, %v", sub, err)
	}
	t.Run("Split", func(t *testing.T) { oneRank(t, sub, ctx, s, false) })
	if err := sub.Destroy(); err != nil {
		t.Error(err)
	}
	if none, err := c.Split(nccl.NoColor, 0, nil); none != nil || err != nil {
		t.Errorf("Split(NoColor): %v, %v", none, err)
	}
}

func mustID(t *testing.T, ctx *rt.Context) nccl.UniqueID {
	t.Helper()
	id, err := nccl.NewUniqueID(ctx.Driver())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Every element type on one rank: AllReduce copies it bit for bit.
func TestGPUTypes(t *testing.T) {
	r := gpuRanks(t, 1)
	c, ctx, s := r.comms[0], r.ctxs[0], r.ss[0]
	gpuTypes(t, c, ctx, s, func(i int) int8 { return int8(i - 3) })
	gpuTypes(t, c, ctx, s, func(i int) uint8 { return uint8(250 + i) })
	gpuTypes(t, c, ctx, s, func(i int) int32 { return int32(-i * 1000) })
	gpuTypes(t, c, ctx, s, func(i int) uint32 { return uint32(i) << 30 })
	gpuTypes(t, c, ctx, s, func(i int) int64 { return int64(i) << 40 })
	gpuTypes(t, c, ctx, s, func(i int) uint64 { return uint64(i) << 60 })
	gpuTypes(t, c, ctx, s, func(i int) float64 { return float64(i) / 3 })
	gpuTypes(t, c, ctx, s, func(i int) rt.Half { return rt.HalfFrom(float32(i) / 3) })
	gpuTypes(t, c, ctx, s, func(i int) rt.BFloat16 { return rt.BFloat16From(float32(i) / 3) })
	gpuTypes(t, c, ctx, s, func(i int) rt.Float8E4M3 { return rt.Float8E4M3From(float32(i) / 3) })
	gpuTypes(t, c, ctx, s, func(i int) rt.Float8E5M2 { return rt.Float8E5M2From(float32(i) / 3) })
}

func gpuTypes[T interface {
	nccl.Elem
	comparable
}](t *testing.T, c *nccl.Comm, ctx *rt.Context, s *rt.Stream, gen func(i int) T) {
	t.Helper()
	x := make([]T, 5)
	for i := range x {
		x[i] = gen(i)
	}
	src, _ := rt.AllocFrom(ctx, x)
	dst, _ := rt.Alloc[T](ctx, len(x))
	defer src.Free()
	defer dst.Free()
	// fp8 Sum, Max and Min on one rank are copies; NCCL 2.28's one-rank
	// kernel for fp8 PreMulSum (and so Avg) is missing.
	ops := []nccl.RedOp{nccl.Sum, nccl.Max, nccl.Min}
	if dt := nccl.TypeOf[T](); dt != nccl.Float8E4M3 && dt != nccl.Float8E5M2 {
		ops = append(ops, nccl.Prod, nccl.Avg)
	}
	for _, op := range ops {
		if err := nccl.AllReduce(c, src, dst, op, s); err != nil {
			t.Errorf("%v %v: %v", nccl.TypeOf[T](), op, err)
			continue
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		if got := host(t, dst); !bitsEqual(got, x) {
			t.Errorf("%v %v: %v, want %v", nccl.TypeOf[T](), op, got, x)
		}
	}
}

// Operations run in stream order with generated launches: a kernel's
// output is what the AllReduce after it reads.
func TestGPUStreamOrder(t *testing.T) {
	r := gpuRanks(t, 1)
	c, ctx, s := r.comms[0], r.ctxs[0], r.ss[0]
	var d nccl.DevComm
	bytesOf(&d)[4] = 4 // nRanks = 4 (little-endian int32 at offset 4), for scaleByRanks
	x, _ := rt.AllocFrom(ctx, []float32{4, 8, 12, 16})
	y, _ := rt.Alloc[float32](ctx, 4)
	defer x.Free()
	defer y.Free()
	for range 3 {
		if err := devtest.ScaleByRanks(rt.Linear(4, 32).On(s), d, x.Ptr, 4); err != nil {
			t.Fatal(err)
		}
		if err := nccl.AllReduce(c, x, y, nccl.Sum, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if got := host(t, y); !slices.Equal(got, []float32{4.0 / 64, 8.0 / 64, 12.0 / 64, 16.0 / 64}) {
		t.Errorf("after three kernels and AllReduces: %v", got)
	}
}

func TestGPUErrors(t *testing.T) {
	r := gpuRanks(t, 1)
	c, ctx, s := r.comms[0], r.ctxs[0], r.ss[0]
	buf, _ := rt.AllocFrom(ctx, []float32{1, 2})
	defer buf.Free()
	// A created context: NCCL works in primary contexts.
	own, err := ctx.Device().NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	defer own.Release()
	if _, err := nccl.InitRank(t.Context(), own, mustID(t, ctx), 0, 1, nil); !errors.Is(err, nccl.InvalidUsage) || !strings.Contains(err.Error(), "primary context") {
		t.Errorf("InitRank in a created context: %v", err)
	}
	// A buffer and a stream of that context.
	other, _ := rt.AllocFrom(own, []float32{1, 2})
	defer other.Free()
	if err := nccl.AllReduce(c, buf, other, nccl.Sum, s); !errors.Is(err, nccl.InvalidArgument) || !strings.Contains(err.Error(), "the recv buffer is in") {
		t.Errorf("a buffer of another context: %v", err)
	}
	ownStream, _ := own.NewStream()
	defer ownStream.Destroy()
	if err := nccl.AllReduceInPlace(c, buf, nccl.Sum, ownStream); !errors.Is(err, nccl.InvalidArgument) || !strings.Contains(err.Error(), "the stream is of") {
		t.Errorf("a stream of another context: %v", err)
	}
	// A soft UniqueID.
	var softID nccl.UniqueID
	copy(softID[:], "cugen-soft-nccl\x01")
	if _, err := nccl.InitRank(t.Context(), ctx, softID, 0, 1, nil); !errors.Is(err, nccl.InvalidArgument) || !strings.Contains(err.Error(), "soft one") {
		t.Errorf("a soft UniqueID: %v", err)
	}
	if err := nccl.BroadcastInPlace(c, buf, 1, s); !errors.Is(err, nccl.InvalidArgument) {
		t.Errorf("root 1 of 1: %v", err)
	}
	// What NCCL itself refuses comes back with NCCL's code and message: a
	// device communicator needs symmetric memory, which NCCL 2.28.3 gives
	// no one-rank communicator (see TestGPUDevComm).
	if err := c.AsyncError(); err != nil {
		t.Errorf("AsyncError of a healthy communicator: %v", err)
	}
	// Abort, then every call is refused.
	c2, err := nccl.InitRank(t.Context(), ctx, mustID(t, ctx), 0, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := nccl.AllReduceInPlace(c2, buf, nccl.Sum, s); !errors.Is(err, nccl.InvalidUsage) || !strings.Contains(err.Error(), "destroyed") {
		t.Errorf("after Abort: %v", err)
	}
	if !strings.HasPrefix(c.Engine(), "NCCL 2.") {
		t.Errorf("Engine() = %q", c.Engine())
	}
}

// With NCCL_CHECK_POINTERS=1 NCCL checks buffers itself: a pointer that is
// no device memory comes back as NCCL's InvalidArgument with its message.
// (Without it the pointer would fault the GPU: the script runs this test
// alone, with the variable set.)
func TestGPUPointerCheck(t *testing.T) {
	if os.Getenv("NCCL_CHECK_POINTERS") != "1" {
		t.Skip("skipped: needs NCCL_CHECK_POINTERS=1 in the environment (testdata/gpu.sh sets it)")
	}
	r := gpuRanks(t, 1)
	c, ctx, s := r.comms[0], r.ctxs[0], r.ss[0]
	buf, _ := rt.AllocFrom(ctx, []float32{1, 2})
	defer buf.Free()
	err := nccl.AllReducePtr(c, buf.Ptr, rt.Ptr[float32](0x1000), 2, nccl.Sum, s)
	var e *nccl.Error
	if !errors.As(err, &e) || e.Code != nccl.InvalidArgument || e.Message == "" {
		t.Fatalf("a bad recv pointer: %v; want NCCL's InvalidArgument with its message", err)
	}
	t.Logf("NCCL said: %v", err)
}

// A device communicator on one rank. NCCL 2.28.3 refuses: ncclDevCommCreate
// (src/dev_runtime.cc) fails with ncclInvalidUsage, "Communicator does not
// support symmetric memory!", unless comm->symmetricSupport, which init.cc
// sets to isAllDirectP2p && nNodes == 1 && NCCL_WIN_ENABLE (default 1) &&
// ncclCuMemEnable() (NCCL_CUMEM_ENABLE, default auto); and
// ncclTransportCheckP2pType (src/transport.cc) sets isAllDirectP2p false
// when localRanks == 1. No environment variable turns that on. NCCL 2.28.7
// (the pip wheel's 2.28.9) asks isAllCudaP2p instead, which holds for one
// local rank (there is no pair to test), so it makes one, in its 200-byte
// layout, which DevComm (2.28.3's) is not: Comm.DevComm refuses that NCCL,
// and the test makes one through the binding's own 2.28.7 path, and a
// generated kernel taking DevComm by value reads the description NCCL
// wrote (its first 24 bytes are laid out as 2.28.3's). Either way, a
// kernel taking a DevComm by value reads every byte Go gives it.
func TestGPUDevComm(t *testing.T) {
	r := gpuRanks(t, 1)
	c, ctx, s := r.comms[0], r.ctxs[0], r.ss[0]
	d, err := c.DevComm(nil)
	eng := c.Engine()
	newABI := strings.Contains(eng, "NCCL 2.28.7") || strings.Contains(eng, "NCCL 2.28.8") || strings.Contains(eng, "NCCL 2.28.9")
	switch {
	case err == nil:
		info, _ := readDevComm(t, ctx, s, d)
		if !slices.Equal(info, []int32{0, 1, 0, 1, 1, 0}) {
			t.Errorf("the kernel read %v of a one-rank DevComm", info)
		}
		if err := c.DestroyDevComm(&d); err != nil {
			t.Error(err)
		}
	case strings.Contains(eng, "NCCL 2.28.3"):
		var e *nccl.Error
		if !errors.As(err, &e) || e.Code != nccl.InvalidUsage || !strings.Contains(e.Message, "symmetric") {
			t.Errorf("DevComm on one rank of NCCL 2.28.3: %v; want its InvalidUsage, that the communicator does not support symmetric memory", err)
		}
		t.Logf("DEVCOMM-ONE-RANK refused, as NCCL 2.28.3's source says (one local rank: no direct P2P, no symmetric memory): %v", err)
	case newABI:
		if !errors.Is(err, nccl.InvalidUsage) || !strings.Contains(err.Error(), "lays it out otherwise") {
			t.Errorf("Comm.DevComm on %s: %v; want rt/nccl's refusal of its layout", eng, err)
		}
		b, err := nccl.DevCommBytes(c, 0)
		if err != nil {
			t.Fatalf("a one-rank device communicator of %s: %v; its source says it makes one", eng, err)
		}
		var nd nccl.DevComm
		copy(bytesOf(&nd)[:24], b[:24])
		info, raw := readDevComm(t, ctx, s, nd)
		if !slices.Equal(info, []int32{0, 1, 0, 1, 1, 0}) || !slices.Equal(raw[:24], b[:24]) {
			t.Errorf("the kernel read %v (bytes %x) of %s's one-rank device communicator %x; want rank 0 of 1, LSA 0 of 1, world team 1, 0", info, raw[:24], eng, b[:24])
		}
		if err := nccl.DestroyDevCommBytes(c, b); err != nil {
			t.Error(err)
		}
		t.Logf("DEVCOMM-ONE-RANK made by %s; the kernel read rank %d of %d, LSA %d of %d, world team %d, %d", eng, info[0], info[1], info[2], info[3], info[4], info[5])
	default:
		t.Logf("DevComm: %v", err)
	}
	var pat nccl.DevComm
	for i := range nccl.DevCommSize {
		bytesOf(&pat)[i] = byte(255 - 3*i)
	}
	info, raw := readDevComm(t, ctx, s, pat)
	if !slices.Equal(raw, bytesOf(&pat)) || info[0] != int32(pat.Rank()) || info[1] != int32(pat.NRanks()) {
		t.Errorf("the GPU kernel read %v, %x of %x", info, raw, bytesOf(&pat))
	}
	// Memory for windows, and a window NCCL 2.28.3 does not make on one rank.
	m, err := nccl.AllocMemory[float32](c, 1024)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Free()
	if w, err := c.RegisterWindow(m.Ptr.Addr(), 4096); err == nil {
		h, _ := w.Handle()
		t.Logf("window %#x", h)
		w.Deregister()
	} else {
		t.Logf("RegisterWindow on one rank: %v", err)
	}
}

// Several GPUs of this process (testdata/two-gpu.sh): every operation,
// in and out of graphs, device communicators and windows.
func TestGPUMultiDevice(t *testing.T) {
	n := len(gpuDevices(t))
	if n < 2 {
		t.Skipf("skipped: needs 2 GPUs, has %d", n)
	}
	r := gpuRanks(t, n)
	gen := func(q, i int) int32 { return int32(100*q + i) }
	send := upload(t, r, 8, gen)
	sum := alloc[int32](t, r, 8)
	all := alloc[int32](t, r, 8*n)
	for _, graph := range []bool{false, true} {
		issue := func(q int, s *rt.Stream) error {
			return errors.Join(nccl.AllReduce(r.comms[q], send[q], sum[q], nccl.Sum, s), nccl.AllGather(r.comms[q], send[q], all[q], s))
		}
		if graph {
			// Every rank's stream captured at once, the collectives in one
			// group, as one goroutine driving several GPUs must.
			execs := captureAll(t, r, func() error {
				return nccl.Group(func() error {
					var errs []error
					for q := range n {
						errs = append(errs, issue(q, r.ss[q]))
					}
					return errors.Join(errs...)
				})
			})
			for q, x := range execs {
				defer x.Destroy()
				if err := x.Launch(r.ss[q]); err != nil {
					t.Fatal(err)
				}
			}
		} else {
			r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error { return issue(i, s) })
		}
		r.sync(t)
		want := reduceRef(n, 8, gen, func(a, b int32) int32 { return a + b })
		for q := range n {
			if got := host(t, sum[q]); !slices.Equal(got, want) {
				t.Errorf("graph %v, rank %d: AllReduce %v, want %v", graph, q, got, want)
			}
			if got := host(t, all[q]); got[8*(n-1)] != gen(n-1, 0) {
				t.Errorf("graph %v, rank %d: AllGather %v", graph, q, got)
			}
		}
	}
	// A Send/Recv ring.
	recv := alloc[int32](t, r, 8)
	r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error {
		return errors.Join(nccl.Send(c, send[i], (i+1)%n, s), nccl.Recv(c, recv[i], (i+n-1)%n, s))
	})
	r.sync(t)
	for q := range n {
		if got := host(t, recv[q]); got[0] != gen((q+n-1)%n, 0) {
			t.Errorf("rank %d received %v", q, got)
		}
	}
	// Device communicators, and what a kernel reads of them.
	dcs, err := nccl.DevCommAll(r.comms, nil)
	if err != nil {
		t.Fatalf("DevCommAll over %d GPUs: %v", n, err)
	}
	for q := range n {
		info, raw := readDevComm(t, r.ctxs[q], r.ss[q], dcs[q])
		if info[0] != int32(q) || info[1] != int32(n) || info[3] < 1 || !slices.Equal(raw, bytesOf(&dcs[q])) {
			t.Errorf("rank %d's kernel read %v", q, info)
		}
		t.Logf("rank %d: DevComm rank %d of %d, LSA %d of %d", q, info[0], info[1], info[2], info[3])
	}
	// Symmetric windows, registered by every rank in one group.
	mems := make([]*nccl.Memory[float32], n)
	wins := make([]*nccl.Window, n)
	err = nccl.Group(func() error {
		for q, c := range r.comms {
			m, err := nccl.AllocMemory[float32](c, 1024)
			if err != nil {
				return err
			}
			mems[q] = m
			if wins[q], err = c.RegisterWindow(m.Ptr.Addr(), 4096); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for q := range n {
		h, err := wins[q].Handle()
		if err != nil || h == 0 {
			t.Errorf("rank %d's window: %#x, %v", q, h, err)
		}
	}
	for q := range n {
		if err := r.comms[q].DestroyDevComm(&dcs[q]); err != nil {
			t.Error(err)
		}
	}
	err = nccl.Group(func() error {
		var errs []error
		for q := range n {
			errs = append(errs, wins[q].Deregister())
		}
		return errors.Join(errs...)
	})
	if err != nil {
		t.Error(err)
	}
	for _, m := range mems {
		m.Free()
	}
}

// One process per GPU, launched as torchrun launches them (this binary's
// children): every operation, a split and a graph, over NCCL.
func TestGPUMultiProcess(t *testing.T) {
	n := len(gpuDevices(t))
	if n < 2 {
		t.Skipf("skipped: needs 2 GPUs, has %d", n)
	}
	out, errs := job(t, "ops", n, n, envChildBackend+"=cuda")
	for q := range out {
		if errs[q] != nil || !strings.Contains(out[q], "rank "+strconv.Itoa(q)+" ok") {
			t.Errorf("rank %d: %v\n%s", q, errs[q], out[q])
		}
	}
}

// The per-call cost of a small AllReduce on one rank, out of place (NCCL
// queues a copy) and in place (NCCL queues nothing): testdata/gpu.sh
// compares it with the same loop in C (testdata/bench_nccl.c).
func BenchmarkGPUAllReduce8B(b *testing.B)        { benchAllReduce(b, false) }
func BenchmarkGPUAllReduce8BInPlace(b *testing.B) { benchAllReduce(b, true) }

func benchAllReduce(b *testing.B, inPlace bool) {
	r := gpuRanks(b, 1)
	c, ctx, s := r.comms[0], r.ctxs[0], r.ss[0]
	send, _ := rt.AllocFrom(ctx, []float32{1, 2})
	recv, _ := rt.Alloc[float32](ctx, 2)
	defer send.Free()
	defer recv.Free()
	if inPlace {
		recv = send
	}
	for i := range 20000 { // warm up, as bench_nccl.c does
		nccl.AllReduce(c, send, recv, nccl.Sum, s)
		if i%256 == 255 {
			s.Synchronize()
		}
	}
	s.Synchronize()
	b.ResetTimer()
	for i := range b.N {
		if err := nccl.AllReduce(c, send, recv, nccl.Sum, s); err != nil {
			b.Fatal(err)
		}
		if i%256 == 255 {
			s.Synchronize()
		}
	}
	s.Synchronize()
}

func init() { childRoles["busbw"] = busBandwidth }

// busBandwidth is one rank of testdata/two-gpu.sh's bandwidth run,
// launched by torchrun: AllReduce (sum, float32) of 8 KiB to 1 GiB, timed
// with events; rank 0 prints "BUSBW-GO <bytes> <µs per call> <GB/s>", the
// bus bandwidth as nccl-tests defines it (algorithm bandwidth × 2(n-1)/n).
func busBandwidth() error {
	l, err := nccl.LaunchEnv()
	if err != nil {
		return err
	}
	d, err := rt.Open("cuda")
	if err != nil {
		return err
	}
	dev, err := l.Device(d)
	if err != nil {
		return err
	}
	ctx, err := dev.Primary()
	if err != nil {
		return err
	}
	s, err := ctx.NewStream()
	if err != nil {
		return err
	}
	c, err := l.Comm(context.Background(), ctx, nil)
	if err != nil {
		return err
	}
	defer c.Destroy()
	start, _ := ctx.NewEvent(rt.EventDefault)
	end, _ := ctx.NewEvent(rt.EventDefault)
	for bytes := 8 << 10; bytes <= 1<<30; bytes *= 4 {
		n := bytes / 4
		buf, err := rt.Alloc[float32](ctx, n)
		if err != nil {
			return err
		}
		iters := max(5, min(200, (256<<20)/bytes))
		for range 5 {
			if err := nccl.AllReduceInPlace(c, buf, nccl.Sum, s); err != nil {
				return err
			}
		}
		start.Record(s)
		for range iters {
			if err := nccl.AllReduceInPlace(c, buf, nccl.Sum, s); err != nil {
				return err
			}
		}
		end.Record(s)
		if err := end.Synchronize(); err != nil {
			return err
		}
		ms, err := rt.Elapsed(start, end)
		if err != nil {
			return err
		}
		sec := float64(ms) / 1e3 / float64(iters)
		bus := float64(bytes) / sec * 2 * float64(c.Size()-1) / float64(c.Size()) / 1e9
		if c.Rank() == 0 {
			fmt.Printf("BUSBW-GO %d %.2f %.2f\n", bytes, sec*1e6, bus)
		}
		buf.Free()
	}
	return c.AsyncError()
}

// TestGPUCurrentContext checks what an operation does to the calling
// thread's current context, as the shim's AT_CTX says: a thread with none
// is left with the rank's (as the CUDA runtime leaves one), and a thread
// whose caller made another context current keeps that one.
func TestGPUCurrentContext(t *testing.T) {
	r := gpuRanks(t, 1)
	c, ctx, s := r.comms[0], r.ctxs[0], r.ss[0]
	drv := ctx.Driver()
	buf, _ := rt.AllocFrom(ctx, []float32{1, 2})
	defer buf.Free()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer drv.CtxSetCurrent(0)
	if err := drv.CtxSetCurrent(0); err != nil {
		t.Fatal(err)
	}
	if err := nccl.AllReduceInPlace(c, buf, nccl.Sum, s); err != nil {
		t.Fatal(err)
	}
	if cur, err := drv.CtxGetCurrent(); err != nil || cur != ctx.Handle() {
		t.Errorf("after an AllReduce on a thread with no context, the current context is %#x (%v); want the rank's %#x", cur, err, ctx.Handle())
	}
	own, err := ctx.Device().NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	defer own.Release()
	if err := drv.CtxSetCurrent(own.Handle()); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := nccl.AllReduceInPlace(c, buf, nccl.Sum, s); err != nil {
			t.Fatal(err)
		}
		if err := nccl.AllReduce(c, buf, buf, nccl.Sum, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if cur, err := drv.CtxGetCurrent(); err != nil || cur != own.Handle() {
		t.Errorf("after AllReduces on a thread whose caller made its own context current, the current context is %#x (%v); want the caller's %#x", cur, err, own.Handle())
	}
	if got := host(t, buf); !slices.Equal(got, []float32{1, 2}) {
		t.Errorf("one-rank AllReduces changed the buffer: %v", got)
	}
}
