package tex

import (
	"fmt"

	"github.com/cugen/cugen/rt/internal/cuerr"
)

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
// H100's limits; the error (rt.ErrInvalidValue) says which it breaks.
func (d *ArrayDesc) Validate() error {
	const op = "cuArray3DCreate"
	bad := func(format string, args ...any) error { return cuerr.Invalid(op, format, args...) }
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
