package soft

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

// Instantiated graphs: a private copy of the graph that node updates
// change, and the values of its conditions. A launch runs a snapshot of the
// copy as one piece of its stream's work, node by node in the order they
// were added (an order that respects every dependency), so the work of one
// launch is the same as on a GPU, only never concurrent.

// sexec is an instantiated graph.
type sexec struct {
	d      *Driver
	h      rt.GraphExecHandle
	ctx    *context
	g      *sgraph
	byOrig map[*snode]*snode // the graph's nodes (bodies included) → their copies
	conds  map[rt.ConditionalHandle]*condValue
	// setConditionalFn is setConditional as the func its kernels' launches
	// take, made once.
	setConditionalFn func(h uint64, value uint32) string

	mu   sync.Mutex // guards g's kernel nodes against updates during a snapshot, last and plan
	last mark       // the latest launch: launches of one graph run one after another
	// plan is the snapshot of g that launches run, taken at the first
	// launch after an update (nil until then): a node update changes g,
	// never a plan a queued launch holds, so launches share one until
	// the next update. Launches of one graph run one after another, so
	// the plan's nodes (their exec.Launch included) are used by one at a
	// time.
	plan *sgraph

	freeMu sync.Mutex
	free   []*runState // finished launches' run states, for the next ones
}

// condValue is a condition's value in one instantiated graph.
type condValue struct {
	c *scond
	v atomic.Uint32
}

// whileLimit bounds the iterations of a WHILE node, whose condition a GPU
// would let spin forever: a body that never clears it is a bug.
const whileLimit = 1 << 24

// GraphInstantiate is cuGraphInstantiateWithFlags.
func (d *Driver) GraphInstantiate(ch rt.CtxHandle, gh rt.GraphHandle, flags uint64) (rt.GraphExecHandle, error) {
	const op = "cuGraphInstantiate"
	c, err := d.ctx(op, ch)
	if err != nil {
		return 0, err
	}
	if flags != 0 {
		return 0, rt.Errorf(op, rt.ErrNotSupported, "instantiate flags %#x: the soft backend has none", flags)
	}
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	g, err := d.graph(op, gh)
	if err != nil {
		return 0, err
	}
	if g.owner != nil {
		return 0, rt.Errorf(op, rt.ErrInvalidValue, "graph %#x is a conditional node's body; instantiate its node's graph", uintptr(gh))
	}
	if g.ctx != c {
		return 0, rt.Errorf(op, rt.ErrInvalidContext, "graph %#x belongs to another context", uintptr(gh))
	}
	if err := checkGraph(op, g, false); err != nil {
		return 0, err
	}
	x := &sexec{d: d, h: rt.GraphExecHandle(d.newHandle()), ctx: g.ctx, byOrig: map[*snode]*snode{}, conds: map[rt.ConditionalHandle]*condValue{}}
	x.setConditionalFn = x.setConditional
	x.g = d.cloneGraph(g, nil, x.byOrig)
	for _, c := range g.conds {
		v := &condValue{c: c}
		v.v.Store(c.def)
		x.conds[c.h] = v
	}
	d.gx.execs[x.h] = x
	return x.h, nil
}

// checkGraph refuses what CUDA refuses to instantiate: in a conditional
// body only kernel, memcpy, memset, empty, child graph and conditional
// nodes may run.
func checkGraph(op string, g *sgraph, body bool) error {
	for _, n := range g.nodes {
		switch n.typ {
		case rt.NodeKernel, rt.NodeMemcpy, rt.NodeMemset, rt.NodeEmpty:
		case rt.NodeGraph:
			if err := checkGraph(op, n.child, body); err != nil {
				return err
			}
		case rt.NodeConditional:
			for _, b := range n.bodies {
				if err := checkGraph(op, b, true); err != nil {
					return err
				}
			}
		default:
			if body {
				return rt.Errorf(op, rt.ErrNotSupported, "a %s node in a conditional node's body: bodies hold kernel, memcpy, memset, empty, child graph and conditional nodes", n.typ)
			}
		}
	}
	return nil
}

