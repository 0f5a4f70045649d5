package soft

import (
	"encoding/binary"

	"github.com/cugen/cugen/rt"
)

// Tensor maps, encoded as the H100's driver encodes them (580.159.04, CUDA
// 13.0), so that a tensor map made on either backend means the same to
// cp.async.bulk.tensor. The layout below is what the recorded encodings of
// testdata/tensormaps_h100.txt show (tensormap_test.go compares every field
// with them); all words are little-endian, and bytes not listed are 0.
//
//	0..7    the global address
//	8..11   a control word:
//	          bits 0..3   0 (tiled)
//	          bits 4..6   rank - 1
//	          bits 7..10  the element type's code (typeCodes)
//	          bits 11..12 interleave
//	          bits 13..14 swizzle
//	          bit  15     OOB fill (NaN request zero FMA)
//	          bits 17..18 L2 promotion
//	          bit  21     set when the tensor spans 128 KiB or more
//	12..27  each stride of dimensions 1..4 in units of 16 bytes, low 32 bits
//	28..29  their bits 32..35, a nibble each (dimension 1 in byte 28's low)
//	32..51  each dimension's size - 1, 32 bits
//	52..53  each element stride - 1, 3 bits (dimension 0 in bits 0..2)
//	55..59  each box dimension - 1, 8 bits
//	64..67  the box's bytes in shared memory: the element size (16 or 32
//	        with an interleave) times each dimension's box / element stride
//	72..75  the shared-memory swizzle stride: 16, 256, 512 or 1024 bytes
//	        for no, 32-, 64- or 128-byte swizzle

// typeCodes are the control word's codes of the CUtensorMapDataType values:
// the order differs from cuda.h's from float64 on.
var typeCodes = [...]uint32{
	rt.TensorUint8: 0, rt.TensorUint16: 1, rt.TensorUint32: 2, rt.TensorInt32: 3,
	rt.TensorUint64: 4, rt.TensorInt64: 5, rt.TensorFloat16: 6, rt.TensorFloat32: 7,
	rt.TensorFloat64: 9, rt.TensorBFloat16: 10, rt.TensorFloat32FTZ: 8,
	rt.TensorTFloat32: 11, rt.TensorTFloat32FTZ: 12,
}

// TensorMapEncodeTiled is cuTensorMapEncodeTiled, in the H100 driver's
// encoding (see above). The packed sub-byte types (CUDA 12.8, sm_100) and
// the swizzles with atoms are not encoded: rt.ErrNotSupported.
func (d *Driver) TensorMapEncodeTiled(t *rt.TiledTensor) (rt.TensorMap, error) {
	const op = "cuTensorMapEncodeTiled"
	if err := t.Validate(); err != nil {
		return rt.TensorMap{}, err
	}
	if err := encodable(op, t.DataType, t.Swizzle); err != nil {
		return rt.TensorMap{}, err
	}
	var b [128]byte
	rank := len(t.Dims)
	estr := elementStrides(t.ElementStrides, rank)
	encodeCommon(&b, t.DataType, t.Addr, t.Dims, t.Strides, estr, t.Interleave, t.Swizzle, t.L2Promotion, t.OOBFill)
	boxBytes := unitBytes(t.DataType, t.Interleave)
	for i, n := range t.Box {
		b[55+i] = byte(n - 1)
		boxBytes *= max(n/estr[i], 1)
	}
	binary.LittleEndian.PutUint32(b[64:], boxBytes)
	return rt.TensorMapFromBytes(b), nil
}

// TensorMapEncodeIm2col is cuTensorMapEncodeIm2col: not encoded yet
// (rt.ErrNotSupported).
func (d *Driver) TensorMapEncodeIm2col(t *rt.Im2colTensor) (rt.TensorMap, error) {
	const op = "cuTensorMapEncodeIm2col"
	if err := t.Validate(); err != nil {
		return rt.TensorMap{}, err
	}
	return rt.TensorMap{}, rt.Errorf(op, rt.ErrNotSupported, "the soft backend does not encode im2col tensor maps")
}

// encodable refuses what soft has no recorded encoding of.
func encodable(op string, dt rt.TensorDataType, sw rt.TensorSwizzle) error {
	if int(dt) >= len(typeCodes) {
		return rt.Errorf(op, rt.ErrNotSupported, "the soft backend does not encode tensors of %v", dt)
	}
	if sw > rt.Swizzle128B {
		return rt.Errorf(op, rt.ErrNotSupported, "the soft backend does not encode swizzle mode %d", sw)
	}
	return nil
}

func elementStrides(e []uint32, rank int) []uint32 {
	if e != nil {
		return e
	}
	ones := make([]uint32, rank)
	for i := range ones {
		ones[i] = 1
	}
	return ones
}

// unitBytes is the size of the box's innermost unit: an element, or the
// interleave's 16 or 32 bytes.
func unitBytes(dt rt.TensorDataType, il rt.TensorInterleave) uint32 {
	switch il {
	case rt.Interleave16B:
		return 16
	case rt.Interleave32B:
		return 32
	}
	return uint32(dt.Size())
}

// swizzleStrides are bytes 72..75 by swizzle mode.
var swizzleStrides = [...]uint32{rt.SwizzleNone: 16, rt.Swizzle32B: 256, rt.Swizzle64B: 512, rt.Swizzle128B: 1024}

// encodeCommon writes the fields tiled and im2col maps share.
func encodeCommon(b *[128]byte, dt rt.TensorDataType, addr rt.DevPtr, dims, strides []uint64, estr []uint32,
	il rt.TensorInterleave, sw rt.TensorSwizzle, l2 rt.TensorL2Promotion, oob rt.TensorOOBFill) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(addr))
	rank := len(dims)
	ctl := uint32(rank-1)<<4 | typeCodes[dt]<<7 | uint32(il)<<11 | uint32(sw)<<13 | uint32(oob)<<15 | uint32(l2)<<17
	total := uint64(dt.Size())
	for _, n := range dims {
		total *= n
	}
	if total >= 128<<10 {
		ctl |= 1 << 21
	}
	le.PutUint32(b[8:], ctl)
	for i, s := range strides {
		u := s >> 4
		le.PutUint32(b[12+4*i:], uint32(u))
		b[28+i/2] |= byte(u>>32&0xf) << (4 * (i % 2))
	}
	for i, n := range dims {
		le.PutUint32(b[32+4*i:], uint32(n-1))
	}
	var es uint32
	for i, e := range estr {
		es |= (e - 1) << (3 * i)
	}
	le.PutUint16(b[52:], uint16(es))
	le.PutUint32(b[72:], swizzleStrides[sw])
}
