package rt

import (
	"math/bits"
	"unsafe"

	"github.com/cugen/cugen/rt/tex"
)

// The driver level of CUDA arrays, texture objects and surface objects: the
// handles kernels take, the Texturer capability the backends implement, and
// the descriptions it passes (ResourceDesc, Copy3D). Kernels receive
// texture and surface objects as 64-bit handles:
//
//	__global__ void k(cudaTextureObject_t tex, cudaSurfaceObject_t surf, ...)
//
// for which generated code takes an rt.TextureObject and an
// rt.SurfaceObject. The objects users make (arrays, textures, surfaces of a
// context) are package rt/tex/texobj's; the formats, shapes, sampling modes
// and limits they take are rt/tex's, which imports nothing of rt. Array,
// NewArray, Texture, NewTexture, Surface, NewSurface, the array copies and
// the resource constructors below are the implementation texobj forwards
// to, deprecated as rt's names until it moves there.

// ArrayHandle is a CUDA array (CUarray); 0 is never a valid one.
type ArrayHandle uintptr

// TextureObject is a texture object (CUtexObject, cudaTextureObject_t): the
// 64-bit value a kernel's texture instructions take. 0 is never a valid one.
type TextureObject uint64

// SurfaceObject is a surface object (CUsurfObject, cudaSurfaceObject_t): the
// 64-bit value a kernel's surface instructions take. 0 is never a valid one.
type SurfaceObject uint64

// Texturer creates CUDA arrays, texture objects and surface objects and
// copies to and from arrays (CUDA 5.0+ for objects; every CUDA 12 driver has
// them). rt/cgo and rt/soft implement it. Each call runs in ctx (0: the
// calling thread's current context); objects and arrays belong to the
// context they were made in.
//
// rt/tex/texobj's constructors and Copy3D.Run validate a description with
// its Validate method before they pass it on; a backend validates again for
// callers that come to it directly, with the same rules and codes.
type Texturer interface {
	// ArrayCreate is cuArray3DCreate.
	ArrayCreate(ctx CtxHandle, d *tex.ArrayDesc) (ArrayHandle, error)
	// ArrayDestroy is cuArrayDestroy. Texture and surface objects over the
	// array must be destroyed first: what they read afterwards is undefined.
	ArrayDestroy(ctx CtxHandle, a ArrayHandle) error
	// ArrayDescriptor is cuArray3DGetDescriptor.
	ArrayDescriptor(ctx CtxHandle, a ArrayHandle) (tex.ArrayDesc, error)
	// Memcpy3D is cuMemcpy3D(Async) between any two of host memory, device
	// memory and arrays; it also does 1-D and 2-D copies (Height and Depth
	// 1). Async copies follow MemcpyHtoD's rules for host memory.
	Memcpy3D(ctx CtxHandle, c *Copy3D, s StreamHandle, async bool) error
	// TexObjectCreate is cuTexObjectCreate with no resource view.
	TexObjectCreate(ctx CtxHandle, r *ResourceDesc, t *tex.TextureDesc) (TextureObject, error)
	TexObjectDestroy(ctx CtxHandle, t TextureObject) error // cuTexObjectDestroy
	// TexObjectDesc is cuTexObjectGetResourceDesc and
	// cuTexObjectGetTextureDesc. The border color may read back as zeros
	// (the H100's driver, CUDA 13.0, returned zeros for a u8×4 array's).
	TexObjectDesc(ctx CtxHandle, t TextureObject) (ResourceDesc, tex.TextureDesc, error)
	// SurfObjectCreate is cuSurfObjectCreate: r must be an array, made with
	// ArraySurfaceLoadStore (CUDA's rule, which the H100's driver, CUDA
	// 13.0, does not enforce: nor does a backend; NewSurface does).
	SurfObjectCreate(ctx CtxHandle, r *ResourceDesc) (SurfaceObject, error)
	SurfObjectDestroy(ctx CtxHandle, s SurfaceObject) error // cuSurfObjectDestroy
	// SurfObjectDesc is cuSurfObjectGetResourceDesc.
	SurfObjectDesc(ctx CtxHandle, s SurfaceObject) (ResourceDesc, error)
}

