package rttest

import (
	"testing"

	"github.com/cugen/cugen/rt"
)

// Peer access and peer copies between the first two devices.
func (s *suite) peers(t *testing.T) {
	if _, ok := s.d.(rt.PeerAccessor); !ok {
		t.Skipf("backend %s has no peer access (rt.PeerAccessor)", s.d.Name())
	}
	if len(s.devs) < 2 {
		t.Skipf("backend %s has %d device: peer access needs two", s.d.Name(), len(s.devs))
	}
	d0, d1 := s.devs[0], s.devs[1]
	if self, err := d0.CanAccessPeer(d0); err != nil || self {
		t.Errorf("device 0 as its own peer: %v, %v; want false", self, err)
	}
	can, err := d0.CanAccessPeer(d1)
	must(t, err)
	back, err := d1.CanAccessPeer(d0)
	must(t, err)
	supported, err := d0.P2PAttribute(d1, rt.P2PAccessSupported)
	must(t, err)
	rank, err := d0.P2PAttribute(d1, rt.P2PPerformanceRank)
	must(t, err)
	atomics, err := d0.P2PAttribute(d1, rt.P2PNativeAtomicSupported)
	must(t, err)
	t.Logf("devices 0 → 1: can access %v (back %v), P2P access supported %d, performance rank %d, native atomics %d", can, back, supported, rank, atomics)
	if can != (supported != 0) {
		t.Errorf("CanAccessPeer = %v but P2PAccessSupported = %d", can, supported)
	}

	c0 := s.a
	c1, err := d1.Primary()
	must(t, err)
	defer c1.Release()
	const n = 1 << 16
	src := iota32(n)
	x1, err := rt.AllocFrom(c1, src)
	must(t, err)
	defer x1.Free()
	y0, err := rt.Alloc[float32](c0, n)
	must(t, err)
	defer y0.Free()

	// Copies need no peer access.
	must(t, y0.CopyFromPeer(x1))
	if got, _ := y0.ToHost(); firstDiff(got, src) >= 0 {
		t.Errorf("CopyFromPeer from device 1 to device 0 gave %v…", got[:4])
	}
	must(t, y0.Zero())
	st0 := newStream(t, c0)
	must(t, y0.CopyFromPeerAsync(st0, x1))
	must(t, st0.Synchronize())
	if got, _ := y0.ToHost(); firstDiff(got, src) >= 0 {
		t.Errorf("CopyFromPeerAsync gave %v…", got[:4])
	}
	back1, err := rt.Alloc[float32](c1, n)
	must(t, err)
	defer back1.Free()
	must(t, back1.CopyFromPeer(y0))
	if got, _ := back1.ToHost(); firstDiff(got, src) >= 0 {
		t.Errorf("CopyFromPeer from device 0 to device 1 gave %v…", got[:4])
	}

	if !can {
		t.Skip("device 0 cannot access device 1's memory: the peer-access checks need it")
	}
	// Kernels on device 0 read device 1's memory once access is enabled.
	must(t, c0.EnablePeerAccess(c1))
	wantCode(t, "enabling peer access twice", c0.EnablePeerAccess(c1), rt.ErrPeerAccessAlreadyEnabled)
	v := newVecAdd(t, c0, n)
	must(t, s.runVecAdd(rt.Linear(n, 256).On(st0), x1.Const(), v.b.Const(), v.c.Ptr, n))
	must(t, st0.Synchronize())
	for i := range v.want {
		v.want[i] = src[i] + float32(2*i) + 0.5
	}
	v.check(t, "vecAdd on device 0 reading device 1's memory")
	must(t, c0.DisablePeerAccess(c1))
	wantCode(t, "disabling peer access that is not enabled", c0.DisablePeerAccess(c1), rt.ErrPeerAccessNotEnabled)
}
