package tensormap

import "github.com/cugen/cugen/rt/internal/cuerr"

// Tiled describes a tensor in global memory and the boxes a tiled tensor
// map copies of it (cuTensorMapEncodeTiled). Dimensions are innermost
// first: a row-major rows×cols matrix has Dims {cols, rows}.
type Tiled struct {
	DataType DataType
	// Addr is the tensor's device address (an rt.DevPtr's value): 16-byte
	// aligned, 32 with Interleave32B.
	Addr uint64
	// Dims are the elements in each dimension, 1 to 2^32; the tensor's
	// rank is len(Dims), 1 to 5 (3 to 5 with an interleave).
	Dims []uint64
	// Strides are the bytes from one element to the next in dimensions
	// 1..rank-1 (dimension 0's is the element size): len(Dims)-1 of them,
	// each a multiple of 16 (32 with Interleave32B) below 2^40.
	Strides []uint64
	// Box is the box's elements in each dimension, 1 to 256; without an
	// interleave, Box[0] elements make a multiple of 16 bytes, and with a
	// swizzle no more than the swizzle's span (32, 64 or 128 bytes).
	Box []uint32
	// ElementStrides step through the box in each dimension, 1 to 8; nil
	// means 1 everywhere. Without an interleave, dimension 0's is ignored.
	ElementStrides []uint32
	Interleave     Interleave
	Swizzle        Swizzle
	L2Promotion    L2Promotion
	OOBFill        OOBFill
}

// Im2col describes a tensor of pixels (NHWC-like: channels innermost, then
// the 1 to 3 spatial dimensions, then images) and the columns an im2col
// tensor map gathers from it (cuTensorMapEncodeIm2col), for convolutions.
type Im2col struct {
	DataType DataType
	Addr     uint64
	// Dims and Strides are as in Tiled; the rank is 3 to 5.
	Dims    []uint64
	Strides []uint64
	// LowerCorner and UpperCorner bound the box of pixels around each
	// output pixel in the spatial dimensions (rank-2 of them, innermost
	// first), relative to it: each in [-2^15, 2^15) for rank 3, [-2^7,
	// 2^7) for rank 4, [-2^4, 2^4) for rank 5, and a dimension's size -
	// lower + upper at least 1.
	LowerCorner, UpperCorner []int32
	// ChannelsPerPixel (1 to 256) and PixelsPerColumn (1 to 1024) are the
	// box: the channels read from each pixel, and the pixels of a column.
	ChannelsPerPixel uint32
	PixelsPerColumn  uint32
	ElementStrides   []uint32
	Interleave       Interleave
	Swizzle          Swizzle
	L2Promotion      L2Promotion
	OOBFill          OOBFill
}

// Validate checks t against the rules cuTensorMapEncodeTiled documents; the
// error (rt.ErrInvalidValue) names the field.
func (t *Tiled) Validate() error {
	v := check{op: "cuTensorMapEncodeTiled"}
	rank := len(t.Dims)
	v.common(t.DataType, t.Addr, t.Dims, t.Strides, t.ElementStrides, t.Interleave, t.Swizzle, t.L2Promotion, t.OOBFill, 1)
	if len(t.Box) != rank {
		v.fail("%d box dimensions for rank %d", len(t.Box), rank)
	}
	for i, b := range t.Box {
		if b == 0 || b > maxBoxDim {
			v.fail("Box[%d] is %d, want 1 to %d", i, b, maxBoxDim)
		}
	}
	if len(t.Box) > 0 {
		v.inner("Box[0]", t.DataType, int(t.Box[0]), t.Interleave, t.Swizzle)
	}
	return v.err
}

// Validate checks t against the rules cuTensorMapEncodeIm2col documents.
func (t *Im2col) Validate() error {
	v := check{op: "cuTensorMapEncodeIm2col"}
	rank := len(t.Dims)
	v.common(t.DataType, t.Addr, t.Dims, t.Strides, t.ElementStrides, t.Interleave, t.Swizzle, t.L2Promotion, t.OOBFill, 3)
	if len(t.LowerCorner) != rank-2 || len(t.UpperCorner) != rank-2 {
		v.fail("%d lower and %d upper corner coordinates for rank %d, want %d each", len(t.LowerCorner), len(t.UpperCorner), rank, rank-2)
	}
	if rank >= 3 && rank <= maxRank {
		lim := [...]int32{3: 1 << 15, 4: 1 << 7, 5: 1 << 4}[rank]
		for i, c := range append(append([]int32(nil), t.LowerCorner...), t.UpperCorner...) {
			if c < -lim || c >= lim {
				v.fail("corner coordinate %d is %d, want %d to %d for rank %d", i, c, -lim, lim-1, rank)
			}
		}
	}
	for i := 0; i < rank-2 && i < len(t.LowerCorner) && i < len(t.UpperCorner); i++ {
		// The H100's driver refuses corners that leave a spatial dimension no
		// pixel to start a column at.
		if span := int64(t.Dims[1+i]) - int64(t.LowerCorner[i]) + int64(t.UpperCorner[i]); span < 1 {
			v.fail("the corners leave dimension %d %d pixels (size %d, lower %d, upper %d), want at least 1", 1+i, span, t.Dims[1+i], t.LowerCorner[i], t.UpperCorner[i])
		}
	}
	if t.ChannelsPerPixel == 0 || t.ChannelsPerPixel > 256 {
		v.fail("ChannelsPerPixel is %d, want 1 to 256", t.ChannelsPerPixel)
	}
	if t.PixelsPerColumn == 0 || t.PixelsPerColumn > 1024 {
		v.fail("PixelsPerColumn is %d, want 1 to 1024", t.PixelsPerColumn)
	}
	v.inner("ChannelsPerPixel", t.DataType, int(t.ChannelsPerPixel), t.Interleave, t.Swizzle)
	return v.err
}

