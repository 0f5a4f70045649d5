package soft

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

// Graphs and stream capture (rt.Grapher). A capture turns the work queued on
// a stream into nodes of a graph instead of running it: every piece of
// stream work goes through submit, which either queues it (enqueue) or adds
// it to the capture. Streams join a capture by waiting on an event recorded
// in it, as in CUDA, and the calls a capture's mode forbids fail with
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED. graphrun.go instantiates and runs
// graphs.

// graphState is the driver's graphs, nodes, instantiated graphs, conditions
// and active captures; mu guards them and the capture fields of streams and
// events. Its zero value is ready to use.
type graphState struct {
	mu       sync.Mutex
	graphs   map[rt.GraphHandle]*sgraph
	nodes    map[rt.GraphNodeHandle]*snode
	execs    map[rt.GraphExecHandle]*sexec
	conds    map[rt.ConditionalHandle]*scond
	captures map[*capture]struct{}
	nextCond uint64
}

// sgraph is a graph: its nodes in the order they were added, which is
// always an order that respects their dependencies.
type sgraph struct {
	h     rt.GraphHandle
	ctx   *context
	nodes []*snode
	owner *snode // a conditional node's body: the node
	conds []*scond
}

// snode is one node. Which fields are set depends on typ.
type snode struct {
	h    rt.GraphNodeHandle
	g    *sgraph
	typ  rt.NodeType
	deps []*snode
	orig *snode // in an instantiated graph: the node it was copied from

	kern  *kernelNode  // NodeKernel
	run   func() error // NodeMemcpy, NodeMemset, NodeHost, NodeMemAlloc, NodeMemFree
	ev    *event       // NodeEventRecord, NodeWaitEvent
	child *sgraph      // NodeGraph: a copy of the child
	// NodeConditional
	cond   *scond
	ctype  rt.CondType
	bodies []*sgraph
}

// kernelNode is a captured or updated launch: the kernel and everything its
// launch checked and copied.
type kernelNode struct {
	p           *exec.Program
	ctx         *context
	grid, block rt.Dim3
	cluster     rt.Dim3 // the launch's cluster dimension (zero: none)
	dynShared   uint32
	params      []byte // 8-byte aligned (its backing array is []uint64)
	vars        []uint64
	coop        bool
	l           *exec.Launch // the last run's launch, reused by the next (launch)
}

// scond is a conditional handle of a graph.
type scond struct {
	h     rt.ConditionalHandle
	g     *sgraph
	def   uint32
	flags uint32
}

// capture is one capture sequence: the graph it fills, the stream it
// began on and every stream that joined it.
type capture struct {
	g       *sgraph
	into    bool // into an existing graph (StreamBeginCaptureToGraph)
	origin  *stream
	mode    rt.CaptureMode
	tid     int
	err     error // what invalidated it
	streams map[*stream]bool
	events  []*event // events recorded in it, unmarked when it ends
}

func (gs *graphState) init() {
	if gs.graphs == nil {
		gs.graphs = map[rt.GraphHandle]*sgraph{}
		gs.nodes = map[rt.GraphNodeHandle]*snode{}
		gs.execs = map[rt.GraphExecHandle]*sexec{}
		gs.conds = map[rt.ConditionalHandle]*scond{}
		gs.captures = map[*capture]struct{}{}
	}
}

// newHandle is a fresh handle of the driver's one sequence.
func (d *Driver) newHandle() uintptr {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.handle()
}

// newGraph registers an empty graph in c; gx.mu must be held.
func (d *Driver) newGraph(c *context, owner *snode) *sgraph {
	d.gx.init()
	g := &sgraph{h: rt.GraphHandle(d.newHandle()), ctx: c, owner: owner}
	d.gx.graphs[g.h] = g
	return g
}

// addNode adds n to g after deps; gx.mu must be held.
func (d *Driver) addNode(g *sgraph, n *snode, deps []*snode) *snode {
	n.h = rt.GraphNodeHandle(d.newHandle())
	n.g = g
	n.deps = append([]*snode(nil), deps...)
	g.nodes = append(g.nodes, n)
	d.gx.nodes[n.h] = n
	return n
}

