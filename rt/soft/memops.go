package soft

import (
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/devmem"
)

// Page-locked host memory, 16/32-bit memsets, 2-D copies and free memory
// (rt.MemoryOps; stream-ordered allocation and memory pools, the
// rt.AsyncAllocator, are in mempool.go).
//
// Host memory comes in two kinds, as on a GPU: page-locked memory from
// MemHostAlloc, which async copies read and write when their stream gets to
// them, and any other (Go) memory, which CUDA stages: an async copy from it
// reads it before the call returns, an async copy into it has completed
// when the call returns, and a capture refuses it.

var _ rt.MemoryOps = (*Driver)(nil)

// MemHostAlloc is cuMemHostAlloc: page-locked memory is ordinary Go memory
// here that the backend remembers, so that copies treat it as pinned.
func (d *Driver) MemHostAlloc(ch rt.CtxHandle, size uint64) (unsafe.Pointer, error) {
	const op = "cuMemHostAlloc"
	if _, err := d.ctx(op, ch); err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, rt.Errorf(op, rt.ErrInvalidValue, "size 0")
	}
	if err := hostFits(op, size); err != nil {
		return nil, err
	}
	buf := make([]uint64, (size+7)/8)
	p := unsafe.Pointer(&buf[0])
	d.ext.mu.Lock()
	d.ext.init()
	d.ext.pinned[uintptr(p)] = buf
	d.ext.mu.Unlock()
	return p, nil
}

// MemHostFree is cuMemFreeHost.
func (d *Driver) MemHostFree(ch rt.CtxHandle, p unsafe.Pointer) error {
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	d.ext.init()
	if _, ok := d.ext.pinned[uintptr(p)]; !ok {
		return rt.Errorf("cuMemFreeHost", rt.ErrInvalidValue, "%p is not page-locked memory from cuMemHostAlloc", p)
	}
	delete(d.ext.pinned, uintptr(p))
	return nil
}

// isPinned reports whether [p, p+n) lies in one page-locked buffer.
func (d *Driver) isPinned(p unsafe.Pointer, n uint64) bool {
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	a := uintptr(p)
	for base, buf := range d.ext.pinned {
		if a >= base && uint64(a-base)+n <= uint64(len(buf))*8 {
			return true
		}
	}
	return false
}

// MemsetD16 is cuMemsetD16(Async).
func (d *Driver) MemsetD16(ch rt.CtxHandle, dst rt.DevPtr, v uint16, n uint64, sh rt.StreamHandle, async bool) error {
	return d.memsetN("cuMemsetD16", ch, dst, uint64(v), 2, n, sh, async)
}

// MemsetD32 is cuMemsetD32(Async).
func (d *Driver) MemsetD32(ch rt.CtxHandle, dst rt.DevPtr, v uint32, n uint64, sh rt.StreamHandle, async bool) error {
	return d.memsetN("cuMemsetD32", ch, dst, uint64(v), 4, n, sh, async)
}

func (d *Driver) memsetN(op string, ch rt.CtxHandle, dst rt.DevPtr, v uint64, size, n uint64, sh rt.StreamHandle, async bool) error {
	if n == 0 {
		return nil
	}
	if uint64(dst)%size != 0 {
		return rt.Errorf(op, rt.ErrInvalidValue, "destination %#x is not aligned to %d bytes", uint64(dst), size)
	}
	if _, err := d.span(op, dst, n*size); err != nil {
		return err
	}
	return d.copyOp(op, ch, sh, async, memOp{typ: rt.NodeMemset}, func() error {
		b, err := d.span(op, dst, n*size)
		if err != nil {
			return err
		}
		devmem.Fill(b, v, int(size))
		return nil
	})
}

// Memcpy2D is cuMemcpy2D(Async).
func (d *Driver) Memcpy2D(ch rt.CtxHandle, c *rt.Copy2D, sh rt.StreamHandle, async bool) error {
	const op = "cuMemcpy2D"
	w, h := c.WidthBytes, c.Height
	if w == 0 || h == 0 {
		return nil
	}
	if c.SrcPitch < w || c.DstPitch < w {
		return rt.Errorf(op, rt.ErrInvalidValue, "pitches %d (source) and %d (destination) must be at least the width, %d", c.SrcPitch, c.DstPitch, w)
	}
	if (c.SrcHost == nil) == (c.SrcDevice == 0) || (c.DstHost == nil) == (c.DstDevice == 0) {
		return rt.Errorf(op, rt.ErrInvalidValue, "each side is host memory or device memory, exactly one of them")
	}
	srcLen, dstLen := c.SrcPitch*(h-1)+w, c.DstPitch*(h-1)+w
	if c.SrcDevice != 0 {
		if _, err := d.span(op, c.SrcDevice, srcLen); err != nil {
			return err
		}
	}
	if c.DstDevice != 0 {
		if _, err := d.span(op, c.DstDevice, dstLen); err != nil {
			return err
		}
	}
	cc := *c
	m := memOp{typ: rt.NodeMemcpy}
	if cc.SrcHost != nil {
		m.host, m.hostLen = cc.SrcHost, srcLen
		if async && !d.isPinned(cc.SrcHost, srcLen) && !d.streamCaptured(op, ch, sh) {
			snap := alignedCopy(unsafe.Slice((*byte)(cc.SrcHost), srcLen))
			cc.SrcHost = unsafe.Pointer(unsafe.SliceData(snap))
		}
	} else if cc.DstHost != nil {
		m.host, m.hostLen, m.toHost = cc.DstHost, dstLen, true
	}
	return d.copyOp(op, ch, sh, async, m, func() error {
		var src, dst []byte
		var err error
		if cc.SrcDevice != 0 {
			src, err = d.span(op, cc.SrcDevice, srcLen)
		} else {
			src = unsafe.Slice((*byte)(cc.SrcHost), srcLen)
		}
		if err != nil {
			return err
		}
		if cc.DstDevice != 0 {
			dst, err = d.span(op, cc.DstDevice, dstLen)
		} else {
			dst = unsafe.Slice((*byte)(cc.DstHost), dstLen)
		}
		if err != nil {
			return err
		}
		for y := uint64(0); y < h; y++ {
			copyMem(dst[y*cc.DstPitch:y*cc.DstPitch+w], src[y*cc.SrcPitch:y*cc.SrcPitch+w], cc.DstDevice != 0, cc.SrcDevice != 0)
		}
		return nil
	})
}

// MemInfo is cuMemGetInfo: the device's memory (Options.MemBytes) and what
// is not allocated.
func (d *Driver) MemInfo(ch rt.CtxHandle) (free, total uint64, err error) {
	c, err := d.ctx("cuMemGetInfo", ch)
	if err != nil {
		return 0, 0, err
	}
	dv := c.dev
	dv.mu.Lock()
	defer dv.mu.Unlock()
	return dv.limit - dv.used, dv.limit, nil
}

// ---- stream-ordered allocation ----

// copyMem copies src to dst, each device memory or host memory as the
// flags say: device memory goes through devmem, which a kernel's CTAs or
// other streams may touch at the same time.
func copyMem(dst, src []byte, dstDev, srcDev bool) {
	switch {
	case dstDev && srcDev:
		devmem.Copy(dst, src)
	case dstDev:
		devmem.CopyIn(dst, src)
	case srcDev:
		devmem.CopyOut(dst, src)
	default:
		copy(dst, src)
	}
}
