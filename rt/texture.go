package rt

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// CUDA arrays, texture objects and surface objects.
//
// A CUDA array (cuArray3DCreate) is device memory in a layout only the
// texture units know: 1-D, 2-D or 3-D, layered, or a cube map, of elements
// of 1, 2 or 4 channels of one ArrayFormat. Host and device memory reach it
// by copies (Copy3D). A texture object (cuTexObjectCreate) samples an
// array, a pitched 2-D region or linear device memory with the addressing,
// filtering and conversion a TextureDesc sets; a surface object
// (cuSurfObjectCreate) reads and writes an array made with
// ArraySurfaceLoadStore. Kernels receive both as 64-bit handles:
//
//	__global__ void k(cudaTextureObject_t tex, cudaSurfaceObject_t surf, ...)
//
// for which generated code takes an rt.TextureObject and an rt.SurfaceObject.
// Make them with NewArray, NewTexture and NewSurface (Array, Texture and
// Surface keep the handle with its context and destroy it); the driver-level
// calls are the Texturer capability.

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
// rt's helpers (NewArray, NewTexture, NewSurface, Copy3D.Run) validate a
// description with its Validate method before they pass it on; a backend
// validates again for callers that come to it directly, with the same rules
// and codes.
type Texturer interface {
	// ArrayCreate is cuArray3DCreate.
	ArrayCreate(ctx CtxHandle, d *ArrayDesc) (ArrayHandle, error)
	// ArrayDestroy is cuArrayDestroy. Texture and surface objects over the
	// array must be destroyed first: what they read afterwards is undefined.
	ArrayDestroy(ctx CtxHandle, a ArrayHandle) error
	// ArrayDescriptor is cuArray3DGetDescriptor.
	ArrayDescriptor(ctx CtxHandle, a ArrayHandle) (ArrayDesc, error)
	// Memcpy3D is cuMemcpy3D(Async) between any two of host memory, device
	// memory and arrays; it also does 1-D and 2-D copies (Height and Depth
	// 1). Async copies follow MemcpyHtoD's rules for host memory.
	Memcpy3D(ctx CtxHandle, c *Copy3D, s StreamHandle, async bool) error
	// TexObjectCreate is cuTexObjectCreate with no resource view.
	TexObjectCreate(ctx CtxHandle, r *ResourceDesc, t *TextureDesc) (TextureObject, error)
	TexObjectDestroy(ctx CtxHandle, t TextureObject) error // cuTexObjectDestroy
	// TexObjectDesc is cuTexObjectGetResourceDesc and
	// cuTexObjectGetTextureDesc. The border color may read back as zeros
	// (the H100's driver, CUDA 13.0, returned zeros for a u8×4 array's).
	TexObjectDesc(ctx CtxHandle, t TextureObject) (ResourceDesc, TextureDesc, error)
	// SurfObjectCreate is cuSurfObjectCreate: r must be an array, made with
	// ArraySurfaceLoadStore (CUDA's rule, which the H100's driver, CUDA
	// 13.0, does not enforce: nor does a backend; NewSurface does).
	SurfObjectCreate(ctx CtxHandle, r *ResourceDesc) (SurfaceObject, error)
	SurfObjectDestroy(ctx CtxHandle, s SurfaceObject) error // cuSurfObjectDestroy
	// SurfObjectDesc is cuSurfObjectGetResourceDesc.
	SurfObjectDesc(ctx CtxHandle, s SurfaceObject) (ResourceDesc, error)
}

// ArrayFormat is a CUarray_format: the type of each channel of an array's
// elements (or of a linear or pitched texture's).
type ArrayFormat int32

