package rttest

import (
	"fmt"
	"testing"

	"github.com/cugen/cugen/rt"
)

// placedParams: a kernel declared at another layout than the one it reads,
// with the same parameter sizes, runs with each parameter where it reads it
// (rt.ParamPlacer), through the plain launch and cuLaunchKernelEx alike. An
// over-aligned parameter is what makes layouts differ in the field; here the
// suite's mixed kernel is declared with its parameters in another order.
func (s *suite) placedParams(t *testing.T) {
	if _, ok := s.d.(rt.ParamPlacer); !ok {
		t.Skipf("%s cannot place parameters (rt.ParamPlacer)", s.d.Name())
	}
	lib := rt.NewLibrary("suite.ptx", suitePTX)
	defer lib.Unload(s.d)
	// out at 0, a at 8, s at 16; s is marked over-aligned, so that a
	// driver that cannot report layouts places the kernel too.
	k := lib.Kernel("mixed", rt.ParamSpec{Offset: 8, Size: 1}, rt.ParamSpec{Offset: 16, Size: 24, Align: 32}, rt.ParamSpec{Offset: 0, Size: 8})
	out, err := rt.Alloc[uint32](s.a, 5)
	must(t, err)
	defer out.Free()
	for _, cfg := range []rt.Config{
		{Grid: rt.D1(1), Block: rt.D1(1), Stream: s.a.NullStream()},
		{Grid: rt.D1(1), Block: rt.D1(1), Stream: s.a.NullStream(), Priority: -1}, // cuLaunchKernelEx
	} {
		must(t, out.Zero())
		var p [40]byte
		le.PutUint64(p[0:], uint64(out.Ptr))
		p[8] = 7
		le.PutUint32(p[16:], 11)
		le.PutUint64(p[24:], 0x0000_0016_0000_0021)
		le.PutUint32(p[32:], 44)
		must(t, k.Launch(cfg, p[:]))
		must(t, s.a.Synchronize())
		got, err := out.ToHost()
		must(t, err)
		if fmt.Sprint(got) != "[7 11 33 22 44]" {
			t.Errorf("mixed, placed, priority %d, stored %v, want [7 11 33 22 44]", cfg.Priority, got)
		}
	}
	dev, placed, err := k.Placement(s.d)
	must(t, err)
	if !placed {
		t.Errorf("mixed declared out of order is not placed (the driver reports %v)", dev)
	}
}
