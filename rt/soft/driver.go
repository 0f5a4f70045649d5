package soft

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

func init() {
	rt.Register("soft", 100, func() (rt.Driver, error) { return New(Options{}), nil })
}

// Options configure a soft Driver. The zero value is a usable default.
type Options struct {
	// Devices is the number of emulated devices (default 1, at most 16).
	Devices int
	// Workers is the number of goroutines that run one launch's CTAs
	// (0 = GOMAXPROCS).
	Workers int
	// Deterministic runs every launch on one worker with CTAs in linear
	// order, so float atomics and order-dependent output are reproducible.
	Deterministic bool
	// LaunchBlocking makes Launch wait for the kernel and return its error
	// directly (like CUDA_LAUNCH_BLOCKING=1), instead of at the next sync.
	LaunchBlocking bool
	// Stdout receives device printf output (default os.Stdout).
	Stdout io.Writer
	// InstrBudget bounds the thread-instructions one launch may execute
	// before it fails with ErrLaunchTimeout (0 = 1e11, a few minutes).
	InstrBudget uint64
	// LaunchTimeout, when not 0, bounds each launch's wall-clock time, as
	// a display GPU's watchdog does: a kernel still running after it is
	// stopped (within a few milliseconds) with ErrLaunchTimeout
	// (CUDA_ERROR_LAUNCH_TIMEOUT), a sticky fault like any other (see
	// Driver.Abort). CUGEN_SOFT_LAUNCH_TIMEOUT=<duration> (e.g. 30s) in the
	// environment sets it where Options leave it 0.
	LaunchTimeout time.Duration
	// ComputeCapability is the emulated compute capability as major*10+minor
	// (default 90, i.e. sm_90).
	ComputeCapability int
	// MemBytes is each device's memory size (default 4 GiB). Only what is
	// allocated is backed by host memory.
	MemBytes uint64
	// StackBytes bounds each thread's local memory (call frames, local
	// arrays, and alloca's dynamic stack on top of the frames in use);
	// default 256 KiB. Exceeding it is ErrHardwareStackError.
	StackBytes uint32
	// MallocHeapBytes bounds each context's device-side malloc heap
	// (cudaLimitMallocHeapSize; default 8 MiB): a malloc beyond it
	// returns NULL.
	MallocHeapBytes uint64
	// RaceCheck reports data hazards between a CTA's threads, in shared
	// memory and in global memory, as compute-sanitizer's racecheck does:
	// the first stops the launch with ErrLaunchFailed naming both accesses
	// (racecheck.go). CUGEN_SOFT_RACECHECK=1 (RaceOn) or =strict
	// (RaceStrict) in the environment turns it on where Options leave it
	// off. It slows kernels that touch memory several times over.
	RaceCheck RaceMode
	// ShuffleSeed, when not 0, runs each CTA's warps in an order drawn from
	// it (and the CTA's index), switching warps at random points, to shake
	// out code that depends on the order warps run in. The same seed gives
	// the same schedule. CUGEN_SOFT_SHUFFLE=<seed> (or =random, which
	// prints the seed) sets it where Options leave it 0 and Deterministic
	// unset.
	ShuffleSeed uint64
}

// RaceMode selects what Options.RaceCheck reports.
type RaceMode uint8

const (
	// RaceOff checks nothing (the default).
	RaceOff RaceMode = iota
	// RaceOn reports the hazards the hardware leaves unordered: between
	// warps, between the lanes of one instruction, and between lanes of
	// one warp on diverged paths (CUGEN_SOFT_RACECHECK=1).
	RaceOn
	// RaceStrict also reports hazards between lanes of one warp that only
	// lockstep execution orders, with no __syncwarp between them: races
	// in the PTX memory model since Volta, and what compute-sanitizer
	// reports (CUGEN_SOFT_RACECHECK=strict).
	RaceStrict
)