// Array formats; the values are cuda.h's. The plain integer formats read as
// integers or, with ReadNormalizedFloat, as floats in [0, 1] (unsigned) or
// [-1, 1] (signed). The UNorm and SNorm formats (CUDA 11.5+) carry their
// channel count (X1, X2, X4) and always read as normalized floats.
const (
	FormatUint8   ArrayFormat = 0x01
	FormatUint16  ArrayFormat = 0x02
	FormatUint32  ArrayFormat = 0x03
	FormatInt8    ArrayFormat = 0x08
	FormatInt16   ArrayFormat = 0x09
	FormatInt32   ArrayFormat = 0x0a
	FormatHalf    ArrayFormat = 0x10
	FormatFloat   ArrayFormat = 0x20
	FormatUnorm8  ArrayFormat = 0xc0 // X1; +1 for X2, +2 for X4
	FormatUnorm16 ArrayFormat = 0xc3
	FormatSnorm8  ArrayFormat = 0xc6
	FormatSnorm16 ArrayFormat = 0xc9

	FormatUnorm8X1, FormatUnorm8X2, FormatUnorm8X4    = FormatUnorm8, FormatUnorm8 + 1, FormatUnorm8 + 2
	FormatUnorm16X1, FormatUnorm16X2, FormatUnorm16X4 = FormatUnorm16, FormatUnorm16 + 1, FormatUnorm16 + 2
	FormatSnorm8X1, FormatSnorm8X2, FormatSnorm8X4    = FormatSnorm8, FormatSnorm8 + 1, FormatSnorm8 + 2
	FormatSnorm16X1, FormatSnorm16X2, FormatSnorm16X4 = FormatSnorm16, FormatSnorm16 + 1, FormatSnorm16 + 2
)

var formatNames = map[ArrayFormat]string{FormatUint8: "u8", FormatUint16: "u16", FormatUint32: "u32",
	FormatInt8: "s8", FormatInt16: "s16", FormatInt32: "s32", FormatHalf: "f16", FormatFloat: "f32"}

func (f ArrayFormat) String() string {
	if s, ok := formatNames[f]; ok {
		return s
	}
	if f >= FormatUnorm8 && f <= FormatSnorm16X4 {
		kind := [...]string{"unorm8", "unorm16", "snorm8", "snorm16"}[(f-FormatUnorm8)/3]
		return fmt.Sprintf("%sx%d", kind, f.Channels())
	}
	return fmt.Sprintf("ArrayFormat(%#x)", int32(f))
}

// Valid reports whether f is one of the formats above.
func (f ArrayFormat) Valid() bool {
	_, ok := formatNames[f]
	return ok || f >= FormatUnorm8 && f <= FormatSnorm16X4
}

// Size is the bytes of one channel, 0 for an invalid format.
func (f ArrayFormat) Size() int {
	switch f {
	case FormatUint8, FormatInt8:
		return 1
	case FormatUint16, FormatInt16, FormatHalf:
		return 2
	case FormatUint32, FormatInt32, FormatFloat:
		return 4
	}
	if f >= FormatUnorm8 && f <= FormatSnorm16X4 {
		return [...]int{1, 2, 1, 2}[(f-FormatUnorm8)/3]
	}
	return 0
}

// Channels is the channel count a UNorm or SNorm format carries (1, 2 or
// 4), and 0 for the others, which take any of 1, 2 and 4.
func (f ArrayFormat) Channels() int {
	if f >= FormatUnorm8 && f <= FormatSnorm16X4 {
		return [...]int{1, 2, 4}[(f-FormatUnorm8)%3]
	}
	return 0
}

// Signed reports whether f's channels are signed (s8, s16, s32, snorm,
// and the floats).
func (f ArrayFormat) Signed() bool {
	switch {
	case f == FormatInt8, f == FormatInt16, f == FormatInt32, f == FormatHalf, f == FormatFloat:
		return true
	case f >= FormatSnorm8 && f <= FormatSnorm16X4:
		return true
	}
	return false
}

// Normalized reports whether f is a UNorm or SNorm format.
func (f ArrayFormat) Normalized() bool { return f >= FormatUnorm8 && f <= FormatSnorm16X4 }

// Float reports whether f's channels are floating point (f16, f32).
func (f ArrayFormat) Float() bool { return f == FormatHalf || f == FormatFloat }

