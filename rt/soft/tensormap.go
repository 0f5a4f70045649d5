package soft

import (
	"encoding/binary"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tensormap"
)

// Tensor maps, encoded as the H100's driver encodes them (580.159.04, CUDA
// 13.0), so that a tensor map made on either backend means the same to
// cp.async.bulk.tensor. The layout below is what the driver's encodings of
// rttest.TensorMapCases show (recorded in testdata/tensormaps_h100.txt;
// tensormap_test.go compares every case with them, rt/cgo's GPU tests
// compare them live, and examples/tma's copy tiles on the H100 through maps
// soft encoded). Words are little-endian; bytes not listed are 0.
//
//	0..7    the global address
//	8..11   a control word:
//	          bits 0..3   the mode: 0 tiled, 1 im2col
//	          bits 4..6   rank - 1
//	          bits 7..10  the element type's code (typeCodes)
//	          bits 11..12 interleave
//	          bits 13..14 swizzle
//	          bit  15     OOB fill: NaN request zero FMA
//	          bit  16     round to tf32 (the tfloat32 types)
//	          bits 17..18 L2 promotion
//	12..27  each stride of dimensions 1..4 in units of 16 bytes, low 32 bits
//	28..29  their bits 32..35, a nibble each (dimension 1 in byte 28's low)
//	32..51  each dimension's size - 1, 32 bits
//	52..53  each element stride - 1, 3 bits (dimension 0 in bits 0..2)
//	64..67  the box's bytes in shared memory: the element size times, in
//	        each dimension, the box over the element stride (rounded down;
//	        an interleave changes nothing here)
//	72..75  the shared-memory swizzle span: 16, 256, 512 or 1024 bytes for
//	        no, 32-, 64- or 128-byte swizzle
//
// A tiled map has the box, each dimension - 1, in bytes 55..59. An im2col
// map has ChannelsPerPixel - 1 in byte 55, the lower corner's coordinates in
// bytes 56..57 and the upper corner's in 58..59 (one 16-bit value for rank
// 3, two bytes for rank 4, three 5-bit fields for rank 5, innermost first),
// PixelsPerColumn - 1 in bytes 60..61, and a box of PixelsPerColumn ×
// ChannelsPerPixel elements.

var _ tensormap.Encoder = (*Driver)(nil)

// typeCodes are the control word's bits for each CUtensorMapDataType: a
// 4-bit code, whose order departs from cuda.h's from float64 on, and the
// tf32 rounding flag.
var typeCodes = [...]uint32{
	tensormap.Uint8: 0 << 7, tensormap.Uint16: 1 << 7, tensormap.Uint32: 2 << 7, tensormap.Int32: 3 << 7,
	tensormap.Uint64: 4 << 7, tensormap.Int64: 5 << 7, tensormap.Float16: 6 << 7, tensormap.Float32: 7 << 7,
	tensormap.Float64: 9 << 7, tensormap.BFloat16: 10 << 7, tensormap.Float32FTZ: 8 << 7,
	tensormap.TFloat32: 7<<7 | 1<<16, tensormap.TFloat32FTZ: 8<<7 | 1<<16,
}

// EncodeTiled is cuTensorMapEncodeTiled, in the H100 driver's encoding
// (see above). The packed sub-byte types (CUDA 12.8, sm_100) and the
// swizzles with atoms are not encoded: rt.ErrNotSupported.
func (d *Driver) EncodeTiled(t *tensormap.Tiled) (tensormap.Map, error) {
	const op = "cuTensorMapEncodeTiled"
	if err := t.Validate(); err != nil {
		return tensormap.Map{}, err
	}
	if err := encodable(op, t.DataType, t.Swizzle); err != nil {
		return tensormap.Map{}, err
	}
	var b [128]byte
	rank := len(t.Dims)
	estr := elementStrides(t.ElementStrides, rank)
	encodeCommon(&b, t.DataType, t.Addr, t.Dims, t.Strides, estr, t.Interleave, t.Swizzle, t.L2Promotion, t.OOBFill)
	boxBytes := uint32(t.DataType.Size())
	for i, n := range t.Box {
		b[55+i] = byte(n - 1)
		boxBytes *= max(n/estr[i], 1)
	}
	binary.LittleEndian.PutUint32(b[64:], boxBytes)
	return tensormap.FromBytes(b), nil
}

