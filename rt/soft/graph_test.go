package soft

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// What soft does beyond rttest's conformance checks of graphs, peers and
// kernel attributes (TestConformance): the faults a GPU reports only as an
// illegal address, and the snapshots that keep queued work as it was queued.

const graphTestPTX = `
.version 7.0
.target sm_70
.address_size 64
.extern .func cudaGraphSetConditional(.param .b64 h, .param .b32 v);

.visible .entry setCond(.param .u64 setCond_h, .param .u32 setCond_v)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [setCond_h];
	ld.param.u32 %r1, [setCond_v];
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 [param1+0], %r1;
	call.uni cudaGraphSetConditional, (param0, param1);
	}
	ret;
}

// *p += v
.visible .entry addTo(.param .u64 addTo_p, .param .u32 addTo_v)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [addTo_p];
	ld.param.u32 %r1, [addTo_v];
	cvta.to.global.u64 %rd2, %rd1;
	atom.global.add.u32 %r2, [%rd2], %r1;
	ret;
}
`

var (
	graphTestLib = rt.NewLibrary("graphtest.ptx", []byte(graphTestPTX))
	gtSetCond    = graphTestLib.Kernel("setCond", rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 4})
	gtAddTo      = graphTestLib.Kernel("addTo", rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 4})
)

func setCond(cfg rt.Config, h uint64, v uint32) error {
	var p [12]byte
	binary.LittleEndian.PutUint64(p[0:], h)
	binary.LittleEndian.PutUint32(p[8:], v)
	return gtSetCond.Launch(cfg, p[:])
}

func addTo(cfg rt.Config, p rt.Ptr[uint32], v uint32) error {
	var b [12]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(p))
	binary.LittleEndian.PutUint32(b[8:], v)
	return gtAddTo.Launch(cfg, b[:])
}

func addToNode(n rt.KernelNode, cfg rt.Config, p rt.Ptr[uint32], v uint32) error {
	var b [12]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(p))
	binary.LittleEndian.PutUint32(b[8:], v)
	return gtAddTo.SetNode(n, cfg, b[:])
}

func graphEnv(t *testing.T, opt Options) (*Driver, *rt.Context, *rt.Stream) {
	t.Helper()
	d := New(opt)
	devs, err := rt.DevicesOf(d)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Release() })
	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	return d, ctx, s
}

func mustT(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// cudaGraphSetConditional writes into the running graph's table: from a
// kernel outside a graph, or with a handle no graph of its made, it is an
// illegal address, as on a GPU, named as such.
func TestSetConditionalOutsideAGraph(t *testing.T) {
	_, ctx, s := graphEnv(t, Options{})
	one := rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: s}
	mustT(t, setCond(one, 0xc0d0<<48|1, 1))
	err := s.Synchronize()
	if !errors.Is(err, rt.ErrIllegalAddress) || !strings.Contains(err.Error(), "not running in a graph") {
		t.Errorf("cudaGraphSetConditional from a stream launch: %v, want an illegal address naming the cause", err)
	}

	// In a graph, with a handle of another graph.
	_, ctx, s = graphEnv(t, Options{})
	other, err := ctx.NewGraph()
	mustT(t, err)
	foreign, err := other.NewCondition(0, true)
	mustT(t, err)
	one.Stream = s
	g, err := s.Capture(func(s *rt.Stream) error { return setCond(one.On(s), uint64(foreign), 1) })
	mustT(t, err)
	x, err := g.Instantiate()
	mustT(t, err)
	mustT(t, x.Launch(s))
	err = s.Synchronize()
	if !errors.Is(err, rt.ErrIllegalAddress) || !strings.Contains(err.Error(), "not a condition of the graph") {
		t.Errorf("cudaGraphSetConditional with another graph's handle: %v", err)
	}
}