// Array flags (CUDA_ARRAY3D_*); the values are cuda.h's.
const (
	// ArrayLayered makes a layered array: Depth counts layers of 1-D
	// (Height 0) or 2-D arrays; with ArrayCubemap, cube maps' faces
	// (a multiple of 6).
	ArrayLayered uint32 = 0x01
	// ArraySurfaceLoadStore lets surface objects read and write the array.
	ArraySurfaceLoadStore uint32 = 0x02
	// ArrayCubemap makes a cube map: Width == Height, Depth 6 (the faces
	// +x, -x, +y, -y, +z, -z).
	ArrayCubemap uint32 = 0x04
	// ArrayTextureGather allows tex2Dgather on a 2-D array.
	ArrayTextureGather uint32 = 0x08
)

// arrayFlagsKnown are the flags ArrayDesc accepts.
const arrayFlagsKnown = ArrayLayered | ArraySurfaceLoadStore | ArrayCubemap | ArrayTextureGather

// ArrayDesc describes a CUDA array (CUDA_ARRAY3D_DESCRIPTOR). Its shape,
// in elements:
//
//	1-D:               Width, Height 0, Depth 0
//	2-D:               Width, Height, Depth 0
//	3-D:               Width, Height, Depth
//	1-D layered:       Width, Height 0, Depth layers, ArrayLayered
//	2-D layered:       Width, Height, Depth layers, ArrayLayered
//	cube:              Width == Height, Depth 6, ArrayCubemap
//	cube layered:      Width == Height, Depth 6×layers, ArrayCubemap|ArrayLayered
type ArrayDesc struct {
	Width, Height, Depth int
	Format               ArrayFormat
	// Channels is 1, 2 or 4; for a UNorm or SNorm format, the format's
	// count (0 means that count).
	Channels int
	Flags    uint32
}

// Array size limits, the H100's (cuDeviceGetAttribute
// MAXIMUM_TEXTURE*): rt checks shapes against them so that both backends
// refuse the same arrays.
const (
	MaxArray1D        = 1 << 17 // 131072 (MAXIMUM_TEXTURE1D_WIDTH)
	MaxArray2D        = 1 << 17 // 131072 × 65536 (…TEXTURE2D_WIDTH, HEIGHT)
	MaxArray2DHeight  = 1 << 16
	MaxArray3D        = 1 << 14 // 16384 in each dimension (…TEXTURE3D_*)
	MaxArrayLayers    = 2048    // (…TEXTURE2D_LAYERED_LAYERS)
	MaxArrayLayered1D = 1 << 15 // 32768 (…TEXTURE1D_LAYERED_WIDTH)
	MaxArrayLayered2D = 1 << 15 // 32768 × 32768 (…TEXTURE2D_LAYERED_*)
	MaxArrayCube      = 1 << 15 // 32768 (…TEXTURECUBEMAP_WIDTH)
)

// channels is d's channel count, 0 for Channels 0 with a plain format.
func (d *ArrayDesc) channels() int {
	if d.Channels == 0 {
		return d.Format.Channels()
	}
	return d.Channels
}

// ElemSize is the bytes of one element, Format.Size() × channels.
func (d *ArrayDesc) ElemSize() int { return d.Format.Size() * d.channels() }

// Dims is the number of dimensions an element is addressed by, 1 to 3, not
// counting the layer (a cube map's face counts: a cube is 3).
func (d *ArrayDesc) Dims() int {
	switch {
	case d.Flags&ArrayCubemap != 0:
		return 3
	case d.Height == 0:
		return 1
	case d.Depth == 0 || d.Flags&ArrayLayered != 0:
		return 2
	}
	return 3
}

// Extent is the array's extent as Copy3D counts it: WidthBytes of a row,
// rows per slice and slices (layers, faces or depth), each at least 1.
func (d *ArrayDesc) Extent() (widthBytes, height, depth uint64) {
	return uint64(d.Width) * uint64(d.ElemSize()), uint64(max(d.Height, 1)), uint64(max(d.Depth, 1))
}

// Bytes is the size of the array's elements, densely packed.
func (d *ArrayDesc) Bytes() uint64 {
	w, h, z := d.Extent()
	return w * h * z
}