// exec resolves an instantiated graph; gx.mu must be held.
func (d *Driver) exec(op string, h rt.GraphExecHandle) (*sexec, error) {
	d.gx.init()
	x := d.gx.execs[h]
	if x == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidValue, "instantiated graph %#x does not exist (destroyed?)", uintptr(h))
	}
	return x, nil
}

// GraphExecDestroy is cuGraphExecDestroy: launches already queued still run.
func (d *Driver) GraphExecDestroy(ch rt.CtxHandle, h rt.GraphExecHandle) error {
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	if _, err := d.exec("cuGraphExecDestroy", h); err != nil {
		return err
	}
	delete(d.gx.execs, h)
	return nil
}

// GraphUpload is cuGraphUpload: soft has nothing to prepare; it checks its
// arguments.
func (d *Driver) GraphUpload(ch rt.CtxHandle, xh rt.GraphExecHandle, sh rt.StreamHandle) error {
	const op = "cuGraphUpload"
	if _, err := d.stream(op, ch, sh); err != nil {
		return err
	}
	d.gx.mu.Lock()
	defer d.gx.mu.Unlock()
	_, err := d.exec(op, xh)
	return err
}

// GraphLaunch is cuGraphLaunch. A capture cannot record it, as CUDA's
// cannot (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, which invalidates the
// capture): a graph that runs another has it as a child node.
func (d *Driver) GraphLaunch(ch rt.CtxHandle, xh rt.GraphExecHandle, sh rt.StreamHandle) error {
	const op = "cuGraphLaunch"
	s, err := d.stream(op, ch, sh)
	if err != nil {
		return err
	}
	d.gx.mu.Lock()
	x, err := d.exec(op, xh)
	if err != nil {
		d.gx.mu.Unlock()
		return err
	}
	if x.ctx != s.ctx {
		d.gx.mu.Unlock()
		return rt.Errorf(op, rt.ErrInvalidValue, "the graph belongs to another context than stream %#x", uintptr(sh))
	}
	if cp := s.capt; cp != nil {
		err := rt.Errorf(op, rt.ErrStreamCaptureUnsupported, "stream %#x is being captured: a graph launch cannot be captured (add the graph as a child node)", uintptr(sh))
		d.invalidate(cp, err)
		d.gx.mu.Unlock()
		return err
	}
	d.gx.mu.Unlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.plan == nil {
		x.plan = d.cloneGraph(x.g, nil, nil)
	}
	rs := x.runState(x.plan)
	rs.prev = x.last
	rs.node = snode{typ: rt.NodeGraph}
	o, err := d.submit(op, s, &rs.node, rs.queued)
	if err != nil {
		rs.finish()
		x.release(rs)
		return err
	}
	if o.none() {
		// A capture that began after the check above took the launch
		// as a node (submitWork): the node keeps rs.
		rs.pinned = true
	}
	x.last = o
	return nil
}

// GraphExecKernelNodeSetParams is cuGraphExecKernelNodeSetParams: the node's
// copy in x launches k with l's shape and parameters from the next launch
// on. Launches already queued keep what they were queued with.
func (d *Driver) GraphExecKernelNodeSetParams(xh rt.GraphExecHandle, nh rt.GraphNodeHandle, k rt.KernelHandle, l rt.LaunchArgs) error {
	const op = "cuGraphExecKernelNodeSetParams"
	d.mu.Lock()
	p := d.kernels[k]
	d.mu.Unlock()
	if p == nil {
		return rt.Errorf(op, rt.ErrInvalidHandle, "kernel handle %#x is not loaded", uintptr(k))
	}
	l, err := d.placeArgs(op, k, p, l)
	if err != nil {
		return err
	}
	d.gx.mu.Lock()
	x, err := d.exec(op, xh)
	var n *snode
	if err == nil {
		if orig := d.gx.nodes[nh]; orig != nil {
			n = x.byOrig[orig]
		}
	}
	d.gx.mu.Unlock()
	switch {
	case err != nil:
		return err
	case n == nil:
		return rt.Errorf(op, rt.ErrInvalidValue, "node %#x is not a node of the instantiated graph %#x", uintptr(nh), uintptr(xh))
	case n.typ != rt.NodeKernel:
		return rt.Errorf(op, rt.ErrInvalidValue, "node %#x is a %s node, not a kernel node", uintptr(nh), n.typ)
	}
	// The node keeps the cluster it was captured with (set once, read
	// without x.mu): the new shape must be whole clusters of it.
	l.Cluster = n.kern.cluster
	if err := d.checkLaunch(op, p, x.ctx, l); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	kn := n.kern
	if kn.p != p {
		vars, err := kernelVars(p, x.ctx)
		if err != nil {
			return err
		}
		kn.p, kn.vars = p, vars
	}
	kn.grid, kn.block, kn.dynShared = l.Grid, l.Block, l.SharedMem
	if len(kn.params) == int(l.ParamSize) {
		copy(kn.params, unsafe.Slice((*byte)(l.Params), l.ParamSize))
	} else {
		kn.params = alignedCopy(unsafe.Slice((*byte)(l.Params), l.ParamSize))
	}
	x.plan = nil // the next launch snapshots the update
	return nil
}

