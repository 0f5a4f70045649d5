//go:build cgo

package cgo

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cugen/cugen/rt"
)

// GPU tests of what rt/cgo adds to rttest's conformance checks of graphs,
// host functions and peers (TestConformance runs those): allocations, the
// host-function registry, the cost of replays and node updates against C,
// and peer copies between two GPUs.

// vecAddNodeGen is what cugen generates to update a vecAdd node.
func vecAddNodeGen(node rt.KernelNode, cfg rt.Config, a, b, c rt.Ptr[float32], n int32) error {
	var args [28]byte
	binary.LittleEndian.PutUint64(args[0:], uint64(a))
	binary.LittleEndian.PutUint64(args[8:], uint64(b))
	binary.LittleEndian.PutUint64(args[16:], uint64(c))
	binary.LittleEndian.PutUint32(args[24:], uint32(n))
	return costVecAdd.SetNode(node, cfg, args[:])
}

// graphOf256 captures 256 generated vecAdd launches (one block of 32
// threads each, on buf) on s and instantiates them.
type graphOf256 struct {
	g     *rt.Graph
	x     *rt.GraphExec
	nodes []rt.GraphNode
}

const graphLaunches = 256

func newGraphOf256(t testing.TB, s *rt.Stream, buf rt.Ptr[float32]) *graphOf256 {
	t.Helper()
	cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(32)}
	g, err := s.Capture(func(s *rt.Stream) error {
		for i := 0; i < graphLaunches; i++ {
			if err := vecAddGen(cfg.On(s), buf, buf, buf, 32); err != nil {
				return err
			}
		}
		return nil
	})
	must(t, err)
	x, err := g.Instantiate()
	must(t, err)
	must(t, x.Upload(s))
	nodes, err := g.NodesOfType(rt.NodeKernel)
	must(t, err)
	if len(nodes) != graphLaunches {
		t.Fatalf("the capture of %d launches has %d kernel nodes", graphLaunches, len(nodes))
	}
	return &graphOf256{g: g, x: x, nodes: nodes}
}

func (g *graphOf256) destroy() { g.x.Destroy(); g.g.Destroy() }

// TestGraphAllocs counts the allocations of a replay and of a node update
// through rt: none.
func TestGraphAllocs(t *testing.T) {
	d := gpu(t)
	ctx := primary(t, d)
	defer ctx.Release()
	s, err := ctx.NewStream()
	must(t, err)
	defer s.Destroy()
	buf, err := rt.Alloc[float32](ctx, 32)
	must(t, err)
	defer buf.Free()
	g := newGraphOf256(t, s, buf.Ptr)
	defer g.destroy()
	cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(32)}
	kn := g.x.KernelNode(g.nodes[7])
	must(t, vecAddNodeGen(kn, cfg, buf.Ptr, buf.Ptr, buf.Ptr, 16))
	if n := testing.AllocsPerRun(200, func() { g.x.Launch(s) }); n != 0 {
		t.Errorf("GraphExec.Launch allocates %v times", n)
	}
	must(t, s.Synchronize())
	if n := testing.AllocsPerRun(1000, func() { vecAddNodeGen(kn, cfg, buf.Ptr, buf.Ptr, buf.Ptr, 16) }); n != 0 {
		t.Errorf("a generated node update allocates %v times", n)
	}
}

