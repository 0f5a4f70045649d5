// Dynamic parallelism (CDP2): the device runtime calls that nvcc emits for
// kernel launches, streams, cudaMalloc, cudaMemcpyAsync and errors in device
// code (__cudaCDP2GetParameterBufferV2, __cudaCDP2LaunchDeviceV2, …), and
// the child grids they launch.
//
// A grid's children and device-side copies run after the grid itself, in
// the order their CTAs (by CTA number) and each CTA's threads issued them,
// each child's own children before the next: one of the orders CUDA allows,
// since CDP2 has no device-side synchronisation (a grid only knows its
// children are complete when it is), work in one device stream runs in
// issue order, and a tail launch runs after its parent's other work. The
// parent's launch completes, and reports the first error of any of its
// descendants, once they all have. Nesting is bounded by 24 levels and
// each grid by 2048 pending launches, as CUDA's defaults
// (cudaErrorLaunchMaxDepthExceeded, cudaErrorLaunchPendingCountExceeded).

package exec

import (
	"sort"
	"sync"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/devmem"
)

const (
	cdpMaxDepth   = 24
	cdpMaxPending = 2048

	// cudaError_t values the device runtime returns.
	cudaSuccess                         = 0
	cudaErrorInvalidValue               = 1
	cudaErrorMemoryAllocation           = 2
	cudaErrorInvalidConfiguration       = 9
	cudaErrorInvalidDeviceFunction      = 98
	cudaErrorLaunchMaxDepthExceeded     = 65
	cudaErrorLaunchPendingCountExceeded = 69
)

var cudaErrorStrings = map[uint32]string{
	cudaSuccess:                         "no error",
	cudaErrorInvalidValue:               "invalid argument",
	cudaErrorMemoryAllocation:           "out of memory",
	cudaErrorInvalidConfiguration:       "invalid configuration argument",
	cudaErrorInvalidDeviceFunction:      "invalid device function",
	cudaErrorLaunchMaxDepthExceeded:     "launch would exceed maximum depth of nested launches",
	cudaErrorLaunchPendingCountExceeded: "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount",
}

// cdpState is a launch's device runtime state.
type cdpState struct {
	mu       sync.Mutex
	pbufs    map[uint64]*pendingLaunch // parameter buffers handed out, by address
	work     []childWork
	depth    int // 0 for a host launch
	nstreams uint64
}

type pendingLaunch struct {
	p           *Program
	grid, block rt.Dim3
	shared      uint32
	buf         *Alloc
}

// childWork is a child grid or a device-side copy, in issue order.
type childWork struct {
	cta      uint64
	seq      int
	child    *Launch
	dst, src uint64
	n        uint64
}

