package rt

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// CUDA graphs: work recorded once and launched as one unit (the Grapher
// capability at rt's level).
//
// The workflow: capture generated launches (and copies, memsets, event
// records and waits, host functions) on a stream, instantiate the graph,
// launch it as often as needed, and change one kernel node's arguments
// between launches with the generated XNode function, which has the launch
// function's typed signature:
//
//	g, err := s.Capture(func(s *rt.Stream) error {
//		if err := kernels.Scale(cfg.On(s), x, 2, n); err != nil {
//			return err
//		}
//		node, err = s.CapturedNode() // the node that launch added
//		...
//		return kernels.VecAdd(cfg.On(s), a, b, c, n)
//	})
//	x, err := g.Instantiate()
//	for ... {
//		err = kernels.ScaleNode(x.KernelNode(node), cfg, y, 3, n) // no capture again
//		err = x.Launch(s)
//	}

func (c *Context) grapher(op string) (Grapher, error) {
	return capability[Grapher](c.drv, op, "graphs (rt.Grapher)")
}

// Graph is a CUDA graph in one context: nodes of work and the
// dependencies between them. Graphs come from a capture (Stream.Capture,
// Stream.EndCapture) or from NewGraph with nodes added one by one. A Graph
// is a template: Instantiate makes the executable GraphExec, and changes to
// the Graph after that do not affect it.
type Graph struct {
	ctx *Context
	g   Grapher
	h   GraphHandle
	// body is set for a conditional node's body, which its node owns: it
	// has no Destroy of its own, and goes with parent's graph.
	body   bool
	parent *Graph
	gone   atomic.Bool // destroyed
}

// check refuses a nil, zero or destroyed graph (a body whose graph was
// destroyed included).
func (g *Graph) check(op string) error {
	if g == nil || g.g == nil {
		return Errorf(op, ErrInvalidHandle, "a nil or zero rt.Graph (graphs come from Context.NewGraph and captures)")
	}
	for p := g; p != nil; p = p.parent {
		if p.gone.Load() {
			return Errorf(op, ErrInvalidHandle, "graph %#x was destroyed", uintptr(p.h))
		}
	}
	return g.ctx.check(op)
}

// GraphNode is one node of a Graph (a CUgraphNode). The same value names
// the node in every GraphExec instantiated from its graph. The zero value is
// no node.
type GraphNode struct{ h GraphNodeHandle }

// Handle is the backend's node handle.
func (n GraphNode) Handle() GraphNodeHandle { return n.h }

// IsZero reports whether n is no node.
func (n GraphNode) IsZero() bool { return n.h == 0 }

// handles views nodes as their handles (GraphNode is one handle).
func handles(nodes []GraphNode) []GraphNodeHandle {
	return unsafe.Slice((*GraphNodeHandle)(unsafe.Pointer(unsafe.SliceData(nodes))), len(nodes))
}

// Condition is a conditional node's condition (a CUgraphConditionalHandle):
// a kernel in the graph sets it with cudaGraphSetConditional(handle, value)
// and the node reads it. Kernels take it as a cudaGraphConditionalHandle,
// an unsigned long long: pass uint64(c).
type Condition uint64

// NewGraph creates an empty graph in c (cuGraphCreate).
func (c *Context) NewGraph() (*Graph, error) {
	if err := c.check("rt.Context.NewGraph"); err != nil {
		return nil, err
	}
	g, err := c.grapher("cuGraphCreate")
	if err != nil {
		return nil, err
	}
	h, err := g.GraphCreate(c.h)
	if err != nil {
		return nil, err
	}
	return &Graph{ctx: c, g: g, h: h}, nil
}

// Handle is the backend's graph handle.
func (g *Graph) Handle() GraphHandle {
	if g == nil {
		return 0
	}
	return g.h
}

// Context is the graph's context.
func (g *Graph) Context() *Context {
	if g == nil {
		return nil
	}
	return g.ctx
}

