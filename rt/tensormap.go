package rt

import (
	"encoding/binary"
	"fmt"
)

// TensorMap is a CUtensorMap: the 128-byte descriptor of a tensor in global
// memory that Hopper's tensor memory accelerator (TMA) copies boxes of, with
// cp.async.bulk.tensor. A kernel takes it by value,
//
//	__global__ void k(const __grid_constant__ CUtensorMap map, ...)
//
// and generated code passes an rt.TensorMap for such a parameter. Build one
// with EncodeTiled or EncodeIm2col; its bytes are the driver's, opaque as in
// cuda.h (rt/soft documents the layout it encodes and the H100's bytes it
// was checked against).
//
// cuda.h declares it as 16 cuuint64_t, 128 bytes, alignas(64) in CUDA 12
// and alignas(128) in CUDA 13.0 ("requires compiler support for aligning to
// 128 bytes"; a host program built with nvcc 13.0 printed sizeof 128,
// alignof 128), and nvcc 13 declares such a parameter .param .align 128 .b8
// [128]. Go aligns a type to 8 at most. That does not matter: a TensorMap is
// copied into the parameter buffer, and the 128-byte alignment is the
// parameter's, which generated code declares (ParamSpec.Align) and rt honours
// by having the backend place the bytes where the compiled kernel reads them
// (the H100 reads tmaTile's map at offset 112 of its parameter block; the
// PTX has it at 0).
type TensorMap struct {
	Opaque [16]uint64
}

