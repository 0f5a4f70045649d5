// Thread-block clusters: a launch's CTAs grouped into clusters (the launch's
// Cluster dimension, or the kernel's .reqnctapercluster), the CTAs of a
// cluster run together on one worker so that each can reach the others'
// shared memory (distributed shared memory: mapa, getctarank, ld/st/atom/red
// and bulk copies on .shared::cluster, generic addresses of it) and wait at
// the cluster barrier (barrier.cluster.arrive/wait). Without clusters every
// CTA is a cluster of one, as on the GPU.
//
// A .shared::cluster address names a CTA of the cluster and an offset in its
// shared memory: the offset alone (below 1<<24) is the CTA's own shared
// memory, so every .shared::cta address is also its .shared::cluster
// address, and (rank+1)<<24 | offset is the CTA of that rank, which is what
// mapa returns. Generic addresses of shared memory are the shared window plus
// that.

package exec

import (
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
)

const (
	clusterRankShift = 24 // shared::cluster address = (rank+1)<<24 | offset
	clusterOffMask   = 1<<clusterRankShift - 1
	maxClusterSize   = 16 // with FuncNonPortableClusterSizeAllowed; 8 without
	portableCluster  = 8
)

// cluster is the CTAs that run together, and their cluster barrier.
type cluster struct {
	l    *Launch
	ctas []*cta // by rank
	dim  [3]uint32
	size int
	id   uint64 // the cluster's linear index in the grid of clusters

	// The cluster barrier: threads arrived in the current phase (exited
	// threads count as arrived, see clusterBarrierDone).
	arrived int
	// failed is the CTA whose fault stopped the cluster.
	failed *cta
	// mbarrier activity, for telling a stall from a deadlock (mbarrier.go).
	mbChanges, stallMark uint64
	stalls               int
}

// CheckCluster checks a launch's cluster dimension against its grid and
// the kernel's .reqnctapercluster, as cuLaunchKernelEx does: more than 8
// blocks needs FuncNonPortableClusterSizeAllowed (nonPortable) and more
// than 16 never runs (CUDA_ERROR_INVALID_CLUSTER_SIZE); a shape that
// disagrees with the kernel's or the grid's is CUDA_ERROR_INVALID_VALUE.
func CheckCluster(p *Program, grid, cl rt.Dim3, nonPortable bool) (rt.Result, error) {
	req := p.Func.ReqNCTAPerCluster
	if cl == (rt.Dim3{}) {
		if len(req) == 0 {
			return rt.Success, nil
		}
		cl = reqCluster(req)
	} else if len(req) > 0 && reqCluster(req) != cl {
		r := reqCluster(req)
		return rt.ErrInvalidValue, fmt.Errorf("cluster %dx%dx%d differs from the kernel's .reqnctapercluster %dx%dx%d", cl.X, cl.Y, cl.Z, r.X, r.Y, r.Z)
	}
	n := cl.Count()
	switch {
	case p.Func.MaxClusterRank > 0 && n > uint64(p.Func.MaxClusterRank):
		return rt.ErrInvalidClusterSize, fmt.Errorf("cluster %dx%dx%d has %d blocks, more than the kernel's .maxclusterrank %d", cl.X, cl.Y, cl.Z, n, p.Func.MaxClusterRank)
	case n > maxClusterSize:
		return rt.ErrInvalidClusterSize, fmt.Errorf("cluster %dx%dx%d has %d blocks, more than the device's %d", cl.X, cl.Y, cl.Z, n, maxClusterSize)
	case n > portableCluster && p.Func.MaxClusterRank == 0 && !nonPortable:
		return rt.ErrInvalidClusterSize, fmt.Errorf("cluster %dx%dx%d has %d blocks, more than the portable %d: allow more with rt.Kernel.AllowNonPortableClusterSize (FuncNonPortableClusterSizeAllowed)", cl.X, cl.Y, cl.Z, n, portableCluster)
	}
	if grid.X%cl.X != 0 || grid.Y%cl.Y != 0 || grid.Z%cl.Z != 0 {
		return rt.ErrInvalidValue, fmt.Errorf("grid %dx%dx%d is not a whole number of clusters %dx%dx%d", grid.X, grid.Y, grid.Z, cl.X, cl.Y, cl.Z)
	}
	return rt.Success, nil
}

