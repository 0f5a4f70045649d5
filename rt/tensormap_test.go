package rt_test

import (
	"errors"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/rttest"
	"github.com/cugen/cugen/rt/tensormap"
)

// Tensor-map encoding moved to rt/tensormap (whose tests check the rules);
// the tests here check that rt's deprecated names still do what they did,
// through tensormap.

// newEncoder is a driver with tensormap.Encoder that encodes every map as
// its address and counts.
type newEncoder struct {
	rt.Driver
	calls int
}

func (e *newEncoder) EncodeTiled(t *tensormap.Tiled) (tensormap.Map, error) {
	e.calls++
	return tensormap.Map{Opaque: [16]uint64{t.Addr}}, nil
}

func (e *newEncoder) EncodeIm2col(t *tensormap.Im2col) (tensormap.Map, error) {
	e.calls++
	return tensormap.Map{Opaque: [16]uint64{t.Addr, 1}}, nil
}

// oldEncoder is a backend written before tensormap: it has only
// rt.TensorMapEncoder.
type oldEncoder struct {
	rt.Driver
	calls int
}

func (e *oldEncoder) TensorMapEncodeTiled(t *rt.TiledTensor) (rt.TensorMap, error) {
	e.calls++
	return rt.TensorMap{Opaque: [16]uint64{uint64(t.Addr)}}, nil
}

func (e *oldEncoder) TensorMapEncodeIm2col(t *rt.Im2colTensor) (rt.TensorMap, error) {
	e.calls++
	return rt.TensorMap{Opaque: [16]uint64{uint64(t.Addr), 1}}, nil
}

var _ rt.TensorMapEncoder = (*oldEncoder)(nil)

// deprecated converts a case to rt's deprecated descriptions, field by
// field as a user's code spelled them.
func deprecated(c rttest.TensorMapCase) (*rt.TiledTensor, *rt.Im2colTensor) {
	if t := c.Tiled; t != nil {
		return &rt.TiledTensor{DataType: t.DataType, Addr: rt.DevPtr(t.Addr), Dims: t.Dims, Strides: t.Strides, Box: t.Box,
			ElementStrides: t.ElementStrides, Interleave: t.Interleave, Swizzle: t.Swizzle, L2Promotion: t.L2Promotion, OOBFill: t.OOBFill}, nil
	}
	t := c.Im2col
	return nil, &rt.Im2colTensor{DataType: t.DataType, Addr: rt.DevPtr(t.Addr), Dims: t.Dims, Strides: t.Strides,
		LowerCorner: t.LowerCorner, UpperCorner: t.UpperCorner, ChannelsPerPixel: t.ChannelsPerPixel, PixelsPerColumn: t.PixelsPerColumn,
		ElementStrides: t.ElementStrides, Interleave: t.Interleave, Swizzle: t.Swizzle, L2Promotion: t.L2Promotion, OOBFill: t.OOBFill}
}

// TestDeprecatedTensorMaps: rt.TiledTensor.Validate, rt.Im2colTensor.Validate,
// rt.EncodeTiled and rt.EncodeIm2col accept and refuse what tensormap does,
// with the same errors, on a backend with tensormap.Encoder and on one with
// only the old rt.TensorMapEncoder; the encoded map is the backend's.
func TestDeprecatedTensorMaps(t *testing.T) {
	cases := rttest.TensorMapCases(0x7f0000000000)
	ne, oe := &newEncoder{Driver: newFake()}, &oldEncoder{Driver: newFake()}
	valid := 0
	for _, c := range cases {
		tiled, im := deprecated(c)
		var verr, want, nerr, oerr error
		var nm, om rt.TensorMap
		if tiled != nil {
			verr, want = tiled.Validate(), c.Tiled.Validate()
			nm, nerr = rt.EncodeTiled(ne, *tiled)
			om, oerr = rt.EncodeTiled(oe, *tiled)
		} else {
			verr, want = im.Validate(), c.Im2col.Validate()
			nm, nerr = rt.EncodeIm2col(ne, *im)
			om, oerr = rt.EncodeIm2col(oe, *im)
		}
		for what, err := range map[string]error{"Validate": verr, "encoding (tensormap.Encoder)": nerr, "encoding (rt.TensorMapEncoder)": oerr} {
			if (err == nil) != (want == nil) || err != nil && err.Error() != want.Error() {
				t.Errorf("%s: %s: %v, want %v", c.Name, what, err, want)
			}
		}
		if want == nil {
			valid++
			w := rt.TensorMap{Opaque: [16]uint64{0: nm.Opaque[0]}}
			if tiled == nil {
				w.Opaque[1] = 1
			}
			if nm != w || om != w || nm.Opaque[0] == 0 {
				t.Errorf("%s: maps %v and %v, want the address %#x", c.Name, nm.Opaque[:2], om.Opaque[:2], nm.Opaque[0])
			}
		}
	}
	if ne.calls != valid || oe.calls != valid {
		t.Errorf("the backends encoded %d and %d descriptions, want the %d valid ones", ne.calls, oe.calls, valid)
	}
	if _, err := rt.EncodeTiled(newFake(), *must1(deprecated(cases[0]))); !errors.Is(err, rt.ErrNotSupported) {
		t.Errorf("a backend without an encoder: %v", err)
	}
	if _, err := rt.EncodeIm2col(nil, rt.Im2colTensor{}); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("a nil driver: %v", err)
	}
}