const (
	defaultBudget = 100_000_000_000
	defaultHeap   = 8 << 20 // cudaLimitMallocHeapSize's default
)

// Driver is the soft backend. It implements rt.Driver; all methods are safe
// for concurrent use.
type Driver struct {
	opt     Options
	cfg     exec.Config // the executor's share of opt
	devices []*device
	mem     *exec.Memory

	mu      sync.Mutex
	next    uintptr // last handle handed out; handles of all kinds share it
	ctxs    map[rt.CtxHandle]*context
	streams map[rt.StreamHandle]*stream
	events  map[rt.EventHandle]*event
	libs    map[rt.LibHandle]*library
	modLibs map[*exec.Module]*library // libs, by their code
	kernels map[rt.KernelHandle]*exec.Program

	curMu   sync.Mutex
	current map[int]*context // by OS thread id (see tid)

	outMu sync.Mutex // serialises printf output

	gx  graphState  // graphs and captures (graph.go)
	hz  hazards     // unsynchronized work, for host/device hazards (hazard.go)
	sr  streamRaces // stream hazards under racecheck (streamrace.go)
	ext extState    // the other optional capabilities' state (below)

	// instrCount is the number of thread-instructions all launches have
	// executed (a lane executing one instruction counts one): the
	// benchmarks' measure of throughput.
	instrCount atomic.Uint64
	// runTime, workerTime, lateTime and earlyTime sum exec.Launch.Spread
	// over all launches, in nanoseconds: their wall time, the worker-time
	// they had (workers × wall time) and what of it was lost before the
	// workers' first CTA and after their last (BenchmarkScale's measure of
	// what keeps a grid from scaling).
	runTime, workerTime, lateTime, earlyTime atomic.Int64

	// fault is the first sticky kernel fault in any context (sticky.go).
	fault atomic.Pointer[rt.Error]

	// placed is PlaceParams' layouts, by kernel (guarded by mu).
	placed map[rt.KernelHandle][]paramMove

	tex texState // CUDA arrays, texture and surface objects (texture.go)
}

var (
	_ rt.Driver      = (*Driver)(nil)
	_ rt.ParamInfoer = (*Driver)(nil)
	_ rt.Grapher     = (*Driver)(nil)
	_ rt.ParamPlacer = (*Driver)(nil)
)

