package soft

import (
	"sync"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

// CUDA arrays, texture objects and surface objects (rt.Texturer).
//
// An array lives in soft device memory like any allocation (its bytes are
// an alloc owned by its context, which cuMemFree refuses), laid out densely:
// element (x, y, z) of an array of ElemSize-byte elements is at
//
//	base + z*slice + y*pitch + x*ElemSize,  pitch = Width*ElemSize, slice = pitch*max(Height, 1)
//
// where z is the depth of a 3-D array, the layer of a layered one, the face
// of a cube map (+x, -x, +y, -y, +z, -z) and 6*layer+face of a layered cube
// map. Each channel is stored as its format says (little-endian), channel 0
// first. Texture and surface objects are descriptors kept by handle; a
// kernel's texture and surface instructions find them through their
// context's TexObject (executor.go), which describes the memory in the same
// terms for arrays, linear and pitched memory alike.

var _ rt.Texturer = (*Driver)(nil)

// texState is the arrays and objects of a driver.
type texState struct {
	mu     sync.RWMutex
	arrays map[rt.ArrayHandle]*texArray
	objs   map[uint64]*texBinding // texture and surface objects, by handle
}

// texArray is one CUDA array.
type texArray struct {
	h    rt.ArrayHandle
	desc rt.ArrayDesc // Channels filled in
	mem  *exec.Alloc
	ctx  *context
}

// texBinding is a texture or surface object: what a kernel's instructions
// see of it (TexObject), and how it was made.
type texBinding struct {
	exec.TexObject
	Handle   uint64
	Ctx      *context
	ElemSize int    // bytes of one element, Format.Size()*Channels
	Slice    uint64 // the bytes between slices (depth, layer, face)

	Array *texArray       // the array, for ResourceArray
	Res   rt.ResourceDesc // as created
}

// Bytes is the resource's memory now (it may have been freed since the
// object was made: the error is the one a copy would give).
func (b *texBinding) Bytes(d *Driver) ([]byte, error) {
	return d.span("texture", rt.DevPtr(b.Base), b.Size)
}

// texObject is the texture (surface false) or surface object h, or nil if
// there is none (never made, destroyed, or of the other kind).
func (d *Driver) texObject(h uint64, surface bool) *texBinding {
	d.tex.mu.RLock()
	b := d.tex.objs[h]
	d.tex.mu.RUnlock()
	if b == nil || b.Surface != surface {
		return nil
	}
	return b
}

// forgetTextures drops the arrays and objects of c, a destroyed context.
func (d *Driver) forgetTextures(c *context) {
	d.tex.mu.Lock()
	defer d.tex.mu.Unlock()
	for h, b := range d.tex.objs {
		if b.Ctx == c {
			delete(d.tex.objs, h)
		}
	}
	for h, a := range d.tex.arrays {
		if a.ctx == c {
			delete(d.tex.arrays, h)
		}
	}
}

func (d *Driver) array(op string, h rt.ArrayHandle) (*texArray, error) {
	d.tex.mu.RLock()
	a := d.tex.arrays[h]
	d.tex.mu.RUnlock()
	if a == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidValue, "array %#x does not exist (destroyed?)", uintptr(h))
	}
	a.ctx.mu.Lock()
	gone := a.ctx.destroyed
	a.ctx.mu.Unlock()
	if gone {
		return nil, rt.Errorf(op, rt.ErrInvalidValue, "array %#x went with its context", uintptr(h))
	}
	return a, nil
}

// ArrayCreate is cuArray3DCreate.
func (d *Driver) ArrayCreate(ch rt.CtxHandle, desc *rt.ArrayDesc) (rt.ArrayHandle, error) {
	const op = "cuArray3DCreate"
	c, err := d.ctx(op, ch)
	if err != nil {
		return 0, err
	}
	if err := d.forbidden(op, c, false); err != nil {
		return 0, err
	}
	if err := desc.Validate(); err != nil {
		return 0, err
	}
	dd := *desc
	if dd.Channels == 0 {
		dd.Channels = dd.Format.Channels()
	}
	m, err := d.allocate(op, c, dd.Bytes(), op)
	if err != nil {
		return 0, err
	}
	d.mu.Lock()
	h := rt.ArrayHandle(d.handle())
	d.mu.Unlock()
	a := &texArray{h: h, desc: dd, mem: m, ctx: c}
	d.tex.mu.Lock()
	if d.tex.arrays == nil {
		d.tex.arrays = map[rt.ArrayHandle]*texArray{}
		d.tex.objs = map[uint64]*texBinding{}
	}
	d.tex.arrays[h] = a
	d.tex.mu.Unlock()
	return h, nil
}

