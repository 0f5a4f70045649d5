package soft

import (
	"encoding/binary"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

// TestPeerAccessExcludesPoolMemory: peer access (cuCtxEnablePeerAccess)
// lets a kernel on device 0 read device 1's cuMemAlloc memory, not its
// stream-ordered (cuMemAllocAsync) memory, which CUDA gives other devices
// only through cuMemPoolSetAccess: without it the access faults. Soft let
// the kernel read it.
func TestPeerAccessExcludesPoolMemory(t *testing.T) {
	d := New(Options{Devices: 2, Stdout: discard{}})
	devs, err := rt.DevicesOf(d)
	mustT(t, err)
	c0, err := devs[0].Primary()
	mustT(t, err)
	c1, err := devs[1].Primary()
	mustT(t, err)
	mustT(t, c0.EnablePeerAccess(c1))
	s1, err := c1.NewStream()
	mustT(t, err)
	const n = 256
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	plain, err := rt.AllocFrom(c1, ones)
	mustT(t, err)
	pooled, err := rt.AllocAsync[float32](s1, n)
	mustT(t, err)
	mustT(t, pooled.CopyFromAsync(s1, ones))
	mustT(t, s1.Synchronize())
	y, err := rt.Alloc[float32](c0, n)
	mustT(t, err)
	axpy := func(x rt.Buffer[float32]) error {
		var p [32]byte
		binary.LittleEndian.PutUint64(p[0:], uint64(x.Ptr))
		binary.LittleEndian.PutUint64(p[8:], uint64(y.Ptr))
		binary.LittleEndian.PutUint32(p[16:], n)
		cfg := rt.Linear(n, 128)
		cfg.Stream = c0.NullStream()
		if err := soakAxpy.Launch(cfg, p[:]); err != nil {
			return err
		}
		return c0.Synchronize()
	}
	// Peer memory allocated with cuMemAlloc: readable.
	mustT(t, axpy(plain))
	got, err := y.ToHost()
	mustT(t, err)
	if got[5] != 2 {
		t.Fatalf("y[5] = %v after reading peer memory, want 2", got[5])
	}
	// Pool memory of the peer: a fault naming the pool.
	softtest.WantErr(t, axpy(pooled), rt.ErrIllegalAddress, `kernel axpy`, `Invalid __global__ read`,
		`cuMemAllocAsync\) of device 1's pool, which gives device 0 no access: peer access does not cover pool memory \(cuMemPoolSetAccess`)
}
