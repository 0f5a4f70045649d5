package rttest

import (
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/cugen/cugen/rt"
)

func (s *suite) graphs(t *testing.T) {
	if _, ok := s.d.(rt.Grapher); !ok {
		t.Skipf("backend %s has no graphs (rt.Grapher)", s.d.Name())
	}
	t.Run("capture and replay", s.graphReplay)
	t.Run("node update", s.graphNodeUpdate)
	t.Run("fork and join", s.graphForkJoin)
	t.Run("capture rules", s.graphRules)
	t.Run("child graphs", s.graphChildren)
	t.Run("event nodes", s.graphEvents)
	t.Run("conditional nodes", s.graphConditionals)
}

// newStream is a non-blocking stream of ctx, destroyed with the test.
func newStream(t *testing.T, ctx *rt.Context) *rt.Stream {
	t.Helper()
	st, err := ctx.NewStream()
	must(t, err)
	t.Cleanup(func() { st.Destroy() })
	return st
}

// counter is a device uint32 set to v, freed with the test.
func counter(t *testing.T, ctx *rt.Context, v uint32) rt.Buffer[uint32] {
	t.Helper()
	b, err := rt.AllocFrom(ctx, []uint32{v})
	must(t, err)
	t.Cleanup(func() { b.Free() })
	return b
}

func read1(t *testing.T, b rt.Buffer[uint32]) uint32 {
	t.Helper()
	x, err := b.ToHost()
	must(t, err)
	return x[0]
}

func (s *suite) loadGraphLib(t *testing.T) {
	if _, err := s.glib.Load(s.d); err != nil {
		t.Skipf("graph.ptx does not load (cudaGraphSetConditional needs CUDA 12.3): %v", err)
	}
}

// A capture records a kernel, copies, a memset and a host function without
// running them; each launch of the instantiated graph runs them all, in
// order.
func (s *suite) graphReplay(t *testing.T) {
	ctx := s.a
	st := newStream(t, ctx)
	const n = 1000
	v := newVecAdd(t, ctx, n)
	c2, err := rt.Alloc[float32](ctx, n)
	must(t, err)
	defer c2.Free()
	pin, err := rt.AllocPinned[float32](ctx, n)
	must(t, err)
	defer pin.Free()
	before, err := s.total.Get(ctx)
	must(t, err)
	var hits atomic.Int32
	g, err := st.Capture(func(st *rt.Stream) error {
		return errors.Join(
			v.run(s, rt.Linear(n, 128).On(st)),
			c2.CopyFromBufferAsync(st, v.c),
			v.c.ZeroAsync(st),
			c2.CopyToAsync(st, pin.Slice()),
			st.LaunchHostFunc(func() { hits.Add(1) }),
			s.runAddManaged(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: st}, 1))
	})
	must(t, err)
	defer g.Destroy()
	if hits.Load() != 0 || pin.Slice()[n-1] != 0 {
		t.Errorf("the capture ran its work: host function ran %d times, the copy gave %v", hits.Load(), pin.Slice()[n-1])
	}
	nodes, err := g.Nodes()
	must(t, err)
	var types []rt.NodeType
	for _, nd := range nodes {
		typ, err := g.NodeType(nd)
		must(t, err)
		types = append(types, typ)
	}
	want := []rt.NodeType{rt.NodeKernel, rt.NodeMemcpy, rt.NodeMemset, rt.NodeMemcpy, rt.NodeHost, rt.NodeKernel}
	if !slices.Equal(types, want) {
		t.Errorf("the captured graph's nodes are %v, want %v", types, want)
	}
	if kn, err := g.NodesOfType(rt.NodeKernel); err != nil || len(kn) != 2 || kn[0] != nodes[0] || kn[1] != nodes[5] {
		t.Errorf("NodesOfType(NodeKernel) = %v, %v; want nodes 0 and 5 of %v", kn, err, nodes)
	}
	x, err := g.Instantiate()
	must(t, err)
	defer x.Destroy()
	must(t, x.Upload(st))
	const launches = 3
	for i := 0; i < launches; i++ {
		must(t, x.Launch(st))
	}
	must(t, st.Synchronize())
	if got := hits.Load(); got != launches {
		t.Errorf("the host node ran %d times in %d launches", got, launches)
	}
	if i := firstDiff(pin.Slice(), v.want); i >= 0 {
		t.Errorf("after the graph, pinned[%d] = %v, want %v (kernel, then DtoD, then DtoH)", i, pin.Slice()[i], v.want[i])
	}
	if c, _ := v.c.ToHost(); firstDiff(c, make([]float32, n)) >= 0 {
		t.Errorf("the memset node ran before the copy, or not at all: c = %v…", c[:4])
	}
	if after, err := s.total.Get(ctx); err != nil || after != before+launches {
		t.Errorf("managedTotal = %d, %v after %d launches of a graph adding 1; want %d", after, err, launches, before+launches)
	}
}