// CopySide is one side of a Copy3D: host memory (Host), device memory
// (Device) or an array (Array), exactly one of them.
type CopySide struct {
	Host   unsafe.Pointer
	Device DevPtr
	Array  ArrayHandle
	// X (in bytes), Y and Z are the offset of the copy's first byte.
	X, Y, Z uint64
	// Pitch is the bytes from one row to the next and Height the rows from
	// one slice to the next, in host and device memory (arrays have their
	// own).
	Pitch, Height uint64
}

func (c *CopySide) kind() int {
	n := 0
	if c.Host != nil {
		n++
	}
	if c.Device != 0 {
		n++
	}
	if c.Array != 0 {
		n++
	}
	return n
}

// Copy3D is a 3-D copy (CUDA_MEMCPY3D): Depth slices of Height rows of
// WidthBytes bytes from Src to Dst. A 2-D copy has Depth 1, a 1-D one
// Height 1 too. Layered arrays and cube maps count their layers (faces) as
// slices.
type Copy3D struct {
	Src, Dst                  CopySide
	WidthBytes, Height, Depth uint64
}

// Validate checks what can be checked without the driver: each side is one
// kind of memory, and the pitches of host and device memory hold the rows.
func (c *Copy3D) Validate() error {
	const op = "cuMemcpy3D"
	if c.Src.kind() != 1 || c.Dst.kind() != 1 {
		return Errorf(op, ErrInvalidValue, "each side is host memory, device memory or an array, exactly one of them")
	}
	for _, s := range []*CopySide{&c.Src, &c.Dst} {
		if s.Array != 0 {
			continue
		}
		if s.Pitch < s.X+c.WidthBytes && c.Height*c.Depth > 1 {
			return Errorf(op, ErrInvalidValue, "pitch %d is less than the offset %d and the width %d", s.Pitch, s.X, c.WidthBytes)
		}
		if c.Depth > 1 && s.Height < s.Y+c.Height {
			return Errorf(op, ErrInvalidValue, "%d rows per slice, less than the offset %d and the height %d", s.Height, s.Y, c.Height)
		}
		if _, ok := sideExtent(s, c); !ok {
			return Errorf(op, ErrInvalidValue, "%d slices of %d rows of %d bytes, %d apart with slices %d rows apart: more than 2^64 bytes", c.Depth, c.Height, c.WidthBytes, s.Pitch, s.Height)
		}
	}
	return nil
}

// sideExtent is the bytes from a side's start to the end of the copy's
// last row, (Z+Depth-1)·Height·Pitch + (Y+Height-1)·Pitch + X + WidthBytes,
// and false if that overflows 64 bits.
func sideExtent(s *CopySide, c *Copy3D) (uint64, bool) {
	mul := func(a, b uint64) (uint64, bool) { hi, lo := bits.Mul64(a, b); return lo, hi == 0 }
	add := func(a, b uint64) (uint64, bool) { s, carry := bits.Add64(a, b, 0); return s, carry == 0 }
	slice, ok1 := mul(s.Height, s.Pitch)
	zs, ok2 := add(s.Z, max(c.Depth, 1)-1)
	a, ok3 := mul(zs, slice)
	ys, ok4 := add(s.Y, max(c.Height, 1)-1)
	b, ok5 := mul(ys, s.Pitch)
	n, ok6 := add(a, b)
	n, ok7 := add(n, s.X)
	n, ok8 := add(n, c.WidthBytes)
	return n, ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8
}

// ResourceDesc is a CUDA_RESOURCE_DESC: an array (Kind ResourceArray,
// Array), linear memory (ResourceLinear: Ptr, Format, Channels, SizeBytes)
// or a pitched 2-D region (ResourcePitch2D: Ptr, Format, Channels, Width,
// Height, Pitch).
type ResourceDesc struct {
	Kind  tex.ResourceKind
	Array ArrayHandle
	Ptr   DevPtr
	// Format and Channels (1, 2 or 4) type the elements of linear and
	// pitched memory.
	Format   tex.ArrayFormat
	Channels int
	// SizeBytes is linear memory's size.
	SizeBytes uint64
	// Width and Height (in elements) and Pitch (bytes between rows) shape
	// pitched memory.
	Width, Height int
	Pitch         uint64
}