// graph resolves a graph handle; gx.mu must be held.
func (d *Driver) graph(op string, h rt.GraphHandle) (*sgraph, error) {
	d.gx.init()
	g := d.gx.graphs[h]
	if g == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidValue, "graph %#x does not exist (destroyed?)", uintptr(h))
	}
	return g, nil
}

// depNodes resolves dependency handles, which must be nodes of g; gx.mu
// must be held.
func (d *Driver) depNodes(op string, g *sgraph, deps []rt.GraphNodeHandle) ([]*snode, error) {
	out := make([]*snode, 0, len(deps))
	for _, h := range deps {
		n := d.gx.nodes[h]
		if n == nil || n.g != g {
			return nil, rt.Errorf(op, rt.ErrInvalidValue, "dependency %#x is not a node of graph %#x", uintptr(h), uintptr(g.h))
		}
		for _, m := range out {
			if m == n {
				return nil, rt.Errorf(op, rt.ErrInvalidValue, "dependency %#x is listed twice", uintptr(h))
			}
		}
		out = append(out, n)
	}
	return out, nil
}

// ---- capture ----

// StreamBeginCapture is cuStreamBeginCapture.
func (d *Driver) StreamBeginCapture(ch rt.CtxHandle, sh rt.StreamHandle, mode rt.CaptureMode) error {
	return d.beginCapture("cuStreamBeginCapture", ch, sh, 0, nil, mode)
}

// StreamBeginCaptureToGraph is cuStreamBeginCaptureToGraph.
func (d *Driver) StreamBeginCaptureToGraph(ch rt.CtxHandle, sh rt.StreamHandle, gh rt.GraphHandle, deps []rt.GraphNodeHandle, mode rt.CaptureMode) error {
	return d.beginCapture("cuStreamBeginCaptureToGraph", ch, sh, gh, deps, mode)
}

func (d *Driver) beginCapture(op string, ch rt.CtxHandle, sh rt.StreamHandle, gh rt.GraphHandle, deps []rt.GraphNodeHandle, mode rt.CaptureMode) error {
	if sh == 0 || sh == rt.StreamLegacy {
		return rt.Errorf(op, rt.ErrStreamCaptureUnsupported, "the NULL (legacy default) stream cannot be captured; capture a stream of your own")
	}
	if mode < rt.CaptureGlobal || mode > rt.CaptureRelaxed {
		return rt.Errorf(op, rt.ErrInvalidValue, "capture mode %d", mode)
	}
	s, err := d.stream(op, ch, sh)
	if err != nil {
		return err
	}
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	d.gx.init()
	if s.capt != nil {
		return rt.Errorf(op, rt.ErrIllegalState, "stream %#x is already capturing", uintptr(sh))
	}
	cp := &capture{origin: s, mode: mode, tid: tid(), streams: map[*stream]bool{s: true}}
	var tail []*snode
	if gh != 0 {
		g, err := d.graph(op, gh)
		if err != nil {
			return err
		}
		if g.ctx != s.ctx {
			return rt.Errorf(op, rt.ErrInvalidValue, "graph %#x belongs to another context than stream %#x", uintptr(gh), uintptr(sh))
		}
		if tail, err = d.depNodes(op, g, deps); err != nil {
			return err
		}
		cp.g, cp.into = g, true
	} else {
		cp.g = d.newGraph(s.ctx, nil)
	}
	s.capt, s.ctail = cp, tail
	d.gx.captures[cp] = struct{}{}
	return nil
}