// A kernel node takes new arguments, through the typed update function,
// from the next launch on; the graph it came from keeps its own.
func (s *suite) graphNodeUpdate(t *testing.T) {
	ctx := s.a
	st := newStream(t, ctx)
	const n = 1000
	v1, v2 := newVecAdd(t, ctx, n), newVecAdd(t, ctx, n)
	cfg := rt.Linear(n, 128)
	var node rt.GraphNode
	g, err := st.Capture(func(st *rt.Stream) error {
		if _, err := st.CapturedNode(); !errors.Is(err, rt.ErrIllegalState) {
			t.Errorf("CapturedNode before any captured work: %v, want ErrIllegalState", err)
		}
		if err := v1.run(s, cfg.On(st)); err != nil {
			return err
		}
		var err error
		node, err = st.CapturedNode()
		return err
	})
	must(t, err)
	defer g.Destroy()
	if _, err := st.CapturedNode(); !errors.Is(err, rt.ErrIllegalState) {
		t.Errorf("CapturedNode after the capture: %v, want ErrIllegalState", err)
	}
	if kn, _ := g.NodesOfType(rt.NodeKernel); len(kn) != 1 || kn[0] != node {
		t.Errorf("CapturedNode = %v, the graph's kernel nodes %v", node, kn)
	}
	x, err := g.Instantiate()
	must(t, err)
	defer x.Destroy()
	must(t, x.Launch(st))
	must(t, st.Synchronize())
	v1.check(t, "the graph as captured")

	// Point the node at the second buffers.
	kn := x.KernelNode(node)
	must(t, s.vecAddNode(kn, cfg, v2.a.Const(), v2.b.Const(), v2.c.Ptr, n))
	must(t, x.Launch(st))
	must(t, st.Synchronize())
	v2.check(t, "the graph after its node was updated")
	if c, _ := v1.c.ToHost(); firstDiff(c, make([]float32, n)) >= 0 {
		t.Errorf("the updated graph still wrote the first buffers: %v…", c[:4])
	}
	// A second instantiation of the graph has the captured arguments.
	x2, err := g.Instantiate()
	must(t, err)
	defer x2.Destroy()
	must(t, x2.Launch(st))
	must(t, st.Synchronize())
	v1.check(t, "a new instantiation of the captured graph")

	// A new shape: half the grid covers half the elements.
	half := rt.Linear(n/2, 128)
	must(t, s.vecAddNode(kn, half, v2.a.Const(), v2.b.Const(), v2.c.Ptr, n/2))
	must(t, x.Launch(st))
	must(t, st.Synchronize())
	got, err := v2.c.ToHost()
	must(t, err)
	if i := firstDiff(got[:n/2], v2.want[:n/2]); i >= 0 || got[n/2] != 0 {
		t.Errorf("after a shape update to %d elements: c[%d] = %v, c[%d] = %v", n/2, max(i, 0), got[max(i, 0)], n/2, got[n/2])
	}

	// Errors: rt's own checks, and a node that is not a kernel node.
	err = s.vecAdd.SetNode(kn, cfg, make([]byte, 20))
	wantCode(t, "SetNode with a 20-byte parameter buffer", err, rt.ErrInvalidValue)
	clustered := cfg
	clustered.Cluster = rt.D1(2)
	wantCode(t, "SetNode with a cluster shape", s.vecAddNode(kn, clustered, v2.a.Const(), v2.b.Const(), v2.c.Ptr, n), rt.ErrNotSupported)
	wantCode(t, "SetNode of a zero KernelNode", s.vecAddNode(rt.KernelNode{}, cfg, v2.a.Const(), v2.b.Const(), v2.c.Ptr, n), rt.ErrInvalidValue)
	g2, err := st.Capture(func(st *rt.Stream) error { return v1.c.ZeroAsync(st) })
	must(t, err)
	defer g2.Destroy()
	memset, err := g2.Nodes()
	must(t, err)
	x3, err := g2.Instantiate()
	must(t, err)
	defer x3.Destroy()
	if err := s.vecAddNode(x3.KernelNode(memset[0]), cfg, v2.a.Const(), v2.b.Const(), v2.c.Ptr, n); err == nil {
		t.Errorf("updating a memset node as a kernel node succeeded")
	}
}