// Validate checks r's shape and alignment; whether an array handle is live
// is the driver's to tell.
func (r *ResourceDesc) Validate(op string) error {
	bad := func(format string, args ...any) error { return Errorf(op, ErrInvalidValue, format, args...) }
	switch r.Kind {
	case tex.ResourceArray:
		if r.Array == 0 {
			return bad("no array")
		}
		return nil
	case tex.ResourceLinear, tex.ResourcePitch2D:
	default:
		return bad("resource type %d is not an array, linear or pitched memory", r.Kind)
	}
	if !r.Format.Valid() {
		return bad("format %v is not a CUarray_format rt knows", r.Format)
	}
	ch := r.Channels
	if ch == 0 {
		ch = r.Format.Channels()
	}
	if n := r.Format.Channels(); n != 0 && ch != n || ch != 1 && ch != 2 && ch != 4 {
		return bad("%d channels of %v", r.Channels, r.Format)
	}
	if r.Ptr == 0 || r.Ptr%tex.TextureAlign != 0 {
		return bad("address %#x is not %d-byte aligned", uint64(r.Ptr), tex.TextureAlign)
	}
	elem := uint64(r.Format.Size() * ch)
	if r.Kind == tex.ResourceLinear {
		if r.SizeBytes == 0 || r.SizeBytes/elem > tex.MaxTextureLinear {
			return bad("%d bytes of linear memory, want 1 to %d elements", r.SizeBytes, tex.MaxTextureLinear)
		}
		return nil
	}
	if r.Width <= 0 || r.Height <= 0 || r.Width > tex.MaxTexturePitch2D || r.Height > tex.MaxTexturePitch2D {
		return bad("pitched shape %d×%d, want 1 to %d each", r.Width, r.Height, tex.MaxTexturePitch2D)
	}
	if r.Pitch%tex.TexturePitchAlign != 0 || r.Pitch < uint64(r.Width)*elem || r.Pitch > tex.MaxTexturePitchRow {
		return bad("pitch %d for %d %d-byte elements, want a multiple of %d at least the row's bytes and at most %d", r.Pitch, r.Width, elem, tex.TexturePitchAlign, tex.MaxTexturePitchRow)
	}
	return nil
}

func (c *Context) texturer(op string) (Texturer, error) {
	return capability[Texturer](c.drv, op, "CUDA arrays, textures or surfaces (rt.Texturer)")
}

// Array is a CUDA array of one context.
//
// Deprecated: use texobj.Array (rt/tex/texobj).
type Array struct {
	h    ArrayHandle
	desc tex.ArrayDesc
	ctx  *Context
	t    Texturer
}

// NewArray creates an array (cuArray3DCreate); its contents are undefined.
//
// Deprecated: use texobj.NewArray.
func NewArray(ctx *Context, d tex.ArrayDesc) (*Array, error) {
	if err := ctx.check("rt.NewArray"); err != nil {
		return nil, err
	}
	t, err := ctx.texturer("cuArray3DCreate")
	if err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if d.Channels == 0 {
		d.Channels = d.Format.Channels()
	}
	h, err := t.ArrayCreate(ctx.h, &d)
	if err != nil {
		return nil, err
	}
	return &Array{h: h, desc: d, ctx: ctx, t: t}, nil
}

// Handle is the driver's handle (0 after Destroy).
func (a *Array) Handle() ArrayHandle {
	if a == nil {
		return 0
	}
	return a.h
}

// Desc is the array's description.
func (a *Array) Desc() tex.ArrayDesc {
	if a == nil {
		return tex.ArrayDesc{}
	}
	return a.desc
}

// Context is the context the array was created in.
func (a *Array) Context() *Context {
	if a == nil {
		return nil
	}
	return a.ctx
}

// check refuses a nil, zero or destroyed array.
func (a *Array) check(op string) error {
	switch {
	case a == nil || a.t == nil:
		return Errorf(op, ErrInvalidHandle, "a nil or zero array (arrays come from texobj.NewArray)")
	case a.h == 0:
		return Errorf(op, ErrInvalidHandle, "the array was destroyed")
	}
	return a.ctx.check(op)
}