// StreamEndCapture is cuStreamEndCapture.
func (d *Driver) StreamEndCapture(ch rt.CtxHandle, sh rt.StreamHandle) (rt.GraphHandle, error) {
	const op = "cuStreamEndCapture"
	s, err := d.stream(op, ch, sh)
	if err != nil {
		return 0, err
	}
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	cp := s.capt
	switch {
	case cp == nil:
		return 0, rt.Errorf(op, rt.ErrIllegalState, "stream %#x is not capturing", uintptr(sh))
	case cp.mode == rt.CaptureThreadLocal && tid() != cp.tid:
		return 0, rt.Errorf(op, rt.ErrStreamCaptureWrongThread, "the thread-local capture began on another OS thread (lock the goroutine to its thread, or use rt.Stream.Capture)")
	case cp.origin != s:
		d.invalidate(cp, rt.Errorf(op, rt.ErrStreamCaptureUnmatched, "capture ended on stream %#x, not on the stream it began on", uintptr(sh)))
		return 0, cp.err
	}
	err = nil
	if cp.err != nil {
		err = rt.Errorf(op, rt.ErrStreamCaptureInvalidated, "%v", cp.err)
	} else {
		for t := range cp.streams {
			if t != s && !joined(t.ctail, s.ctail) {
				err = rt.Errorf(op, rt.ErrStreamCaptureUnjoined, "stream %#x joined the capture and its work was not joined back into stream %#x (wait on an event recorded after it)", uintptr(t.h), uintptr(sh))
				break
			}
		}
	}
	d.endCapture(cp)
	if err != nil {
		if !cp.into {
			d.dropGraph(cp.g)
		}
		return 0, err
	}
	return cp.g.h, nil
}

// joined reports whether every node of tail is in ends or an ancestor of
// one of them.
func joined(tail, ends []*snode) bool {
	seen := map[*snode]bool{}
	var walk func(n *snode)
	walk = func(n *snode) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, p := range n.deps {
			walk(p)
		}
	}
	for _, n := range ends {
		walk(n)
	}
	for _, n := range tail {
		if !seen[n] {
			return false
		}
	}
	return true
}

// endCapture takes cp's streams and events out of it; gx.mu must be held.
func (d *Driver) endCapture(cp *capture) {
	for t := range cp.streams {
		t.capt, t.ctail = nil, nil
	}
	for _, e := range cp.events {
		if e.capt == cp {
			e.capt, e.cnodes = nil, nil
		}
	}
	delete(d.gx.captures, cp)
}

// dropCapture takes s, being destroyed, out of the capture it takes part
// in: the capture it began is ended and its graph discarded, and one it
// joined is invalidated (its work is gone), so that nothing is left that
// forbids the context's later calls.
func (d *Driver) dropCapture(s *stream) {
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	cp := s.capt
	if cp == nil {
		return
	}
	if cp.origin != s {
		d.invalidate(cp, rt.Errorf("cuStreamDestroy", rt.ErrStreamCaptureInvalidated, "stream %#x, which had joined the capture, was destroyed", uintptr(s.h)))
		delete(cp.streams, s)
		s.capt, s.ctail = nil, nil
		return
	}
	d.endCapture(cp)
	if !cp.into {
		d.dropGraph(cp.g)
	}
}

// invalidate records why cp failed (the first reason); gx.mu must be held.
func (d *Driver) invalidate(cp *capture, err error) {
	if cp.err == nil {
		cp.err = err
	}
}

// StreamCaptureInfo is cuStreamGetCaptureInfo.
func (d *Driver) StreamCaptureInfo(ch rt.CtxHandle, sh rt.StreamHandle, deps []rt.GraphNodeHandle) (rt.CaptureStatus, int, error) {
	s, err := d.stream("cuStreamGetCaptureInfo", ch, sh)
	if err != nil {
		return rt.CaptureNone, 0, err
	}
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	cp := s.capt
	if cp == nil {
		return rt.CaptureNone, 0, nil
	}
	if cp.err != nil {
		return rt.CaptureInvalidated, 0, nil
	}
	for i, n := range s.ctail {
		if i < len(deps) {
			deps[i] = n.h
		}
	}
	return rt.CaptureActive, len(s.ctail), nil
}

// capturing reports whether s is being captured; gx.mu must be held.
func (s *stream) capturing() bool { return s.capt != nil }

// streamCaptured reports whether (ch, sh) names a stream being captured.
func (d *Driver) streamCaptured(op string, ch rt.CtxHandle, sh rt.StreamHandle) bool {
	s, err := d.stream(op, ch, sh)
	if err != nil {
		return false
	}
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	return s.capturing()
}