// Streams join a capture through events (a fork) and leave it the same way
// (a join); a capture with work not joined back fails.
func (s *suite) graphForkJoin(t *testing.T) {
	ctx := s.a
	st, st2 := newStream(t, ctx), newStream(t, ctx)
	fork, err := ctx.NewEvent(rt.EventDisableTiming)
	must(t, err)
	defer fork.Destroy()
	join, err := ctx.NewEvent(rt.EventDisableTiming)
	must(t, err)
	defer join.Destroy()
	cnt := counter(t, ctx, 0)
	g, err := st.Capture(func(st *rt.Stream) error {
		must(t, s.runAddTo(one(st), cnt.Ptr, 1))
		must(t, fork.Record(st))
		must(t, st2.WaitEvent(fork))
		if status, err := st2.CaptureStatus(); status != rt.CaptureActive || err != nil {
			t.Errorf("a stream that waited on an event of the capture: status %d, %v; want CaptureActive", status, err)
		}
		must(t, s.runAddTo(one(st2), cnt.Ptr, 10))
		must(t, s.runAddTo(one(st), cnt.Ptr, 100))
		must(t, join.Record(st2))
		must(t, st.WaitEvent(join))
		if _, err := st.CapturedNode(); !errors.Is(err, rt.ErrIllegalState) {
			t.Errorf("CapturedNode after a join of two branches: %v, want ErrIllegalState", err)
		}
		return s.runAddTo(one(st), cnt.Ptr, 1000)
	})
	must(t, err)
	defer g.Destroy()
	if status, _ := st2.CaptureStatus(); status != rt.CaptureNone {
		t.Errorf("the joined stream is still capturing after EndCapture (status %d)", status)
	}
	x, err := g.Instantiate()
	must(t, err)
	defer x.Destroy()
	must(t, x.Launch(st))
	must(t, x.Launch(st))
	must(t, st.Synchronize())
	if got := read1(t, cnt); got != 2222 {
		t.Errorf("two launches of the forked and joined graph counted %d, want 2222", got)
	}

	// Unjoined: st2's work is not joined back.
	st3, st4 := newStream(t, ctx), newStream(t, ctx)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	must(t, st3.BeginCapture(rt.CaptureThreadLocal))
	must(t, s.runAddTo(one(st3), cnt.Ptr, 1))
	must(t, fork.Record(st3))
	must(t, st4.WaitEvent(fork))
	must(t, s.runAddTo(one(st4), cnt.Ptr, 1))
	_, err = st3.EndCapture()
	wantCode(t, "EndCapture with a forked stream not joined back", err, rt.ErrStreamCaptureUnjoined)
	if status, _ := st4.CaptureStatus(); status != rt.CaptureNone {
		t.Logf("the forked stream's status after the failed EndCapture: %d", status)
		st4.EndCapture()
	}
}

