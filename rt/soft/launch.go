package soft

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// launch is one kernel execution.
type launch struct {
	d         *Driver
	p         *program
	ctx       *context
	grid      rt.Dim3
	block     rt.Dim3
	dynShared uint32
	params    []byte
	paramPtr  unsafe.Pointer // &params[0], 8-byte aligned
	vars      []uint64       // module variable addresses in ctx, by index
	nthreads  int
	budget    uint64
	used      atomic.Uint64
	gridID    uint64
	start     time.Time
	graph     *sexec // the instantiated graph the launch runs in, nil for a stream's

	// Thread-block clusters (cluster.go): the launch's cluster dimension
	// (zero: none), and the shape its CTAs run in.
	cluster  rt.Dim3
	cdim     [3]uint32
	csize    int
	explicit bool

	gridSync uint64 // the cooperative launch's grid-sync workspace (coop.go), or 0

	// Dynamic parallelism (cdp.go).
	dyn     *cdpState
	cdpOnce sync.Once
}

var gridIDs atomic.Uint64

// Launch is cuLaunchKernel. The launch is validated and its parameters
// copied synchronously; the kernel runs asynchronously on its stream and
// its execution errors are reported by the next synchronising call, unless
// Options.LaunchBlocking is set.
func (d *Driver) Launch(k rt.KernelHandle, la rt.LaunchArgs) error {
	const op = "cuLaunchKernel"
	d.mu.Lock()
	p, moves := d.kernels[k], d.placed[k]
	d.mu.Unlock()
	if p == nil {
		return rt.Errorf(op, rt.ErrInvalidHandle, "kernel handle %#x is not loaded", uintptr(k))
	}
	var err error
	if moves != nil {
		if la, err = place(op, p, moves, la); err != nil {
			return err
		}
	}
	var s *stream
	if la.Stream != 0 {
		s, err = d.stream(op, 0, la.Stream)
	} else {
		s, err = d.stream(op, la.Ctx, 0)
	}
	if err != nil {
		return err
	}
	c := s.ctx
	if err := d.checkLaunch(op, p, c, la); err != nil {
		return err
	}
	g, b := la.Grid, la.Block
	nthreads := uint64(b.X) * uint64(b.Y) * uint64(b.Z)
	pbuf := make([]uint64, la.ParamSize/8+1)
	params := unsafe.Slice((*byte)(unsafe.Pointer(&pbuf[0])), la.ParamSize)
	if la.ParamSize > 0 {
		copy(params, unsafe.Slice((*byte)(la.Params), la.ParamSize))
	}
	p.lib.mu.Lock()
	unloaded := p.lib.unloaded
	p.lib.mu.Unlock()
	if unloaded {
		return rt.Errorf(op, rt.ErrInvalidHandle, "kernel %s: its library was unloaded", p.name)
	}
	l := &launch{d: d, p: p, ctx: c, grid: g, block: b, dynShared: la.SharedMem, params: params, paramPtr: unsafe.Pointer(&pbuf[0]),
		nthreads: int(nthreads), budget: d.opt.InstrBudget, gridID: gridIDs.Add(1), cluster: la.Cluster}
	if p.usesVars {
		in, err := p.lib.instance(c)
		if err != nil {
			return err
		}
		l.vars = in.addr
	}
	coop := la.Cooperative
	o, err := d.submit(op, s, l.node(coop), func() error { return l.run(coop) })
	if err != nil || o == nil { // failed, or captured
		return err
	}
	d.launched(s, l)
	if d.opt.LaunchBlocking {
		<-o.done
		if err := s.wait(); err != nil {
			if e, ok := err.(*rt.Error); ok {
				e2 := *e
				e2.Async = false
				return &e2
			}
			return err
		}
	}
	return nil
}