// Put stores m in b[:128] as the device reads it: the words little-endian.
func (m TensorMap) Put(b []byte) {
	_ = b[127]
	for i, w := range m.Opaque {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
}

// Bytes is m's memory, as Put stores it.
func (m TensorMap) Bytes() [128]byte {
	var b [128]byte
	m.Put(b[:])
	return b
}

// TensorMapFromBytes is the TensorMap whose memory is b.
func TensorMapFromBytes(b [128]byte) TensorMap {
	var m TensorMap
	for i := range m.Opaque {
		m.Opaque[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return m
}

// TensorDataType is a CUtensorMapDataType: a tensor's element type.
type TensorDataType int32

// Tensor element types; the values are cuda.h's.
const (
	TensorUint8       TensorDataType = 0
	TensorUint16      TensorDataType = 1
	TensorUint32      TensorDataType = 2
	TensorInt32       TensorDataType = 3
	TensorUint64      TensorDataType = 4
	TensorInt64       TensorDataType = 5
	TensorFloat16     TensorDataType = 6
	TensorFloat32     TensorDataType = 7
	TensorFloat64     TensorDataType = 8
	TensorBFloat16    TensorDataType = 9
	TensorFloat32FTZ  TensorDataType = 10
	TensorTFloat32    TensorDataType = 11
	TensorTFloat32FTZ TensorDataType = 12
	// The packed sub-byte types of CUDA 12.8 (sm_100): 16 4-bit values in 8
	// bytes, in 16 bytes with 8-byte gaps, and 16 6-bit values in 16 bytes.
	Tensor16U4Align8B  TensorDataType = 13
	Tensor16U4Align16B TensorDataType = 14
	Tensor16U6Align16B TensorDataType = 15
)

var tensorTypeNames = [...]string{"uint8", "uint16", "uint32", "int32", "uint64", "int64", "float16", "float32", "float64",
	"bfloat16", "float32 (ftz)", "tfloat32", "tfloat32 (ftz)", "16 x u4 in 8 bytes", "16 x u4 in 16 bytes", "16 x u6 in 16 bytes"}

var tensorTypeSizes = [...]int{1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4}

func (t TensorDataType) String() string {
	if t >= 0 && int(t) < len(tensorTypeNames) {
		return tensorTypeNames[t]
	}
	return fmt.Sprintf("TensorDataType(%d)", int32(t))
}

// Size is the bytes of one element, 0 for the packed sub-byte types.
func (t TensorDataType) Size() int {
	if t >= 0 && int(t) < len(tensorTypeSizes) {
		return tensorTypeSizes[t]
	}
	return 0
}

func (t TensorDataType) isFloat() bool {
	switch t {
	case TensorFloat16, TensorFloat32, TensorFloat64, TensorBFloat16, TensorFloat32FTZ, TensorTFloat32, TensorTFloat32FTZ:
		return true
	}
	return false
}

// TensorInterleave is a CUtensorMapInterleave: the NC/8HWC8-style layouts
// whose innermost dimension is a group of 16 or 32 bytes.
type TensorInterleave int32

const (
	InterleaveNone TensorInterleave = 0
	Interleave16B  TensorInterleave = 1
	Interleave32B  TensorInterleave = 2
)

// TensorSwizzle is a CUtensorMapSwizzle: the bank swizzling of the box in
// shared memory.
type TensorSwizzle int32

const (
	SwizzleNone TensorSwizzle = 0
	Swizzle32B  TensorSwizzle = 1
	Swizzle64B  TensorSwizzle = 2
	Swizzle128B TensorSwizzle = 3
	// CUDA 12.8's 128-byte swizzles with 32- and 64-byte atoms (sm_100).
	Swizzle128BAtom32B       TensorSwizzle = 4
	Swizzle128BAtom32BFlip8B TensorSwizzle = 5
	Swizzle128BAtom64B       TensorSwizzle = 6
)

// span is the bytes a swizzle pattern spans, which bounds the box's inner
// dimension; 0 for none.
func (s TensorSwizzle) span() int {
	switch s {
	case Swizzle32B:
		return 32
	case Swizzle64B:
		return 64
	case Swizzle128B, Swizzle128BAtom32B, Swizzle128BAtom32BFlip8B, Swizzle128BAtom64B:
		return 128
	}
	return 0
}

// TensorL2Promotion is a CUtensorMapL2promotion: how much the L2 cache
// fetches around each access.
type TensorL2Promotion int32

const (
	L2PromotionNone TensorL2Promotion = 0
	L2Promotion64B  TensorL2Promotion = 1
	L2Promotion128B TensorL2Promotion = 2
	L2Promotion256B TensorL2Promotion = 3
)

// TensorOOBFill is a CUtensorMapFloatOOBfill: what a box reads outside the
// tensor. OOBFillNone reads zeros; OOBFillNaNRequestZeroFMA reads a NaN that
// FMA instructions treat as zero (floating-point types only).
type TensorOOBFill int32

const (
	OOBFillNone              TensorOOBFill = 0
	OOBFillNaNRequestZeroFMA TensorOOBFill = 1
)

// TiledTensor describes a tensor in global memory and the boxes a tiled
// tensor map copies of it (cuTensorMapEncodeTiled). Dimensions are
// innermost first: a row-major rows×cols matrix has Dims {cols, rows}.
type TiledTensor struct {
	DataType TensorDataType
	// Addr is the tensor's start: 16-byte aligned, 32 with Interleave32B.
	Addr DevPtr
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
	Interleave     TensorInterleave
	Swizzle        TensorSwizzle
	L2Promotion    TensorL2Promotion
	OOBFill        TensorOOBFill
}

// Im2colTensor describes a tensor of pixels (NHWC-like: channels innermost,
// then the 1 to 3 spatial dimensions, then images) and the columns an im2col
// tensor map gathers from it (cuTensorMapEncodeIm2col), for convolutions.
type Im2colTensor struct {
	DataType TensorDataType
	Addr     DevPtr
	// Dims and Strides are as in TiledTensor; the rank is 3 to 5.
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
	Interleave       TensorInterleave
	Swizzle          TensorSwizzle
	L2Promotion      TensorL2Promotion
	OOBFill          TensorOOBFill
}

// TensorMapEncoder encodes tensor maps (CUDA 12.0+; TMA itself needs sm_90).
// EncodeTiled and EncodeIm2col validate a description before they pass it
// on; a backend may rely on that, and rt/soft validates again for callers
// that come to it directly.
type TensorMapEncoder interface {
	TensorMapEncodeTiled(t *TiledTensor) (TensorMap, error)   // cuTensorMapEncodeTiled
	TensorMapEncodeIm2col(t *Im2colTensor) (TensorMap, error) // cuTensorMapEncodeIm2col
}

// EncodeTiled encodes a tiled tensor map on d (ErrNotSupported if d cannot
// encode one). Its errors name the field that breaks a rule cuTensorMapEncodeTiled
// documents, before the driver is asked.
func EncodeTiled(d Driver, t TiledTensor) (TensorMap, error) {
	if err := checkDriver("rt.EncodeTiled", d); err != nil {
		return TensorMap{}, err
	}
	e, ok := d.(TensorMapEncoder)
	if !ok {
		return TensorMap{}, Errorf("rt.EncodeTiled", ErrNotSupported, "backend %s cannot encode tensor maps", d.Name())
	}
	if err := t.Validate(); err != nil {
		return TensorMap{}, err
	}
	return e.TensorMapEncodeTiled(&t)
}

// EncodeIm2col encodes an im2col tensor map on d, as EncodeTiled does a
// tiled one.
func EncodeIm2col(d Driver, t Im2colTensor) (TensorMap, error) {
	if err := checkDriver("rt.EncodeIm2col", d); err != nil {
		return TensorMap{}, err
	}
	e, ok := d.(TensorMapEncoder)
	if !ok {
		return TensorMap{}, Errorf("rt.EncodeIm2col", ErrNotSupported, "backend %s cannot encode tensor maps", d.Name())
	}
	if err := t.Validate(); err != nil {
		return TensorMap{}, err
	}
	return e.TensorMapEncodeIm2col(&t)
}

// Validate checks t against the rules cuTensorMapEncodeTiled documents; the
// error (ErrInvalidValue) names the field.
func (t *TiledTensor) Validate() error {
	v := tensorCheck{op: "cuTensorMapEncodeTiled"}
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
func (t *Im2colTensor) Validate() error {
	v := tensorCheck{op: "cuTensorMapEncodeIm2col"}
	rank := len(t.Dims)
	v.common(t.DataType, t.Addr, t.Dims, t.Strides, t.ElementStrides, t.Interleave, t.Swizzle, t.L2Promotion, t.OOBFill, 3)
	if len(t.LowerCorner) != rank-2 || len(t.UpperCorner) != rank-2 {
		v.fail("%d lower and %d upper corner coordinates for rank %d, want %d each", len(t.LowerCorner), len(t.UpperCorner), rank, rank-2)
	}
	if rank >= 3 && rank <= maxTensorRank {
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
	tensorTypeLast   = Tensor16U6Align16B
	interleaveLast   = Interleave32B
	swizzleLast      = Swizzle128BAtom64B
	l2PromotionLast  = L2Promotion256B
	oobFillLast      = OOBFillNaNRequestZeroFMA
	maxTensorRank    = 5
	maxBoxDim        = 256
	maxElementStride = 8
	maxStride        = uint64(1) << 40
	maxDim           = uint64(1) << 32
)

// tensorCheck collects the first broken rule of a tensor description.
type tensorCheck struct {
	op  string
	err error
}

func (v *tensorCheck) fail(format string, args ...any) {
	if v.err == nil {
		v.err = Errorf(v.op, ErrInvalidValue, format, args...)
	}
}

// common checks what tiled and im2col maps share; minRank is the least rank
// the kind takes without an interleave.
func (v *tensorCheck) common(dt TensorDataType, addr DevPtr, dims, strides []uint64, estr []uint32,
	il TensorInterleave, sw TensorSwizzle, l2 TensorL2Promotion, oob TensorOOBFill, minRank int) {
	if dt < 0 || dt > tensorTypeLast {
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
	if rank < minRank || rank > maxTensorRank {
		v.fail("rank %d, want %d to %d", rank, minRank, maxTensorRank)
	}
	align := uint64(16)
	if il == Interleave32B {
		align = 32
	}
	if uint64(addr)%align != 0 {
		v.fail("address %#x is not %d-byte aligned", uint64(addr), align)
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
func (v *tensorCheck) inner(what string, dt TensorDataType, n int, il TensorInterleave, sw TensorSwizzle) {
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