// The limits of the enums and of tensor descriptions (cuda.h, and the rules
// cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col document).
const (
	typeLast         = Packed16U6Align16B
	interleaveLast   = Interleave32B
	swizzleLast      = Swizzle128BAtom64B
	l2PromotionLast  = L2Promotion256B
	oobFillLast      = OOBFillNaNRequestZeroFMA
	maxRank          = 5
	maxBoxDim        = 256
	maxElementStride = 8
	maxStride        = uint64(1) << 40
	maxDim           = uint64(1) << 32
)

// check collects the first broken rule of a tensor description.
type check struct {
	op  string
	err error
}

func (v *check) fail(format string, args ...any) {
	if v.err == nil {
		v.err = cuerr.Invalid(v.op, format, args...)
	}
}

// common checks what tiled and im2col maps share; minRank is the least rank
// the kind takes without an interleave.
func (v *check) common(dt DataType, addr uint64, dims, strides []uint64, estr []uint32,
	il Interleave, sw Swizzle, l2 L2Promotion, oob OOBFill, minRank int) {
	if dt < 0 || dt > typeLast {
		v.fail("data type %d is not a CUtensorMapDataType", dt)
	}
	if il < 0 || il > interleaveLast {
		v.fail("interleave %d is not a CUtensorMapInterleave", il)
	}
	if sw < 0 || sw > swizzleLast {
		v.fail("swizzle %d is not a CUtensorMapSwizzle", sw)
	}
	if l2 < 0 || l2 > l2PromotionLast {
		v.fail("L2 promotion %d is not a CUtensorMapL2promotion", l2)
	}
	if oob < 0 || oob > oobFillLast {
		v.fail("OOB fill %d is not a CUtensorMapFloatOOBfill", oob)
	}
	if oob == OOBFillNaNRequestZeroFMA && !dt.isFloat() {
		v.fail("OOB fill NaN needs a floating-point type, not %v", dt)
	}
	rank := len(dims)
	if il != InterleaveNone {
		minRank = 3
	}
	if rank < minRank || rank > maxRank {
		v.fail("rank %d, want %d to %d", rank, minRank, maxRank)
	}
	align := uint64(16)
	if il == Interleave32B {
		align = 32
	}
	if addr%align != 0 {
		v.fail("address %#x is not %d-byte aligned", addr, align)
	}
	for i, d := range dims {
		if d == 0 || d > maxDim {
			v.fail("Dims[%d] is %d, want 1 to 2^32", i, d)
		}
	}
	if rank > 0 && len(strides) != rank-1 {
		v.fail("%d strides for rank %d, want %d", len(strides), rank, rank-1)
	}
	for i, s := range strides {
		if s%align != 0 || s >= maxStride {
			v.fail("Strides[%d] is %d, want a multiple of %d below 2^40", i, s, align)
		}
	}
	if estr != nil && len(estr) != rank {
		v.fail("%d element strides for rank %d", len(estr), rank)
	}
	for i, e := range estr {
		if e == 0 || e > maxElementStride {
			v.fail("ElementStrides[%d] is %d, want 1 to %d", i, e, maxElementStride)
		}
	}
}

// inner checks a box's innermost extent, n elements, against the interleave
// and swizzle: a multiple of 16 bytes without an interleave, and no more
// than the swizzle's span. Packed sub-byte types are left to the driver.
func (v *check) inner(what string, dt DataType, n int, il Interleave, sw Swizzle) {
	size := dt.Size()
	if size == 0 || il != InterleaveNone {
		return
	}
	if n*size%16 != 0 {
		v.fail("%s is %d %v elements, %d bytes: not a multiple of 16", what, n, dt, n*size)
	}
	if s := sw.span(); s > 0 && n*size > s {
		v.fail("%s is %d %v elements, %d bytes: more than the swizzle's %d", what, n, dt, n*size, s)
	}
}