// kernelVars is the addresses of p's module variables in c, for a launch.
func kernelVars(p *exec.Program, c *context) ([]uint64, error) {
	if !p.UsesVars {
		return nil, nil
	}
	return c.Vars(p.Module)
}

// launchNode is the launch l as a captured kernel node.
func launchNode(l *exec.Launch) *snode {
	return &snode{typ: rt.NodeKernel, kern: &kernelNode{p: l.Program, ctx: l.Host.(*context), grid: l.Grid, block: l.Block,
		cluster: l.Cluster, dynShared: l.DynShared, params: l.Params, vars: l.Vars, coop: l.Cooperative}}
}

// launch is one run of the node's kernel in x: a node of a plan (sexec)
// runs in one launch at a time, so it reuses its exec.Launch.
func (k *kernelNode) launch(d *Driver, x *sexec) *exec.Launch {
	if k.l == nil {
		k.l = new(exec.Launch)
	}
	*k.l = exec.Launch{Program: k.p, Host: k.ctx, Mem: d.mem, Config: &d.cfg, Grid: k.grid, Block: k.block, Cluster: k.cluster, DynShared: k.dynShared,
		Params: k.params, Vars: k.vars, Cooperative: k.coop, SetConditional: x.setConditionalFn}
	return k.l
}

// runState is one launch of an instantiated graph: its plan and the
// events its record and wait nodes use. A finished one is reused by a
// later launch of the same graph (sexec.free), so that replaying a graph
// without event nodes allocates nothing.
type runState struct {
	d       *Driver
	x       *sexec
	plan    *sgraph
	records map[*snode]*recording
	waits   map[*snode]mark

	prev   mark         // the graph's previous launch, which this one waits for
	node   snode        // the launch as a node, should a capture take it
	queued func() error // the stream's work: wait for prev, then run
	pinned bool         // a capture holds it: never reused
}

// runState is a run state for a launch of plan, a reused one if any.
// x.mu must be held.
func (x *sexec) runState(plan *sgraph) *runState {
	x.freeMu.Lock()
	var rs *runState
	if n := len(x.free); n > 0 {
		rs, x.free = x.free[n-1], x.free[:n-1]
	}
	x.freeMu.Unlock()
	if rs == nil {
		rs = &runState{d: x.d, x: x, records: map[*snode]*recording{}, waits: map[*snode]mark{}}
		rs.queued = func() error {
			rs.prev.wait()
			err := rs.run()
			rs.x.release(rs)
			return err
		}
	}
	clear(rs.records)
	clear(rs.waits)
	rs.plan = plan
	rs.prepare(plan)
	return rs
}

// release keeps a finished run state for the next launch.
func (x *sexec) release(rs *runState) {
	if rs.pinned {
		return
	}
	rs.prev, rs.plan = mark{}, nil
	x.freeMu.Lock()
	if len(x.free) < maxFreeRuns {
		x.free = append(x.free, rs)
	}
	x.freeMu.Unlock()
}