// Destroy destroys the graph (cuGraphDestroy). GraphExecs instantiated from
// it stay valid. The body of a conditional node goes with its node's graph
// and cannot be destroyed on its own.
func (g *Graph) Destroy() error {
	const op = "rt.Graph.Destroy"
	if err := g.check(op); err != nil {
		return err
	}
	if g.body {
		return Errorf(op, ErrNotPermitted, "graph %#x is a conditional node's body, destroyed with that node's graph", uintptr(g.h))
	}
	if !g.gone.CompareAndSwap(false, true) {
		return Errorf(op, ErrInvalidHandle, "graph %#x was destroyed", uintptr(g.h))
	}
	if err := g.g.GraphDestroy(g.h); err != nil {
		g.gone.Store(false)
		return err
	}
	return nil
}

// Nodes lists the graph's nodes in the order they were added (for a
// capture: the order of the captured calls).
func (g *Graph) Nodes() ([]GraphNode, error) {
	if err := g.check("rt.Graph.Nodes"); err != nil {
		return nil, err
	}
	hs, err := g.g.GraphNodes(g.h)
	if err != nil {
		return nil, err
	}
	out := make([]GraphNode, len(hs))
	for i, h := range hs {
		out[i] = GraphNode{h}
	}
	return out, nil
}

// NodesOfType lists the graph's nodes of one type, in the order they were
// added: g.NodesOfType(rt.NodeKernel) are its kernel launches.
func (g *Graph) NodesOfType(t NodeType) ([]GraphNode, error) {
	all, err := g.Nodes()
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, n := range all {
		nt, err := g.g.GraphNodeType(n.h)
		if err != nil {
			return nil, err
		}
		if nt == t {
			out = append(out, n)
		}
	}
	return out, nil
}

// NodeType is n's type (cuGraphNodeGetType).
func (g *Graph) NodeType(n GraphNode) (NodeType, error) {
	if err := g.check("rt.Graph.NodeType"); err != nil {
		return 0, err
	}
	return g.g.GraphNodeType(n.h)
}

// AddEmpty adds a node that does nothing: a join point for deps.
func (g *Graph) AddEmpty(deps ...GraphNode) (GraphNode, error) {
	if err := g.check("rt.Graph.AddEmpty"); err != nil {
		return GraphNode{}, err
	}
	h, err := g.g.GraphAddEmpty(g.h, handles(deps))
	return GraphNode{h}, err
}

// AddChild adds a node that runs a copy of child, after deps
// (cuGraphAddChildGraphNode). Later changes to child do not affect it.
func (g *Graph) AddChild(child *Graph, deps ...GraphNode) (GraphNode, error) {
	const op = "rt.Graph.AddChild"
	if err := g.check(op); err != nil {
		return GraphNode{}, err
	}
	if err := child.check(op); err != nil {
		return GraphNode{}, err
	}
	if err := sameDriver(op, g.ctx, child.ctx); err != nil {
		return GraphNode{}, err
	}
	h, err := g.g.GraphAddChild(g.h, handles(deps), child.h)
	return GraphNode{h}, err
}

// NewCondition makes a condition for conditional nodes of g
// (cuGraphConditionalHandleCreate, CUDA 12.3+). With assignDefault set,
// every launch of the graph starts it at defaultValue; otherwise it keeps
// the value the previous launch left (and is undefined at the first).
func (g *Graph) NewCondition(defaultValue uint32, assignDefault bool) (Condition, error) {
	if err := g.check("rt.Graph.NewCondition"); err != nil {
		return 0, err
	}
	var flags uint32
	if assignDefault {
		flags = CondAssignDefault
	}
	h, err := g.g.GraphConditionalCreate(g.ctx.h, g.h, defaultValue, flags)
	return Condition(h), err
}

