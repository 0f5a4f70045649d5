//go:build cgo

package nccl_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/nccl"
	"github.com/cugen/cugen/rt/rttest"
)

// The NCCL engine's binding, checked without a GPU: a child process loads
// a recording stand-in for libnccl.so.2 (testdata/fake, built here with the
// C compiler cgo uses) through CUGEN_NCCL_LIB and drives it through rt/nccl
// on an rttest.Fake driver named "cuda". The stand-in logs what each call
// received: the UniqueID's bytes, passed by value; ncclConfig_t's fields;
// every operation's arguments; the context switches around each call.
// What real NCCL does with them is for the GPU tests.

// cudaFake is rttest's fake driver under the GPU backend's name, which
// sends rt/nccl to its NCCL engine.
type cudaFake struct{ *rttest.Fake }

func (cudaFake) Name() string { return "cuda" }

func TestShimWithFakeNCCL(t *testing.T) {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("skipped: no C compiler (%s) to build the stand-in libraries", cc)
	}
	dir := t.TempDir()
	for src, lib := range map[string]string{"fakenccl.c": "libnccl.so.2", "fakecuda.c": "libcuda.so.1"} {
		out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-o", filepath.Join(dir, lib), filepath.Join("testdata", "fake", src)).CombinedOutput()
		if err != nil {
			t.Fatalf("building %s: %v\n%s", lib, err, out)
		}
	}
	run := func(role string, env ...string) string {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envChild+"="+role, "LD_LIBRARY_PATH="+dir, nccl.EnvLib+"="+filepath.Join(dir, "libnccl.so.2"),
			"FAKE_NCCL_LOG="+filepath.Join(dir, role+".log"))
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", role, err, out)
		}
		return string(out)
	}
	t.Run("calls", func(t *testing.T) { run("fake") })
	t.Run("context switches", func(t *testing.T) { run("fake-switch") })
	t.Run("too old", func(t *testing.T) { run("fake-old", "FAKE_NCCL_VERSION=21700") })
	t.Run("newer device ABI", func(t *testing.T) { run("fake-2289", "FAKE_NCCL_VERSION=22809") })
	t.Run("missing", func(t *testing.T) { run("fake-missing", nccl.EnvLib+"="+filepath.Join(dir, "nowhere", "libnccl.so.2")) })
}

func init() {
	childRoles["fake"] = fakeCalls
	childRoles["fake-switch"] = fakeSwitches
	childRoles["fake-old"] = func() error {
		_, err := fakeComm()
		if err == nil || !strings.Contains(err.Error(), "is NCCL 2.17.0; rt/nccl needs 2.18.0 or later") {
			return fmt.Errorf("an NCCL 2.17: %v", err)
		}
		return nil
	}
	childRoles["fake-missing"] = func() error {
		_, err := fakeComm()
		if err == nil || !strings.Contains(err.Error(), "no usable libnccl.so.2") || !strings.Contains(err.Error(), "nowhere/libnccl.so.2") || !strings.Contains(err.Error(), nccl.EnvLib) {
			return fmt.Errorf("no library: %v", err)
		}
		return nil
	}
	childRoles["fake-2289"] = func() error {
		c, err := fakeComm()
		if err != nil {
			return err
		}
		if _, err := c.DevComm(nil); !errors.Is(err, nccl.InvalidUsage) || !strings.Contains(err.Error(), "NCCL 2.28.9") {
			return fmt.Errorf("DevComm on NCCL 2.28.9: %v", err)
		}
		fakeLog()
		// The tests' own path to 2.28.9's 200-byte layout: its
		// requirements' lsaBarrierCount at offset 24, all 200 bytes back.
		b, err := nccl.DevCommBytes(c, 2)
		if err != nil {
			return err
		}
		if len(b) != 200 || b[0] != 0 || b[4] != 1 || b[16] != 1 || b[199] != 0xab {
			return fmt.Errorf("DevCommBytes on NCCL 2.28.9: %x", b)
		}
		if err := nccl.DestroyDevCommBytes(c, b); err != nil {
			return err
		}
		return expect("DevCommBytes", fakeLog(), "push 0x1", "devCommCreate rank=0 lsaMultimem=0 lsaBarrierCount=2 layout=22807", "pop 0x1", "devCommDestroy rank=0 first=ab last=ab")
	}
}

type fakeRank struct {
	ctx *rt.Context
	s   *rt.Stream
}

var fakeDev fakeRank

