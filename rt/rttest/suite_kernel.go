package rttest

import (
	"errors"
	"slices"
	"testing"

	"github.com/cugen/cugen/rt"
)

// Kernel attributes, the dynamic shared memory limit, occupancy and the
// driver's parameter layouts.
func (s *suite) kernelInfo(t *testing.T) {
	if _, ok := s.d.(rt.KernelAttributer); !ok {
		t.Skipf("backend %s has no kernel attributes (rt.KernelAttributer)", s.d.Name())
	}
	ctx := s.a
	dev := ctx.Device()

	t.Run("attributes", func(t *testing.T) {
		var a rt.KernelAttributes
		var err error
		s.withLookups(t, func() { a, err = s.vecAdd.Attributes(dev) })
		must(t, err)
		t.Logf("vecAdd on %v: %+v", dev, a)
		if a.MaxThreadsPerBlock < 32 || a.MaxThreadsPerBlock > 1024 || a.NumRegs < 1 || a.NumRegs > 255 || a.SharedSizeBytes != 0 || a.LocalSizeBytes < 0 {
			t.Errorf("vecAdd's attributes are not a small kernel's: %+v", a)
		}
		if a.MaxDynamicSharedSizeBytes != 48<<10-a.SharedSizeBytes {
			t.Errorf("MaxDynamicSharedSizeBytes = %d before any is set, want 48 KiB minus the static %d", a.MaxDynamicSharedSizeBytes, a.SharedSizeBytes)
		}
		if a.PTXVersion < 70 || a.BinaryVersion < 70 {
			t.Errorf("PTXVersion %d, BinaryVersion %d: suite.ptx targets sm_70", a.PTXVersion, a.BinaryVersion)
		}
		s.withLookups(t, func() {
			must(t, s.vecAdd.SetPreferredCarveout(dev, 50))
			if v, err := s.vecAdd.Attribute(dev, rt.FuncPreferredSharedMemoryCarveout); err != nil || v != 50 {
				t.Errorf("the carveout reads %d, %v after setting 50", v, err)
			}
			must(t, s.vecAdd.SetPreferredCarveout(dev, -1))
			wantCode(t, "SetAttribute of NumRegs", s.vecAdd.SetAttribute(dev, rt.FuncNumRegs, 8), rt.ErrInvalidValue)
		})
		if major, _, _ := dev.ComputeCapability(); major >= 9 {
			s.withLookups(t, func() {
				must(t, s.clusterInfo.AllowNonPortableClusterSize(dev, true))
				if a, err := s.clusterInfo.Attributes(dev); err != nil || !a.NonPortableClusterSizeAllowed {
					t.Errorf("NonPortableClusterSizeAllowed after allowing it: %+v, %v", a, err)
				}
				must(t, s.clusterInfo.AllowNonPortableClusterSize(dev, false))
			})
		}
	})

	t.Run("dynamic shared memory above 48 KiB", func(t *testing.T) {
		optin, err := dev.Attribute(rt.AttrMaxSharedMemoryPerBlockOptin)
		must(t, err)
		const block, big = 256, 64 << 10
		if optin < big {
			t.Skipf("the device allows %d bytes of shared memory per block", optin)
		}
		const n = 2 * block
		in, err := rt.AllocFrom(ctx, iota32(n))
		must(t, err)
		defer in.Free()
		out, err := rt.Alloc[float32](ctx, n)
		must(t, err)
		defer out.Free()
		var p [16]byte
		le.PutUint64(p[0:], uint64(out.Ptr))
		le.PutUint64(p[8:], uint64(in.Ptr))
		cfg := rt.Config{Grid: rt.D1(2), Block: rt.D1(block), SharedMem: big, Stream: ctx.NullStream()}
		wantCode(t, "a launch with 64 KiB of dynamic shared memory before raising the limit", s.reverse.Launch(cfg, p[:]), rt.ErrInvalidValue)
		var static int
		s.withLookups(t, func() {
			static, err = s.reverse.Attribute(dev, rt.FuncSharedSizeBytes)
			must(t, err)
			must(t, s.reverse.SetMaxDynamicSharedMemory(dev, big))
		})
		defer s.withLookups(t, func() { must(t, s.reverse.SetMaxDynamicSharedMemory(dev, 48<<10-static)) })
		must(t, s.reverse.Launch(cfg, p[:]))
		got, err := out.ToHost()
		must(t, err)
		if got[0] != block-1 || got[block] != n-1 {
			t.Errorf("reverse with 64 KiB of dynamic shared memory: out[0] = %v, out[%d] = %v", got[0], block, got[block])
		}
		if err := s.reverse.SetMaxDynamicSharedMemory(dev, optin+1); err == nil {
			t.Errorf("raising the limit past the device's %d bytes succeeded", optin)
		}
	})

	t.Run("occupancy", func(t *testing.T) {
		if _, ok := s.d.(rt.OccupancyCalculator); !ok {
			t.Skipf("backend %s has no occupancy queries (rt.OccupancyCalculator)", s.d.Name())
		}
		sms, err := dev.Attribute(rt.AttrMultiprocessorCount)
		must(t, err)
		s.withLookups(t, func() {
			for _, tc := range []struct{ block, smem, lo, hi int }{{128, 0, 1, 16}, {1024, 0, 1, 2}, {256, 40 << 10, 1, 5}} {
				n, err := s.reverse.MaxActiveBlocksPerSM(ctx, tc.block, tc.smem)
				if err != nil || n < tc.lo || n > tc.hi {
					t.Errorf("MaxActiveBlocksPerSM(%d threads, %d bytes) = %d, %v; want %d to %d", tc.block, tc.smem, n, err, tc.lo, tc.hi)
				}
			}
			grid, block, err := s.vecAdd.SuggestBlockSize(ctx, 0, 0)
			if err != nil || block < 32 || block > 1024 || block%32 != 0 || grid < sms {
				t.Errorf("SuggestBlockSize = grid %d, block %d, %v", grid, block, err)
			}
			perSM, err := s.vecAdd.MaxActiveBlocksPerSM(ctx, block, 0)
			must(t, err)
			grid2, block2, err := s.vecAdd.SuggestBlockSizeFunc(ctx, func(int) int { return 0 }, 0)
			must(t, err)
			perSM2, err := s.vecAdd.MaxActiveBlocksPerSM(ctx, block2, 0)
			must(t, err)
			if perSM*block != perSM2*block2 || grid2 != perSM2*sms {
				t.Errorf("SuggestBlockSizeFunc (block %d, grid %d, %d resident threads) disagrees with SuggestBlockSize (block %d, %d)", block2, grid2, perSM2*block2, block, perSM*block)
			}
			if _, block3, err := s.vecAdd.SuggestBlockSize(ctx, 0, 96); err != nil || block3 > 96 {
				t.Errorf("SuggestBlockSize with a limit of 96 threads: %d, %v", block3, err)
			}
			_, err = s.vecAdd.MaxActiveBlocksPerSM(ctx, 0, 0)
			wantCode(t, "MaxActiveBlocksPerSM of a block of 0 threads", err, rt.ErrInvalidValue)
		})
	})

	t.Run("driver parameter layout", func(t *testing.T) {
		var got []rt.ParamSpec
		var err error
		s.withLookups(t, func() { got, err = s.mixed.DriverParams(s.d) })
		if errors.Is(err, rt.ErrNotSupported) {
			t.Skipf("the driver does not report layouts: %v", err)
		}
		must(t, err)
		if !slices.Equal(got, s.mixed.Params()) {
			t.Errorf("DriverParams = %v, the generated layout %v", got, s.mixed.Params())
		}
	})

	t.Run("per device", func(t *testing.T) {
		if len(s.devs) < 2 {
			t.Skip("one device")
		}
		must(t, s.vecAdd.SetPreferredCarveout(s.devs[1], 25))
		defer s.vecAdd.SetPreferredCarveout(s.devs[1], -1)
		v0, err := s.vecAdd.Attribute(s.devs[0], rt.FuncPreferredSharedMemoryCarveout)
		must(t, err)
		v1, err := s.vecAdd.Attribute(s.devs[1], rt.FuncPreferredSharedMemoryCarveout)
		must(t, err)
		if v1 != 25 || v0 == 25 {
			t.Errorf("the carveout set to 25 on device 1 reads %d there and %d on device 0", v1, v0)
		}
	})
}