// What a capture forbids, and what it does to the capture.
func (s *suite) graphRules(t *testing.T) {
	ctx := s.a
	st := newStream(t, ctx)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	wantCode(t, "BeginCapture of the NULL stream", ctx.NullStream().BeginCapture(rt.CaptureGlobal), rt.ErrStreamCaptureUnsupported)
	_, err := st.EndCapture()
	wantCode(t, "EndCapture of a stream not capturing", err, rt.ErrIllegalState)

	buf, err := rt.AllocFrom(ctx, iota32(64))
	must(t, err)
	defer buf.Free()
	host := make([]float32, 64)

	// rt's synchronous copies wait for the context: a capture forbids them
	// and fails.
	must(t, st.BeginCapture(rt.CaptureGlobal))
	wantCode(t, "BeginCapture of a capturing stream", st.BeginCapture(rt.CaptureGlobal), rt.ErrIllegalState)
	wantCode(t, "a synchronous copy during a global capture", buf.CopyTo(host), rt.ErrStreamCaptureUnsupported)
	_, err = st.EndCapture()
	wantCode(t, "EndCapture after a forbidden call", err, rt.ErrStreamCaptureInvalidated)

	// Synchronizing the capturing stream.
	must(t, st.BeginCapture(rt.CaptureThreadLocal))
	wantCode(t, "Synchronize of a capturing stream", st.Synchronize(), rt.ErrStreamCaptureUnsupported)
	_, err = st.EndCapture()
	wantCode(t, "EndCapture after synchronizing the capturing stream", err, rt.ErrStreamCaptureInvalidated)

	// rt refuses to capture a copy of Go memory, whose address a graph
	// would keep, before the driver sees it: the capture goes on.
	must(t, st.BeginCapture(rt.CaptureThreadLocal))
	wantCode(t, "an async copy into Go memory during a capture", buf.CopyToAsync(st, host), rt.ErrStreamCaptureUnsupported)
	wantCode(t, "an async copy from Go memory during a capture", buf.CopyFromAsync(st, host), rt.ErrStreamCaptureUnsupported)
	g, err := st.EndCapture()
	must(t, err)
	if nodes, err := g.Nodes(); err != nil || len(nodes) != 0 {
		t.Errorf("the refused copies made nodes %v (%v)", nodes, err)
	}
	must(t, g.Destroy())

	// A thread-local capture leaves other threads alone, and a relaxed one
	// this thread too: synchronous copies of another context go through.
	other, err := rt.AllocFrom(s.b, iota32(64))
	must(t, err)
	defer other.Free()
	must(t, st.BeginCapture(rt.CaptureThreadLocal))
	done := make(chan error)
	go func() { done <- other.CopyTo(make([]float32, 64)) }()
	if err := <-done; err != nil {
		t.Errorf("a synchronous copy on another thread during a thread-local capture: %v", err)
	}
	g, err = st.EndCapture()
	must(t, err)
	must(t, g.Destroy())
	must(t, st.BeginCapture(rt.CaptureRelaxed))
	if err := other.CopyTo(host); err != nil {
		t.Errorf("a synchronous copy of another context during a relaxed capture: %v", err)
	}
	g, err = st.EndCapture()
	must(t, err)
	must(t, g.Destroy())

	// Capture fails with fn's error, and leaves the stream usable.
	boom := errors.New("boom")
	if _, err := st.Capture(func(*rt.Stream) error { return boom }); err != boom {
		t.Errorf("Capture whose function fails: %v, want its error", err)
	}
	if status, _ := st.CaptureStatus(); status != rt.CaptureNone {
		t.Errorf("after a failed Capture the stream's capture status is %d", status)
	}
	must(t, buf.CopyTo(host))
}

// A child node runs a copy of its graph; a graph launch cannot be captured
// (CUDA 13.0 refuses it: add the graph as a child node).
func (s *suite) graphChildren(t *testing.T) {
	ctx := s.a
	st := newStream(t, ctx)
	cnt := counter(t, ctx, 0)
	child, err := st.Capture(func(st *rt.Stream) error { return s.runAddTo(one(st), cnt.Ptr, 1) })
	must(t, err)
	parent, err := ctx.NewGraph()
	must(t, err)
	defer parent.Destroy()
	n1, err := parent.AddChild(child)
	must(t, err)
	n2, err := parent.AddChild(child, n1)
	must(t, err)
	_, err = parent.AddEmpty(n1, n2)
	must(t, err)
	must(t, child.Destroy()) // the parent has its copies
	if types := nodeTypes(t, parent); !slices.Equal(types, []rt.NodeType{rt.NodeGraph, rt.NodeGraph, rt.NodeEmpty}) {
		t.Errorf("parent's nodes are %v", types)
	}
	x, err := parent.Instantiate()
	must(t, err)
	defer x.Destroy()
	must(t, x.Launch(st))
	must(t, x.Launch(st))
	must(t, st.Synchronize())
	if got := read1(t, cnt); got != 4 {
		t.Errorf("two launches of a graph of two child graphs counted %d, want 4", got)
	}
	_, err = st.Capture(func(st *rt.Stream) error { return x.Launch(st) })
	wantCode(t, "a graph launch during a capture", err, rt.ErrStreamCaptureUnsupported)
	if status, _ := st.CaptureStatus(); status != rt.CaptureNone {
		t.Errorf("after the failed Capture the stream's status is %d", status)
	}
}

func nodeTypes(t *testing.T, g *rt.Graph) []rt.NodeType {
	t.Helper()
	nodes, err := g.Nodes()
	must(t, err)
	var out []rt.NodeType
	for _, n := range nodes {
		typ, err := g.NodeType(n)
		must(t, err)
		out = append(out, typ)
	}
	return out
}