// submit queues fn on s as the work of node n (a kernel's, or the node
// type fn's work makes), or, while s is being captured, adds n, doing fn,
// to the capture. It returns the queued op's mark, or none if the work was
// captured. A captured copy of host memory reads or writes it at each
// launch of the graph, page-locked or not, as CUDA's does (rt refuses Go
// memory there: see rt.Stream.captureHost).
func (d *Driver) submit(op string, s *stream, n *snode, fn func() error) (mark, error) {
	w := s.take()
	w.fn = fn
	return d.submitWork(op, s, n, w)
}

// submitWork is submit of w; n nil is w's launch as a kernel node.
func (d *Driver) submitWork(op string, s *stream, n *snode, w *work) (mark, error) {
	d.gx.mu.Lock()
	if cp := s.capt; cp != nil {
		defer d.gx.mu.Unlock()
		if cp.err != nil {
			return mark{}, rt.Errorf(op, rt.ErrStreamCaptureInvalidated, "the capture of stream %#x failed earlier: %v", uintptr(s.h), cp.err)
		}
		if n == nil {
			n = launchNode(&w.l)
		} else if n.typ != rt.NodeKernel {
			n.run = w.fn
		}
		d.addNode(cp.g, n, s.ctail)
		s.ctail = append(s.ctail[:0], n)
		return mark{}, nil
	}
	if err := d.legacyImplicit(op, s); err != nil {
		d.gx.mu.Unlock()
		return mark{}, err
	}
	d.gx.mu.Unlock()
	return s.ctx.push(s, w), nil
}

// legacyImplicit fails work on a context's NULL stream while one of its
// blocking streams is being captured: the NULL stream would have to wait
// for the captured work (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, which
// invalidates the capture). gx.mu must be held.
func (d *Driver) legacyImplicit(op string, s *stream) error {
	if s != s.ctx.null {
		return nil
	}
	for cp := range d.gx.captures {
		for t := range cp.streams {
			if t.ctx == s.ctx && t.flags&streamNonBlocking == 0 {
				err := rt.Errorf(op, rt.ErrStreamCaptureImplicit, "the NULL stream would wait for blocking stream %#x, which is being captured", uintptr(t.h))
				d.invalidate(cp, err)
				return err
			}
		}
	}
	return nil
}

// forbidden fails a call that a capture forbids, as CUDA does for
// synchronous copies and memsets, allocations and context synchronization
// (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED): a CaptureGlobal capture forbids
// them on every thread, a CaptureThreadLocal one on its own thread, a
// CaptureRelaxed one nowhere; and a call that waits for all work in c
// (wait) is invalid while a stream of c is being captured, whatever the
// mode, and invalidates that capture.
func (d *Driver) forbidden(op string, c *context, wait bool) error {
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	for cp := range d.gx.captures {
		inCtx := wait && cp.origin.ctx == c
		// tid is a system call: asked only of a thread-local capture (a
		// sync outside any capture, the common case, makes none).
		if !inCtx && (cp.mode == rt.CaptureRelaxed || cp.mode == rt.CaptureThreadLocal && cp.tid != tid()) {
			continue
		}
		err := rt.Errorf(op, rt.ErrStreamCaptureUnsupported, "not permitted while stream %#x is being captured (capture mode %d)", uintptr(cp.origin.h), cp.mode)
		if inCtx {
			d.invalidate(cp, err)
		}
		return err
	}
	return nil
}

// capturedStream fails an operation that cannot be captured on a
// capturing stream (a synchronize or query of it), invalidating the
// capture.
func (d *Driver) capturedStream(op string, s *stream) error {
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	if cp := s.capt; cp != nil {
		err := rt.Errorf(op, rt.ErrStreamCaptureUnsupported, "stream %#x is being captured", uintptr(s.h))
		d.invalidate(cp, err)
		return err
	}
	return nil
}

