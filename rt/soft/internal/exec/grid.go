// Running a grid: its CTAs (or clusters of them) spread over the workers,
// and the first fault described as compute-sanitizer describes it.

package exec

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/gopool"
)

// Launch is one grid to run: a kernel, its shape and parameters, and the
// context it runs in. The driver fills in the exported fields; Run runs it.
type Launch struct {
	Program *Program
	Host    Host    // the context the grid runs in
	Mem     *Memory // the device memory
	Config  *Config

	Grid, Block rt.Dim3
	// Cluster is the cluster dimension (zero: none, or the kernel's
	// .reqnctapercluster).
	Cluster   rt.Dim3
	DynShared uint32
	Params    []byte   // the parameter buffer, 8-byte aligned
	Vars      []uint64 // module variable addresses in Host, by index
	// Cooperative runs every CTA on a goroutine of its own, with a
	// grid-sync workspace (coop.go).
	Cooperative bool
	// SetConditional is cudaGraphSetConditional in the graph the launch
	// runs in; nil outside a graph. It returns what is wrong, or "".
	SetConditional func(h uint64, value uint32) string

	paramPtr unsafe.Pointer // &params[0]
	nthreads int
	budget   uint64
	used     atomic.Uint64
	executed atomic.Uint64 // thread-instructions run, children's included
	gridID   uint64
	start    time.Time
	// Where the workers' time went (Spread): how many ran, Run's wall
	// time, and the sums over them of the time from Run's start to their
	// first CTA and to their leaving.
	workers       int
	wall          time.Duration
	late, leaving atomic.Int64

	deadline time.Time // start + Config.Timeout, or zero (interrupt.go)
	maxDepth int       // call frames a thread may have (interrupt.go)

	// Thread-block clusters (cluster.go): the shape the CTAs run in.
	cdim     [3]uint32
	csize    int
	explicit bool

	// The cooperative launch's grid-sync workspace (coop.go): its
	// address, or 0.
	gridSync    uint64
	gridSyncMem *Alloc

	// Dynamic parallelism (cdp.go).
	dyn     *cdpState
	cdpOnce sync.Once

	// The workers' shared state (work): the CTAs (or clusters) in all,
	// the next to run, and the first fault. next is written once per CTA
	// by every worker: the padding keeps the fields the workers read
	// constantly (Program, Grid, Params, ...) off its cache line.
	total   uint64
	coop    bool
	crew    helper         // the other workers' job
	smids   atomic.Int32   // the workers started so far, the launching one not counted
	crewWG  sync.WaitGroup // the other workers, running
	_       [64]byte
	next    atomic.Uint64
	stop    atomic.Bool
	failMu  sync.Mutex
	first   *rt.Error
	firstID uint64
}

var gridIDs atomic.Uint64

// Run executes the grid on Config.Workers goroutines and returns its first
// fault, then its children's (cdp.go), as an *rt.Error of cuLaunchKernel.
func (l *Launch) Run() error {
	l.paramPtr = unsafe.Pointer(unsafe.SliceData(l.Params))
	l.nthreads = int(l.Block.Count())
	l.budget = l.Config.InstrBudget
	l.gridID = gridIDs.Add(1)
	coop := l.Cooperative
	l.start = time.Now()
	l.setLimits()
	l.shapeClusters()
	if coop {
		if err := l.gridSyncWorkspace(); err != nil {
			return err
		}
		defer l.freeGridSync()
	}
	total := l.Grid.Count() / uint64(l.csize) // CTAs, or clusters of them
	workers := l.Config.Workers
	if coop {
		// A cooperative grid may synchronise across CTAs, so every CTA
		// needs its own goroutine.
		workers = int(total)
	}
	if uint64(workers) > total {
		workers = int(total)
	}
	l.total, l.coop = total, coop
	l.workers = max(workers, 1)
	l.late.Store(0)
	l.leaving.Store(0)
	l.next.Store(0)
	l.stop.Store(false)
	l.first, l.firstID = nil, 0
	if workers <= 1 {
		l.work(0)
	} else {
		// The launching goroutine is worker 0; the others are the
		// crew's parked goroutines, so that a launch starts them without
		// allocating.
		if l.csize == 1 && !coop {
			l.reserveCTAs(workers)
		}
		l.crew.l = l
		l.smids.Store(0)
		l.crewWG.Add(workers - 1)
		for i := 1; i < workers; i++ {
			crew.Go(&l.crew)
		}
		l.work(0)
		l.crewWG.Wait()
		l.crew.l = nil
	}
	l.wall = time.Since(l.start)
	if l.first != nil {
		return l.first
	}
	return l.runChildren()
}