// Validate checks d against the rules cuArray3DCreate documents and the
// H100's limits; the error (ErrInvalidValue) says which it breaks.
func (d *ArrayDesc) Validate() error {
	const op = "cuArray3DCreate"
	bad := func(format string, args ...any) error { return Errorf(op, ErrInvalidValue, format, args...) }
	if !d.Format.Valid() {
		return bad("format %v is not a CUarray_format rt knows", d.Format)
	}
	if n := d.Format.Channels(); n != 0 && d.Channels != 0 && d.Channels != n {
		return bad("format %v has %d channels, not %d", d.Format, n, d.Channels)
	}
	if c := d.channels(); c != 1 && c != 2 && c != 4 {
		return bad("%d channels, want 1, 2 or 4", d.Channels)
	}
	if d.Flags&^arrayFlagsKnown != 0 {
		return bad("flags %#x: unknown bits %#x", d.Flags, d.Flags&^arrayFlagsKnown)
	}
	if d.Width <= 0 || d.Height < 0 || d.Depth < 0 {
		return bad("shape %d×%d×%d", d.Width, d.Height, d.Depth)
	}
	in := func(what string, v, lim int) error {
		if v > lim {
			return bad("%s %d is more than %d", what, v, lim)
		}
		return nil
	}
	layered, cube := d.Flags&ArrayLayered != 0, d.Flags&ArrayCubemap != 0
	var err error
	switch {
	case cube:
		if d.Width != d.Height {
			return bad("a cube map's faces are square, not %d×%d", d.Width, d.Height)
		}
		if !layered && d.Depth != 6 || layered && (d.Depth == 0 || d.Depth%6 != 0) {
			return bad("a cube map%s has Depth %d, want %s", map[bool]string{true: " layered"}[layered], d.Depth,
				map[bool]string{false: "6", true: "a multiple of 6"}[layered])
		}
		err = errorsFirst(in("width", d.Width, MaxArrayCube), in("layers", d.Depth/6, MaxArrayLayers))
	case layered:
		if d.Depth == 0 {
			return bad("a layered array has Depth 0: it counts the layers")
		}
		if d.Height == 0 {
			err = errorsFirst(in("width", d.Width, MaxArrayLayered1D), in("layers", d.Depth, MaxArrayLayers))
		} else {
			err = errorsFirst(in("width", d.Width, MaxArrayLayered2D), in("height", d.Height, MaxArrayLayered2D), in("layers", d.Depth, MaxArrayLayers))
		}
	case d.Height == 0:
		if d.Depth != 0 {
			return bad("shape %d×%d×%d: a 3-D array has a height", d.Width, d.Height, d.Depth)
		}
		err = in("width", d.Width, MaxArray1D)
	case d.Depth == 0:
		err = errorsFirst(in("width", d.Width, MaxArray2D), in("height", d.Height, MaxArray2DHeight))
	default:
		err = errorsFirst(in("width", d.Width, MaxArray3D), in("height", d.Height, MaxArray3D), in("depth", d.Depth, MaxArray3D))
	}
	if err != nil {
		return err
	}
	if d.Flags&ArrayTextureGather != 0 && (d.Dims() != 2 || layered) {
		return bad("texture gather needs a 2-D array")
	}
	return nil
}

