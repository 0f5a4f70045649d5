package rt

import "github.com/cugen/cugen/rt/tensormap"

// TensorMap is a CUtensorMap, the 128-byte descriptor of a tensor that
// Hopper's TMA copies boxes of: package rt/tensormap's Map, named here
// because generated code passes one for a parameter
//
//	__global__ void k(const __grid_constant__ CUtensorMap map, ...)
//
// Encode one with tensormap.EncodeTiled or tensormap.EncodeIm2col.
type TensorMap = tensormap.Map

// Tensor-map encoding moved to rt/tensormap; the names below stay for the
// code that spells them rt.X. The descriptions (TiledTensor, Im2colTensor)
// are types of their own, not aliases, because their Addr is an rt.DevPtr
// and tensormap's (which imports nothing of rt) a uint64: each converts to
// its tensormap twin, which does the work.

// TensorMapFromBytes is the TensorMap whose memory is b.
//
// Deprecated: use tensormap.FromBytes.
func TensorMapFromBytes(b [128]byte) TensorMap { return tensormap.FromBytes(b) }

type (
	// Deprecated: use tensormap.DataType.
	TensorDataType = tensormap.DataType
	// Deprecated: use tensormap.Interleave.
	TensorInterleave = tensormap.Interleave
	// Deprecated: use tensormap.Swizzle.
	TensorSwizzle = tensormap.Swizzle
	// Deprecated: use tensormap.L2Promotion.
	TensorL2Promotion = tensormap.L2Promotion
	// Deprecated: use tensormap.OOBFill.
	TensorOOBFill = tensormap.OOBFill
)

const (
	// Deprecated: use tensormap.Uint8.
	TensorUint8 = tensormap.Uint8
	// Deprecated: use tensormap.Uint16.
	TensorUint16 = tensormap.Uint16
	// Deprecated: use tensormap.Uint32.
	TensorUint32 = tensormap.Uint32
	// Deprecated: use tensormap.Int32.
	TensorInt32 = tensormap.Int32
	// Deprecated: use tensormap.Uint64.
	TensorUint64 = tensormap.Uint64
	// Deprecated: use tensormap.Int64.
	TensorInt64 = tensormap.Int64
	// Deprecated: use tensormap.Float16.
	TensorFloat16 = tensormap.Float16
	// Deprecated: use tensormap.Float32.
	TensorFloat32 = tensormap.Float32
	// Deprecated: use tensormap.Float64.
	TensorFloat64 = tensormap.Float64
	// Deprecated: use tensormap.BFloat16.
	TensorBFloat16 = tensormap.BFloat16
	// Deprecated: use tensormap.Float32FTZ.
	TensorFloat32FTZ = tensormap.Float32FTZ
	// Deprecated: use tensormap.TFloat32.
	TensorTFloat32 = tensormap.TFloat32
	// Deprecated: use tensormap.TFloat32FTZ.
	TensorTFloat32FTZ = tensormap.TFloat32FTZ
	// Deprecated: use tensormap.Packed16U4Align8B.
	Tensor16U4Align8B = tensormap.Packed16U4Align8B
	// Deprecated: use tensormap.Packed16U4Align16B.
	Tensor16U4Align16B = tensormap.Packed16U4Align16B
	// Deprecated: use tensormap.Packed16U6Align16B.
	Tensor16U6Align16B = tensormap.Packed16U6Align16B

	// Deprecated: use tensormap.InterleaveNone.
	InterleaveNone = tensormap.InterleaveNone
	// Deprecated: use tensormap.Interleave16B.
	Interleave16B = tensormap.Interleave16B
	// Deprecated: use tensormap.Interleave32B.
	Interleave32B = tensormap.Interleave32B

	// Deprecated: use tensormap.SwizzleNone.
	SwizzleNone = tensormap.SwizzleNone
	// Deprecated: use tensormap.Swizzle32B.
	Swizzle32B = tensormap.Swizzle32B
	// Deprecated: use tensormap.Swizzle64B.
	Swizzle64B = tensormap.Swizzle64B
	// Deprecated: use tensormap.Swizzle128B.
	Swizzle128B = tensormap.Swizzle128B
	// Deprecated: use tensormap.Swizzle128BAtom32B.
	Swizzle128BAtom32B = tensormap.Swizzle128BAtom32B
	// Deprecated: use tensormap.Swizzle128BAtom32BFlip8B.
	Swizzle128BAtom32BFlip8B = tensormap.Swizzle128BAtom32BFlip8B
	// Deprecated: use tensormap.Swizzle128BAtom64B.
	Swizzle128BAtom64B = tensormap.Swizzle128BAtom64B

	// Deprecated: use tensormap.L2PromotionNone.
	L2PromotionNone = tensormap.L2PromotionNone
	// Deprecated: use tensormap.L2Promotion64B.
	L2Promotion64B = tensormap.L2Promotion64B
	// Deprecated: use tensormap.L2Promotion128B.
	L2Promotion128B = tensormap.L2Promotion128B
	// Deprecated: use tensormap.L2Promotion256B.
	L2Promotion256B = tensormap.L2Promotion256B

	// Deprecated: use tensormap.OOBFillNone.
	OOBFillNone = tensormap.OOBFillNone
	// Deprecated: use tensormap.OOBFillNaNRequestZeroFMA.
	OOBFillNaNRequestZeroFMA = tensormap.OOBFillNaNRequestZeroFMA
)