// capturedEvent fails an operation on an event last recorded in a capture
// (CUDA_ERROR_CAPTURED_EVENT), which invalidates the capture, as CUDA's.
func (d *Driver) capturedEvent(op string, e *event) error {
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	if e.capt != nil {
		err := rt.Errorf(op, rt.ErrCapturedEvent, "the event was last recorded in a capture; it completes when the graph runs")
		d.invalidate(e.capt, err)
		return err
	}
	return nil
}

// recordCaptured handles cuEventRecord on a capturing stream: without
// EventRecordExternal the event marks the stream's position in the capture
// for other streams to wait on (a fork or join); with it, it becomes an
// event record node. It reports whether s was capturing.
func (d *Driver) recordCaptured(op string, e *event, s *stream, flags uint32) (bool, error) {
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	cp := s.capt
	if cp == nil {
		e.capt, e.cnodes = nil, nil // recorded outside a capture again
		return false, nil
	}
	if cp.err != nil {
		return true, rt.Errorf(op, rt.ErrStreamCaptureInvalidated, "the capture of stream %#x failed earlier: %v", uintptr(s.h), cp.err)
	}
	if flags&rt.EventRecordExternal != 0 {
		n := d.addNode(cp.g, &snode{typ: rt.NodeEventRecord, ev: e}, s.ctail)
		s.ctail = append(s.ctail[:0], n)
		return true, nil
	}
	e.capt, e.cnodes = cp, append([]*snode(nil), s.ctail...)
	cp.events = append(cp.events, e)
	return true, nil
}

// waitCaptured handles cuStreamWaitEvent where the stream or the event is
// in a capture. An event recorded in a capture makes s join it (or, if s
// already has, adds the event's position to s's dependencies); with
// EventWaitExternal a capturing s gets an event wait node instead. It
// reports whether it handled the wait.
func (d *Driver) waitCaptured(op string, s *stream, e *event, flags uint32) (bool, error) {
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	cp := s.capt
	if cp != nil && cp.err != nil {
		return true, rt.Errorf(op, rt.ErrStreamCaptureInvalidated, "the capture of stream %#x failed earlier: %v", uintptr(s.h), cp.err)
	}
	switch {
	case cp != nil && flags&rt.EventWaitExternal != 0:
		n := d.addNode(cp.g, &snode{typ: rt.NodeWaitEvent, ev: e}, s.ctail)
		s.ctail = append(s.ctail[:0], n)
		return true, nil
	case e.capt == nil && cp == nil:
		return false, nil
	case e.capt == nil:
		err := rt.Errorf(op, rt.ErrStreamCaptureIsolation, "the capturing stream %#x would wait for an event recorded outside the capture (use EventWaitExternal for a wait node)", uintptr(s.h))
		d.invalidate(cp, err)
		return true, err
	case cp == nil:
		// A fork: s joins the capture where the event was recorded.
		s.capt, s.ctail = e.capt, append([]*snode(nil), e.cnodes...)
		e.capt.streams[s] = true
		return true, nil
	case cp != e.capt:
		err := rt.Errorf(op, rt.ErrStreamCaptureMerge, "stream %#x and the event belong to two different captures", uintptr(s.h))
		d.invalidate(cp, err)
		d.invalidate(e.capt, err)
		return true, err
	}
	for _, n := range e.cnodes {
		if !contains(s.ctail, n) {
			s.ctail = append(s.ctail, n)
		}
	}
	return true, nil
}

func contains(ns []*snode, n *snode) bool {
	for _, m := range ns {
		if m == n {
			return true
		}
	}
	return false
}

// ---- building graphs ----

// GraphCreate is cuGraphCreate.
func (d *Driver) GraphCreate(ch rt.CtxHandle) (rt.GraphHandle, error) {
	c, err := d.ctx("cuGraphCreate", ch)
	if err != nil {
		return 0, err
	}
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	return d.newGraph(c, nil).h, nil
}

