package soft

import (
	"errors"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/rttest"
)

// TestMisuse runs rttest's misuse cases on soft, with two devices so that
// the cases of objects of another device run too.
func TestMisuse(t *testing.T) {
	rttest.TestMisuse(t, New(Options{Devices: 2}), rttest.Options{})
}

// TestAllocBeyondHost asks for more device memory than the host can back
// (a device that reports 1 TiB, under a Go memory limit of 256 MiB): the
// allocation, pinned memory too, fails with CUDA_ERROR_OUT_OF_MEMORY, and
// the process lives on (without the check Go's allocator ends it).
func TestAllocBeyondHost(t *testing.T) {
	old := debug.SetMemoryLimit(256 << 20)
	defer debug.SetMemoryLimit(old)
	d := New(Options{MemBytes: 1 << 40})
	devs, err := rt.DevicesOf(d)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	if _, err := rt.Alloc[byte](ctx, 1<<30); !errors.Is(err, rt.ErrOutOfMemory) || !strings.Contains(err.Error(), "Go memory limit") {
		t.Errorf("Alloc of 1 GiB under a 256 MiB limit: %v, want CUDA_ERROR_OUT_OF_MEMORY naming the Go memory limit", err)
	}
	if _, err := rt.AllocPinned[byte](ctx, 1<<30); !errors.Is(err, rt.ErrOutOfMemory) {
		t.Errorf("AllocPinned of 1 GiB under a 256 MiB limit: %v, want CUDA_ERROR_OUT_OF_MEMORY", err)
	}
	b, err := rt.Alloc[byte](ctx, 1<<20) // what fits still does
	if err != nil {
		t.Fatal(err)
	}
	b.Free()
}