// TestHostFuncRegistry checks the host-function registry's bookkeeping: a
// function queued on a stream is forgotten once it ran; one captured is
// kept while a graph or instantiated graph holds it, and runs at every
// launch.
func TestHostFuncRegistry(t *testing.T) {
	d := gpu(t)
	ctx := primary(t, d)
	defer ctx.Release()
	s, err := ctx.NewStream()
	must(t, err)
	defer s.Destroy()
	registered := func() int {
		hostFuncs.mu.Lock()
		defer hostFuncs.mu.Unlock()
		return len(hostFuncs.m)
	}
	base := registered()
	var runs atomic.Int32
	must(t, s.LaunchHostFunc(func() { runs.Add(1) }))
	must(t, s.Synchronize())
	if runs.Load() != 1 || registered() != base {
		t.Errorf("a one-shot host function ran %d times and left %d registered (was %d)", runs.Load(), registered(), base)
	}
	g, err := s.Capture(func(s *rt.Stream) error { return s.LaunchHostFunc(func() { runs.Add(10) }) })
	must(t, err)
	x, err := g.Instantiate()
	must(t, err)
	parent, err := ctx.NewGraph()
	must(t, err)
	_, err = parent.AddChild(g)
	must(t, err)
	must(t, g.Destroy()) // x and parent's child node still hold it
	px, err := parent.Instantiate()
	must(t, err)
	must(t, parent.Destroy())
	must(t, x.Launch(s))
	must(t, s.Synchronize())
	must(t, x.Destroy())
	if registered() != base+1 {
		t.Errorf("%d host functions registered while an instantiated graph holds one (base %d)", registered(), base)
	}
	must(t, px.Launch(s))
	must(t, s.Synchronize())
	if got := runs.Load(); got != 21 {
		t.Errorf("runs = %d after a launch of the graph with a host node and one of a graph with it as a child, want 21", got)
	}
	must(t, px.Destroy())
	if registered() != base {
		t.Errorf("%d host functions registered after every holder was destroyed, want %d", registered(), base)
	}
}

// TestGraphCostVsC measures, in one process on one stream, the wall time
// per kernel of a graph of 256 generated vecAdd launches replayed from Go
// (GraphExec.Launch and a synchronize) against the same graph replayed from
// C and against a C loop of 256 cuLaunchKernel calls, each with its
// synchronize; and the CPU time of updating one kernel node's arguments
// with the generated typed function against a C loop of
// cuGraphExecKernelNodeSetParams. The variants run in a new random order
// each round; medians of 200 rounds. It prints GRAPH-COST, GRAPH-UPDATE and
// GRAPH-BREAKDOWN lines (goals: Go replay ≤ 1.05× the C replay, ≤ 0.4× the C
// loop) and fails only on errors: timings are not assertions.
func TestGraphCostVsC(t *testing.T) {
	d := gpu(t)
	m := newGraphCost(t, d)
	defer m.close()
	const rounds, warm = 220, 20
	for i := 0; i < rounds; i++ {
		m.round(t, i >= warm)
	}
	m.report(t)
}

// BenchmarkGraphVsC is TestGraphCostVsC as a benchmark: each iteration is
// one round of every variant; the medians are reported as metrics (ns per
// kernel, ns per node update, and the ratios).
func BenchmarkGraphVsC(b *testing.B) {
	d := gpu(b)
	m := newGraphCost(b, d)
	defer m.close()
	for i := 0; i < 10; i++ {
		m.round(b, false)
	}
	for b.Loop() {
		m.round(b, true)
	}
	med := m.medians()
	b.ReportMetric(float64(med[vGoReplay]), "go-replay-ns/kernel")
	b.ReportMetric(float64(med[vCReplay]), "c-replay-ns/kernel")
	b.ReportMetric(float64(med[vCLoop]), "c-loop-ns/kernel")
	b.ReportMetric(float64(med[vGoReplay])/float64(med[vCReplay]), "replay/c-replay")
	b.ReportMetric(float64(med[vGoReplay])/float64(med[vCLoop]), "replay/c-loop")
	b.ReportMetric(float64(med[vGoUpdate]), "go-update-ns/node")
	b.ReportMetric(float64(med[vCUpdate]), "c-update-ns/node")
	b.ReportMetric(float64(med[vGoUpdate])/float64(med[vCUpdate]), "update/c-update")
}