func must1(t *rt.TiledTensor, _ *rt.Im2colTensor) *rt.TiledTensor { return t }

// TestDeprecatedTensorNames: rt's old names are tensormap's values.
func TestDeprecatedTensorNames(t *testing.T) {
	var b [128]byte
	b[0], b[127] = 7, 9
	if m := rt.TensorMapFromBytes(b); m != tensormap.FromBytes(b) || m.Bytes() != b {
		t.Errorf("TensorMapFromBytes: %v", m)
	}
	pairs := [][2]int32{
		{int32(rt.TensorUint8), int32(tensormap.Uint8)}, {int32(rt.TensorUint16), int32(tensormap.Uint16)},
		{int32(rt.TensorUint32), int32(tensormap.Uint32)}, {int32(rt.TensorInt32), int32(tensormap.Int32)},
		{int32(rt.TensorUint64), int32(tensormap.Uint64)}, {int32(rt.TensorInt64), int32(tensormap.Int64)},
		{int32(rt.TensorFloat16), int32(tensormap.Float16)}, {int32(rt.TensorFloat32), int32(tensormap.Float32)},
		{int32(rt.TensorFloat64), int32(tensormap.Float64)}, {int32(rt.TensorBFloat16), int32(tensormap.BFloat16)},
		{int32(rt.TensorFloat32FTZ), int32(tensormap.Float32FTZ)}, {int32(rt.TensorTFloat32), int32(tensormap.TFloat32)},
		{int32(rt.TensorTFloat32FTZ), int32(tensormap.TFloat32FTZ)},
		{int32(rt.Tensor16U4Align8B), int32(tensormap.Packed16U4Align8B)},
		{int32(rt.Tensor16U4Align16B), int32(tensormap.Packed16U4Align16B)},
		{int32(rt.Tensor16U6Align16B), int32(tensormap.Packed16U6Align16B)},
		{int32(rt.InterleaveNone), int32(tensormap.InterleaveNone)}, {int32(rt.Interleave16B), int32(tensormap.Interleave16B)},
		{int32(rt.Interleave32B), int32(tensormap.Interleave32B)},
		{int32(rt.SwizzleNone), int32(tensormap.SwizzleNone)}, {int32(rt.Swizzle32B), int32(tensormap.Swizzle32B)},
		{int32(rt.Swizzle64B), int32(tensormap.Swizzle64B)}, {int32(rt.Swizzle128B), int32(tensormap.Swizzle128B)},
		{int32(rt.Swizzle128BAtom32B), int32(tensormap.Swizzle128BAtom32B)},
		{int32(rt.Swizzle128BAtom32BFlip8B), int32(tensormap.Swizzle128BAtom32BFlip8B)},
		{int32(rt.Swizzle128BAtom64B), int32(tensormap.Swizzle128BAtom64B)},
		{int32(rt.L2PromotionNone), int32(tensormap.L2PromotionNone)}, {int32(rt.L2Promotion64B), int32(tensormap.L2Promotion64B)},
		{int32(rt.L2Promotion128B), int32(tensormap.L2Promotion128B)}, {int32(rt.L2Promotion256B), int32(tensormap.L2Promotion256B)},
		{int32(rt.OOBFillNone), int32(tensormap.OOBFillNone)}, {int32(rt.OOBFillNaNRequestZeroFMA), int32(tensormap.OOBFillNaNRequestZeroFMA)},
	}
	for i, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("pair %d: rt's %d, tensormap's %d", i, p[0], p[1])
		}
	}
	var _ rt.TensorDataType = tensormap.Float32
	var _ rt.TensorInterleave = tensormap.Interleave16B
	var _ rt.TensorSwizzle = tensormap.Swizzle64B
	var _ rt.TensorL2Promotion = tensormap.L2Promotion64B
	var _ rt.TensorOOBFill = tensormap.OOBFillNone
}
