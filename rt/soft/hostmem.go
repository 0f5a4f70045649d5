package soft

import (
	"math"
	"runtime/debug"
	"runtime/metrics"

	"github.com/cugen/cugen/rt"
)

// Device memory is host memory here: an allocation is a Go slice. Beyond
// the device's reported size (Options.MemBytes), an allocation must also
// fit in what the host can give, or Go's allocator ends the process
// ("fatal error: runtime: out of memory"), which no caller can handle.
// hostRoom is what the host can give now; an allocation above bigAlloc
// that does not fit fails with CUDA_ERROR_OUT_OF_MEMORY instead, as a
// GPU's cuMemAlloc does when its memory is taken.

// bigAlloc is the size from which allocations ask the host first (asking
// costs a few file reads on Linux).
const bigAlloc = 64 << 20

// hostFits checks that the host can back size more bytes, for op.
func hostFits(op string, size uint64) error {
	if size < bigAlloc {
		return nil
	}
	room, why := hostRoom()
	if size <= room {
		return nil
	}
	return rt.Errorf(op, rt.ErrOutOfMemory, "%d bytes requested; rt/soft backs device memory with host memory, and the host can give %d more (%s)", size, room, why)
}

// hostRoom is the most the process can allocate now, and what limits it:
// the Go memory limit (debug.SetMemoryLimit, GOMEMLIMIT) less the memory
// Go has, and, where the system tells (hostLimits), its free memory, the
// cgroup's limit and the address-space limit.
func hostRoom() (uint64, string) {
	room, why := uint64(math.MaxUint64), ""
	if lim := debug.SetMemoryLimit(-1); lim > 0 && lim < math.MaxInt64 {
		s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
		metrics.Read(s)
		used := s[0].Value.Uint64()
		r := uint64(0)
		if uint64(lim) > used {
			r = uint64(lim) - used
		}
		room, why = r, "the Go memory limit"
	}
	if r, w := hostLimits(); r < room {
		room, why = r, w
	}
	return room, why
}