// External event records and waits are nodes of the graph; plain ones mark
// the capture (and the event cannot be waited for from the host while it
// does).
func (s *suite) graphEvents(t *testing.T) {
	ctx := s.a
	st, other := newStream(t, ctx), newStream(t, ctx)
	start, err := ctx.NewEvent(rt.EventDefault)
	must(t, err)
	defer start.Destroy()
	rec, err := ctx.NewEvent(rt.EventDefault)
	must(t, err)
	defer rec.Destroy()
	gate, err := ctx.NewEvent(rt.EventDisableTiming)
	must(t, err)
	defer gate.Destroy()
	marker, err := ctx.NewEvent(rt.EventDisableTiming)
	must(t, err)
	defer marker.Destroy()
	cnt := counter(t, ctx, 0)

	// A plain record marks the capture: the event cannot be queried, and
	// trying to invalidates the capture.
	func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		must(t, st.BeginCapture(rt.CaptureThreadLocal))
		must(t, s.runAddTo(one(st), cnt.Ptr, 1))
		must(t, marker.Record(st))
		_, err := marker.Query()
		wantCode(t, "Query of an event recorded in a capture", err, rt.ErrCapturedEvent)
		_, err = st.EndCapture()
		wantCode(t, "EndCapture after querying an event of the capture", err, rt.ErrStreamCaptureInvalidated)
	}()

	// External records and waits are nodes.
	must(t, gate.Record(other))
	must(t, other.Synchronize())
	g, err := st.Capture(func(st *rt.Stream) error {
		must(t, st.WaitEventWithFlags(gate, rt.EventWaitExternal))
		must(t, s.runAddTo(one(st), cnt.Ptr, 1))
		return rec.RecordWithFlags(st, rt.EventRecordExternal)
	})
	must(t, err)
	defer g.Destroy()
	if types := nodeTypes(t, g); !slices.Equal(types, []rt.NodeType{rt.NodeWaitEvent, rt.NodeKernel, rt.NodeEventRecord}) {
		t.Errorf("nodes %v, want an event wait, a kernel and an event record", types)
	}
	x, err := g.Instantiate()
	must(t, err)
	defer x.Destroy()
	// The graph waits for gate, recorded on another stream behind a host
	// function that holds it until released.
	// Nothing in the window while the graph waits may synchronize (the
	// host function would never return): the peek's stream and page-locked
	// memory are made before it.
	peek := newStream(t, ctx)
	pin, err := rt.AllocPinned[uint32](ctx, 1)
	must(t, err)
	defer pin.Free()
	release := make(chan struct{})
	must(t, other.LaunchHostFunc(func() { <-release }))
	must(t, gate.Record(other))
	must(t, start.Record(st))
	must(t, x.Launch(st))
	must(t, cnt.CopyToAsync(peek, pin.Slice()))
	must(t, peek.Synchronize())
	if got := pin.Slice()[0]; got != 0 {
		t.Errorf("the graph ran its kernel (count %d) before the event its wait node waits for", got)
	}
	close(release)
	must(t, st.Synchronize())
	if got := read1(t, cnt); got != 1 {
		t.Errorf("the graph counted %d, want 1", got)
	}
	if done, err := rec.Query(); err != nil || !done {
		t.Errorf("after the graph, its record node's event: %v, %v", done, err)
	}
	// The record node recorded rec: it has a time.
	if ms, err := rt.Elapsed(start, rec); err != nil || ms < 0 {
		t.Errorf("Elapsed from a record before the graph to its record node: %v ms, %v", ms, err)
	}
}