// ArrayDestroy is cuArrayDestroy. Like MemFree it first waits for the
// context's queued work. Objects over the array stay (as in CUDA), and a
// kernel that reads one reads freed memory: soft reports that.
func (d *Driver) ArrayDestroy(ch rt.CtxHandle, h rt.ArrayHandle) error {
	const op = "cuArrayDestroy"
	if _, err := d.ctx(op, ch); err != nil {
		return err
	}
	a, err := d.array(op, h)
	if err != nil {
		return rt.Errorf(op, rt.ErrInvalidHandle, "array %#x does not exist (destroyed?)", uintptr(h))
	}
	if err := d.forbidden(op, a.ctx, false); err != nil {
		return err
	}
	if err := a.ctx.synchronize(); err != nil {
		return asyncErr(op, err)
	}
	d.tex.mu.Lock()
	if d.tex.arrays[h] != a {
		d.tex.mu.Unlock()
		return rt.Errorf(op, rt.ErrInvalidHandle, "array %#x was already destroyed", uintptr(h))
	}
	delete(d.tex.arrays, h)
	d.tex.mu.Unlock()
	owner := a.ctx
	owner.mu.Lock()
	delete(owner.allocs, a.mem.Base)
	owner.mu.Unlock()
	d.mem.Free(a.mem)
	owner.dev.release(a.mem.Size)
	return nil
}

// ArrayDescriptor is cuArray3DGetDescriptor.
func (d *Driver) ArrayDescriptor(ch rt.CtxHandle, h rt.ArrayHandle) (rt.ArrayDesc, error) {
	const op = "cuArray3DGetDescriptor"
	if _, err := d.ctx(op, ch); err != nil {
		return rt.ArrayDesc{}, err
	}
	a, err := d.array(op, h)
	if err != nil {
		return rt.ArrayDesc{}, rt.Errorf(op, rt.ErrInvalidHandle, "array %#x does not exist (destroyed?)", uintptr(h))
	}
	return a.desc, nil
}

// copySide is one side of a 3-D copy resolved: where it starts and how far
// rows and slices lie apart.
type copySide struct {
	host  unsafe.Pointer // host memory, or
	dev   uint64         // the device address of the first byte
	pitch uint64
	slice uint64
	n     uint64 // bytes from the first byte to the last, plus one
}

// side resolves s for a copy of w bytes × h rows × z slices, checking an
// array's bounds (the memory itself is checked when the copy runs).
func (d *Driver) side(op string, s *rt.CopySide, w, h, z uint64) (copySide, error) {
	var cs copySide
	if s.Array != 0 {
		a, err := d.array(op, s.Array)
		if err != nil {
			return cs, err
		}
		aw, ah, az := a.desc.Extent()
		if s.X+w > aw || s.Y+h > ah || s.Z+z > az || s.X+w < w || s.Y+h < h || s.Z+z < z {
			return cs, rt.Errorf(op, rt.ErrInvalidValue, "%d bytes × %d rows × %d slices at (%d bytes, %d, %d) do not fit the %v (%d bytes × %d × %d)",
				w, h, z, s.X, s.Y, s.Z, a.desc, aw, ah, az)
		}
		cs.pitch, cs.slice = aw, aw*ah
		cs.dev = a.mem.Base + s.Z*cs.slice + s.Y*cs.pitch + s.X
	} else {
		pitch, height := s.Pitch, s.Height
		if pitch == 0 {
			pitch = s.X + w
		}
		if height == 0 {
			height = s.Y + h
		}
		if h*z > 1 && pitch < s.X+w || z > 1 && height < s.Y+h {
			return cs, rt.Errorf(op, rt.ErrInvalidValue, "pitch %d and height %d do not hold %d bytes × %d rows at (%d, %d)", pitch, height, w, h, s.X, s.Y)
		}
		cs.pitch, cs.slice = pitch, pitch*height
		off := s.Z*cs.slice + s.Y*cs.pitch + s.X
		if s.Host != nil {
			cs.host = unsafe.Add(s.Host, off)
		} else {
			cs.dev = uint64(s.Device) + off
		}
	}
	cs.n = (z-1)*cs.slice + (h-1)*cs.pitch + w
	return cs, nil
}

func (cs *copySide) bytes(d *Driver, op string) ([]byte, error) {
	if cs.host != nil {
		return unsafe.Slice((*byte)(cs.host), cs.n), nil
	}
	return d.span(op, rt.DevPtr(cs.dev), cs.n)
}