// checkLaunch checks a launch of p in c, or a graph node's: its shapes
// (rt's, normalized, each checked against a device limit that starts at 1),
// shared memory and parameter buffer.
func (d *Driver) checkLaunch(op string, p *program, c *context, la rt.LaunchArgs) error {
	g, b := la.Grid, la.Block
	nthreads := uint64(b.X) * uint64(b.Y) * uint64(b.Z)
	switch {
	case !inRange(b.X, maxThreadsPerBlock) || !inRange(b.Y, maxThreadsPerBlock) || !inRange(b.Z, maxBlockDimZ) || nthreads > maxThreadsPerBlock:
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: block %dx%dx%d is outside the device limits (1 to 1024 threads, z 1 to 64)", p.name, b.X, b.Y, b.Z)
	case !inRange(g.X, maxGridDimX) || !inRange(g.Y, maxGridDimYZ) || !inRange(g.Z, maxGridDimYZ):
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: grid %dx%dx%d is outside the device limits", p.name, g.X, g.Y, g.Z)
	}
	if err := checkNTID(p, b); err != nil {
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: %v", p.name, err)
	}
	shared := uint64(p.sharedSize) // not counting the reserved KB, as the device's limit does not
	if la.SharedMem > 0 {
		shared = uint64(p.dynOff) - sharedPerBlockRes + uint64(la.SharedMem)
	}
	if shared > sharedPerBlockOpt {
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: %d bytes of shared memory exceed the device's %d", p.name, shared, sharedPerBlockOpt)
	}
	if limit := d.maxDynamicShared(p, c.dev.ord); int(la.SharedMem) > limit {
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: %d bytes of dynamic shared memory exceed its limit of %d on device %d; raise the limit with rt.Kernel.SetMaxDynamicSharedMemory (FuncMaxDynamicSharedSizeBytes)",
			p.name, la.SharedMem, limit, c.dev.ord)
	}
	if la.ParamSize < uintptr(p.paramSize) || la.ParamSize > 0 && la.Params == nil {
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: parameter buffer of %d bytes, the kernel's parameters need %d", p.name, la.ParamSize, p.paramSize)
	}
	if code, err := checkCluster(p, g, la.Cluster, d.nonPortableCluster(p, c.dev.ord)); err != nil {
		return rt.Errorf(op, code, "kernel %s: %v", p.name, err)
	}
	if la.Cooperative && g.Count() > numSMs*uint64(max(1, 2048/nthreads)) {
		return rt.Errorf(op, rt.ErrCooperativeLaunchTooLarge, "kernel %s: %d blocks cannot all be resident", p.name, g.Count())
	}
	return nil
}

// inRange reports whether a launch dimension lies in 1..limit.
func inRange(v uint32, limit uint64) bool { return v >= 1 && uint64(v) <= limit }

// KernelParamInfo is cuKernelGetParamInfo: the kernel's parameters as the
// PTX lays them out, which is where soft reads them from the buffer.
func (d *Driver) KernelParamInfo(k rt.KernelHandle) ([]rt.ParamSpec, error) {
	d.mu.Lock()
	p := d.kernels[k]
	d.mu.Unlock()
	if p == nil {
		return nil, rt.Errorf("cuKernelGetParamInfo", rt.ErrInvalidHandle, "kernel handle %#x is not loaded", uintptr(k))
	}
	offs, _ := layoutParams(p.fn.Params, 0)
	specs := make([]rt.ParamSpec, len(offs))
	for i, q := range p.fn.Params {
		size, _ := paramSize(q)
		specs[i] = rt.ParamSpec{Offset: offs[i], Size: size}
	}
	return specs, nil
}

func checkNTID(p *program, b rt.Dim3) error {
	dims := []uint32{b.X, b.Y, b.Z}
	if len(p.reqNTID) > 0 {
		for i, n := range p.reqNTID {
			if int(dims[i]) != n {
				return fmt.Errorf("block %dx%dx%d does not match .reqntid %v", b.X, b.Y, b.Z, p.reqNTID)
			}
		}
	}
	if len(p.maxNTID) > 0 {
		t := 1
		for _, n := range p.maxNTID {
			t *= n
		}
		if int(b.Count()) > t {
			return fmt.Errorf("block of %d threads exceeds .maxntid %v", b.Count(), p.maxNTID)
		}
	}
	return nil
}

