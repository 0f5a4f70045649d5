package rttest

import (
	"fmt"
	"testing"

	"github.com/cugen/cugen/rt"
)

// placedParams: a kernel declared at another layout than the one it reads,
// with the same parameter sizes, runs with each parameter where it reads it
// (rt.ParamPlacer): through the plain launch, cuLaunchKernelEx, and, where
// the driver has graphs, a captured launch and a node update. An
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
	// args packs mixed(a, {x, y, z}, out) at k's layout.
	args := func(a byte, x uint32) []byte {
		var p [40]byte
		le.PutUint64(p[0:], uint64(out.Ptr))
		p[8] = a
		le.PutUint32(p[16:], x)
		le.PutUint64(p[24:], 0x0000_0016_0000_0021)
		le.PutUint32(p[32:], 44)
		return p[:]
	}
	check := func(what string, want string) {
		t.Helper()
		must(t, s.a.Synchronize())
		got, err := out.ToHost()
		must(t, err)
		if fmt.Sprint(got) != want {
			t.Errorf("mixed, placed, %s, stored %v, want %s", what, got, want)
		}
	}
	cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: s.a.NullStream()}
	for _, c := range []rt.Config{cfg, {Grid: rt.D1(1), Block: rt.D1(1), Stream: s.a.NullStream(), Priority: -1}} {
		must(t, out.Zero())
		must(t, k.Launch(c, args(7, 11)))
		check(fmt.Sprintf("priority %d", c.Priority), "[7 11 33 22 44]")
	}
	if placed, err := k.Placed(s.d); err != nil || !placed {
		dev, _ := k.DriverParams(s.d)
		t.Errorf("mixed declared out of order: placed %v, %v (the driver reports %v)", placed, err, dev)
	}

	if _, ok := s.d.(rt.Grapher); !ok {
		return
	}
	st := newStream(t, s.a)
	must(t, out.Zero())
	var node rt.GraphNode
	g, err := st.Capture(func(st *rt.Stream) error {
		if err := k.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: st}, args(5, 13)); err != nil {
			return err
		}
		var err error
		node, err = st.CapturedNode()
		return err
	})
	must(t, err)
	defer g.Destroy()
	x, err := g.Instantiate()
	must(t, err)
	defer x.Destroy()
	must(t, x.Launch(st))
	must(t, st.Synchronize())
	check("captured", "[5 13 33 22 44]")
	must(t, k.SetNode(x.KernelNode(node), rt.Config{Grid: rt.D1(1), Block: rt.D1(1)}, args(9, 17)))
	must(t, x.Launch(st))
	must(t, st.Synchronize())
	check("its graph node updated", "[9 17 33 22 44]")
}