// Memcpy3D is cuMemcpy3D(Async).
func (d *Driver) Memcpy3D(ch rt.CtxHandle, c *rt.Copy3D, sh rt.StreamHandle, async bool) error {
	const op = "cuMemcpy3D"
	if err := c.Validate(); err != nil {
		return err
	}
	w, h, z := c.WidthBytes, c.Height, c.Depth
	if w == 0 || h == 0 || z == 0 {
		return nil
	}
	src, err := d.side(op, &c.Src, w, h, z)
	if err != nil {
		return err
	}
	dst, err := d.side(op, &c.Dst, w, h, z)
	if err != nil {
		return err
	}
	for _, s := range []*copySide{&src, &dst} {
		if s.host == nil {
			if _, err := d.span(op, rt.DevPtr(s.dev), s.n); err != nil {
				return err
			}
		}
	}
	m := memOp{typ: rt.NodeMemcpy}
	if src.host != nil {
		m.host, m.hostLen = src.host, src.n
		if async && !d.isPinned(src.host, src.n) && !d.streamCaptured(op, ch, sh) {
			snap := alignedCopy(unsafe.Slice((*byte)(src.host), src.n))
			src.host = unsafe.Pointer(unsafe.SliceData(snap))
		}
	} else if dst.host != nil {
		m.host, m.hostLen, m.toHost = dst.host, dst.n, true
	}
	return d.copyOp(op, ch, sh, async, m, func() error {
		sb, err := src.bytes(d, op)
		if err != nil {
			return err
		}
		db, err := dst.bytes(d, op)
		if err != nil {
			return err
		}
		for k := uint64(0); k < z; k++ {
			for y := uint64(0); y < h; y++ {
				so, do := k*src.slice+y*src.pitch, k*dst.slice+y*dst.pitch
				copyMem(db[do:do+w], sb[so:so+w], dst.host == nil, src.host == nil)
			}
		}
		return nil
	})
}

// bind describes r's memory for an object.
func (d *Driver) bind(op string, r *rt.ResourceDesc) (*texBinding, error) {
	b := &texBinding{TexObject: exec.TexObject{Kind: r.Kind}, Res: *r}
	switch r.Kind {
	case rt.ResourceArray:
		a, err := d.array(op, r.Array)
		if err != nil {
			return nil, rt.Errorf(op, rt.ErrInvalidHandle, "array %#x does not exist (destroyed?)", uintptr(r.Array))
		}
		ad := a.desc
		b.Array, b.Format, b.Channels = a, ad.Format, ad.Channels
		b.Layered, b.Cube = ad.Flags&rt.ArrayLayered != 0, ad.Flags&rt.ArrayCubemap != 0
		b.Dims = ad.Dims()
		b.Width, b.Height, b.Depth = ad.Width, max(ad.Height, 1), max(ad.Depth, 1)
		if b.Layered {
			b.Layers = ad.Depth
			if b.Cube {
				b.Layers = ad.Depth / 6
			}
		}
		b.ElemSize = ad.ElemSize()
		b.Base, b.Size = a.mem.Base, a.mem.Size
		b.Pitch = uint64(b.Width * b.ElemSize)
		b.Slice = b.Pitch * uint64(b.Height)
		return b, nil
	}
	b.Format, b.Channels = r.Format, r.Channels
	if b.Channels == 0 {
		b.Channels = r.Format.Channels()
	}
	b.ElemSize = r.Format.Size() * b.Channels
	b.Base = uint64(r.Ptr)
	if r.Kind == rt.ResourceLinear {
		b.Dims, b.Width, b.Height, b.Depth = 1, int(r.SizeBytes/uint64(b.ElemSize)), 1, 1
		b.Size = r.SizeBytes
		b.Pitch, b.Slice = r.SizeBytes, r.SizeBytes
	} else {
		b.Dims, b.Width, b.Height, b.Depth = 2, r.Width, r.Height, 1
		b.Pitch = r.Pitch
		b.Slice = r.Pitch * uint64(r.Height)
		b.Size = r.Pitch*uint64(r.Height-1) + uint64(r.Width*b.ElemSize)
	}
	// CUDA does not check that the memory is allocated: an object over
	// memory that is not, or is freed later, reads garbage. soft refuses
	// it here so that the mistake shows where it is made.
	if _, err := b.Bytes(d); err != nil {
		return nil, rt.Errorf(op, rt.ErrInvalidValue, "the %d bytes at %#x the resource spans are not allocated device memory: %v", b.Size, b.Base, err)
	}
	return b, nil
}