// maxFreeRuns bounds the run states a graph keeps: as many as launches
// queued at once in a steady loop, not as many as a burst ever queued.
const maxFreeRuns = 16

// recording is an event record node's record in one launch.
type recording struct {
	done chan struct{} // closed when the record has run (or will not)
	gen  int
	ran  bool
}

// prepare makes the launch's event records (the event's most recent
// record is the node's from the launch on, as for cuEventRecord on a
// stream) and takes the records its wait nodes wait for.
func (rs *runState) prepare(g *sgraph) {
	for _, n := range g.nodes {
		switch n.typ {
		case rt.NodeEventRecord:
			e := n.ev
			e.mu.Lock()
			e.gen++
			r := &recording{done: make(chan struct{}), gen: e.gen}
			e.at, e.t = mark{rec: r.done}, time.Time{}
			e.mu.Unlock()
			rs.records[n] = r
		case rt.NodeWaitEvent:
			e := n.ev
			e.mu.Lock()
			rs.waits[n] = e.at
			e.mu.Unlock()
		case rt.NodeGraph:
			rs.prepare(n.child)
		}
	}
}

// finish completes the launch's records that did not run (a failed node
// stopped the graph), so that nothing waits for them forever.
func (rs *runState) finish() {
	for _, r := range rs.records {
		if !r.ran {
			r.ran = true
			close(r.done)
		}
	}
}

func (rs *runState) run() error {
	defer rs.finish()
	for _, v := range rs.x.conds {
		if v.c.flags&rt.CondAssignDefault != 0 {
			v.v.Store(v.c.def)
		}
	}
	return rs.runGraph(rs.plan)
}

func (rs *runState) runGraph(g *sgraph) error {
	for _, n := range g.nodes {
		if err := rs.runNode(n); err != nil {
			return err
		}
	}
	return nil
}

func (rs *runState) runNode(n *snode) error {
	switch n.typ {
	case rt.NodeKernel:
		return rs.d.run(n.kern.launch(rs.d, rs.x))
	case rt.NodeEmpty, rt.NodeMemAlloc, rt.NodeMemFree:
		if n.run != nil {
			return n.run()
		}
		return nil
	case rt.NodeGraph:
		return rs.runGraph(n.child)
	case rt.NodeEventRecord:
		r := rs.records[n]
		now := time.Now()
		n.ev.mu.Lock()
		if n.ev.gen == r.gen {
			n.ev.t = now
		}
		n.ev.mu.Unlock()
		r.ran = true
		close(r.done)
		return nil
	case rt.NodeWaitEvent:
		rs.waits[n].wait()
		return nil
	case rt.NodeConditional:
		v := rs.x.conds[n.cond.h]
		switch n.ctype {
		case rt.CondIf:
			if v.v.Load() != 0 {
				return rs.runGraph(n.bodies[0])
			}
			if len(n.bodies) > 1 {
				return rs.runGraph(n.bodies[1])
			}
		case rt.CondWhile:
			for i := 0; v.v.Load() != 0; i++ {
				if i == whileLimit {
					return rt.Errorf("cuGraphLaunch", rt.ErrLaunchTimeout, "WHILE node %#x ran its body %d times without its condition becoming 0", uintptr(n.orig.h), i)
				}
				if err := rs.runGraph(n.bodies[0]); err != nil {
					return err
				}
			}
		case rt.CondSwitch:
			if i := v.v.Load(); int(i) < len(n.bodies) {
				return rs.runGraph(n.bodies[i])
			}
		}
		return nil
	}
	return n.run()
}

// setConditional is cudaGraphSetConditional(h, value) from a kernel that
// runs in x: h must be a condition of the graph, as on a GPU, where
// anything else writes through a bad pointer.
func (x *sexec) setConditional(h uint64, value uint32) string {
	v := x.conds[rt.ConditionalHandle(h)]
	if v == nil {
		return fmt.Sprintf("cudaGraphSetConditional(%#x, %d): not a condition of the graph this kernel runs in", h, value)
	}
	v.v.Store(value)
	return ""
}
