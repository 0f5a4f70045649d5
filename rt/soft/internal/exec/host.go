// What the executor needs of the driver that runs it: its settings
// (Config), the device memory shared by all its contexts (Memory), and the
// context a launch runs in (Host), the one interface through which the
// executor reaches the driver.

package exec

import (
	"sync"
	"time"

	"github.com/cugen/cugen/rt"
)

// Config is what the executor takes from the driver's options.
type Config struct {
	// Workers is the number of goroutines that run one launch's CTAs.
	Workers int
	// InstrBudget bounds the thread-instructions one launch may execute.
	InstrBudget uint64
	// StackBytes bounds each thread's local memory, and its call depth
	// (StackBytes/MinFrameBytes frames).
	StackBytes uint32
	// Timeout, when not 0, bounds each launch's wall-clock time: past it
	// the launch stops with ErrLaunchTimeout (interrupt.go).
	Timeout time.Duration
	// MallocHeapBytes bounds each context's device-side malloc heap.
	MallocHeapBytes uint64
	// ComputeCapability is the emulated device's, major*10+minor: modules
	// that target a newer one fail to load.
	ComputeCapability int
	// RaceCheck instruments loaded kernels for racecheck (racecheck.go).
	RaceCheck RaceMode
	// ShuffleSeed, when not 0, shuffles the order a CTA's warps run in.
	ShuffleSeed uint64
}

// Host is the CUDA context a launch runs in, as the executor sees it: the
// driver implements it, and the executor reaches the driver only through
// it (and the Memory and Config a Launch names).
type Host interface {
	// Reach says why kernels of this context may not access a, an
	// allocation of another context ("and peer access to it is not
	// enabled"), or "" if they may.
	Reach(a *Alloc) string
	// Alloc makes a zeroed allocation of n bytes owned by this context;
	// op names the CUDA call it serves, what the allocation in reports.
	Alloc(op string, n uint64, what string) (*Alloc, error)
	// Free frees an allocation of this context; false if it was freed
	// already.
	Free(a *Alloc) bool
	// Vars is the addresses of m's .global and .const variables in this
	// context, by index.
	Vars(m *Module) ([]uint64, error)
	// CheckLaunch checks a launch of p as cuLaunchKernel would (device
	// limits, the kernel's attributes), for a launch from device code.
	CheckLaunch(op string, p *Program, la rt.LaunchArgs) error
	// TexObject is the texture (surface false) or surface object handle h
	// names, or nil if there is none.
	TexObject(h uint64, surface bool) *TexObject
	// Print writes device printf and assertion output.
	Print(text string)
	// Faulted is the first sticky fault of any kernel of the driver (a
	// launch stops when one occurs), or nil.
	Faulted() *rt.Error
	// Runtime is the context's device-runtime state.
	Runtime() *Runtime
}

// Runtime is a context's state of the device runtime that kernels call:
// the bytes device malloc has handed out, and the device copy of
// cudaGetErrorString's texts (cdp.go). The driver keeps one per context.
type Runtime struct {
	mu         sync.Mutex
	heapUsed   uint64    // bytes of device malloc (malloc.go)
	errStrings *errTable // the device runtime's error strings (cdp.go)
}