// runtimeCall runs a call to the device runtime (or malloc/free) for lane
// l of w, whose parameter block is at frame.
func (c *cta) runtimeCall(w *warp, fi *funcInfo, which, l int, frame uint64) bool {
	args := func(i int, size uint64) (uint64, bool) {
		if i >= len(fi.parOff) {
			return 0, true
		}
		p := c.ptr(w, spLocal, frame+uint64(fi.parOff[i]), size, false, l)
		if p == nil {
			return 0, false
		}
		return load(p, uint16(size), false), true
	}
	ret := func(v, size uint64) bool {
		if len(fi.retOff) == 0 {
			return true
		}
		p := c.ptr(w, spLocal, frame+uint64(fi.retOff[0]), size, true, l)
		if p == nil {
			return false
		}
		store(p, uint16(size), v, false)
		return true
	}
	status := func(code uint32) bool {
		if code != cudaSuccess {
			c.setLastError(w, l, code)
		}
		return ret(uint64(code), 4)
	}
	dim := func(i int) (rt.Dim3, bool) {
		var v [3]uint32
		for k := range v {
			p := c.ptr(w, spLocal, frame+uint64(fi.parOff[i])+uint64(4*k), 4, false, l)
			if p == nil {
				return rt.Dim3{}, false
			}
			v[k] = uint32(devmem.Load(p, 4))
		}
		return rt.Dim3{X: v[0], Y: v[1], Z: v[2]}, true
	}
	store8 := func(addr, v uint64) bool {
		p := c.ptr(w, spGeneric, addr, 8, true, l)
		if p == nil {
			return false
		}
		store(p, 8, v, false)
		return true
	}
	switch which {
	case biMalloc, biFree:
		return c.heapCall(w, which, l, args, ret)
	case biCDPMalloc:
		pp, ok1 := args(0, 8)
		n, ok2 := args(1, 8)
		if !ok1 || !ok2 {
			return false
		}
		a := c.deviceMalloc(n)
		if !store8(pp, a) {
			return false
		}
		if a == 0 && n != 0 {
			return status(cudaErrorMemoryAllocation)
		}
		return status(cudaSuccess)
	case biCDPFree:
		p, ok := args(0, 8)
		if !ok {
			return false
		}
		if c.deviceFree(p) != "" {
			return status(cudaErrorInvalidValue)
		}
		return status(cudaSuccess)
	case biCDPStreamCreate:
		pp, ok := args(0, 8)
		if !ok {
			return false
		}
		st := c.l.cdp()
		st.mu.Lock()
		st.nstreams++
		h := 0x5000_0000 + st.nstreams
		st.mu.Unlock()
		return store8(pp, h) && status(cudaSuccess)
	case biCDPStreamDestroy:
		return status(cudaSuccess)
	case biCDPGetLastError, biCDPPeekAtLastError:
		code := c.lastErrs[w.id*32+l]
		if which == biCDPGetLastError {
			delete(c.lastErrs, w.id*32+l)
		}
		return ret(uint64(code), 4)
	case biCDPGetErrorString:
		code, ok := args(0, 4)
		if !ok {
			return false
		}
		a, ok := c.errorString(w, l, uint32(code))
		return ok && ret(a, 8)
	case biCDPMemcpyAsync:
		dst, _ := args(0, 8)
		src, _ := args(1, 8)
		n, ok := args(2, 8)
		if !ok {
			return false
		}
		c.queue(childWork{dst: dst, src: src, n: n})
		return status(cudaSuccess)
	case biCDPGetParameterBuffer:
		fa, ok := args(0, 8)
		grid, ok1 := dim(1)
		block, ok2 := dim(2)
		shared, ok3 := args(3, 4)
		if !ok || !ok1 || !ok2 || !ok3 {
			return false
		}
		p := c.p.Module.kernelAt(fa)
		if p == nil {
			c.setLastError(w, l, cudaErrorInvalidDeviceFunction)
			return ret(0, 8)
		}
		buf, err := c.l.Host.Alloc("cudaGetParameterBuffer", uint64(max(p.ParamSize, 8)), "device launch parameter buffer")
		if err != nil {
			c.setLastError(w, l, cudaErrorMemoryAllocation)
			return ret(0, 8)
		}
		st := c.l.cdp()
		st.mu.Lock()
		st.pbufs[buf.Base] = &pendingLaunch{p: p, grid: grid, block: block, shared: uint32(shared), buf: buf}
		st.mu.Unlock()
		return ret(buf.Base, 8)
	case biCDPLaunch:
		pb, ok := args(0, 8)
		if !ok {
			return false
		}
		return status(c.launchChild(pb))
	}
	c.fault = &fault{kind: fInvalid, warp: w.id, lane: l, pc: c.pc, msg: sprintf("call to %s, which the soft backend does not provide", fi.name)}
	return false
}

func (c *cta) setLastError(w *warp, l int, code uint32) {
	if c.lastErrs == nil {
		c.lastErrs = map[int]uint32{}
	}
	c.lastErrs[w.id*32+l] = code
}

// cdp returns the launch's device runtime state.
func (l *Launch) cdp() *cdpState {
	l.cdpOnce.Do(func() {
		if l.dyn == nil {
			l.dyn = &cdpState{}
		}
		l.dyn.pbufs = map[uint64]*pendingLaunch{}
	})
	return l.dyn
}

// kernelAt is the program of the kernel whose address is a.
func (lib *Module) kernelAt(a uint64) *Program {
	f := lib.byAddr[a]
	if f == nil || !f.Entry {
		return nil
	}
	for _, p := range lib.Kernels {
		if p.Func == f {
			return p
		}
	}
	return nil
}

// queue records a child grid or copy of this CTA.
func (c *cta) queue(w childWork) {
	g := c.l.Grid
	w.cta = uint64(c.ctaid[0]) + uint64(c.ctaid[1])*uint64(g.X) + uint64(c.ctaid[2])*uint64(g.X)*uint64(g.Y)
	w.seq = c.cdpSeq
	c.cdpSeq++
	st := c.l.cdp()
	st.mu.Lock()
	st.work = append(st.work, w)
	st.mu.Unlock()
}