// EncodeIm2col is cuTensorMapEncodeIm2col, in the H100 driver's encoding.
// What no recording shows is not encoded (rt.ErrNotSupported): an
// interleave, or an element stride in dimension 0.
func (d *Driver) EncodeIm2col(t *tensormap.Im2col) (tensormap.Map, error) {
	const op = "cuTensorMapEncodeIm2col"
	if err := t.Validate(); err != nil {
		return tensormap.Map{}, err
	}
	if err := encodable(op, t.DataType, t.Swizzle); err != nil {
		return tensormap.Map{}, err
	}
	rank := len(t.Dims)
	estr := elementStrides(t.ElementStrides, rank)
	if t.Interleave != tensormap.InterleaveNone || estr[0] != 1 {
		return tensormap.Map{}, rt.Errorf(op, rt.ErrNotSupported, "the soft backend does not encode im2col maps with an interleave or an element stride in dimension 0")
	}
	var b [128]byte
	encodeCommon(&b, t.DataType, t.Addr, t.Dims, t.Strides, estr, t.Interleave, t.Swizzle, t.L2Promotion, t.OOBFill)
	le := binary.LittleEndian
	le.PutUint32(b[8:], le.Uint32(b[8:])|1) // im2col
	b[55] = byte(t.ChannelsPerPixel - 1)
	le.PutUint16(b[56:], corners(t.LowerCorner))
	le.PutUint16(b[58:], corners(t.UpperCorner))
	le.PutUint16(b[60:], uint16(t.PixelsPerColumn-1))
	le.PutUint32(b[64:], uint32(t.DataType.Size())*t.ChannelsPerPixel*t.PixelsPerColumn)
	return tensormap.FromBytes(b), nil
}

// corners packs an im2col corner into 16 bits: 16/len(c) bits a coordinate
// (16, 8 or 5), two's complement, innermost first.
func corners(c []int32) uint16 {
	bits := 16 / len(c)
	mask := uint16(int(1)<<bits - 1)
	var v uint16
	for i, x := range c {
		v |= uint16(x) & mask << (bits * i)
	}
	return v
}

// encodable refuses what soft has no recorded encoding of.
func encodable(op string, dt tensormap.DataType, sw tensormap.Swizzle) error {
	if int(dt) >= len(typeCodes) {
		return rt.Errorf(op, rt.ErrNotSupported, "the soft backend does not encode tensors of %v", dt)
	}
	if sw > tensormap.Swizzle128B {
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

// swizzleStrides are bytes 72..75 by swizzle mode.
var swizzleStrides = [...]uint32{tensormap.SwizzleNone: 16, tensormap.Swizzle32B: 256, tensormap.Swizzle64B: 512, tensormap.Swizzle128B: 1024}

// encodeCommon writes the fields tiled and im2col maps share.
func encodeCommon(b *[128]byte, dt tensormap.DataType, addr uint64, dims, strides []uint64, estr []uint32,
	il tensormap.Interleave, sw tensormap.Swizzle, l2 tensormap.L2Promotion, oob tensormap.OOBFill) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], addr)
	rank := len(dims)
	ctl := uint32(rank-1)<<4 | typeCodes[dt] | uint32(il)<<11 | uint32(sw)<<13 | uint32(oob)<<15 | uint32(l2)<<17
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

// TensorMapEncodeTiled is rt.EncodeTiled on d.
//
// Deprecated: use EncodeTiled (or tensormap.EncodeTiled).
func (d *Driver) TensorMapEncodeTiled(t *rt.TiledTensor) (rt.TensorMap, error) {
	return rt.EncodeTiled(d, *t)
}

// TensorMapEncodeIm2col is rt.EncodeIm2col on d.
//
// Deprecated: use EncodeIm2col (or tensormap.EncodeIm2col).
func (d *Driver) TensorMapEncodeIm2col(t *rt.Im2colTensor) (rt.TensorMap, error) {
	return rt.EncodeIm2col(d, *t)
}