// GraphDestroy is cuGraphDestroy. A conditional node's body goes with its
// node's graph.
func (d *Driver) GraphDestroy(h rt.GraphHandle) error {
	const op = "cuGraphDestroy"
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	g, err := d.graph(op, h)
	if err != nil {
		return err
	}
	if g.owner != nil {
		return rt.Errorf(op, rt.ErrInvalidValue, "graph %#x is the body of conditional node %#x", uintptr(h), uintptr(g.owner.h))
	}
	for cp := range d.gx.captures {
		if cp.g == g {
			return rt.Errorf(op, rt.ErrIllegalState, "graph %#x is being captured into", uintptr(h))
		}
	}
	d.dropGraph(g)
	return nil
}

// dropGraph unregisters g, its nodes, bodies and conditions; gx.mu must be
// held.
func (d *Driver) dropGraph(g *sgraph) {
	delete(d.gx.graphs, g.h)
	for _, n := range g.nodes {
		delete(d.gx.nodes, n.h)
		for _, b := range n.bodies {
			d.dropGraph(b)
		}
		if n.child != nil {
			d.dropGraph(n.child)
		}
	}
	for _, c := range g.conds {
		delete(d.gx.conds, c.h)
	}
}

// GraphNodes is cuGraphGetNodes.
func (d *Driver) GraphNodes(h rt.GraphHandle) ([]rt.GraphNodeHandle, error) {
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	g, err := d.graph("cuGraphGetNodes", h)
	if err != nil {
		return nil, err
	}
	out := make([]rt.GraphNodeHandle, len(g.nodes))
	for i, n := range g.nodes {
		out[i] = n.h
	}
	return out, nil
}

// GraphNodeType is cuGraphNodeGetType.
func (d *Driver) GraphNodeType(h rt.GraphNodeHandle) (rt.NodeType, error) {
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	d.gx.init()
	n := d.gx.nodes[h]
	if n == nil {
		return 0, rt.Errorf("cuGraphNodeGetType", rt.ErrInvalidValue, "node %#x does not exist", uintptr(h))
	}
	return n.typ, nil
}

// GraphAddEmpty is cuGraphAddEmptyNode.
func (d *Driver) GraphAddEmpty(gh rt.GraphHandle, deps []rt.GraphNodeHandle) (rt.GraphNodeHandle, error) {
	const op = "cuGraphAddEmptyNode"
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	g, err := d.graph(op, gh)
	if err != nil {
		return 0, err
	}
	ds, err := d.depNodes(op, g, deps)
	if err != nil {
		return 0, err
	}
	return d.addNode(g, &snode{typ: rt.NodeEmpty}, ds).h, nil
}

// GraphAddChild is cuGraphAddChildGraphNode: the node runs a copy of child.
func (d *Driver) GraphAddChild(gh rt.GraphHandle, deps []rt.GraphNodeHandle, ch rt.GraphHandle) (rt.GraphNodeHandle, error) {
	const op = "cuGraphAddChildGraphNode"
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	g, err := d.graph(op, gh)
	if err != nil {
		return 0, err
	}
	child, err := d.graph(op, ch)
	if err != nil {
		return 0, err
	}
	if child == g {
		return 0, rt.Errorf(op, rt.ErrInvalidValue, "a graph cannot be its own child")
	}
	ds, err := d.depNodes(op, g, deps)
	if err != nil {
		return 0, err
	}
	n := d.addNode(g, &snode{typ: rt.NodeGraph}, ds)
	n.child = d.cloneGraph(child, n, nil)
	return n.h, nil
}

// GraphConditionalCreate is cuGraphConditionalHandleCreate.
func (d *Driver) GraphConditionalCreate(ch rt.CtxHandle, gh rt.GraphHandle, def uint32, flags uint32) (rt.ConditionalHandle, error) {
	const op = "cuGraphConditionalHandleCreate"
	if flags&^rt.CondAssignDefault != 0 {
		return 0, rt.Errorf(op, rt.ErrInvalidValue, "flags %#x", flags)
	}
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	g, err := d.graph(op, gh)
	if err != nil {
		return 0, err
	}
	d.gx.nextCond++
	c := &scond{h: condBase | rt.ConditionalHandle(d.gx.nextCond), g: g, def: def, flags: flags}
	g.conds = append(g.conds, c)
	d.gx.conds[c.h] = c
	return c.h, nil
}