func reqCluster(req []int) rt.Dim3 {
	d := rt.Dim3{X: 1, Y: 1, Z: 1}
	for i, v := range req {
		switch i {
		case 0:
			d.X = uint32(v)
		case 1:
			d.Y = uint32(v)
		case 2:
			d.Z = uint32(v)
		}
	}
	return d
}

// shapeClusters fixes the shape the launch's CTAs run in.
func (l *Launch) shapeClusters() {
	cl := l.Cluster
	if cl == (rt.Dim3{}) && len(l.Program.Func.ReqNCTAPerCluster) > 0 {
		cl = reqCluster(l.Program.Func.ReqNCTAPerCluster)
	}
	l.explicit = cl != (rt.Dim3{})
	cl = cl.Norm()
	l.cdim = [3]uint32{cl.X, cl.Y, cl.Z}
	l.csize = int(cl.Count())
	if l.Grid.X%cl.X != 0 || l.Grid.Y%cl.Y != 0 || l.Grid.Z%cl.Z != 0 {
		// checkCluster refused this at launch; be safe anyway.
		l.cdim, l.csize = [3]uint32{1, 1, 1}, 1
	}
}

// runner runs a launch's units of work: single CTAs, or clusters.
type runner interface {
	run(id uint64) bool
	// at is the CTA that faulted while running unit id, and its linear
	// CTA number.
	at(id uint64) (*cta, uint64)
	ran() uint64 // thread-instructions executed
}

func (l *Launch) newRunner(smid int) runner {
	if l.csize == 1 {
		return newCTA(l, smid)
	}
	cl := &cluster{l: l, dim: l.cdim, size: l.csize}
	for r := 0; r < l.csize; r++ {
		c := newCTA(l, smid)
		c.cl, c.rank = cl, r
		cl.ctas = append(cl.ctas, c)
	}
	return cl
}

func (c *cta) at(id uint64) (*cta, uint64) { return c, id }
func (c *cta) ran() uint64                 { return c.executed }

func (cl *cluster) ran() uint64 {
	var n uint64
	for _, c := range cl.ctas {
		n += c.executed
	}
	return n
}

func (cl *cluster) at(id uint64) (*cta, uint64) {
	c := cl.failed
	if c == nil {
		c = cl.ctas[0]
	}
	return c, cl.ctaNumber(id, c.rank)
}

// ctaNumber is the linear CTA number of rank r of cluster id.
func (cl *cluster) ctaNumber(id uint64, r int) uint64 {
	g := cl.l.Grid
	nx, ny := uint64(g.X/cl.dim[0]), uint64(g.Y/cl.dim[1])
	cx, cy, cz := id%nx, id/nx%ny, id/(nx*ny)
	dx, dy := uint64(cl.dim[0]), uint64(cl.dim[1])
	rx, ry, rz := uint64(r)%dx, uint64(r)/dx%dy, uint64(r)/(dx*dy)
	x, y, z := cx*dx+rx, cy*dy+ry, cz*uint64(cl.dim[2])+rz
	return x + y*uint64(g.X) + z*uint64(g.X)*uint64(g.Y)
}

// run executes cluster number id: its CTAs' warps take turns until all
// have exited; false means one faulted (cl.failed).
func (cl *cluster) run(id uint64) bool {
	cl.id, cl.failed, cl.arrived = id, nil, 0
	cl.mbChanges, cl.stallMark, cl.stalls = 0, 0, 0
	for r, c := range cl.ctas {
		c.start(cl.ctaNumber(id, r))
	}
	for {
		progress, done := false, true
		for _, c := range cl.ctas {
			if c.finished() {
				continue
			}
			p, ok := c.sweep()
			if !ok {
				cl.failed = c
				return false
			}
			progress = progress || p
			done = done && c.finished()
		}
		if done {
			return true
		}
		if progress {
			continue
		}
		freed := false
		for _, c := range cl.ctas {
			freed = c.release() || freed
		}
		if !freed && !cl.ctas[0].unstall() {
			for _, c := range cl.ctas {
				if !c.finished() {
					cl.failed = c
					return c.deadlock()
				}
			}
		}
	}
}

// Special registers of clusters. The CTA-dependent ones are refreshed by
// start; the others are the launch's (fillSpecials).