// Destroy frees the array (cuArrayDestroy). Destroy the textures and
// surfaces over it first.
func (a *Array) Destroy() error {
	if a == nil || a.t == nil {
		return a.check("rt.Array.Destroy")
	}
	if a.h == 0 {
		return nil
	}
	if err := a.ctx.check("rt.Array.Destroy"); err != nil {
		return err
	}
	h := a.h
	a.h = 0
	return a.t.ArrayDestroy(a.ctx.h, h)
}

// whole is a copy of the whole array to or from other, dense or pitched
// memory (other.Pitch 0: dense rows; other.Height 0: dense slices).
func (a *Array) whole(other CopySide, toArray bool) Copy3D {
	w, h, z := a.desc.Extent()
	if other.Pitch == 0 {
		other.Pitch = w
	}
	if other.Height == 0 {
		other.Height = h
	}
	c := Copy3D{WidthBytes: w, Height: h, Depth: z}
	arr := CopySide{Array: a.h}
	if toArray {
		c.Src, c.Dst = other, arr
	} else {
		c.Src, c.Dst = arr, other
	}
	return c
}

func (a *Array) hostCopy(op string, p unsafe.Pointer, n uint64, toArray bool) (Copy3D, error) {
	if err := a.check(op); err != nil {
		return Copy3D{}, err
	}
	if n != a.desc.Bytes() {
		return Copy3D{}, Errorf(op, ErrInvalidValue, "%d host bytes for a %v (%d bytes)", n, a.desc, a.desc.Bytes())
	}
	return a.whole(CopySide{Host: p}, toArray), nil
}

// CopyToArray copies src, the array's elements densely packed (row by
// row, slice by slice), into a, synchronously with respect to all work in
// its context (see Buffer). T's size times len(src) must be the array's
// bytes: a []float32 for a 1-channel f32 array, a []Uchar4 or []uint8
// (4 per element) for a 4-channel u8 one.
//
// Deprecated: use texobj.CopyToArray.
func CopyToArray[T any](a *Array, src []T) error {
	n, err := bytesOf("rt.CopyToArray", len(src), sizeOf[T]())
	if err != nil {
		return err
	}
	c, err := a.hostCopy("rt.CopyToArray", unsafe.Pointer(unsafe.SliceData(src)), n, true)
	if err != nil {
		return err
	}
	return c.Run(a.ctx)
}

// CopyFromArray copies a into dst, densely packed, synchronously with
// respect to all work in a's context (see Buffer).
//
// Deprecated: use texobj.CopyFromArray.
func CopyFromArray[T any](a *Array, dst []T) error {
	n, err := bytesOf("rt.CopyFromArray", len(dst), sizeOf[T]())
	if err != nil {
		return err
	}
	c, err := a.hostCopy("rt.CopyFromArray", unsafe.Pointer(unsafe.SliceData(dst)), n, false)
	if err != nil {
		return err
	}
	return c.Run(a.ctx)
}

// CopyToArrayAsync is CopyToArray in s's order (see Buffer.CopyFromAsync).
//
// Deprecated: use texobj.CopyToArrayAsync.
func CopyToArrayAsync[T any](s *Stream, a *Array, src []T) error {
	c, err := a.hostCopy("rt.CopyToArrayAsync", unsafe.Pointer(unsafe.SliceData(src)), uint64(len(src))*sizeOf[T](), true)
	if err == nil {
		s, err = s.in("rt.CopyToArrayAsync", a.ctx)
	}
	if err != nil {
		return err
	}
	return c.RunAsync(s)
}

// CopyFromArrayAsync is CopyFromArray in s's order (see
// Buffer.CopyToAsync): dst holds the copy once s has passed it.
//
// Deprecated: use texobj.CopyFromArrayAsync.
func CopyFromArrayAsync[T any](s *Stream, a *Array, dst []T) error {
	c, err := a.hostCopy("rt.CopyFromArrayAsync", unsafe.Pointer(unsafe.SliceData(dst)), uint64(len(dst))*sizeOf[T](), false)
	if err == nil {
		s, err = s.in("rt.CopyFromArrayAsync", a.ctx)
	}
	if err != nil {
		return err
	}
	return c.RunAsync(s)
}

// DeviceSide is device memory as a Copy3D side: rows pitch bytes apart,
// slices height rows apart (0 for dense).
func DeviceSide(p DevPtr, pitch, height uint64) CopySide {
	return CopySide{Device: p, Pitch: pitch, Height: height}
}