func (g *Graph) addConditional(c Condition, typ CondType, size int, deps []GraphNode) (GraphNode, []*Graph, error) {
	if err := g.check("rt.Graph.AddConditional"); err != nil {
		return GraphNode{}, nil, err
	}
	h, bodies, err := g.g.GraphAddConditional(g.ctx.h, g.h, handles(deps), ConditionalHandle(c), typ, size)
	if err != nil {
		return GraphNode{}, nil, err
	}
	out := make([]*Graph, len(bodies))
	for i, b := range bodies {
		out[i] = &Graph{ctx: g.ctx, g: g.g, h: b, body: true, parent: g}
	}
	return GraphNode{h}, out, nil
}

// AddIf adds a node that runs body when c is non-zero (CUDA 12.3+). Fill
// body with nodes, or by capturing into it (Graph.CaptureInto).
func (g *Graph) AddIf(c Condition, deps ...GraphNode) (node GraphNode, body *Graph, err error) {
	n, b, err := g.addConditional(c, CondIf, 1, deps)
	if err != nil {
		return n, nil, err
	}
	return n, b[0], nil
}

// AddIfElse adds a node that runs then when c is non-zero and els when it
// is zero (CUDA 12.8+).
func (g *Graph) AddIfElse(c Condition, deps ...GraphNode) (node GraphNode, then, els *Graph, err error) {
	n, b, err := g.addConditional(c, CondIf, 2, deps)
	if err != nil {
		return n, nil, nil, err
	}
	return n, b[0], b[1], nil
}

// AddWhile adds a node that runs body as long as c is non-zero, checking
// before each run (CUDA 12.3+): a kernel in body sets c to 0 to end it.
func (g *Graph) AddWhile(c Condition, deps ...GraphNode) (node GraphNode, body *Graph, err error) {
	n, b, err := g.addConditional(c, CondWhile, 1, deps)
	if err != nil {
		return n, nil, err
	}
	return n, b[0], nil
}

// AddSwitch adds a node with n bodies that runs body c, or none when c ≥ n
// (CUDA 12.8+).
func (g *Graph) AddSwitch(c Condition, n int, deps ...GraphNode) (node GraphNode, bodies []*Graph, err error) {
	if n < 1 {
		return GraphNode{}, nil, Errorf("rt.Graph.AddSwitch", ErrInvalidValue, "%d bodies", n)
	}
	return g.addConditional(c, CondSwitch, n, deps)
}