// BenchmarkGraphReplay is one replay of the 256-launch graph and its
// synchronize, from Go (allocations reported: none).
func BenchmarkGraphReplay(b *testing.B) {
	d := gpu(b)
	m := newGraphCost(b, d)
	defer m.close()
	b.ReportAllocs()
	for b.Loop() {
		if err := m.g.x.Launch(m.s); err != nil {
			b.Fatal(err)
		}
		if err := m.s.Synchronize(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNodeUpdate is one generated node update (allocations reported:
// none).
func BenchmarkNodeUpdate(b *testing.B) {
	d := gpu(b)
	m := newGraphCost(b, d)
	defer m.close()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := m.buf.Ptr
		if err := vecAddNodeGen(m.kns[i%graphLaunches], m.cfg, p, p, p, int32(i%32)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

const (
	vCLoop = iota
	vCReplay
	vGoReplay
	vGoLoop
	vCUpdate
	vShimUpdate
	vGoUpdate
	nVariants
)

var variantNames = [nVariants]string{
	vCLoop:      "C loop, 256 cuLaunchKernel + sync (per kernel)",
	vCReplay:    "C, cuGraphLaunch + sync (per kernel)",
	vGoReplay:   "Go, GraphExec.Launch + sync (per kernel)",
	vGoLoop:     "Go, 256 generated launches + sync (per kernel)",
	vCUpdate:    "C, cuGraphExecKernelNodeSetParams (per node)",
	vShimUpdate: "C loop over the shim's update (per node)",
	vGoUpdate:   "Go, generated VecAddNode (per node)",
}

type graphCost struct {
	d     *Driver
	ctx   *rt.Context
	s     *rt.Stream
	buf   rt.Buffer[float32]
	g     *graphOf256
	kh    rt.KernelHandle
	cfg   rt.Config
	kns   []rt.KernelNode
	hs    []rt.GraphNodeHandle
	pb    [28]byte
	rng   *rand.Rand
	order []int
	times [nVariants][]time.Duration
}

func newGraphCost(t testing.TB, d *Driver) *graphCost {
	m := &graphCost{d: d, ctx: primary(t, d), rng: rand.New(rand.NewPCG(3, 4)), cfg: rt.Config{Grid: rt.D1(1), Block: rt.D1(32)}}
	var err error
	m.s, err = m.ctx.NewStream()
	must(t, err)
	m.buf, err = rt.Alloc[float32](m.ctx, 32)
	must(t, err)
	must(t, vecAddGen(m.cfg.On(m.s), m.buf.Ptr, m.buf.Ptr, m.buf.Ptr, 32))
	m.kh, err = costVecAdd.Handle(d)
	must(t, err)
	m.g = newGraphOf256(t, m.s, m.buf.Ptr)
	for _, n := range m.g.nodes {
		m.kns = append(m.kns, m.g.x.KernelNode(n))
		m.hs = append(m.hs, n.Handle())
	}
	p := m.buf.Ptr
	binary.LittleEndian.PutUint64(m.pb[0:], uint64(p))
	binary.LittleEndian.PutUint64(m.pb[8:], uint64(p))
	binary.LittleEndian.PutUint64(m.pb[16:], uint64(p))
	binary.LittleEndian.PutUint32(m.pb[24:], 32)
	for v := range nVariants {
		m.order = append(m.order, v)
	}
	must(t, m.s.Synchronize())
	return m
}

func (m *graphCost) close() {
	m.s.Synchronize()
	m.g.destroy()
	m.buf.Free()
	m.s.Destroy()
	m.ctx.Release()
}

func (m *graphCost) run(v int) (time.Duration, error) {
	p, a := m.buf.Ptr, m.buf.Ptr.Addr()
	switch v {
	case vCLoop:
		return m.d.cGraphLoop(m.kh, m.s.Handle(), a, a, a, 32, graphLaunches)
	case vCReplay:
		return cGraphReplay(m.g.x.Handle(), m.s.Handle())
	case vGoReplay:
		t0 := time.Now()
		if err := m.g.x.Launch(m.s); err != nil {
			return 0, err
		}
		err := m.s.Synchronize()
		return time.Since(t0), err
	case vGoLoop:
		t0 := time.Now()
		cfg := m.cfg.On(m.s)
		for i := 0; i < graphLaunches; i++ {
			if err := vecAddGen(cfg, p, p, p, 32); err != nil {
				return 0, err
			}
		}
		err := m.s.Synchronize()
		return time.Since(t0), err
	case vCUpdate:
		return m.d.cGraphUpdate(m.g.x.Handle(), m.hs, m.kh, m.ctx.Handle(), a, a, a, 32)
	case vShimUpdate:
		return m.d.cGraphUpdateShim(m.g.x.Handle(), m.hs, m.kh, m.ctx.Handle(), m.pb)
	case vGoUpdate:
		t0 := time.Now()
		for _, kn := range m.kns {
			if err := vecAddNodeGen(kn, m.cfg, p, p, p, 32); err != nil {
				return 0, err
			}
		}
		return time.Since(t0), nil
	}
	return 0, nil
}

// round runs every variant once, in a new order, and records the times per
// kernel or per node when keep is set.
func (m *graphCost) round(t testing.TB, keep bool) {
	m.rng.Shuffle(len(m.order), func(i, j int) { m.order[i], m.order[j] = m.order[j], m.order[i] })
	for _, v := range m.order {
		dt, err := m.run(v)
		must(t, err)
		must(t, m.s.Synchronize())
		if keep {
			m.times[v] = append(m.times[v], dt/graphLaunches)
		}
	}
}

func (m *graphCost) medians() [nVariants]time.Duration {
	var med [nVariants]time.Duration
	for v, x := range m.times {
		if len(x) == 0 {
			continue
		}
		x = append([]time.Duration(nil), x...)
		sort.Slice(x, func(i, j int) bool { return x[i] < x[j] })
		med[v] = x[len(x)/2]
	}
	return med
}

func (m *graphCost) report(t *testing.T) {
	med := m.medians()
	r := func(a, b int) float64 { return float64(med[a]) / float64(med[b]) }
	for v, name := range variantNames {
		ref := vCLoop
		if v >= vCUpdate {
			ref = vCUpdate
		}
		fmt.Printf("GRAPH-BREAKDOWN %-50s %9v  %.3f\n", name, med[v], r(v, ref))
	}
	lines := []string{
		fmt.Sprintf("GRAPH-COST 256 launches, per kernel: Go replay %v, C replay %v, C loop %v: Go replay / C replay %.3f (goal ≤ 1.05), Go replay / C loop %.3f (goal ≤ 0.4); Go launch loop / C loop %.3f (median of %d rounds)",
			med[vGoReplay], med[vCReplay], med[vCLoop], r(vGoReplay, vCReplay), r(vGoReplay, vCLoop), r(vGoLoop, vCLoop), len(m.times[vGoReplay])),
		fmt.Sprintf("GRAPH-UPDATE per node: Go generated %v, C %v: ratio %.3f (the shim from C: %.3f)",
			med[vGoUpdate], med[vCUpdate], r(vGoUpdate, vCUpdate), r(vShimUpdate, vCUpdate)),
	}
	for _, l := range lines {
		t.Log(l)
		fmt.Println(l)
	}
}

// TestPeerCopies times a 256 MiB copy between two GPUs with and without
// peer access (it skips with one GPU) and checks the bytes.
func TestPeerCopies(t *testing.T) {
	d := gpu(t)
	n, err := d.DeviceCount()
	must(t, err)
	if n < 2 {
		t.Skipf("needs 2 devices, have %d", n)
	}
	devs, err := rt.DevicesOf(d)
	must(t, err)
	c0, err := devs[0].Primary()
	must(t, err)
	defer c0.Release()
	c1, err := devs[1].Primary()
	must(t, err)
	defer c1.Release()
	const elems = 64 << 20 // 256 MiB of float32
	src := make([]float32, elems)
	for i := range src {
		src[i] = float32(i % 1000)
	}
	x0, err := rt.AllocFrom(c0, src)
	must(t, err)
	defer x0.Free()
	y1, err := rt.Alloc[float32](c1, elems)
	must(t, err)
	defer y1.Free()
	s1, err := c1.NewStream()
	must(t, err)
	defer s1.Destroy()
	can, err := devs[1].CanAccessPeer(devs[0])
	must(t, err)
	rank, _ := devs[1].P2PAttribute(devs[0], rt.P2PPerformanceRank)
	timeCopy := func(what string) {
		must(t, y1.Zero())
		best := time.Duration(1 << 62)
		for rep := 0; rep < 5; rep++ {
			t0 := time.Now()
			must(t, y1.CopyFromPeerAsync(s1, x0))
			must(t, s1.Synchronize())
			best = min(best, time.Since(t0))
		}
		got, err := y1.ToHost()
		must(t, err)
		for i := 0; i < elems; i += 4099 {
			if got[i] != src[i] {
				t.Fatalf("%s: element %d = %v, want %v", what, i, got[i], src[i])
			}
		}
		line := fmt.Sprintf("PEER-COPY device 0 → 1, 256 MiB, %s: %v, %.1f GB/s (can access %v, rank %d)",
			what, best, float64(elems*4)/best.Seconds()/1e9, can, rank)
		t.Log(line)
		fmt.Println(line)
	}
	timeCopy("peer access off")
	if !can {
		return
	}
	must(t, c1.EnablePeerAccess(c0))
	defer c1.DisablePeerAccess(c0)
	timeCopy("peer access on")
}