// A node update applies from the next launch: launches already queued run
// with what they were queued with.
func TestNodeUpdateAfterQueuedLaunch(t *testing.T) {
	_, ctx, s := graphEnv(t, Options{})
	cnt, err := rt.AllocFrom(ctx, []uint32{0})
	mustT(t, err)
	one := rt.Config{Grid: rt.D1(1), Block: rt.D1(1)}
	var node rt.GraphNode
	g, err := s.Capture(func(s *rt.Stream) error {
		if err := addTo(one.On(s), cnt.Ptr, 1); err != nil {
			return err
		}
		node, err = s.CapturedNode()
		return err
	})
	mustT(t, err)
	x, err := g.Instantiate()
	mustT(t, err)
	release := make(chan struct{})
	mustT(t, s.LaunchHostFunc(func() { <-release }))
	mustT(t, x.Launch(s)) // queued behind the held host function
	mustT(t, addToNode(x.KernelNode(node), one, cnt.Ptr, 100))
	mustT(t, x.Launch(s))
	close(release)
	mustT(t, s.Synchronize())
	if got, _ := cnt.ToHost(); got[0] != 101 {
		t.Errorf("a launch queued before a node update and one after counted %d, want 1 + 100", got[0])
	}
	if n := testing.AllocsPerRun(100, func() { addToNode(x.KernelNode(node), one, cnt.Ptr, 7) }); n != 0 {
		t.Errorf("a node update allocates %v times", n)
	}
}

// A conditional node's body holds only what a GPU can run there.
func TestConditionalBodyNodes(t *testing.T) {
	_, ctx, s := graphEnv(t, Options{})
	g, err := ctx.NewGraph()
	mustT(t, err)
	c, err := g.NewCondition(1, true)
	mustT(t, err)
	_, body, err := g.AddIf(c)
	mustT(t, err)
	mustT(t, body.CaptureInto(s, func(s *rt.Stream) error { return s.LaunchHostFunc(func() {}) }))
	if _, err := g.Instantiate(); !errors.Is(err, rt.ErrNotSupported) {
		t.Errorf("instantiating a graph with a host node in an IF body: %v, want ErrNotSupported", err)
	}
}

// A kernel touching memory of another device's context faults unless peer
// access is enabled.
func TestPeerAccessFault(t *testing.T) {
	d := New(Options{Devices: 2})
	devs, err := rt.DevicesOf(d)
	mustT(t, err)
	c0, err := devs[0].Primary()
	mustT(t, err)
	defer c0.Release()
	c1, err := devs[1].Primary()
	mustT(t, err)
	defer c1.Release()
	cnt1, err := rt.AllocFrom(c1, []uint32{0})
	mustT(t, err)
	s0, err := c0.NewStream()
	mustT(t, err)
	one := rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: s0}
	mustT(t, addTo(one, cnt1.Ptr, 1))
	if err := s0.Synchronize(); !errors.Is(err, rt.ErrIllegalAddress) || !strings.Contains(err.Error(), "peer access") {
		t.Errorf("a kernel on device 0 adding to device 1's memory without peer access: %v", err)
	}
	// The fault leaves the process unusable (sticky.go); a new Driver, the
	// new process, does the rest.
	d = New(Options{Devices: 2})
	devs, err = rt.DevicesOf(d)
	mustT(t, err)
	c0b, err := devs[0].Primary()
	mustT(t, err)
	defer c0b.Release()
	c1b, err := devs[1].Primary()
	mustT(t, err)
	defer c1b.Release()
	cnt1b, err := rt.AllocFrom(c1b, []uint32{0})
	mustT(t, err)
	s0b, err := c0b.NewStream()
	mustT(t, err)
	mustT(t, c0b.EnablePeerAccess(c1b))
	one.Stream = s0b
	mustT(t, addTo(one, cnt1b.Ptr, 1))
	mustT(t, s0b.Synchronize())
	if got, _ := cnt1b.ToHost(); got[0] != 1 {
		t.Errorf("with peer access the kernel counted %d, want 1", got[0])
	}
}