// CaptureInto captures fn's work on s into g, after deps
// (cuStreamBeginCaptureToGraph, CUDA 12.3+): the way to fill a conditional
// node's body with generated launches. As Stream.Capture, it locks the
// goroutine to its OS thread and captures in CaptureThreadLocal mode.
func (g *Graph) CaptureInto(s *Stream, fn func(s *Stream) error, deps ...GraphNode) error {
	if fn == nil {
		return Errorf("rt.Graph.CaptureInto", ErrInvalidValue, "nil function")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := s.BeginCaptureInto(g, CaptureThreadLocal, deps...); err != nil {
		return err
	}
	ferr := captured(s, fn)
	_, err := s.EndCapture()
	if ferr != nil {
		return ferr
	}
	return err
}

// Instantiate makes the graph executable (cuGraphInstantiateWithFlags).
func (g *Graph) Instantiate() (*GraphExec, error) {
	if err := g.check("rt.Graph.Instantiate"); err != nil {
		return nil, err
	}
	h, err := g.g.GraphInstantiate(g.ctx.h, g.h, 0)
	if err != nil {
		return nil, err
	}
	return &GraphExec{ctx: g.ctx, g: g.g, h: h}, nil
}

func (g *Graph) String() string {
	if g == nil {
		return "nil rt.Graph"
	}
	return fmt.Sprintf("graph %#x in %v", uintptr(g.h), g.ctx)
}

// capturable checks s for a capture call op: a created, live stream.
func capturable(op string, s *Stream) error {
	if s == nil {
		return Errorf(op, ErrInvalidHandle, "a nil stream (the NULL stream cannot be captured)")
	}
	return s.check(op)
}

// BeginCapture starts capturing s (cuStreamBeginCapture): until EndCapture,
// work queued on s — generated launches, Async copies and memsets, event
// records and waits, host functions — is recorded into a graph instead of
// run. Other streams join the capture by waiting on an event recorded on s
// during it (a fork), and must be joined back (s waits on an event recorded
// on them) before EndCapture. mode says which calls the capture forbids
// while it runs: calls that would wait for the captured work, such as rt's
// synchronous copies, fail with ErrStreamCaptureUnsupported and invalidate
// the capture. CaptureGlobal and CaptureThreadLocal count threads, which
// goroutines are not: hold runtime.LockOSThread from BeginCapture to
// EndCapture, or use Capture, which does.
//
// s must be a created stream: the NULL stream cannot be captured.
func (s *Stream) BeginCapture(mode CaptureMode) error {
	if err := capturable("rt.Stream.BeginCapture", s); err != nil {
		return err
	}
	g, err := s.ctx.grapher("cuStreamBeginCapture")
	if err != nil {
		return err
	}
	s.into = nil
	return g.StreamBeginCapture(s.ctx.h, s.h, mode)
}

// BeginCaptureInto is BeginCapture into the existing graph g, after the
// nodes deps (cuStreamBeginCaptureToGraph, CUDA 12.3+); EndCapture then
// returns g.
func (s *Stream) BeginCaptureInto(g *Graph, mode CaptureMode, deps ...GraphNode) error {
	const op = "rt.Stream.BeginCaptureInto"
	if err := capturable(op, s); err != nil {
		return err
	}
	if err := g.check(op); err != nil {
		return err
	}
	if err := sameDriver(op, s.ctx, g.ctx); err != nil {
		return err
	}
	gr, err := s.ctx.grapher("cuStreamBeginCaptureToGraph")
	if err != nil {
		return err
	}
	if err := gr.StreamBeginCaptureToGraph(s.ctx.h, s.h, g.h, handles(deps), mode); err != nil {
		return err
	}
	s.into = g
	return nil
}

// EndCapture ends the capture BeginCapture started on s and returns the
// graph (cuStreamEndCapture). A capture that an error invalidated returns
// ErrStreamCaptureInvalidated.
func (s *Stream) EndCapture() (*Graph, error) {
	if err := capturable("rt.Stream.EndCapture", s); err != nil {
		return nil, err
	}
	g, err := s.ctx.grapher("cuStreamEndCapture")
	if err != nil {
		return nil, err
	}
	into := s.into
	s.into = nil
	h, err := g.StreamEndCapture(s.ctx.h, s.h)
	if err != nil {
		return nil, err
	}
	if into != nil && into.h == h {
		return into, nil
	}
	return &Graph{ctx: s.ctx, g: g, h: h}, nil
}

// Capture captures fn's work on s into a new graph: BeginCapture in
// CaptureThreadLocal mode, fn, EndCapture, with the goroutine locked to its
// OS thread throughout, so that the mode means this goroutine. If fn
// fails, the capture is ended, its graph destroyed and fn's error returned.
func (s *Stream) Capture(fn func(s *Stream) error) (*Graph, error) {
	if fn == nil {
		return nil, Errorf("rt.Stream.Capture", ErrInvalidValue, "nil function")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := s.BeginCapture(CaptureThreadLocal); err != nil {
		return nil, err
	}
	ferr := captured(s, fn)
	g, err := s.EndCapture()
	if ferr != nil {
		if g != nil {
			g.Destroy()
		}
		return nil, ferr
	}
	return g, err
}

// captured runs fn on s during a capture; if fn panics, the capture is
// ended (and its graph destroyed) before the panic goes on, so that it does
// not outlive the call and forbid the context's later work.
func captured(s *Stream, fn func(s *Stream) error) error {
	ok, into := false, s.into
	defer func() {
		if !ok {
			if g, err := s.EndCapture(); err == nil && g != into {
				g.Destroy()
			}
		}
	}()
	err := fn(s)
	ok = true
	return err
}

// CaptureStatus reports whether s is being captured
// (cuStreamGetCaptureInfo).
func (s *Stream) CaptureStatus() (CaptureStatus, error) {
	if err := capturable("rt.Stream.CaptureStatus", s); err != nil {
		return CaptureNone, err
	}
	g, err := s.ctx.grapher("cuStreamGetCaptureInfo")
	if err != nil {
		return CaptureNone, err
	}
	st, _, err := g.StreamCaptureInfo(s.ctx.h, s.h, nil)
	return st, err
}

// CapturedNode is the node that the work last queued on s added to the
// capture: after a generated launch, its kernel node, which GraphExec's
// KernelNode turns into the target of the generated XNode function. It
// fails with ErrIllegalState when s is not capturing, or when its next work
// would depend on several nodes or none (after a join, or before the
// first capture).
func (s *Stream) CapturedNode() (GraphNode, error) {
	if err := capturable("rt.Stream.CapturedNode", s); err != nil {
		return GraphNode{}, err
	}
	g, err := s.ctx.grapher("cuStreamGetCaptureInfo")
	if err != nil {
		return GraphNode{}, err
	}
	var deps [1]GraphNodeHandle
	st, n, err := g.StreamCaptureInfo(s.ctx.h, s.h, deps[:])
	switch {
	case err != nil:
		return GraphNode{}, err
	case st != CaptureActive:
		return GraphNode{}, Errorf("cuStreamGetCaptureInfo", ErrIllegalState, "stream %#x is not capturing (status %d)", uintptr(s.h), st)
	case n != 1:
		return GraphNode{}, Errorf("cuStreamGetCaptureInfo", ErrIllegalState, "stream %#x's next work depends on %d nodes, not one", uintptr(s.h), n)
	}
	return GraphNode{deps[0]}, nil
}

// GraphExec is an instantiated graph (a CUgraphExec): what runs. Launch it
// on any stream of its context, as often as needed; launches of one
// GraphExec run one after another.
type GraphExec struct {
	ctx  *Context
	g    Grapher
	h    GraphExecHandle
	gone atomic.Bool // destroyed
}

// check refuses a nil, zero or destroyed GraphExec.
func (x *GraphExec) check(op string) error {
	switch {
	case x == nil || x.g == nil:
		return Errorf(op, ErrInvalidHandle, "a nil or zero rt.GraphExec (from Graph.Instantiate)")
	case x.gone.Load():
		return Errorf(op, ErrInvalidHandle, "instantiated graph %#x was destroyed", uintptr(x.h))
	}
	return x.ctx.check(op)
}

// Handle is the backend's handle.
func (x *GraphExec) Handle() GraphExecHandle {
	if x == nil {
		return 0
	}
	return x.h
}

// Context is the context the graph runs in.
func (x *GraphExec) Context() *Context {
	if x == nil {
		return nil
	}
	return x.ctx
}

// Launch queues the whole graph on s as one piece of s's work
// (cuGraphLaunch). It allocates nothing. A capture cannot record a graph
// launch (ErrStreamCaptureUnsupported): add the graph to the capturing
// graph as a child node (Graph.AddChild) instead.
func (x *GraphExec) Launch(s *Stream) error {
	s, err := x.on("rt.GraphExec.Launch", s)
	if err != nil {
		return err
	}
	return x.g.GraphLaunch(s.ctx.h, x.h, s.h)
}

// on checks x and resolves s, a stream to launch it on (nil: the NULL
// stream of x's context).
func (x *GraphExec) on(op string, s *Stream) (*Stream, error) {
	if err := x.check(op); err != nil {
		return nil, err
	}
	return s.in(op, x.ctx)
}

// Upload prepares the graph's first launch on s ahead of it
// (cuGraphUpload), taking that work off the first Launch.
func (x *GraphExec) Upload(s *Stream) error {
	s, err := x.on("rt.GraphExec.Upload", s)
	if err != nil {
		return err
	}
	return x.g.GraphUpload(s.ctx.h, x.h, s.h)
}

// Destroy destroys the instantiated graph (cuGraphExecDestroy).
func (x *GraphExec) Destroy() error {
	const op = "rt.GraphExec.Destroy"
	if err := x.check(op); err != nil {
		return err
	}
	if !x.gone.CompareAndSwap(false, true) {
		return Errorf(op, ErrInvalidHandle, "instantiated graph %#x was destroyed", uintptr(x.h))
	}
	if err := x.g.GraphExecDestroy(x.ctx.h, x.h); err != nil {
		x.gone.Store(false)
		return err
	}
	return nil
}

// KernelNode names n, a kernel node of x's graph, in x: what a generated
// XNode function updates.
func (x *GraphExec) KernelNode(n GraphNode) KernelNode { return KernelNode{x: x, n: n.h} }

// KernelNode is a kernel node of an instantiated graph. The generated
// function XNode(node, cfg, args...) of kernel X, with X's typed
// parameters, sets such a node to launch X with cfg's shape and those
// arguments from the graph's next launch on, without capturing again
// (cuGraphExecKernelNodeSetParams). cfg's Stream is not used; the node
// keeps the cluster, cooperative and priority attributes it was captured
// with, so cfg must leave them zero.
type KernelNode struct {
	x *GraphExec
	n GraphNodeHandle
}

// SetNode sets the kernel node n to launch k with cfg's shape and the
// packed parameter buffer params (generated XNode functions call it with a
// stack array, as they call Launch). It allocates nothing and does not
// retain params.
func (k *Kernel) SetNode(n KernelNode, cfg Config, params []byte) error {
	if k == nil {
		return Errorf("rt.Kernel.SetNode", ErrInvalidHandle, "a nil rt.Kernel")
	}
	x, b := n.x, k.bound.Load()
	c := &cfg.Cluster
	if x == nil || b == nil || x.ctx == nil || x.gone.Load() || x.ctx.dead() || hostCalls.n.Load() != 0 || b.drv != x.ctx.drv || uintptr(len(params)) != k.size || c.X|c.Y|c.Z != 0 || cfg.Cooperative || cfg.ProgrammaticSerialization || cfg.Priority != 0 {
		return k.setNodeSlow(n, cfg, params)
	}
	return x.g.GraphExecKernelNodeSetParams(x.h, n.n, b.h, launchArgs(x.ctx.h, 0, &cfg, params))
}

// setNodeSlow is SetNode for the first use of k in x's driver and the
// errors.
//
//go:noinline
func (k *Kernel) setNodeSlow(n KernelNode, cfg Config, params []byte) error {
	const op = "rt.Kernel.SetNode"
	x := n.x
	switch {
	case x == nil:
		return Errorf(op, ErrInvalidValue, "kernel %s: a zero KernelNode (from GraphExec.KernelNode)", k.name)
	case x.check(op) != nil:
		return x.check(op)
	case uintptr(len(params)) != k.size:
		return Errorf(op, ErrInvalidValue, "kernel %s: %d parameter bytes, want %d", k.name, len(params), k.size)
	case cfg.Cluster != (Dim3{}) || cfg.Cooperative || cfg.ProgrammaticSerialization || cfg.Priority != 0:
		return Errorf(op, ErrNotSupported, "kernel %s: a node keeps the launch attributes it was captured with; leave Cluster, Cooperative, ProgrammaticSerialization and Priority zero", k.name)
	}
	b, err := k.binding(x.ctx.drv)
	if err != nil {
		return err
	}
	return x.g.GraphExecKernelNodeSetParams(x.h, n.n, b.h, launchArgs(x.ctx.h, 0, &cfg, params))
}