func fakeComm() (*nccl.Comm, error) {
	d := cudaFake{&rttest.Fake{}}
	devs, err := rt.DevicesOf(d)
	if err != nil {
		return nil, err
	}
	if fakeDev.ctx, err = devs[0].Primary(); err != nil {
		return nil, err
	}
	if fakeDev.s, err = fakeDev.ctx.NewStream(); err != nil {
		return nil, err
	}
	id, err := nccl.NewUniqueID(d)
	if err != nil {
		return nil, err
	}
	return nccl.InitRank(context.Background(), fakeDev.ctx, id, 0, 1, &nccl.Options{CommName: "abc", MinCTAs: 2, MaxCTAs: 8, SplitShare: true})
}

// fakeLog is what the stand-ins logged so far; it is then cleared.
func fakeLog() []string {
	p := os.Getenv("FAKE_NCCL_LOG")
	b, _ := os.ReadFile(p)
	os.Remove(p)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// expect checks that the log holds each want, in order (each a substring
// of a later line than the previous).
func expect(what string, log []string, wants ...string) error {
	i := 0
	for _, w := range wants {
		for i < len(log) && !strings.Contains(log[i], w) {
			i++
		}
		if i == len(log) {
			return fmt.Errorf("%s: the stand-in's log lacks %q (in order) in:\n%s", what, w, strings.Join(log, "\n"))
		}
		i++
	}
	return nil
}

func fakeCalls() error {
	c, err := fakeComm()
	if err != nil {
		return err
	}
	var id nccl.UniqueID
	for i := range id {
		id[i] = byte(i*3 + 1)
	}
	// The ID's 128 bytes arrive by value, the config as nccl.h lays it out,
	// and the rank's context (the fake's handle 1) is current for the call.
	if err := expect("InitRank", fakeLog(), "getUniqueId", "push 0x1",
		"init rank=0 nranks=1 id="+id.String()+" size=80 magic=cafebeef version=22800 blocking=1 minCTAs=2 maxCTAs=8 splitShare=1 netName=(null) commName=abc cga=-1",
		"pop 0x1"); err != nil {
		return err
	}
	ctx, s := fakeDev.ctx, fakeDev.s
	f32, _ := rt.Alloc[float32](ctx, 8)
	f32b, _ := rt.Alloc[float32](ctx, 8)
	h, _ := rt.Alloc[rt.Half](ctx, 4)
	e4, _ := rt.Alloc[rt.Float8E4M3](ctx, 4)
	u64, _ := rt.Alloc[uint64](ctx, 2)
	p := func(a rt.DevPtr) string { return fmt.Sprintf("%#x", uint64(a)) }
	sp, rp := p(f32.Ptr.Addr()), p(f32b.Ptr.Addr())
	errs := []error{
		nccl.AllReduce(c, f32, f32b, nccl.Max, s),
		nccl.Broadcast(c, f32, f32b, 0, s),
		nccl.Reduce(c, h, h, nccl.Avg, 0, s),
		nccl.AllGather(c, e4, e4, s),
		nccl.ReduceScatter(c, u64, u64, nccl.Prod, s),
		nccl.AllToAll(c, f32, f32b, s),
		nccl.Send(c, f32, 0, s),
		nccl.Recv(c, f32b, 0, s),
		nccl.AllReducePtr(c, f32.Ptr.Add(2), f32b.Ptr.Add(1), 3, nccl.Min, s),
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := expect("operations", fakeLog(),
		"cuda set 0x1", // the first operation leaves the context current (see TestShimWithFakeNCCL/context_switches)
		"AllReduce send="+sp+" recv="+rp+" count=8 dtype=7 op=2 root=-1 rank=0 stream=0x7",
		"Broadcast send="+sp+" recv="+rp+" count=8 dtype=7 op=-1 root=0",
		"Reduce send="+p(h.Ptr.Addr())+" recv="+p(h.Ptr.Addr())+" count=4 dtype=6 op=4 root=0",
		"AllGather send="+p(e4.Ptr.Addr())+" recv="+p(e4.Ptr.Addr())+" count=4 dtype=10",
		"ReduceScatter send="+p(u64.Ptr.Addr())+" recv="+p(u64.Ptr.Addr())+" count=2 dtype=5 op=1",
		"AlltoAll send="+sp+" recv="+rp+" count=8 dtype=7",
		"Send send="+sp+" recv=(nil) count=8 dtype=7 op=-1 root=0",
		"Recv send=(nil) recv="+rp+" count=8 dtype=7 op=-1 root=0",
		"AllReduce send="+p(f32.Ptr.Add(2).Addr())+" recv="+p(f32b.Ptr.Add(1).Addr())+" count=3 dtype=7 op=3"); err != nil {
		return err
	}
	// The hot path allocates nothing.
	if n := testing.AllocsPerRun(100, func() { nccl.AllReduce(c, f32, f32b, nccl.Sum, s) }); n != 0 {
		return fmt.Errorf("an AllReduce allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { nccl.SendPtr(c, f32.Ptr, 8, 0, s) }); n != 0 {
		return fmt.Errorf("a SendPtr allocates %v times", n)
	}
	fakeLog()
	// A pre-multiplied sum: the scalar's bytes (2.5 is 0x40200000).
	op, err := nccl.NewPreMulSum(c, float32(2.5))
	if err != nil {
		return err
	}
	if err := nccl.AllReduceInPlace(c, f32, op, s); err != nil {
		return err
	}
	if err := c.DestroyOp(op); err != nil {
		return err
	}
	if err := expect("PreMulSum", fakeLog(), "premulsum dtype=7 scalar=00002040 residence=1 op=5", "AllReduce send="+sp+" recv="+sp+" count=8 dtype=7 op=5", "redopDestroy op=5"); err != nil {
		return err
	}
	// What NCCL refuses comes back with its code and its last error.
	err = nccl.AllReducePtr(c, f32.Ptr, f32b.Ptr, 13, nccl.Sum, s)
	var e *nccl.Error
	if !errors.As(err, &e) || e.Code != nccl.InvalidArgument || e.Op != "ncclAllReduce" || e.Message != "fake: AllReduce of 13 elements refused" {
		return fmt.Errorf("a refused AllReduce: %#v", err)
	}
	// An asynchronous error, with NCCL's message.
	if err := c.AsyncError(); err != nil {
		return fmt.Errorf("AsyncError before any: %v", err)
	}
	if err := nccl.AllReducePtr(c, f32.Ptr, f32b.Ptr, 99, nccl.Sum, s); err != nil {
		return err
	}
	if err := c.AsyncError(); !errors.Is(err, nccl.RemoteError) || !strings.Contains(err.Error(), "fake: a peer went away") {
		return fmt.Errorf("AsyncError after a peer left: %v", err)
	}
	fakeLog()
	// A group: NCCL's group around the operations.
	err = nccl.Group(func() error {
		return errors.Join(nccl.AllReduce(c, f32, f32b, nccl.Sum, s), nccl.Broadcast(c, f32, f32b, 0, s))
	})
	if err != nil {
		return err
	}
	if err := expect("Group", fakeLog(), "groupStart", "AllReduce", "Broadcast", "groupEnd"); err != nil {
		return err
	}
	// Split, and the new communicator's rank and size from NCCL.
	sub, err := c.Split(1, 2, nil)
	if err != nil || sub.Rank() != 0 || sub.Size() != 1 {
		return fmt.Errorf("Split: %v, %v", sub, err)
	}
	if none, err := c.Split(nccl.NoColor, 0, &nccl.Options{}); none != nil || err != nil {
		return fmt.Errorf("Split(NoColor): %v, %v", none, err)
	}
	if err := expect("Split", fakeLog(), "split color=1 key=2 config=inherit", "split color=-1 key=0 config=set"); err != nil {
		return err
	}
	// A device communicator: NCCL fills it, kernels get its bytes.
	d, err := c.DevComm(&nccl.DevCommRequirements{LsaBarrierCount: 3})
	if err != nil {
		return err
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&d)), nccl.DevCommSize)
	if d.Rank() != 0 || d.NRanks() != 1 || d.LsaSize() != 1 || raw[8] != 0xab || raw[87] != 0xab {
		return fmt.Errorf("DevComm: rank %d of %d, LSA %d, bytes %x", d.Rank(), d.NRanks(), d.LsaSize(), raw)
	}
	if err := c.DestroyDevComm(&d); err != nil {
		return err
	}
	if err := expect("DevComm", fakeLog(), "groupStart", "devCommCreate rank=0 lsaMultimem=0 lsaBarrierCount=3", "groupEnd", "devCommDestroy rank=0 first=ab"); err != nil {
		return err
	}
	// Memory and windows.
	m, err := nccl.AllocMemory[float32](c, 1024)
	if err != nil {
		return err
	}
	w, err := c.RegisterWindow(m.Ptr.Addr(), 4096)
	if err != nil {
		return err
	}
	if hw, err := w.Handle(); hw != 0x7f0000002000 || err != nil {
		return fmt.Errorf("window handle %#x, %v", hw, err)
	}
	if _, err := c.RegisterWindow(m.Ptr.Addr()+1, 4096); !errors.Is(err, nccl.InvalidArgument) {
		return fmt.Errorf("an unaligned window: %v", err)
	}
	if err := errors.Join(w.Deregister(), m.Free()); err != nil {
		return err
	}
	if err := expect("windows", fakeLog(), "memAlloc 4096", "windowRegister buf=0x7f0000001000 size=4096 flags=1", "windowDeregister 0x7f0000002000", "memFree 0x7f0000001000"); err != nil {
		return err
	}
	// A nonblocking communicator: calls wait out ncclInProgress.
	id2, _ := nccl.NewUniqueID(cudaFake{&rttest.Fake{}})
	nb, err := nccl.InitRank(context.Background(), ctx, id2, 0, 1, &nccl.Options{NonBlocking: true})
	if err != nil {
		return fmt.Errorf("a nonblocking InitRank: %v", err)
	}
	if err := errors.Join(sub.Destroy(), nb.Destroy(), c.Abort()); err != nil {
		return err
	}
	return expect("teardown", fakeLog(), "blocking=0", "destroy rank=0", "finalize rank=0", "destroy rank=0", "abort rank=0")
}

// fakeSwitches checks what one operation costs in crossings: one cgo call
// each, and, once the rank's context is current on the thread (the first
// operation leaves it there, as the CUDA runtime does), one driver call
// (cuCtxGetCurrent) and no context switch; in place no more than out of
// place. A caller's own current context is switched around the call and
// restored.
func fakeSwitches() error {
	c, err := fakeComm()
	if err != nil {
		return err
	}
	runtime.LockOSThread() // the driver's current context is per thread
	defer runtime.UnlockOSThread()
	ctx, s := fakeDev.ctx, fakeDev.s
	a, _ := rt.Alloc[float32](ctx, 2)
	b, _ := rt.Alloc[float32](ctx, 2)
	// cost is what one call of op made: cgo calls and the stand-ins' lines.
	cost := func(op func() error) (cgo int64, driver, nccl []string, err error) {
		fakeLog()
		n := runtime.NumCgoCall()
		err = op()
		cgo = runtime.NumCgoCall() - n
		for _, l := range fakeLog() {
			if strings.HasPrefix(l, "cuda ") {
				driver = append(driver, l)
			} else if l != "" {
				nccl = append(nccl, l)
			}
		}
		return
	}
	outOfPlace := func() error { return nccl.AllReduce(c, a, b, nccl.Sum, s) }
	inPlace := func() error { return nccl.AllReduceInPlace(c, a, nccl.Sum, s) }
	ptrInPlace := func() error { return nccl.AllReducePtr(c, a.Ptr, a.Ptr, 2, nccl.Sum, s) }
	// The first call on the thread makes the context current and leaves it.
	_, drv, _, err := cost(inPlace)
	if err != nil {
		return err
	}
	if strings.Join(drv, "; ") != "cuda get (nil); cuda set 0x1" {
		return fmt.Errorf("the first operation on a thread with no context made driver calls %q; want cuCtxGetCurrent, cuCtxSetCurrent", drv)
	}
	var want string
	for i, f := range []struct {
		name string
		op   func() error
	}{{"out of place", outOfPlace}, {"in place", inPlace}, {"Ptr in place", ptrInPlace}, {"out of place again", outOfPlace}} {
		cgo, drv, nc, err := cost(f.op)
		if err != nil {
			return fmt.Errorf("%s: %v", f.name, err)
		}
		if cgo != 1 || len(nc) != 1 || strings.Join(drv, "; ") != "cuda get 0x1" {
			return fmt.Errorf("an AllReduce %s, its context current, made %d cgo calls, driver calls %q and NCCL calls %q; want 1, one cuCtxGetCurrent and one ncclAllReduce", f.name, cgo, drv, nc)
		}
		got := fmt.Sprint(cgo, len(drv), len(nc))
		if i == 0 {
			want = got
		} else if got != want {
			return fmt.Errorf("an AllReduce %s cost %s (cgo, driver, NCCL calls); out of place %s", f.name, got, want)
		}
	}
	// A caller's own context (a locked thread's): switched around the call
	// and restored, never replaced.
	if err := nccl.SetCurrent(0x99); err != nil {
		return err
	}
	_, drv, _, err = cost(inPlace)
	if err != nil {
		return err
	}
	if strings.Join(drv, "; ") != "cuda get 0x99; cuda push 0x1; cuda pop 0x1" {
		return fmt.Errorf("with another context current, an operation made driver calls %q; want get, push, pop", drv)
	}
	return nil
}