// CopyFromDevice copies the whole array from device memory (see
// DeviceSide), synchronously with respect to all work in its context.
func (a *Array) CopyFromDevice(src CopySide) error {
	if err := a.check("rt.Array.CopyFromDevice"); err != nil {
		return err
	}
	c := a.whole(src, true)
	return c.Run(a.ctx)
}

// CopyToDevice copies the whole array to device memory, synchronously.
func (a *Array) CopyToDevice(dst CopySide) error {
	if err := a.check("rt.Array.CopyToDevice"); err != nil {
		return err
	}
	c := a.whole(dst, false)
	return c.Run(a.ctx)
}

// CopyFromDeviceAsync is CopyFromDevice in s's order.
func (a *Array) CopyFromDeviceAsync(s *Stream, src CopySide) error {
	const op = "rt.Array.CopyFromDeviceAsync"
	if err := a.check(op); err != nil {
		return err
	}
	s, err := s.in(op, a.ctx)
	if err != nil {
		return err
	}
	c := a.whole(src, true)
	return c.RunAsync(s)
}

// CopyToDeviceAsync is CopyToDevice in s's order.
func (a *Array) CopyToDeviceAsync(s *Stream, dst CopySide) error {
	const op = "rt.Array.CopyToDeviceAsync"
	if err := a.check(op); err != nil {
		return err
	}
	s, err := s.in(op, a.ctx)
	if err != nil {
		return err
	}
	c := a.whole(dst, false)
	return c.RunAsync(s)
}

// Run copies c synchronously with respect to all work in ctx (see Buffer)
// (cuMemcpy3D).
func (c Copy3D) Run(ctx *Context) error {
	if err := ctx.check("rt.Copy3D.Run"); err != nil {
		return err
	}
	t, err := ctx.texturer("cuMemcpy3D")
	if err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if c.WidthBytes == 0 || c.Height == 0 || c.Depth == 0 {
		return nil
	}
	wait := c.Dst.Host == nil // a copy into host memory has completed on return
	return ctx.synchronous("rt.Copy3D.Run", wait, func() error { return t.Memcpy3D(ctx.h, &c, 0, false) })
}

// RunAsync copies c in s's order (cuMemcpy3DAsync). During a capture its
// host memory must be a PinnedBuffer's (see Buffer.CopyToAsync).
func (c Copy3D) RunAsync(s *Stream) error {
	const op = "rt.Copy3D.RunAsync"
	s, err := s.orCurrent(op)
	if err != nil {
		return err
	}
	t, err := s.ctx.texturer("cuMemcpy3DAsync")
	if err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if c.WidthBytes == 0 || c.Height == 0 || c.Depth == 0 {
		return nil
	}
	for _, side := range []CopySide{c.Src, c.Dst} {
		if side.Host != nil {
			n := side.Z*side.Height*side.Pitch + side.Y*side.Pitch + side.X +
				(c.Depth-1)*side.Height*side.Pitch + (c.Height-1)*side.Pitch + c.WidthBytes
			if err := s.captureHost(op, side.Host, n); err != nil {
				return err
			}
		}
	}
	return t.Memcpy3D(s.ctx.h, &c, s.h, true)
}

// Texture is a texture object of one context.
//
// Deprecated: use texobj.Texture (rt/tex/texobj).
type Texture struct {
	Object TextureObject
	ctx    *Context
	t      Texturer
}

// NewTexture creates a texture object over r (cuTexObjectCreate).
//
// Deprecated: use texobj.NewTexture.
func NewTexture(ctx *Context, r ResourceDesc, d tex.TextureDesc) (*Texture, error) {
	const op = "cuTexObjectCreate"
	if err := ctx.check(op); err != nil {
		return nil, err
	}
	t, err := ctx.texturer(op)
	if err != nil {
		return nil, err
	}
	if err := r.Validate(op); err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	o, err := t.TexObjectCreate(ctx.h, &r, &d)
	if err != nil {
		return nil, err
	}
	return &Texture{Object: o, ctx: ctx, t: t}, nil
}

// ArrayResource is the resource of array a.
//
// Deprecated: use texobj.ArrayResource.
func ArrayResource(a *Array) ResourceDesc {
	return ResourceDesc{Kind: tex.ResourceArray, Array: a.Handle()}
}