// launchChild launches the kernel whose parameter buffer is at pb.
func (c *cta) launchChild(pb uint64) uint32 {
	l := c.l
	st := l.cdp()
	st.mu.Lock()
	pl := st.pbufs[pb]
	delete(st.pbufs, pb)
	pending := 0
	for _, w := range st.work {
		if w.child != nil {
			pending++
		}
	}
	st.mu.Unlock()
	if pl == nil {
		return cudaErrorInvalidValue
	}
	params := make([]uint64, (pl.p.ParamSize+7)/8+1)
	pbytes := unsafe.Slice((*byte)(unsafe.Pointer(&params[0])), pl.p.ParamSize)
	if !pl.buf.Freed() {
		devmem.CopyOut(pbytes, pl.buf.Bytes())
	}
	l.Host.Free(pl.buf)
	switch {
	case st.depth+1 > cdpMaxDepth:
		return cudaErrorLaunchMaxDepthExceeded
	case pending >= cdpMaxPending:
		return cudaErrorLaunchPendingCountExceeded
	}
	la := rt.LaunchArgs{Grid: pl.grid, Block: pl.block, SharedMem: pl.shared, Params: unsafe.Pointer(&params[0]), ParamSize: uintptr(pl.p.ParamSize)}
	if l.Host.CheckLaunch("cudaLaunchDevice", pl.p, la) != nil {
		return cudaErrorInvalidConfiguration
	}
	// A child runs in its parent's context, and in no graph.
	child := &Launch{Program: pl.p, Host: l.Host, Mem: l.Mem, Config: l.Config, Grid: pl.grid, Block: pl.block, DynShared: pl.shared,
		Params: pbytes, dyn: &cdpState{depth: st.depth + 1}}
	if pl.p.UsesVars {
		vars, err := l.Host.Vars(pl.p.Module)
		if err != nil {
			return cudaErrorInvalidValue
		}
		child.Vars = vars
	}
	c.queue(childWork{child: child})
	return cudaSuccess
}

// runChildren runs, in order, the grids and copies the launch's threads
// issued; the first error stops them.
func (l *Launch) runChildren() error {
	if l.dyn == nil {
		return nil
	}
	st := l.dyn
	st.mu.Lock()
	work := st.work
	st.work = nil
	for _, pl := range st.pbufs {
		// Parameter buffers never launched.
		l.Host.Free(pl.buf)
	}
	st.pbufs = map[uint64]*pendingLaunch{}
	st.mu.Unlock()
	sort.SliceStable(work, func(i, j int) bool {
		if work[i].cta != work[j].cta {
			return work[i].cta < work[j].cta
		}
		return work[i].seq < work[j].seq
	})
	for _, w := range work {
		if w.child != nil {
			err := w.child.Run()
			l.executed.Add(w.child.Executed())
			if err != nil {
				return err
			}
			continue
		}
		if w.n == 0 {
			continue
		}
		to, err := l.Mem.Span("cudaMemcpyAsync (device)", w.dst, w.n)
		if err != nil {
			return err
		}
		from, err := l.Mem.Span("cudaMemcpyAsync (device)", w.src, w.n)
		if err != nil {
			return err
		}
		devmem.Copy(to, from)
	}
	return nil
}

// errorString is the device address of cudaGetErrorString(code)'s text:
// a table the context gets on first use.
func (c *cta) errorString(w *warp, l int, code uint32) (uint64, bool) {
	ctx := c.l.Host.Runtime()
	ctx.mu.Lock()
	tab := ctx.errStrings
	ctx.mu.Unlock()
	if tab == nil {
		var b []byte
		offs := map[uint32]uint64{}
		codes := make([]uint32, 0, len(cudaErrorStrings))
		for k := range cudaErrorStrings {
			codes = append(codes, k)
		}
		sort.Slice(codes, func(i, j int) bool { return codes[i] < codes[j] })
		for _, k := range append(codes, ^uint32(0)) {
			offs[k] = uint64(len(b))
			s, ok := cudaErrorStrings[k]
			if !ok {
				s = "unrecognized error code"
			}
			b = append(append(b, s...), 0)
		}
		a, err := c.l.Host.Alloc("cudaGetErrorString", uint64(len(b)), "device runtime error strings")
		if err != nil {
			c.fault = &fault{kind: fInvalid, warp: w.id, lane: l, pc: c.pc, msg: "no memory for the device runtime's error strings"}
			return 0, false
		}
		devmem.CopyIn(a.Bytes(), b)
		a.ReadOnly = true
		tab = &errTable{base: a.Base, offs: offs}
		ctx.mu.Lock()
		if ctx.errStrings == nil {
			ctx.errStrings = tab
		} else {
			tab = ctx.errStrings
		}
		ctx.mu.Unlock()
	}
	off, ok := tab.offs[code]
	if !ok {
		off = tab.offs[^uint32(0)]
	}
	return tab.base + off, true
}

// errTable is a context's device copy of the error strings.
type errTable struct {
	base uint64
	offs map[uint32]uint64
}