// A captured launch keeps its cluster dimension: the graph's run sees the
// clusters the stream's launch saw (%cluster_nctarank, %cluster_ctarank),
// and a node update must keep the grid a whole number of them.
func TestCapturedClusterLaunch(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.loadSrc("cl.ptx", ptxHeader+`
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<5>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %cluster_nctarank;
	mov.u32 %r3, %cluster_ctarank;
	shl.b32 %r2, %r2, 8;
	or.b32 %r4, %r2, %r3;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r4;
	ret;
}
`)
	k := e.kernel(lib, "k")
	d := e.d
	s, err := d.StreamCreate(e.ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	run := func(capture bool) []uint32 {
		t.Helper()
		out := e.buf(make([]uint32, 8))
		p := params(out)
		la := rt.LaunchArgs{Stream: s, Grid: rt.D1(8), Block: rt.D1(32), Cluster: rt.D1(4),
			Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}
		if capture {
			mustT(t, d.StreamBeginCapture(e.ctx, s, rt.CaptureGlobal))
		}
		mustT(t, d.Launch(k, la))
		if capture {
			g, err := d.StreamEndCapture(e.ctx, s)
			mustT(t, err)
			x, err := d.GraphInstantiate(e.ctx, g, 0)
			mustT(t, err)
			mustT(t, d.GraphLaunch(e.ctx, x, s))
			nodes, err := d.GraphNodes(g)
			mustT(t, err)
			la.Cluster, la.Grid = rt.Dim3{}, rt.D1(6)
			if err := d.GraphExecKernelNodeSetParams(x, nodes[0], k, la); rt.CodeOf(err) != rt.ErrInvalidValue {
				t.Errorf("updating the node to 6 blocks of clusters of 4: %v", err)
			}
		}
		mustT(t, d.StreamSynchronize(e.ctx, s))
		got := make([]uint32, 8)
		e.get(out, got)
		return got
	}
	direct, graph := run(false), run(true)
	for i := range direct {
		if want := uint32(4<<8 | i%4); direct[i] != want || graph[i] != want {
			t.Errorf("block %d: %#x launched, %#x from the graph, want %#x", i, direct[i], graph[i], want)
		}
	}
}

// Replaying an instantiated graph allocates nothing once warm, as a plain
// launch does (TestLaunchAllocs): the launch reuses its run state, the
// graph's snapshot (until a node update) and its kernel nodes' launches.
// A node update still applies from the next launch on, and the replays
// after it allocate nothing either.
func TestGraphReplayAllocs(t *testing.T) {
	for _, workers := range []int{1, 4} {
		_, ctx, s := graphEnv(t, Options{Workers: workers})
		cnt, err := rt.AllocFrom(ctx, []uint32{0})
		mustT(t, err)
		one := rt.Config{Grid: rt.D1(1), Block: rt.D1(1)}
		for _, nodes := range []int{1, 10} {
			var first rt.GraphNode
			g, err := s.Capture(func(s *rt.Stream) error {
				for i := range nodes {
					if err := addTo(one.On(s), cnt.Ptr, 1); err != nil {
						return err
					}
					if i == 0 {
						if first, err = s.CapturedNode(); err != nil {
							return err
						}
					}
				}
				return nil
			})
			mustT(t, err)
			x, err := g.Instantiate()
			mustT(t, err)
			replay := func() {
				mustT(t, x.Launch(s))
				mustT(t, s.Synchronize())
			}
			queued := func() {
				for range 5 {
					mustT(t, x.Launch(s))
				}
				mustT(t, s.Synchronize())
			}
			mustT(t, cnt.CopyFrom([]uint32{0}))
			replay()
			queued()
			if got, _ := cnt.ToHost(); got[0] != uint32(6*nodes) {
				t.Fatalf("%d workers, %d nodes: 6 replays counted %d, want %d", workers, nodes, got[0], 6*nodes)
			}
			for _, c := range []struct {
				name string
				f    func()
			}{{"replay+Synchronize", replay}, {"5 queued replays+Synchronize", queued}} {
				if a := testing.AllocsPerRun(20, c.f); a != 0 {
					t.Errorf("%d workers, %d nodes, %s: %v allocations, want 0", workers, nodes, c.name, a)
				}
			}
			mustT(t, addToNode(x.KernelNode(first), one, cnt.Ptr, 100))
			mustT(t, cnt.CopyFrom([]uint32{0}))
			replay()
			replay()
			if got, _ := cnt.ToHost(); got[0] != uint32(2*(100+nodes-1)) {
				t.Errorf("%d workers, %d nodes: 2 replays after a node update counted %d, want %d", workers, nodes, got[0], 2*(100+nodes-1))
			}
			if a := testing.AllocsPerRun(20, replay); a != 0 {
				t.Errorf("%d workers, %d nodes: a replay after a node update allocates %v times, want 0", workers, nodes, a)
			}
		}
	}
}