// run executes the grid on the driver's workers.
func (l *launch) run(coop bool) error {
	l.start = time.Now()
	l.shapeClusters()
	if coop {
		if err := l.gridSyncWorkspace(); err != nil {
			return err
		}
		defer l.freeGridSync()
	}
	total := l.grid.Count() / uint64(l.csize) // CTAs, or clusters of them
	workers := l.d.opt.Workers
	if coop {
		// A cooperative grid may synchronise across CTAs, so every CTA
		// needs its own goroutine.
		workers = int(total)
	}
	if uint64(workers) > total {
		workers = int(total)
	}
	var next atomic.Uint64
	var stop atomic.Bool
	var mu sync.Mutex
	var first *rt.Error
	var firstID uint64
	fail := func(e *rt.Error, id uint64) {
		mu.Lock()
		if first == nil || id < firstID {
			first, firstID = e, id
		}
		mu.Unlock()
		stop.Store(true)
	}
	work := func(smid int) {
		u := l.newRunner(smid)
		var id uint64
		defer func() {
			l.d.instrCount.Add(u.ran())
			if r := recover(); r != nil {
				c, cid := u.at(id)
				fail(l.errorFor(c, cid, &fault{kind: fPanic, warp: c.w.id, lane: -1, pc: c.pc,
					msg: fmt.Sprintf("internal error: %v\n%s", r, debug.Stack())}), cid)
			}
		}()
		for !stop.Load() {
			if f := l.d.fault.Load(); f != nil {
				// A launch faulted: CUDA is unusable in the process (sticky.go): this one ends too.
				fail(&rt.Error{Op: "cuLaunchKernel", Code: f.Code, Detail: "kernel " + l.p.name + " stopped: a kernel faulted: " + f.Detail}, id)
				return
			}
			id = next.Add(1) - 1
			if id >= total {
				return
			}
			if coop {
				id = uint64(smid)
			}
			if !u.run(id) {
				c, cid := u.at(id)
				fail(l.errorFor(c, cid, c.fault), cid)
				return
			}
			if coop {
				return
			}
		}
	}
	if workers <= 1 {
		work(0)
	} else {
		var wg sync.WaitGroup
		for i := 0; i < workers; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				work(i)
			}(i)
		}
		wg.Wait()
	}
	if first != nil {
		l.ctx.poison(first) // sticky.go
		return first
	}
	return l.runChildren()
}

var faultCodes = map[faultKind]rt.Result{
	fIllegalAddress: rt.ErrIllegalAddress,
	fMisaligned:     rt.ErrMisalignedAddress,
	fDeadlock:       rt.ErrLaunchFailed,
	fBudget:         rt.ErrLaunchTimeout,
	fTrap:           rt.ErrLaunchFailed, // what an H100 reports (CUDA documents no code for trap)
	fAssert:         rt.ErrAssert,
	fStack:          rt.ErrHardwareStackError,
	fPanic:          rt.ErrLaunchFailed,
	fInvalid:        rt.ErrIllegalInstruction,
	fRace:           rt.ErrLaunchFailed,
}

// errorFor describes a fault the way compute-sanitizer does: kernel, block,
// thread, PTX position and instruction, address.
func (l *launch) errorFor(c *cta, id uint64, f *fault) *rt.Error {
	if f == nil {
		f = &fault{kind: fPanic, lane: -1, msg: "unknown failure"}
	}
	g := l.grid
	bx, by, bz := id%uint64(g.X), id/uint64(g.X)%uint64(g.Y), id/(uint64(g.X)*uint64(g.Y))
	where := fmt.Sprintf("kernel %s, block (%d,%d,%d)", l.p.name, bx, by, bz)
	if f.lane >= 0 {
		t := uint32(f.warp*32 + f.lane)
		b := l.block
		where += fmt.Sprintf(", thread (%d,%d,%d)", t%b.X, t/b.X%b.Y, t/(b.X*b.Y))
	}
	if f.pc >= 0 && int(f.pc) < len(l.p.src) {
		in := l.p.src[f.pc]
		where += fmt.Sprintf(", at %s (%s)", in.Pos, instName(in))
	}
	msg := f.msg
	switch f.kind {
	case fIllegalAddress, fMisaligned:
		dir := "read"
		if f.write {
			dir = "write"
		}
		kind := "Invalid"
		if f.kind == fMisaligned {
			kind = "Misaligned"
		}
		msg = fmt.Sprintf("%s __%s__ %s of size %d bytes: %s", kind, spaceNames[f.space], dir, f.size, f.msg)
	}
	return &rt.Error{Op: "cuLaunchKernel", Code: faultCodes[f.kind], Detail: where + ": " + msg}
}
