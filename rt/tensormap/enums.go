package tensormap

import "fmt"

// DataType is a CUtensorMapDataType: a tensor's element type.
type DataType int32

// Tensor element types; the values are cuda.h's.
const (
	Uint8       DataType = 0
	Uint16      DataType = 1
	Uint32      DataType = 2
	Int32       DataType = 3
	Uint64      DataType = 4
	Int64       DataType = 5
	Float16     DataType = 6
	Float32     DataType = 7
	Float64     DataType = 8
	BFloat16    DataType = 9
	Float32FTZ  DataType = 10
	TFloat32    DataType = 11
	TFloat32FTZ DataType = 12
	// The packed sub-byte types of CUDA 12.8 (sm_100): 16 4-bit values in 8
	// bytes, in 16 bytes with 8-byte gaps, and 16 6-bit values in 16 bytes.
	Packed16U4Align8B  DataType = 13
	Packed16U4Align16B DataType = 14
	Packed16U6Align16B DataType = 15
)

var typeNames = [...]string{"uint8", "uint16", "uint32", "int32", "uint64", "int64", "float16", "float32", "float64",
	"bfloat16", "float32 (ftz)", "tfloat32", "tfloat32 (ftz)", "16 x u4 in 8 bytes", "16 x u4 in 16 bytes", "16 x u6 in 16 bytes"}

var typeSizes = [...]int{1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4}

func (t DataType) String() string {
	if t >= 0 && int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("DataType(%d)", int32(t))
}

// Size is the bytes of one element, 0 for the packed sub-byte types.
func (t DataType) Size() int {
	if t >= 0 && int(t) < len(typeSizes) {
		return typeSizes[t]
	}
	return 0
}

func (t DataType) isFloat() bool {
	switch t {
	case Float16, Float32, Float64, BFloat16, Float32FTZ, TFloat32, TFloat32FTZ:
		return true
	}
	return false
}

// Interleave is a CUtensorMapInterleave: the NC/8HWC8-style layouts whose
// innermost dimension is a group of 16 or 32 bytes.
type Interleave int32

const (
	InterleaveNone Interleave = 0
	Interleave16B  Interleave = 1
	Interleave32B  Interleave = 2
)

// Swizzle is a CUtensorMapSwizzle: the bank swizzling of the box in shared
// memory.
type Swizzle int32

const (
	SwizzleNone Swizzle = 0
	Swizzle32B  Swizzle = 1
	Swizzle64B  Swizzle = 2
	Swizzle128B Swizzle = 3
	// CUDA 12.8's 128-byte swizzles with 32- and 64-byte atoms (sm_100).
	Swizzle128BAtom32B       Swizzle = 4
	Swizzle128BAtom32BFlip8B Swizzle = 5
	Swizzle128BAtom64B       Swizzle = 6
)

// span is the bytes a swizzle pattern spans, which bounds the box's inner
// dimension; 0 for none.
func (s Swizzle) span() int {
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

// L2Promotion is a CUtensorMapL2promotion: how much the L2 cache fetches
// around each access.
type L2Promotion int32

const (
	L2PromotionNone L2Promotion = 0
	L2Promotion64B  L2Promotion = 1
	L2Promotion128B L2Promotion = 2
	L2Promotion256B L2Promotion = 3
)

// OOBFill is a CUtensorMapFloatOOBfill: what a box reads outside the
// tensor. OOBFillNone reads zeros; OOBFillNaNRequestZeroFMA reads a NaN that
// FMA instructions treat as zero (floating-point types only).
type OOBFill int32

const (
	OOBFillNone              OOBFill = 0
	OOBFillNaNRequestZeroFMA OOBFill = 1
)