// condBase marks soft's conditional handles, so that a stray value passed
// to cudaGraphSetConditional is told apart.
const condBase rt.ConditionalHandle = 0xc0d0 << 48

// GraphAddConditional adds a conditional node (cuGraphAddNode with
// CU_GRAPH_NODE_TYPE_CONDITIONAL) and returns its empty bodies.
func (d *Driver) GraphAddConditional(ch rt.CtxHandle, gh rt.GraphHandle, deps []rt.GraphNodeHandle, c rt.ConditionalHandle, typ rt.CondType, size int) (rt.GraphNodeHandle, []rt.GraphHandle, error) {
	const op = "cuGraphAddNode"
	ok := typ == rt.CondIf && (size == 1 || size == 2) || typ == rt.CondWhile && size == 1 || typ == rt.CondSwitch && size >= 1
	if !ok {
		return 0, nil, rt.Errorf(op, rt.ErrInvalidValue, "a conditional node of type %d with %d bodies (IF: 1 or 2, WHILE: 1, SWITCH: 1 or more)", typ, size)
	}
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	g, err := d.graph(op, gh)
	if err != nil {
		return 0, nil, err
	}
	cond := d.gx.conds[c]
	if cond == nil || cond.g != root(g) {
		return 0, nil, rt.Errorf(op, rt.ErrInvalidValue, "condition %#x was not made for graph %#x", uint64(c), uintptr(gh))
	}
	ds, err := d.depNodes(op, g, deps)
	if err != nil {
		return 0, nil, err
	}
	n := d.addNode(g, &snode{typ: rt.NodeConditional, cond: cond, ctype: typ}, ds)
	out := make([]rt.GraphHandle, size)
	for i := range out {
		b := d.newGraph(g.ctx, n)
		n.bodies = append(n.bodies, b)
		out[i] = b.h
	}
	return n.h, out, nil
}

// root is the graph that owns g: g itself, or the graph of the conditional
// node whose body it is (recursively).
func root(g *sgraph) *sgraph {
	for g.owner != nil {
		g = g.owner.g
	}
	return g
}

// cloneGraph deep-copies g for a child node or an instantiation; owner is
// the node that owns the copy. byOrig, when not nil, maps every node of g
// (and of its bodies and children) to its copy. The copy is not registered:
// its nodes have no handles of their own.
func (d *Driver) cloneGraph(g *sgraph, owner *snode, byOrig map[*snode]*snode) *sgraph {
	cp := &sgraph{ctx: g.ctx, owner: owner, conds: g.conds}
	copies := make(map[*snode]*snode, len(g.nodes))
	for _, n := range g.nodes {
		m := &snode{g: cp, typ: n.typ, orig: n, run: n.run, ev: n.ev, cond: n.cond, ctype: n.ctype}
		if n.orig != nil {
			m.orig = n.orig
		}
		if n.kern != nil {
			m.kern = n.kern.clone()
		}
		for _, p := range n.deps {
			m.deps = append(m.deps, copies[p])
		}
		if n.child != nil {
			m.child = d.cloneGraph(n.child, m, byOrig)
		}
		for _, b := range n.bodies {
			m.bodies = append(m.bodies, d.cloneGraph(b, m, byOrig))
		}
		copies[n] = m
		cp.nodes = append(cp.nodes, m)
		if byOrig != nil {
			byOrig[m.orig] = m
		}
	}
	return cp
}

func (k *kernelNode) clone() *kernelNode {
	c := *k
	c.params = alignedCopy(k.params)
	c.l = nil
	return &c
}

// alignedCopy copies b into a new buffer whose backing array is []uint64.
func alignedCopy(b []byte) []byte {
	buf := make([]uint64, len(b)/8+1)
	out := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), len(b))
	copy(out, b)
	return out
}

func (n *snode) String() string {
	return fmt.Sprintf("%s node %#x", n.typ, uintptr(n.h))
}
