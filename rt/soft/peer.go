package soft

import (
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/devmem"
)

// Peer access between the emulated devices (rt.PeerAccessor). Every pair
// of distinct devices can be peers. A kernel that touches memory of
// another context faults unless peer access from its context to that one
// is enabled, as on a GPU; copies need none. Peer access does not cover
// stream-ordered (cuMemAllocAsync) memory: CUDA gives other devices access
// to a pool with cuMemPoolSetAccess (the programming guide's "Device
// Accessibility for Multi-GPU Support"), which rt does not wrap, so a
// kernel touching a peer's pool memory faults.

var _ rt.PeerAccessor = (*Driver)(nil)

// DeviceCanAccessPeer is cuDeviceCanAccessPeer: true for two distinct
// devices.
func (d *Driver) DeviceCanAccessPeer(dev, peer int) (bool, error) {
	const op = "cuDeviceCanAccessPeer"
	if _, err := d.dev(op, dev); err != nil {
		return false, err
	}
	if _, err := d.dev(op, peer); err != nil {
		return false, err
	}
	return dev != peer, nil
}

// CtxEnablePeerAccess is cuCtxEnablePeerAccess.
func (d *Driver) CtxEnablePeerAccess(ch, peer rt.CtxHandle) error {
	return d.setPeer("cuCtxEnablePeerAccess", ch, peer, true)
}

// CtxDisablePeerAccess is cuCtxDisablePeerAccess.
func (d *Driver) CtxDisablePeerAccess(ch, peer rt.CtxHandle) error {
	return d.setPeer("cuCtxDisablePeerAccess", ch, peer, false)
}

func (d *Driver) setPeer(op string, ch, ph rt.CtxHandle, on bool) error {
	c, err := d.ctx(op, ch)
	if err != nil {
		return err
	}
	if ph == 0 {
		return rt.Errorf(op, rt.ErrInvalidValue, "no peer context")
	}
	p, err := d.ctx(op, ph)
	if err != nil {
		return err
	}
	if c.dev == p.dev {
		return rt.Errorf(op, rt.ErrInvalidDevice, "both contexts are on device %d: a device is not its own peer", c.dev.ord)
	}
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	d.ext.init()
	key := [2]*context{c, p}
	switch {
	case on && d.ext.peers[key]:
		return rt.Errorf(op, rt.ErrPeerAccessAlreadyEnabled, "from device %d to device %d", c.dev.ord, p.dev.ord)
	case !on && !d.ext.peers[key]:
		return rt.Errorf(op, rt.ErrPeerAccessNotEnabled, "from device %d to device %d", c.dev.ord, p.dev.ord)
	}
	if on {
		d.ext.peers[key] = true
	} else {
		delete(d.ext.peers, key)
	}
	return nil
}

// peerOK reports whether kernels in c may access memory of other.
func (d *Driver) peerOK(c, other *context) bool {
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	return d.ext.peers[[2]*context{c, other}]
}

// MemcpyPeer is cuMemcpyPeer(Async): soft's devices share one address
// space, so it is a device-to-device copy between the two contexts.
func (d *Driver) MemcpyPeer(dstCtx rt.CtxHandle, dst rt.DevPtr, srcCtx rt.CtxHandle, src rt.DevPtr, n uint64, sh rt.StreamHandle, async bool) error {
	const op = "cuMemcpyPeer"
	if _, err := d.ctx(op, srcCtx); err != nil {
		return err
	}
	if _, err := d.ctx(op, dstCtx); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if _, err := d.span(op, dst, n); err != nil {
		return err
	}
	if _, err := d.span(op, src, n); err != nil {
		return err
	}
	if !async {
		// The synchronous form waits for the source context's work too.
		sc, _ := d.ctx(op, srcCtx)
		if err := d.forbidden(op, sc, false); err != nil {
			return err
		}
	}
	return d.copyOp(op, dstCtx, sh, async, memOp{typ: rt.NodeMemcpy}, func() error {
		to, err := d.span(op, dst, n)
		if err != nil {
			return err
		}
		from, err := d.span(op, src, n)
		if err != nil {
			return err
		}
		devmem.Copy(to, from)
		return nil
	})
}

// DeviceP2PAttribute is cuDeviceGetP2PAttribute between two distinct
// devices: rank 0, access, native atomics and array access supported.
func (d *Driver) DeviceP2PAttribute(attr rt.P2PAttr, src, dst int) (int, error) {
	const op = "cuDeviceGetP2PAttribute"
	if _, err := d.dev(op, src); err != nil {
		return 0, err
	}
	if _, err := d.dev(op, dst); err != nil {
		return 0, err
	}
	if src == dst {
		return 0, rt.Errorf(op, rt.ErrInvalidDevice, "source and destination are both device %d", src)
	}
	switch attr {
	case rt.P2PPerformanceRank:
		return 0, nil
	case rt.P2PAccessSupported, rt.P2PNativeAtomicSupported, rt.P2PCudaArrayAccess:
		return 1, nil
	}
	return 0, rt.Errorf(op, rt.ErrInvalidValue, "attribute %d", attr)
}