// New returns a soft driver.
func New(opt Options) *Driver {
	opt = envOptions(opt)
	if opt.Devices <= 0 {
		opt.Devices = 1
	}
	if opt.Devices > 16 {
		opt.Devices = 16
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.Deterministic {
		opt.Workers = 1
	}
	if opt.Stdout == nil {
		opt.Stdout = os.Stdout
	}
	if opt.InstrBudget == 0 {
		opt.InstrBudget = defaultBudget
	}
	if opt.ComputeCapability == 0 {
		opt.ComputeCapability = 90
	}
	if opt.MemBytes == 0 {
		opt.MemBytes = 4 << 30
	}
	if opt.StackBytes == 0 {
		opt.StackBytes = 256 << 10
	}
	if opt.MallocHeapBytes == 0 {
		opt.MallocHeapBytes = defaultHeap
	}
	d := &Driver{
		opt:     opt,
		mem:     exec.NewMemory(),
		ctxs:    map[rt.CtxHandle]*context{},
		streams: map[rt.StreamHandle]*stream{},
		events:  map[rt.EventHandle]*event{},
		libs:    map[rt.LibHandle]*library{},
		modLibs: map[*exec.Module]*library{},
		kernels: map[rt.KernelHandle]*exec.Program{},
		current: map[int]*context{},
	}
	d.cfg = exec.Config{Workers: opt.Workers, InstrBudget: opt.InstrBudget, StackBytes: opt.StackBytes, Timeout: opt.LaunchTimeout,
		MallocHeapBytes: opt.MallocHeapBytes, ComputeCapability: opt.ComputeCapability,
		RaceCheck: exec.RaceMode(opt.RaceCheck), ShuffleSeed: opt.ShuffleSeed}
	for i := 0; i < opt.Devices; i++ {
		d.devices = append(d.devices, &device{ord: i, next: devBase(i) + 0x1000_0000, limit: opt.MemBytes})
	}
	return d
}

// envOptions applies CUGEN_SOFT_RACECHECK and CUGEN_SOFT_SHUFFLE to what opt
// leaves unset, so that `go test` can turn the modes on without code
// (CUGEN_SOFT_SHUFFLE leaves a Deterministic driver alone).
func envOptions(opt Options) Options {
	if opt.RaceCheck == RaceOff {
		switch v := os.Getenv("CUGEN_SOFT_RACECHECK"); v {
		case "", "0", "off", "false":
		case "strict", "warp":
			opt.RaceCheck = RaceStrict
		default:
			opt.RaceCheck = RaceOn
		}
	}
	if opt.LaunchTimeout == 0 {
		if v := os.Getenv("CUGEN_SOFT_LAUNCH_TIMEOUT"); v != "" {
			if t, err := time.ParseDuration(v); err == nil && t > 0 {
				opt.LaunchTimeout = t
			} else {
				fmt.Fprintf(os.Stderr, "soft: CUGEN_SOFT_LAUNCH_TIMEOUT=%q is not a positive duration (e.g. 30s); no wall-clock limit\n", v)
			}
		}
	}
	// Deterministic asks for the canonical order (what references of
	// order-dependent results assume): the environment does not shuffle it.
	if opt.ShuffleSeed == 0 && !opt.Deterministic {
		switch v := os.Getenv("CUGEN_SOFT_SHUFFLE"); v {
		case "", "0", "off", "false":
		case "random":
			opt.ShuffleSeed = uint64(time.Now().UnixNano()) | 1
			fmt.Fprintf(os.Stderr, "soft: CUGEN_SOFT_SHUFFLE=random: seed %d (set CUGEN_SOFT_SHUFFLE=%d to repeat)\n", opt.ShuffleSeed, opt.ShuffleSeed)
		default:
			if n, err := strconv.ParseUint(v, 0, 64); err == nil && n != 0 {
				opt.ShuffleSeed = n
			} else {
				fmt.Fprintf(os.Stderr, "soft: CUGEN_SOFT_SHUFFLE=%q is not a seed (a number, or random); not shuffling\n", v)
			}
		}
	}
	return opt
}

// Name is "soft".
func (d *Driver) Name() string { return "soft" }

// handle returns a fresh handle value; d.mu must be held.
func (d *Driver) handle() uintptr {
	d.next++
	return d.next
}

// device is one emulated GPU.
type device struct {
	ord int

	mu      sync.Mutex
	primary *context
	prRefs  int
	next    uint64 // bump pointer: device addresses are never reused
	used    uint64
	limit   uint64
}

func (d *Driver) dev(op string, ord int) (*device, error) {
	if ord < 0 || ord >= len(d.devices) {
		return nil, rt.Errorf(op, rt.ErrInvalidDevice, "device %d (the soft backend emulates %d)", ord, len(d.devices))
	}
	return d.devices[ord], nil
}

// DeviceCount is cuDeviceGetCount.
func (d *Driver) DeviceCount() (int, error) { return len(d.devices), nil }

// DeviceName is cuDeviceGetName.
func (d *Driver) DeviceName(ord int) (string, error) {
	if _, err := d.dev("cuDeviceGetName", ord); err != nil {
		return "", err
	}
	cc := d.opt.ComputeCapability
	return fmt.Sprintf("cugen soft device %d (sm_%d emulated on CPU)", ord, cc), nil
}

// Limits the soft devices report and enforce (those of an sm_90 part).
const (
	maxThreadsPerBlock = 1024
	maxBlockDimZ       = 64
	maxGridDimX        = 1<<31 - 1
	maxGridDimYZ       = 65535
	sharedPerBlock     = 48 << 10
	sharedPerBlockOpt  = 227 << 10
	// numSMs and sharedPerBlockRes are the executor's (program.go).
)

// DeviceAttribute is cuDeviceGetAttribute. Attributes the backend does not
// model report 0, as a real driver does for unknown features.
func (d *Driver) DeviceAttribute(ord int, attr rt.DeviceAttr) (int, error) {
	if _, err := d.dev("cuDeviceGetAttribute", ord); err != nil {
		return 0, err
	}
	cc := d.opt.ComputeCapability
	switch attr {
	case rt.AttrMaxThreadsPerBlock, rt.AttrMaxBlockDimX:
		return maxThreadsPerBlock, nil
	case 3: // MAX_BLOCK_DIM_Y
		return maxThreadsPerBlock, nil
	case 4: // MAX_BLOCK_DIM_Z
		return maxBlockDimZ, nil
	case rt.AttrMaxGridDimX:
		return maxGridDimX, nil
	case 6, 7: // MAX_GRID_DIM_Y/Z
		return maxGridDimYZ, nil
	case rt.AttrMaxSharedMemoryPerBlock:
		return sharedPerBlock, nil
	case 9: // TOTAL_CONSTANT_MEMORY
		return 64 << 10, nil
	case rt.AttrWarpSize:
		return 32, nil
	case 12: // MAX_REGISTERS_PER_BLOCK
		return 65536, nil
	case rt.AttrMultiprocessorCount:
		return exec.NumSMs, nil
	case 39: // MAX_THREADS_PER_MULTIPROCESSOR
		return 2048, nil
	case 41: // UNIFIED_ADDRESSING
		return 1, nil
	case rt.AttrComputeCapabilityMajor:
		return cc / 10, nil
	case rt.AttrComputeCapabilityMinor:
		return cc % 10, nil
	case 81: // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
		return 228 << 10, nil
	case 83: // MANAGED_MEMORY
		return 1, nil
	case 95: // COOPERATIVE_LAUNCH
		return 1, nil
	case rt.AttrMaxSharedMemoryPerBlockOptin:
		return sharedPerBlockOpt, nil
	case 111: // RESERVED_SHARED_MEMORY_PER_BLOCK: the H100 reports 1024
		return exec.ReservedShared, nil
	}
	return 0, nil
}

// DeviceTotalMem is cuDeviceTotalMem.
func (d *Driver) DeviceTotalMem(ord int) (uint64, error) {
	dv, err := d.dev("cuDeviceTotalMem", ord)
	if err != nil {
		return 0, err
	}
	return dv.limit, nil
}

// extState is what soft keeps for the optional capabilities besides graphs:
// page-locked buffers, memory pools, peer access and kernel attributes. Its
// zero value is ready to use; mu guards it.
type extState struct {
	mu      sync.Mutex
	pinned  map[uintptr][]uint64 // page-locked buffers by address (the slice keeps them alive)
	pools   map[rt.MemPoolHandle]*pool
	devPool map[int]*pool        // each device's default pool
	asyncs  map[uint64]*pool     // stream-ordered allocations by base address
	peers   map[[2]*context]bool // (ctx, peer): ctx may access peer's memory
	kattrs  map[kattrKey]int     // attributes set per (kernel, device)
	freed   map[uint64]struct{}  // stream-ordered frees queued, not yet run
}

func (x *extState) init() {
	if x.pinned == nil {
		x.pinned = map[uintptr][]uint64{}
		x.pools = map[rt.MemPoolHandle]*pool{}
		x.devPool = map[int]*pool{}
		x.asyncs = map[uint64]*pool{}
		x.peers = map[[2]*context]bool{}
		x.kattrs = map[kattrKey]int{}
		x.freed = map[uint64]struct{}{}
	}
}