// IF, IF/ELSE, WHILE and SWITCH nodes, with conditions set by kernels and
// bodies filled by capture.
func (s *suite) graphConditionals(t *testing.T) {
	s.loadGraphLib(t)
	ctx := s.a
	st := newStream(t, ctx)

	// newCond makes a graph whose first node, a setCond kernel, sets a new
	// condition to v.
	newCond := func(t *testing.T, v uint32) (*rt.Graph, rt.Condition, rt.GraphNode) {
		g, err := ctx.NewGraph()
		must(t, err)
		t.Cleanup(func() { g.Destroy() })
		c, err := g.NewCondition(0, true)
		if errors.Is(err, rt.ErrNotSupported) {
			t.Skipf("no conditional nodes: %v", err)
		}
		must(t, err)
		must(t, g.CaptureInto(st, func(st *rt.Stream) error { return s.runSetCond(one(st), uint64(c), v) }))
		nodes, err := g.Nodes()
		must(t, err)
		return g, c, nodes[0]
	}
	fill := func(t *testing.T, body *rt.Graph, cnt rt.Buffer[uint32], v uint32) {
		must(t, body.CaptureInto(st, func(st *rt.Stream) error { return s.runAddTo(one(st), cnt.Ptr, v) }))
	}
	// run launches x after setting its condition node to v, and returns
	// how much the counter grew.
	run := func(t *testing.T, x *rt.GraphExec, set rt.GraphNode, c rt.Condition, v uint32, cnt rt.Buffer[uint32]) uint32 {
		before := read1(t, cnt)
		must(t, s.setCondNode(x.KernelNode(set), one(nil), uint64(c), v))
		must(t, x.Launch(st))
		must(t, st.Synchronize())
		return read1(t, cnt) - before
	}

	t.Run("if", func(t *testing.T) {
		g, c, set := newCond(t, 1)
		cnt := counter(t, ctx, 0)
		_, body, err := g.AddIf(c, set)
		must(t, err)
		fill(t, body, cnt, 1)
		if err := body.Destroy(); !errors.Is(err, rt.ErrNotPermitted) {
			t.Errorf("Destroy of a body: %v, want ErrNotPermitted", err)
		}
		x, err := g.Instantiate()
		must(t, err)
		defer x.Destroy()
		for _, tc := range []struct{ v, want uint32 }{{1, 1}, {0, 0}, {7, 1}} {
			if got := run(t, x, set, c, tc.v, cnt); got != tc.want {
				t.Errorf("IF with condition %d ran its body %d times, want %d", tc.v, got, tc.want)
			}
		}
	})
	t.Run("while", func(t *testing.T) {
		g, err := ctx.NewGraph()
		must(t, err)
		defer g.Destroy()
		c, err := g.NewCondition(1, true)
		if errors.Is(err, rt.ErrNotSupported) {
			t.Skipf("no conditional nodes: %v", err)
		}
		must(t, err)
		_, body, err := g.AddWhile(c)
		must(t, err)
		hits, left := counter(t, ctx, 0), counter(t, ctx, 5)
		must(t, body.CaptureInto(st, func(st *rt.Stream) error {
			return errors.Join(s.runAddTo(one(st), hits.Ptr, 1), s.runCountDown(one(st), left.Ptr, uint64(c)))
		}))
		x, err := g.Instantiate()
		must(t, err)
		defer x.Destroy()
		must(t, x.Launch(st))
		must(t, st.Synchronize())
		if h, l := read1(t, hits), read1(t, left); h != 5 || l != 0 {
			t.Errorf("a WHILE counting down from 5 ran its body %d times and left %d", h, l)
		}
		must(t, left.CopyFrom([]uint32{3}))
		must(t, x.Launch(st))
		must(t, st.Synchronize())
		if h := read1(t, hits); h != 8 {
			t.Errorf("a second launch counting down from 3 brought the total to %d, want 8", h)
		}
	})
	t.Run("if else", func(t *testing.T) {
		g, c, set := newCond(t, 0)
		cnt := counter(t, ctx, 0)
		_, then, els, err := g.AddIfElse(c, set)
		if err != nil {
			t.Skipf("no IF node with an else body (CUDA 12.8): %v", err)
		}
		fill(t, then, cnt, 1)
		fill(t, els, cnt, 100)
		x, err := g.Instantiate()
		must(t, err)
		defer x.Destroy()
		for _, tc := range []struct{ v, want uint32 }{{0, 100}, {1, 1}, {2, 1}} {
			if got := run(t, x, set, c, tc.v, cnt); got != tc.want {
				t.Errorf("IF/ELSE with condition %d counted %d, want %d", tc.v, got, tc.want)
			}
		}
	})
	t.Run("switch", func(t *testing.T) {
		g, c, set := newCond(t, 0)
		cnt := counter(t, ctx, 0)
		_, bodies, err := g.AddSwitch(c, 3, set)
		if err != nil {
			t.Skipf("no SWITCH node (CUDA 12.8): %v", err)
		}
		for i, b := range bodies {
			fill(t, b, cnt, []uint32{1, 10, 100}[i])
		}
		x, err := g.Instantiate()
		must(t, err)
		defer x.Destroy()
		for _, tc := range []struct{ v, want uint32 }{{0, 1}, {1, 10}, {2, 100}, {3, 0}} {
			if got := run(t, x, set, c, tc.v, cnt); got != tc.want {
				t.Errorf("SWITCH on %d counted %d, want %d", tc.v, got, tc.want)
			}
		}
	})
}