// LinearResource is n elements of format×channels at p.
//
// Deprecated: use texobj.LinearResource.
func LinearResource(p DevPtr, format tex.ArrayFormat, channels int, n int) ResourceDesc {
	if channels == 0 {
		channels = format.Channels()
	}
	return ResourceDesc{Kind: tex.ResourceLinear, Ptr: p, Format: format, Channels: channels,
		SizeBytes: uint64(n) * uint64(format.Size()*channels)}
}

// PitchedResource is the pitched array p, whose T is channels channels of
// format (a Pitched[float32] is FormatFloat, 1; a Pitched[Float4]
// FormatFloat, 4).
//
// Deprecated: use texobj.PitchedResource.
func PitchedResource[T any](p Pitched[T], format tex.ArrayFormat, channels int) ResourceDesc {
	if channels == 0 {
		channels = format.Channels()
	}
	return ResourceDesc{Kind: tex.ResourcePitch2D, Ptr: DevPtr(p.Ptr), Format: format, Channels: channels,
		Width: p.Width, Height: p.Height, Pitch: uint64(p.Pitch)}
}

// Desc reads back the texture's resource and texture descriptions
// (cuTexObjectGetResourceDesc, cuTexObjectGetTextureDesc).
func (t *Texture) Desc() (ResourceDesc, tex.TextureDesc, error) {
	const op = "rt.Texture.Desc"
	if t == nil || t.t == nil {
		return ResourceDesc{}, tex.TextureDesc{}, Errorf(op, ErrInvalidHandle, "a nil or zero texture (textures come from texobj.NewTexture)")
	}
	if t.Object == 0 {
		return ResourceDesc{}, tex.TextureDesc{}, Errorf(op, ErrInvalidHandle, "the texture was destroyed")
	}
	if err := t.ctx.check(op); err != nil {
		return ResourceDesc{}, tex.TextureDesc{}, err
	}
	return t.t.TexObjectDesc(t.ctx.h, t.Object)
}

// Destroy destroys the texture object (cuTexObjectDestroy).
func (t *Texture) Destroy() error {
	if t == nil || t.t == nil {
		return Errorf("rt.Texture.Destroy", ErrInvalidHandle, "a nil or zero texture (textures come from texobj.NewTexture)")
	}
	if t.Object == 0 {
		return nil
	}
	if err := t.ctx.check("rt.Texture.Destroy"); err != nil {
		return err
	}
	o := t.Object
	t.Object = 0
	return t.t.TexObjectDestroy(t.ctx.h, o)
}

// Surface is a surface object of one context.
//
// Deprecated: use texobj.Surface (rt/tex/texobj).
type Surface struct {
	Object SurfaceObject
	ctx    *Context
	t      Texturer
}

// NewSurface creates a surface object over a, which must have been made
// with ArraySurfaceLoadStore (cuSurfObjectCreate).
//
// Deprecated: use texobj.NewSurface.
func NewSurface(a *Array) (*Surface, error) {
	const op = "cuSurfObjectCreate"
	if err := a.check(op); err != nil {
		return nil, err
	}
	t, err := a.ctx.texturer(op)
	if err != nil {
		return nil, err
	}
	if a.desc.Flags&tex.ArraySurfaceLoadStore == 0 {
		return nil, Errorf(op, ErrInvalidValue, "the %v was made without ArraySurfaceLoadStore", a.desc)
	}
	r := ArrayResource(a)
	o, err := t.SurfObjectCreate(a.ctx.h, &r)
	if err != nil {
		return nil, err
	}
	return &Surface{Object: o, ctx: a.ctx, t: t}, nil
}

// Destroy destroys the surface object (cuSurfObjectDestroy).
func (s *Surface) Destroy() error {
	if s == nil || s.t == nil {
		return Errorf("rt.Surface.Destroy", ErrInvalidHandle, "a nil or zero surface (surfaces come from texobj.NewSurface)")
	}
	if s.Object == 0 {
		return nil
	}
	if err := s.ctx.check("rt.Surface.Destroy"); err != nil {
		return err
	}
	o := s.Object
	s.Object = 0
	return s.t.SurfObjectDestroy(s.ctx.h, o)
}