// perCTASpecial is the value of a special register that changes from CTA
// to CTA, and whether k is one.
func (c *cta) perCTASpecial(k int) (uint64, bool) {
	d := c.l.cdim
	switch k {
	case spCtaidX, spCtaidY, spCtaidZ:
		return uint64(c.ctaid[k-spCtaidX]), true
	case spClCtaidX, spClCtaidY, spClCtaidZ:
		i := k - spClCtaidX
		return uint64(c.ctaid[i] % d[i]), true
	case spClIDX, spClIDY, spClIDZ:
		i := k - spClIDX
		return uint64(c.ctaid[i] / d[i]), true
	case spClRank:
		x, y, z := c.ctaid[0]%d[0], c.ctaid[1]%d[1], c.ctaid[2]%d[2]
		return uint64(x + y*d[0] + z*d[0]*d[1]), true
	}
	return 0, false
}

// clusterSpecial is the value of a special register that is the same in
// every CTA of the launch: the cluster shape's, and the environment
// registers of the grid-sync workspace.
func (l *Launch) clusterSpecial(k int) uint64 {
	d, g := l.cdim, l.Grid
	switch k {
	case spClNctaidX, spClNctaidY, spClNctaidZ:
		return uint64(d[k-spClNctaidX])
	case spClNRank:
		return uint64(d[0] * d[1] * d[2])
	case spNClIDX:
		return uint64(g.X / d[0])
	case spNClIDY:
		return uint64(g.Y / d[1])
	case spNClIDZ:
		return uint64(g.Z / d[2])
	case spClExplicit:
		if l.explicit {
			return 1
		}
	case spEnvreg1:
		return l.gridSync >> 32
	case spEnvreg2:
		return l.gridSync & 0xffffffff
	}
	return 0
}

// clusterPtr resolves a .shared::cluster address (or the shared part of a
// generic one) of n bytes; nil means a fault was recorded.
func (c *cta) clusterPtr(w *warp, addr, n uint64, write bool, l int) unsafe.Pointer {
	t, off, msg := c.clusterTarget(addr)
	if t == nil {
		c.memFault(addr, n, spShared, write, l, msg)
		return nil
	}
	if off >= t.shLen || n > t.shLen-off {
		who := "the CTA"
		if t != c {
			who = sprintf("the cluster's CTA of rank %d", t.rank)
		}
		c.memFault(addr, n, spShared, write, l, sprintf("shared address %#x is out of bounds: %s has %s", addr, who, sharedDesc(t.shLen)))
		return nil
	}
	return unsafe.Add(t.shPtr, off)
}

// clusterTarget splits a .shared::cluster address into its CTA and offset;
// a nil CTA comes with the reason.
func (c *cta) clusterTarget(addr uint64) (*cta, uint64, string) {
	r := addr >> clusterRankShift
	if r == 0 {
		return c, addr, ""
	}
	if r > uint64(len(c.cl.ctas)) {
		return nil, 0, sprintf("shared::cluster address %#x names the CTA of rank %d, but the cluster has %d", addr, r-1, len(c.cl.ctas))
	}
	return c.cl.ctas[r-1], addr & clusterOffMask, ""
}

// Cluster instructions (opCluster's fl).
const (
	clMapa    = iota // d = a's address in the CTA of rank b
	clMapaGen        // the same for generic addresses
	clRank           // d = the rank of the CTA a .shared::cluster address is in
	clRankGen        // the same for generic addresses
	clArrive         // barrier.cluster.arrive
	clWait           // barrier.cluster.wait
)

