package rttest

import (
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

func (s *suite) memoryOps(t *testing.T) {
	if _, ok := s.d.(rt.MemoryOps); !ok {
		t.Skipf("backend %s has no page-locked memory, 16/32-bit memsets or 2-D copies (rt.MemoryOps)", s.d.Name())
	}
	ctx := s.a
	st := newStream(t, ctx)
	const n = 4096

	t.Run("pinned buffers", func(t *testing.T) {
		in, err := rt.AllocPinned[float32](ctx, n)
		must(t, err)
		defer in.Free()
		out, err := rt.AllocPinned[float32](ctx, n)
		must(t, err)
		defer out.Free()
		if len(in.Slice()) != n || in.Len() != n || firstDiff(in.Slice(), make([]float32, n)) >= 0 {
			t.Fatalf("a new pinned buffer: %d elements, not all zero", len(in.Slice()))
		}
		copy(in.Slice(), iota32(n))
		d, err := rt.Alloc[float32](ctx, n)
		must(t, err)
		defer d.Free()
		must(t, d.CopyFromAsync(st, in.Slice()))
		must(t, d.CopyToAsync(st, out.Slice()))
		must(t, st.Synchronize())
		if i := firstDiff(out.Slice(), in.Slice()); i >= 0 {
			t.Errorf("pinned → device → pinned: element %d = %v, want %v", i, out.Slice()[i], in.Slice()[i])
		}
		must(t, in.Free())
		if in.Slice() != nil || in.Len() != 0 {
			t.Errorf("a freed pinned buffer still has a slice")
		}
		must(t, in.Free()) // twice is harmless
		type withPointer struct{ p *int }
		_, err = rt.AllocPinned[withPointer](ctx, 1)
		wantCode(t, "AllocPinned of a type holding a Go pointer", err, rt.ErrInvalidValue)
	})

	t.Run("async copies", func(t *testing.T) {
		a, err := rt.AllocFrom(ctx, iota32(n))
		must(t, err)
		defer a.Free()
		b, err := rt.Alloc[float32](ctx, n)
		must(t, err)
		defer b.Free()
		must(t, b.ZeroAsync(st))
		must(t, b.CopyFromBufferAsync(st, a))
		got, err := b.ToHostAsync(st)
		must(t, err)
		must(t, st.Synchronize())
		if i := firstDiff(got, iota32(n)); i >= 0 {
			t.Errorf("CopyFromBufferAsync then ToHostAsync: element %d = %v", i, got[i])
		}
		// From Go memory, which the copy has read when it returns.
		src := make([]float32, n)
		for i := range src {
			src[i] = -float32(i)
		}
		must(t, b.CopyFromAsync(st, src))
		clear(src)
		must(t, st.Synchronize())
		if got, _ := b.ToHost(); got[n-1] != -float32(n-1) {
			t.Errorf("CopyFromAsync from Go memory changed after the call: element %d = %v", n-1, got[n-1])
		}
		wantCode(t, "CopyFromAsync of more than the buffer holds", b.CopyFromAsync(st, make([]float32, n+1)), rt.ErrInvalidValue)
		wantCode(t, "CopyToAsync of more than the buffer holds", b.CopyToAsync(st, make([]float32, n+1)), rt.ErrInvalidValue)
	})

	t.Run("fill", func(t *testing.T) {
		b8, err := rt.Alloc[uint8](ctx, 1001)
		must(t, err)
		defer b8.Free()
		must(t, b8.Fill(0xab))
		checkAll(t, "Fill of uint8", b8, 0xab)
		b16, err := rt.Alloc[uint16](ctx, 1001)
		must(t, err)
		defer b16.Free()
		must(t, b16.Fill(0xbeef))
		checkAll(t, "Fill of uint16", b16, 0xbeef)
		must(t, b16.FillAsync(st, 0x1234))
		must(t, st.Synchronize())
		checkAll(t, "FillAsync of uint16", b16, 0x1234)
		f32, err := rt.Alloc[float32](ctx, 1001)
		must(t, err)
		defer f32.Free()
		must(t, f32.Fill(1.5))
		checkAll(t, "Fill of float32", f32, 1.5)
		f64, err := rt.Alloc[float64](ctx, 1001)
		must(t, err)
		defer f64.Free()
		must(t, f64.Fill(0))
		checkAll(t, "Fill of float64 0", f64, 0)
		wantCode(t, "Fill of a float64 whose 4-byte words differ", f64.Fill(1.5), rt.ErrNotSupported)
		u64, err := rt.Alloc[uint64](ctx, 7)
		must(t, err)
		defer u64.Free()
		must(t, u64.Fill(0x0000_0007_0000_0007))
		checkAll(t, "Fill of a uint64 of two equal words", u64, 0x0000_0007_0000_0007)
		type rgb struct{ r, g, b uint8 }
		bad, err := rt.Alloc[rgb](ctx, 3)
		must(t, err)
		defer bad.Free()
		wantCode(t, "Fill of 3-byte elements", bad.Fill(rgb{1, 1, 1}), rt.ErrNotSupported)
		// The driver's own checks: a misaligned D32.
		m := s.d.(rt.MemoryOps)
		wantCode(t, "MemsetD32 at an address not aligned to 4", m.MemsetD32(ctx.Handle(), b8.Ptr.Addr()+1, 0, 4, 0, false), rt.ErrInvalidValue)
	})

	t.Run("2-D copies", func(t *testing.T) {
		const w, h = 100, 7
		p, err := rt.AllocPitched[float32](ctx, w, h)
		must(t, err)
		defer p.Free()
		if p.Pitch%rt.PitchAlign != 0 || p.Pitch < w*4 {
			t.Errorf("AllocPitched(%d×%d float32) has pitch %d", w, h, p.Pitch)
		}
		src := iota32(w * h)
		must(t, p.CopyFrom(src))
		got := make([]float32, w*h)
		must(t, p.CopyTo(got))
		if i := firstDiff(got, src); i >= 0 {
			t.Errorf("pitched round trip: element %d = %v, want %v", i, got[i], src[i])
		}
		// A 10×3 block at (5, 2) into a dense host array, and the row
		// pointer arithmetic a kernel would do.
		block := make([]float32, 30)
		c := rt.Copy2D{SrcDevice: p.Row(2).Add(5).Addr(), SrcPitch: uint64(p.Pitch),
			DstHost: unsafe.Pointer(&block[0]), DstPitch: 40, WidthBytes: 40, Height: 3}
		must(t, c.Run(ctx))
		for y := 0; y < 3; y++ {
			for x := 0; x < 10; x++ {
				if want := float32((2+y)*w + 5 + x); block[y*10+x] != want {
					t.Fatalf("block (%d, %d) = %v, want %v", x, y, block[y*10+x], want)
				}
			}
		}
		// Device to device, and async through pinned memory.
		q, err := rt.AllocPitched[float32](ctx, w, h)
		must(t, err)
		defer q.Free()
		must(t, q.CopyFromPitchedAsync(st, p))
		pin, err := rt.AllocPinned[float32](ctx, w*h)
		must(t, err)
		defer pin.Free()
		must(t, q.CopyToAsync(st, pin.Slice()))
		must(t, st.Synchronize())
		if i := firstDiff(pin.Slice(), src); i >= 0 {
			t.Errorf("pitched → pitched → pinned: element %d = %v", i, pin.Slice()[i])
		}
		must(t, q.CopyFromAsync(st, make([]float32, w*h)))
		must(t, st.Synchronize())
		must(t, q.CopyTo(got))
		if i := firstDiff(got, make([]float32, w*h)); i >= 0 {
			t.Errorf("CopyFromAsync of zeros left element %d = %v", i, got[i])
		}
		wantCode(t, "Pitched.CopyFrom of the wrong size", p.CopyFrom(src[:10]), rt.ErrInvalidValue)
		bad := rt.Copy2D{SrcDevice: p.Ptr.Addr(), SrcPitch: 8, DstHost: unsafe.Pointer(&block[0]), DstPitch: 40, WidthBytes: 40, Height: 1}
		wantCode(t, "Copy2D with a pitch smaller than the width", bad.Run(ctx), rt.ErrInvalidValue)
	})

	t.Run("free memory", func(t *testing.T) {
		free, total, err := ctx.MemInfo()
		must(t, err)
		devTotal, err := ctx.Device().TotalMem()
		must(t, err)
		if total != devTotal || free > total || free == 0 {
			t.Errorf("MemInfo = %d free of %d; the device has %d", free, total, devTotal)
		}
	})
}

func checkAll[T comparable](t *testing.T, what string, b rt.Buffer[T], want T) {
	t.Helper()
	got, err := b.ToHost()
	must(t, err)
	for i, v := range got {
		if v != want {
			t.Errorf("%s: element %d of %d = %v, want %v", what, i, len(got), v, want)
			return
		}
	}
}

func (s *suite) asyncAlloc(t *testing.T) {
	if _, ok := s.d.(rt.AsyncAllocator); !ok {
		t.Skipf("backend %s has no stream-ordered allocation (rt.AsyncAllocator)", s.d.Name())
	}
	ctx := s.a
	dev := ctx.Device()
	st := newStream(t, ctx)
	const n = 1 << 20 // 4 MiB of float32

	b, err := rt.AllocAsync[float32](st, n)
	must(t, err)
	must(t, b.FillAsync(st, 2))
	got, err := b.ToHostAsync(st)
	must(t, err)
	must(t, b.FreeAsync(st))
	must(t, st.Synchronize())
	if got[0] != 2 || got[n-1] != 2 {
		t.Errorf("a stream-ordered buffer read %v … %v, want 2", got[0], got[n-1])
	}

	def, err := dev.MemPool()
	must(t, err)
	if _, err := def.ReleaseThreshold(); err != nil {
		t.Errorf("the device pool's release threshold: %v", err)
	}
	wantCode(t, "Destroy of the device's pool", def.Destroy(), rt.ErrNotPermitted)

	pool, err := dev.NewMemPool(0)
	must(t, err)
	defer pool.Destroy()
	attr := func(a rt.MemPoolAttr) uint64 {
		v, err := pool.Attribute(a)
		must(t, err)
		return v
	}
	// A pool that keeps what is freed into it.
	must(t, pool.SetReleaseThreshold(^uint64(0)))
	if th, _ := pool.ReleaseThreshold(); th != ^uint64(0) {
		t.Errorf("release threshold %d after setting it to all ones", th)
	}
	b, err = rt.AllocFromPool[float32](st, pool, n)
	must(t, err)
	must(t, b.ZeroAsync(st))
	must(t, st.Synchronize())
	if used := attr(rt.PoolUsedMemCurrent); used < 4<<20 {
		t.Errorf("a pool with a 4 MiB buffer allocated reports %d bytes used", used)
	}
	must(t, b.FreeAsync(st))
	must(t, st.Synchronize())
	if used, res := attr(rt.PoolUsedMemCurrent), attr(rt.PoolReservedMemCurrent); used != 0 || res < 4<<20 {
		t.Errorf("after the free, the pool that keeps everything reports %d used, %d reserved; want 0 and ≥ 4 MiB", used, res)
	}
	if high := attr(rt.PoolUsedMemHigh); high < 4<<20 {
		t.Errorf("used high-water mark %d", high)
	}
	must(t, pool.Trim(0))
	if res := attr(rt.PoolReservedMemCurrent); res != 0 {
		t.Errorf("Trim(0) left %d bytes reserved", res)
	}
	// A pool that keeps nothing gives memory back at the synchronize.
	must(t, pool.SetReleaseThreshold(0))
	b, err = rt.AllocFromPool[float32](st, pool, n)
	must(t, err)
	must(t, b.FreeAsync(st))
	must(t, st.Synchronize())
	if res := attr(rt.PoolReservedMemCurrent); res != 0 {
		t.Errorf("a pool with release threshold 0 keeps %d bytes after a free and a synchronize", res)
	}
	must(t, pool.SetAttribute(rt.PoolUsedMemHigh, 0))
	wantCode(t, "setting PoolUsedMemCurrent", pool.SetAttribute(rt.PoolUsedMemCurrent, 1), rt.ErrInvalidValue)

	// A bounded pool: allocations beyond its size fail (a driver may round
	// the size up to its own granularity, 32 MiB for CUDA's pools).
	small, err := dev.NewMemPool(2 << 20)
	must(t, err)
	defer small.Destroy()
	var bufs []rt.Buffer[float32]
	for err == nil && len(bufs) < 64 {
		var b rt.Buffer[float32]
		if b, err = rt.AllocFromPool[float32](st, small, n); err == nil {
			bufs = append(bufs, b)
		}
	}
	t.Logf("a pool of at most 2 MiB gave %d buffers of 4 MiB before: %v", len(bufs), err)
	wantCode(t, "allocations from a pool of at most 2 MiB, 4 MiB at a time up to 256 MiB", err, rt.ErrOutOfMemory)
	for _, b := range bufs {
		must(t, b.FreeAsync(st))
	}
	must(t, st.Synchronize())
}
