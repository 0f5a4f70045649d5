package rt

// Peer access between devices and copies across them: the PeerAccessor
// capability at rt's level.

func peerAccessor(d Driver, op string) (PeerAccessor, error) {
	return capability[PeerAccessor](d, op, "peer access (rt.PeerAccessor)")
}

// CanAccessPeer reports whether d's contexts can access peer's memory once
// peer access is enabled (cuDeviceCanAccessPeer). A device is not its own
// peer.
func (d Device) CanAccessPeer(peer Device) (bool, error) {
	if err := devicePair("rt.Device.CanAccessPeer", d, peer); err != nil {
		return false, err
	}
	p, err := peerAccessor(d.drv, "cuDeviceCanAccessPeer")
	if err != nil {
		return false, err
	}
	return p.DeviceCanAccessPeer(d.ord, peer.ord)
}

// P2PAttribute reads a peer-to-peer attribute of the link from d to peer
// (cuDeviceGetP2PAttribute).
func (d Device) P2PAttribute(peer Device, a P2PAttr) (int, error) {
	if err := devicePair("rt.Device.P2PAttribute", d, peer); err != nil {
		return 0, err
	}
	p, err := peerAccessor(d.drv, "cuDeviceGetP2PAttribute")
	if err != nil {
		return 0, err
	}
	return p.DeviceP2PAttribute(a, d.ord, peer.ord)
}

// EnablePeerAccess lets kernels and copies in c access memory allocated in
// peer, a context of another device (cuCtxEnablePeerAccess). Access is one
// way: enable it from peer too for the other direction. Enabling it twice
// fails with ErrPeerAccessAlreadyEnabled. It covers memory allocated with
// Alloc, not stream-ordered allocations (AllocAsync, MemPool): CUDA gives
// other devices access to a pool with cuMemPoolSetAccess, which rt does
// not wrap yet.
func (c *Context) EnablePeerAccess(peer *Context) error {
	if err := contextPair("rt.Context.EnablePeerAccess", c, peer); err != nil {
		return err
	}
	p, err := peerAccessor(c.drv, "cuCtxEnablePeerAccess")
	if err != nil {
		return err
	}
	return p.CtxEnablePeerAccess(c.h, peer.h)
}

// DisablePeerAccess undoes EnablePeerAccess (cuCtxDisablePeerAccess).
func (c *Context) DisablePeerAccess(peer *Context) error {
	if err := contextPair("rt.Context.DisablePeerAccess", c, peer); err != nil {
		return err
	}
	p, err := peerAccessor(c.drv, "cuCtxDisablePeerAccess")
	if err != nil {
		return err
	}
	return p.CtxDisablePeerAccess(c.h, peer.h)
}

// CopyFromPeer copies src, a buffer of any context of the driver (another
// device's included), to the start of b (cuMemcpyPeer), synchronously with
// respect to all work in both contexts (see Buffer). Peer access need not
// be enabled: without it the driver copies through the host.
func (b Buffer[T]) CopyFromPeer(src Buffer[T]) error {
	if err := bufferPair("rt.Buffer.CopyFromPeer", b.check, src.check, b.ctx, src.ctx); err != nil {
		return err
	}
	if src.Len > b.Len {
		return Errorf("rt.Buffer.CopyFromPeer", ErrInvalidValue, "%d elements into a buffer of %d", src.Len, b.Len)
	}
	if src.Len == 0 {
		return nil
	}
	p, err := peerAccessor(b.ctx.drv, "cuMemcpyPeer")
	if err != nil {
		return err
	}
	if err := src.ctx.drv.CtxSynchronize(src.ctx.h); err != nil {
		return err
	}
	return b.ctx.synchronous("rt.Buffer.CopyFromPeer", true, func() error {
		return p.MemcpyPeer(b.ctx.h, DevPtr(b.Ptr), src.ctx.h, DevPtr(src.Ptr), src.Bytes(), 0, false)
	})
}

// CopyFromPeerAsync is CopyFromPeer in s's order (cuMemcpyPeerAsync); s
// may be a created stream of either context, or the destination's NULL
// stream (nil; cuMemcpyPeerAsync runs a NULL stream's copy in the
// destination's context, so the source's NULL stream would not order it:
// an error).
// Order the other context's work with an event.
func (b Buffer[T]) CopyFromPeerAsync(s *Stream, src Buffer[T]) error {
	const op = "rt.Buffer.CopyFromPeerAsync"
	if err := bufferPair(op, b.check, src.check, b.ctx, src.ctx); err != nil {
		return err
	}
	if s == nil {
		s = b.ctx.NullStream()
	} else if err := s.check(op); err != nil {
		return err
	} else if err := sameDriver(op, s.ctx, b.ctx); err != nil {
		return err
	}
	if special(s.h) && s.ctx.h != b.ctx.h {
		return Errorf(op, ErrInvalidValue, "a default stream (%#x: NULL, legacy or per-thread) of %v, not of the destination's %v: the copy would run on the destination's, unordered with the stream named; use a created stream", uintptr(s.h), s.ctx, b.ctx)
	}
	if src.Len > b.Len {
		return Errorf(op, ErrInvalidValue, "%d elements into a buffer of %d", src.Len, b.Len)
	}
	if src.Len == 0 {
		return nil
	}
	p, err := peerAccessor(b.ctx.drv, "cuMemcpyPeerAsync")
	if err != nil {
		return err
	}
	return p.MemcpyPeer(b.ctx.h, DevPtr(b.Ptr), src.ctx.h, DevPtr(src.Ptr), src.Bytes(), s.h, true)
}

// devicePair checks the two devices of a peer query.
func devicePair(op string, d, peer Device) error {
	if err := d.check(op); err != nil {
		return err
	}
	if err := peer.check(op); err != nil {
		return err
	}
	if d.drv != peer.drv {
		return Errorf(op, ErrInvalidDevice, "%v and %v belong to different backends", d, peer)
	}
	return nil
}

// contextPair checks the two contexts of a peer call.
func contextPair(op string, c, peer *Context) error {
	if err := c.check(op); err != nil {
		return err
	}
	if err := peer.check(op); err != nil {
		return err
	}
	return sameDriver(op, c, peer)
}

// bufferPair checks the two buffers of a peer copy.
func bufferPair(op string, dst, src func(string) error, dc, sc *Context) error {
	if err := dst(op); err != nil {
		return err
	}
	if err := src(op); err != nil {
		return err
	}
	return sameDriver(op, dc, sc)
}