// crew runs the workers of launches other than the launching goroutine
// (a cooperative launch's CTAs among them).
var crew = gopool.New(256)

// helper is a launch's job for the crew: one worker.
type helper struct{ l *Launch }

func (h *helper) Run(w *gopool.Worker) {
	l := h.l
	l.work(int(l.smids.Add(1)))
	w.Free()
	l.crewWG.Done()
}

// fail records the fault e of CTA id: the launch reports the lowest
// CTA's, and every worker stops.
func (l *Launch) fail(e *rt.Error, id uint64) {
	l.failMu.Lock()
	if l.first == nil || id < l.firstID {
		l.first, l.firstID = e, id
	}
	l.failMu.Unlock()
	l.stop.Store(true)
}

// work is one worker: it runs the next CTA (or cluster) until none is
// left or one faulted.
func (l *Launch) work(smid int) {
	// A lone worker loses nothing to the others: it reads no clock.
	timed := l.workers > 1
	if timed {
		l.late.Add(int64(time.Since(l.start)))
	}
	total, coop := l.total, l.coop
	u := l.newRunner(smid)
	var id uint64
	defer func() {
		if timed {
			l.leaving.Add(int64(time.Since(l.start)))
		}
		l.executed.Add(u.ran())
		if r := recover(); r != nil {
			c, cid := u.at(id)
			l.fail(l.errorFor(c, cid, &fault{kind: fPanic, warp: c.w.id, lane: -1, pc: c.pc,
				msg: fmt.Sprintf("internal error: %v\n%s", r, debug.Stack())}), cid)
		} else if c, ok := u.(*cta); ok && !coop {
			c.recycle()
		}
	}()
	for !l.stop.Load() {
		if f := l.Host.Faulted(); f != nil {
			// A launch faulted: CUDA is unusable in the process (sticky.go): this one ends too.
			l.fail(&rt.Error{Op: "cuLaunchKernel", Code: f.Code, Detail: "kernel " + l.Program.Name + " stopped: a kernel faulted: " + f.Detail}, id)
			return
		}
		id = l.next.Add(1) - 1
		if id >= total {
			return
		}
		if id&1023 == 0 && l.pastDeadline() {
			// Many short CTAs: the clock is read between them too.
			c, cid := u.at(id)
			l.fail(l.errorFor(c, cid, l.timeoutFault()), cid)
			return
		}
		if coop {
			id = uint64(smid)
		}
		if !u.run(id) {
			c, cid := u.at(id)
			l.fail(l.errorFor(c, cid, c.fault), cid)
			return
		}
		if coop {
			return
		}
	}
}

// Spread is where the workers' time went in Run: how many workers ran
// the grid, Run's wall time, and the worker-time lost before the workers
// started their first CTA (late: waking them) and after they found no CTA
// left (early: the last CTAs' tail), each summed over the workers. What
// stops a grid from scaling over the cores is either these or each CTA
// running slower with more workers (memory, caches, shared cores).
func (l *Launch) Spread() (workers int, wall, late, early time.Duration) {
	if l.workers <= 1 {
		return l.workers, l.wall, 0, 0
	}
	return l.workers, l.wall, time.Duration(l.late.Load()), time.Duration(int64(l.workers)*int64(l.wall) - l.leaving.Load())
}

// Executed is the thread-instructions the launch ran (a lane executing one
// instruction counts one), its children's included.
func (l *Launch) Executed() uint64 { return l.executed.Load() }

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
func (l *Launch) errorFor(c *cta, id uint64, f *fault) *rt.Error {
	if f == nil {
		f = &fault{kind: fPanic, lane: -1, msg: "unknown failure"}
	}
	g := l.Grid
	bx, by, bz := id%uint64(g.X), id/uint64(g.X)%uint64(g.Y), id/(uint64(g.X)*uint64(g.Y))
	where := fmt.Sprintf("kernel %s, block (%d,%d,%d)", l.Program.Name, bx, by, bz)
	if f.lane >= 0 {
		t := uint32(f.warp*32 + f.lane)
		b := l.Block
		where += fmt.Sprintf(", thread (%d,%d,%d)", t%b.X, t/b.X%b.Y, t/(b.X*b.Y))
	}
	if f.pc >= 0 && int(f.pc) < len(l.Program.src) {
		in := l.Program.src[f.pc]
		where += ", at " + at(in)
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
	code := faultCodes[f.kind]
	if f.code != 0 {
		code = f.code
	}
	return &rt.Error{Op: "cuLaunchKernel", Code: code, Detail: where + ": " + msg}
}