// clusterOp runs mapa, getctarank and the cluster barrier; false means a
// fault. Lanes barrier.cluster.wait parks are in c.parked.
func (c *cta) clusterOp(w *warp, in *inst, m uint32, pc int32) bool {
	r := w.r
	switch in.fl {
	case clArrive:
		c.clusterArrive(w, m)
		return true
	case clWait:
		c.parked = 0
		if p := m & w.clArr; p != 0 {
			w.clWait |= p
			w.waiting |= p
			w.setPCs(p, pc+1)
			c.parked = p
		}
		return true
	}
	d, a, b := lanes(r, in.d), lanes(r, in.a), lanes(r, in.b)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		x := a[l]
		gen := in.fl == clMapaGen || in.fl == clRankGen
		if gen {
			if x-sharedWin >= winSize {
				c.fault = &fault{kind: fIllegalAddress, warp: w.id, lane: l, pc: pc, addr: x, space: spGeneric,
					msg: sprintf("%#x is not a generic address of shared memory", x)}
				return false
			}
			x -= sharedWin
		}
		x &= 0xffffffff
		t, off, msg := c.clusterTarget(x)
		if t == nil {
			c.fault = &fault{kind: fIllegalAddress, warp: w.id, lane: l, pc: pc, addr: x, space: spShared, msg: msg}
			return false
		}
		switch in.fl {
		case clMapa, clMapaGen:
			rank := b[l] & 0xffffffff
			if rank >= uint64(len(c.cl.ctas)) {
				c.fault = &fault{kind: fInvalid, warp: w.id, lane: l, pc: pc,
					msg: sprintf("mapa to the CTA of rank %d, but the cluster has %d", rank, len(c.cl.ctas))}
				return false
			}
			v := (rank+1)<<clusterRankShift | off
			if gen {
				v += sharedWin
			}
			d[l] = v
		default:
			d[l] = uint64(t.rank)
		}
	}
	return true
}

// clusterArrive marks lanes m arrived at the cluster barrier and releases
// it if they were the last.
func (c *cta) clusterArrive(w *warp, m uint32) {
	m &^= w.clArr
	w.clArr |= m
	c.cl.arrived += bits.OnesCount32(m)
	c.cl.releaseBarrier()
}

// releaseBarrier completes the cluster barrier's phase once every thread
// of the cluster has arrived or exited, and reports whether it did.
func (cl *cluster) releaseBarrier() bool {
	if cl.arrived == 0 {
		return false
	}
	n := cl.arrived
	for _, c := range cl.ctas {
		for _, w := range c.warps {
			// Exited lanes count once, whether or not they arrived first.
			n += bits.OnesCount32(w.exited &^ w.clArr)
		}
	}
	if n < cl.size*cl.ctas[0].nthr {
		return false
	}
	for _, c := range cl.ctas {
		for _, w := range c.warps {
			w.waiting &^= w.clWait
			w.clWait, w.clArr = 0, 0
		}
		if c.rc != nil {
			c.rc.newEpoch() // racecheck.go: every thread has arrived
		}
	}
	cl.arrived = 0
	return true
}

// clusterWaits describes lanes parked at the cluster barrier, for the
// deadlock report.
func (c *cta) clusterWaits() string {
	cl := c.cl
	if cl.arrived == 0 {
		return ""
	}
	live := 0
	for _, t := range cl.ctas {
		for _, w := range t.warps {
			live += bits.OnesCount32(w.live &^ w.exited)
		}
	}
	return sprintf("; the cluster barrier has %d of %d threads", cl.arrived, live)
}

// Decoding.

// clusterInstr decodes mapa, getctarank and barrier.cluster.
func (dc *decoder) clusterInstr(in *ptx.Instr, sc *scope, m modset, x inst) {
	ops := in.Operands
	x.op = opCluster
	switch in.Op {
	case "barrier":
		dc.nops(in, 0)
		switch {
		case m.flags["arrive"]:
			x.fl = clArrive
		case m.flags["wait"]:
			x.fl = clWait
		default:
			dc.failIn(in, "expected barrier.cluster.arrive or barrier.cluster.wait")
		}
		for _, f := range m.list {
			switch f {
			case "cluster", "arrive", "wait", "release", "relaxed", "acquire", "aligned":
			default:
				dc.failIn(in, "modifier .%s is not supported", f)
			}
		}
	case "mapa":
		dc.nops(in, 3)
		x.fl = clMapaGen
		if m.flags["shared::cluster"] {
			x.fl = clMapa
		}
		t := m.typ()
		x.d, x.a, x.b = dc.dst(in, sc, ops[0]), dc.src(in, sc, ops[1], t), dc.src(in, sc, ops[2], ptx.U32)
	case "getctarank":
		dc.nops(in, 2)
		x.fl = clRankGen
		if m.flags["shared::cluster"] {
			x.fl = clRank
		}
		x.d, x.a = dc.dst(in, sc, ops[0]), dc.src(in, sc, ops[1], m.typ())
	}
	dc.emit(in, x)
}