func (d *Driver) addObject(b *texBinding) uint64 {
	d.mu.Lock()
	h := uint64(d.handle())
	d.mu.Unlock()
	b.Handle = h
	d.tex.mu.Lock()
	if d.tex.objs == nil {
		d.tex.arrays = map[rt.ArrayHandle]*texArray{}
		d.tex.objs = map[uint64]*texBinding{}
	}
	d.tex.objs[h] = b
	d.tex.mu.Unlock()
	return h
}

// TexObjectCreate is cuTexObjectCreate.
func (d *Driver) TexObjectCreate(ch rt.CtxHandle, r *rt.ResourceDesc, t *rt.TextureDesc) (rt.TextureObject, error) {
	const op = "cuTexObjectCreate"
	c, err := d.ctx(op, ch)
	if err != nil {
		return 0, err
	}
	if err := r.Validate(op); err != nil {
		return 0, err
	}
	if err := t.Validate(); err != nil {
		return 0, err
	}
	b, err := d.bind(op, r)
	if err != nil {
		return 0, err
	}
	b.Ctx, b.Tex = c, *t
	return rt.TextureObject(d.addObject(b)), nil
}

func (d *Driver) object(op string, ch rt.CtxHandle, h uint64, surface bool) (*texBinding, error) {
	if _, err := d.ctx(op, ch); err != nil {
		return nil, err
	}
	d.tex.mu.RLock()
	b := d.tex.objs[h]
	d.tex.mu.RUnlock()
	what := map[bool]string{false: "texture", true: "surface"}[surface]
	if b == nil || b.Surface != surface {
		return nil, rt.Errorf(op, rt.ErrInvalidValue, "%s object %#x does not exist (destroyed?)", what, h)
	}
	return b, nil
}

func (d *Driver) dropObject(op string, ch rt.CtxHandle, h uint64, surface bool) error {
	b, err := d.object(op, ch, h, surface)
	if err != nil {
		return err
	}
	d.tex.mu.Lock()
	defer d.tex.mu.Unlock()
	if d.tex.objs[h] != b {
		return rt.Errorf(op, rt.ErrInvalidValue, "object %#x was already destroyed", h)
	}
	delete(d.tex.objs, h)
	return nil
}

// TexObjectDestroy is cuTexObjectDestroy.
func (d *Driver) TexObjectDestroy(ch rt.CtxHandle, t rt.TextureObject) error {
	return d.dropObject("cuTexObjectDestroy", ch, uint64(t), false)
}

// TexObjectDesc is cuTexObjectGetResourceDesc and cuTexObjectGetTextureDesc.
func (d *Driver) TexObjectDesc(ch rt.CtxHandle, t rt.TextureObject) (rt.ResourceDesc, rt.TextureDesc, error) {
	b, err := d.object("cuTexObjectGetResourceDesc", ch, uint64(t), false)
	if err != nil {
		return rt.ResourceDesc{}, rt.TextureDesc{}, err
	}
	return b.Res, b.Tex, nil
}

// SurfObjectCreate is cuSurfObjectCreate.
func (d *Driver) SurfObjectCreate(ch rt.CtxHandle, r *rt.ResourceDesc) (rt.SurfaceObject, error) {
	const op = "cuSurfObjectCreate"
	c, err := d.ctx(op, ch)
	if err != nil {
		return 0, err
	}
	if r.Kind != rt.ResourceArray {
		return 0, rt.Errorf(op, rt.ErrInvalidValue, "a surface is over an array, not resource type %d", r.Kind)
	}
	if err := r.Validate(op); err != nil {
		return 0, err
	}
	b, err := d.bind(op, r)
	if err != nil {
		return 0, err
	}
	// An array made without ArraySurfaceLoadStore is taken, as the H100's
	// driver (CUDA 13.0) takes it; rt.NewSurface refuses it.
	b.Ctx, b.Surface = c, true
	return rt.SurfaceObject(d.addObject(b)), nil
}

// SurfObjectDestroy is cuSurfObjectDestroy.
func (d *Driver) SurfObjectDestroy(ch rt.CtxHandle, s rt.SurfaceObject) error {
	return d.dropObject("cuSurfObjectDestroy", ch, uint64(s), true)
}

// SurfObjectDesc is cuSurfObjectGetResourceDesc.
func (d *Driver) SurfObjectDesc(ch rt.CtxHandle, s rt.SurfaceObject) (rt.ResourceDesc, error) {
	b, err := d.object("cuSurfObjectGetResourceDesc", ch, uint64(s), true)
	if err != nil {
		return rt.ResourceDesc{}, err
	}
	return b.Res, nil
}