func errorsFirst(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (d ArrayDesc) String() string {
	shape := fmt.Sprintf("%d", d.Width)
	if d.Height > 0 || d.Depth > 0 {
		shape += fmt.Sprintf("×%d", d.Height)
	}
	if d.Depth > 0 {
		shape += fmt.Sprintf("×%d", d.Depth)
	}
	s := fmt.Sprintf("%s array of %v×%d", shape, d.Format, d.channels())
	if d.Flags != 0 {
		s += fmt.Sprintf(", flags %#x", d.Flags)
	}
	return s
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

// ResourceKind is a CUresourcetype: what a texture reads.
type ResourceKind int32

const (
	ResourceArray   ResourceKind = 0 // a CUDA array
	ResourceLinear  ResourceKind = 2 // linear device memory (tex1Dfetch)
	ResourcePitch2D ResourceKind = 3 // a pitched 2-D region of device memory
)

// ResourceDesc is a CUDA_RESOURCE_DESC: an array (Kind ResourceArray,
// Array), linear memory (ResourceLinear: Ptr, Format, Channels, SizeBytes)
// or a pitched 2-D region (ResourcePitch2D: Ptr, Format, Channels, Width,
// Height, Pitch).
type ResourceDesc struct {
	Kind  ResourceKind
	Array ArrayHandle
	Ptr   DevPtr
	// Format and Channels (1, 2 or 4) type the elements of linear and
	// pitched memory.
	Format   ArrayFormat
	Channels int
	// SizeBytes is linear memory's size.
	SizeBytes uint64
	// Width and Height (in elements) and Pitch (bytes between rows) shape
	// pitched memory.
	Width, Height int
	Pitch         uint64
}

// Texture alignment rules (cuDeviceGetAttribute TEXTURE_ALIGNMENT and
// TEXTURE_PITCH_ALIGNMENT on the H100; CUDA documents that the driver
// refuses pointers and pitches not aligned to them) and the linear and
// pitched limits.
const (
	TextureAlign       = 512
	TexturePitchAlign  = 32
	MaxTextureLinear   = 1 << 28 // elements (MAXIMUM_TEXTURE1D_LINEAR_WIDTH)
	MaxTexturePitch2D  = 1 << 17 // width and height (…TEXTURE2D_LINEAR_*)
	MaxTexturePitchRow = 1 << 21 // bytes (…TEXTURE2D_LINEAR_PITCH)
)

// Validate checks r's shape and alignment; whether an array handle is live
// is the driver's to tell.
func (r *ResourceDesc) Validate(op string) error {
	bad := func(format string, args ...any) error { return Errorf(op, ErrInvalidValue, format, args...) }
	switch r.Kind {
	case ResourceArray:
		if r.Array == 0 {
			return bad("no array")
		}
		return nil
	case ResourceLinear, ResourcePitch2D:
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
	if r.Ptr == 0 || r.Ptr%TextureAlign != 0 {
		return bad("address %#x is not %d-byte aligned", uint64(r.Ptr), TextureAlign)
	}
	elem := uint64(r.Format.Size() * ch)
	if r.Kind == ResourceLinear {
		if r.SizeBytes == 0 || r.SizeBytes/elem > MaxTextureLinear {
			return bad("%d bytes of linear memory, want 1 to %d elements", r.SizeBytes, MaxTextureLinear)
		}
		return nil
	}
	if r.Width <= 0 || r.Height <= 0 || r.Width > MaxTexturePitch2D || r.Height > MaxTexturePitch2D {
		return bad("pitched shape %d×%d, want 1 to %d each", r.Width, r.Height, MaxTexturePitch2D)
	}
	if r.Pitch%TexturePitchAlign != 0 || r.Pitch < uint64(r.Width)*elem || r.Pitch > MaxTexturePitchRow {
		return bad("pitch %d for %d %d-byte elements, want a multiple of %d at least the row's bytes and at most %d", r.Pitch, r.Width, elem, TexturePitchAlign, MaxTexturePitchRow)
	}
	return nil
}

// AddressMode is a CUaddress_mode: what a coordinate outside the texture
// reads.
type AddressMode int32

const (
	AddressWrap   AddressMode = 0 // repeat (normalized coordinates only)
	AddressClamp  AddressMode = 1 // the nearest edge texel
	AddressMirror AddressMode = 2 // repeat mirrored (normalized coordinates only)
	AddressBorder AddressMode = 3 // the border color
)

// FilterMode is a CUfilter_mode.
type FilterMode int32

const (
	FilterPoint  FilterMode = 0 // the nearest texel
	FilterLinear FilterMode = 1 // (bi/tri)linear interpolation, float-returning textures only
)

// ReadMode is cudaTextureReadMode: whether integer texels read as they are
// or as normalized floats. The zero value is the runtime API's default.
type ReadMode int32

const (
	// ReadElementType reads integers as integers (CU_TRSF_READ_AS_INTEGER).
	ReadElementType ReadMode = 0
	// ReadNormalizedFloat reads 8- and 16-bit integers as floats in [0, 1]
	// (unsigned) or [-1, 1] (signed).
	ReadNormalizedFloat ReadMode = 1
)

// Texture flags (CU_TRSF_*), as TextureDesc.Flags spells them for the
// driver; the values are cuda.h's.
const (
	TexReadAsInteger       uint32 = 0x01
	TexNormalizedCoords    uint32 = 0x02
	TexSRGB                uint32 = 0x10
	TexDisableTrilinearOpt uint32 = 0x20
	TexSeamlessCubemap     uint32 = 0x40 // cube maps filter across faces (address modes off)

	texFlagsKnown      = TexReadAsInteger | TexNormalizedCoords | TexSRGB | TexDisableTrilinearOpt | TexSeamlessCubemap
	maxAnisotropyLimit = 16
)

// TextureDesc is a CUDA_TEXTURE_DESC without mipmaps: how a texture samples.
type TextureDesc struct {
	// AddressMode is per dimension: x, y, z. On a cube map x's mode
	// applies to a face's s coordinate and y's to its t, within the face
	// (wrap wraps to the same face's far edge, border reads the border
	// colour at its edges); with TexSeamlessCubemap they are ignored.
	AddressMode [3]AddressMode
	Filter      FilterMode
	// Flags are TexReadAsInteger, TexNormalizedCoords, TexSRGB,
	// TexDisableTrilinearOpt and TexSeamlessCubemap. The Read, Normalized
	// and SRGB helpers set them.
	Flags uint32
	// MaxAnisotropy is 0 or 1 (off) up to 16.
	MaxAnisotropy uint32
	// BorderColor is what AddressBorder reads outside, as RGBA floats.
	// Normalized-float reads see it converted to the texel format (sRGB
	// channels: encoded to an 8-bit sRGB code, then decoded like a texel).
	BorderColor [4]float32
}

// Read sets the read mode (TexReadAsInteger for ReadElementType).
func (t TextureDesc) Read(m ReadMode) TextureDesc {
	t.Flags &^= TexReadAsInteger
	if m == ReadElementType {
		t.Flags |= TexReadAsInteger
	}
	return t
}

// Normalized sets normalized coordinates ([0, 1) across each dimension).
func (t TextureDesc) Normalized(on bool) TextureDesc {
	t.Flags &^= TexNormalizedCoords
	if on {
		t.Flags |= TexNormalizedCoords
	}
	return t
}

// SRGB sets the sRGB-to-linear conversion of 8-bit unsigned texels read as
// normalized floats: red, green and blue of four-channel formats, the first
// channel of one- and two-channel ones. On 16-bit formats the H100 accepts
// the flag and ignores it.
func (t TextureDesc) SRGB(on bool) TextureDesc {
	t.Flags &^= TexSRGB
	if on {
		t.Flags |= TexSRGB
	}
	return t
}

// ReadMode is the read mode t's flags say.
func (t TextureDesc) ReadMode() ReadMode {
	if t.Flags&TexReadAsInteger != 0 {
		return ReadElementType
	}
	return ReadNormalizedFloat
}

// Validate checks the enums and flags.
func (t *TextureDesc) Validate() error {
	const op = "cuTexObjectCreate"
	for i, m := range t.AddressMode {
		if m < AddressWrap || m > AddressBorder {
			return Errorf(op, ErrInvalidValue, "address mode %d of dimension %d", m, i)
		}
	}
	if t.Filter != FilterPoint && t.Filter != FilterLinear {
		return Errorf(op, ErrInvalidValue, "filter mode %d", t.Filter)
	}
	if t.Flags&^texFlagsKnown != 0 {
		return Errorf(op, ErrInvalidValue, "flags %#x: unknown bits %#x", t.Flags, t.Flags&^texFlagsKnown)
	}
	if t.MaxAnisotropy > maxAnisotropyLimit {
		return Errorf(op, ErrInvalidValue, "max anisotropy %d, want 0 to %d", t.MaxAnisotropy, maxAnisotropyLimit)
	}
	return nil
}

func (c *Context) texturer(op string) (Texturer, error) {
	return capability[Texturer](c.drv, op, "CUDA arrays, textures or surfaces (rt.Texturer)")
}

// Array is a CUDA array of one context.
type Array struct {
	h    ArrayHandle
	desc ArrayDesc
	ctx  *Context
	t    Texturer
}

// NewArray creates an array (cuArray3DCreate); its contents are undefined.
func NewArray(ctx *Context, d ArrayDesc) (*Array, error) {
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
func (a *Array) Desc() ArrayDesc {
	if a == nil {
		return ArrayDesc{}
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
		return Errorf(op, ErrInvalidHandle, "a nil or zero rt.Array (arrays come from NewArray)")
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
type Texture struct {
	Object TextureObject
	ctx    *Context
	t      Texturer
}

// NewTexture creates a texture object over r (cuTexObjectCreate).
func NewTexture(ctx *Context, r ResourceDesc, d TextureDesc) (*Texture, error) {
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
func ArrayResource(a *Array) ResourceDesc {
	return ResourceDesc{Kind: ResourceArray, Array: a.Handle()}
}

// LinearResource is n elements of format×channels at p.
func LinearResource(p DevPtr, format ArrayFormat, channels int, n int) ResourceDesc {
	if channels == 0 {
		channels = format.Channels()
	}
	return ResourceDesc{Kind: ResourceLinear, Ptr: p, Format: format, Channels: channels,
		SizeBytes: uint64(n) * uint64(format.Size()*channels)}
}

// PitchedResource is the pitched array p, whose T is channels channels of
// format (a Pitched[float32] is FormatFloat, 1; a Pitched[Float4]
// FormatFloat, 4).
func PitchedResource[T any](p Pitched[T], format ArrayFormat, channels int) ResourceDesc {
	if channels == 0 {
		channels = format.Channels()
	}
	return ResourceDesc{Kind: ResourcePitch2D, Ptr: DevPtr(p.Ptr), Format: format, Channels: channels,
		Width: p.Width, Height: p.Height, Pitch: uint64(p.Pitch)}
}

// Desc reads back the texture's resource and texture descriptions
// (cuTexObjectGetResourceDesc, cuTexObjectGetTextureDesc).
func (t *Texture) Desc() (ResourceDesc, TextureDesc, error) {
	const op = "rt.Texture.Desc"
	if t == nil || t.t == nil {
		return ResourceDesc{}, TextureDesc{}, Errorf(op, ErrInvalidHandle, "a nil or zero rt.Texture (textures come from NewTexture)")
	}
	if t.Object == 0 {
		return ResourceDesc{}, TextureDesc{}, Errorf(op, ErrInvalidHandle, "the texture was destroyed")
	}
	if err := t.ctx.check(op); err != nil {
		return ResourceDesc{}, TextureDesc{}, err
	}
	return t.t.TexObjectDesc(t.ctx.h, t.Object)
}

// Destroy destroys the texture object (cuTexObjectDestroy).
func (t *Texture) Destroy() error {
	if t == nil || t.t == nil {
		return Errorf("rt.Texture.Destroy", ErrInvalidHandle, "a nil or zero rt.Texture (textures come from NewTexture)")
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
type Surface struct {
	Object SurfaceObject
	ctx    *Context
	t      Texturer
}

// NewSurface creates a surface object over a, which must have been made
// with ArraySurfaceLoadStore (cuSurfObjectCreate).
func NewSurface(a *Array) (*Surface, error) {
	const op = "cuSurfObjectCreate"
	if err := a.check(op); err != nil {
		return nil, err
	}
	t, err := a.ctx.texturer(op)
	if err != nil {
		return nil, err
	}
	if a.desc.Flags&ArraySurfaceLoadStore == 0 {
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
		return Errorf("rt.Surface.Destroy", ErrInvalidHandle, "a nil or zero rt.Surface (surfaces come from NewSurface)")
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