// TiledTensor is tensormap.Tiled with an rt.DevPtr for an address.
//
// Deprecated: use tensormap.Tiled.
type TiledTensor struct {
	DataType       TensorDataType
	Addr           DevPtr
	Dims           []uint64
	Strides        []uint64
	Box            []uint32
	ElementStrides []uint32
	Interleave     TensorInterleave
	Swizzle        TensorSwizzle
	L2Promotion    TensorL2Promotion
	OOBFill        TensorOOBFill
}

func (t *TiledTensor) tiled() tensormap.Tiled {
	return tensormap.Tiled{DataType: t.DataType, Addr: uint64(t.Addr), Dims: t.Dims, Strides: t.Strides, Box: t.Box,
		ElementStrides: t.ElementStrides, Interleave: t.Interleave, Swizzle: t.Swizzle, L2Promotion: t.L2Promotion, OOBFill: t.OOBFill}
}

// Validate is tensormap.Tiled.Validate.
//
// Deprecated: use tensormap.Tiled.Validate.
func (t *TiledTensor) Validate() error {
	tt := t.tiled()
	return tt.Validate()
}

// Im2colTensor is tensormap.Im2col with an rt.DevPtr for an address.
//
// Deprecated: use tensormap.Im2col.
type Im2colTensor struct {
	DataType                 TensorDataType
	Addr                     DevPtr
	Dims                     []uint64
	Strides                  []uint64
	LowerCorner, UpperCorner []int32
	ChannelsPerPixel         uint32
	PixelsPerColumn          uint32
	ElementStrides           []uint32
	Interleave               TensorInterleave
	Swizzle                  TensorSwizzle
	L2Promotion              TensorL2Promotion
	OOBFill                  TensorOOBFill
}

func (t *Im2colTensor) im2col() tensormap.Im2col {
	return tensormap.Im2col{DataType: t.DataType, Addr: uint64(t.Addr), Dims: t.Dims, Strides: t.Strides,
		LowerCorner: t.LowerCorner, UpperCorner: t.UpperCorner, ChannelsPerPixel: t.ChannelsPerPixel, PixelsPerColumn: t.PixelsPerColumn,
		ElementStrides: t.ElementStrides, Interleave: t.Interleave, Swizzle: t.Swizzle, L2Promotion: t.L2Promotion, OOBFill: t.OOBFill}
}

// Validate is tensormap.Im2col.Validate.
//
// Deprecated: use tensormap.Im2col.Validate.
func (t *Im2colTensor) Validate() error {
	tt := t.im2col()
	return tt.Validate()
}

// TensorMapEncoder is the capability backends had before tensormap.Encoder.
// EncodeTiled and EncodeIm2col still use it on a backend that has only it.
//
// Deprecated: implement tensormap.Encoder.
type TensorMapEncoder interface {
	TensorMapEncodeTiled(t *TiledTensor) (TensorMap, error)   // cuTensorMapEncodeTiled
	TensorMapEncodeIm2col(t *Im2colTensor) (TensorMap, error) // cuTensorMapEncodeIm2col
}

// EncodeTiled is tensormap.EncodeTiled.
//
// Deprecated: use tensormap.EncodeTiled.
func EncodeTiled(d Driver, t TiledTensor) (TensorMap, error) {
	if err := checkDriver("rt.EncodeTiled", d); err != nil {
		return TensorMap{}, err
	}
	if old, ok := d.(TensorMapEncoder); ok && !isEncoder(d) {
		if err := t.Validate(); err != nil {
			return TensorMap{}, err
		}
		return old.TensorMapEncodeTiled(&t)
	}
	return tensormap.EncodeTiled(d, t.tiled())
}

// EncodeIm2col is tensormap.EncodeIm2col.
//
// Deprecated: use tensormap.EncodeIm2col.
func EncodeIm2col(d Driver, t Im2colTensor) (TensorMap, error) {
	if err := checkDriver("rt.EncodeIm2col", d); err != nil {
		return TensorMap{}, err
	}
	if old, ok := d.(TensorMapEncoder); ok && !isEncoder(d) {
		if err := t.Validate(); err != nil {
			return TensorMap{}, err
		}
		return old.TensorMapEncodeIm2col(&t)
	}
	return tensormap.EncodeIm2col(d, t.im2col())
}

func isEncoder(d Driver) bool { _, ok := d.(tensormap.Encoder); return ok }
