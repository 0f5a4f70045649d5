package tensormap_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/rttest"
	"github.com/cugen/cugen/rt/soft"
	"github.com/cugen/cugen/rt/tensormap"
)

// Every description of rttest.TensorMapCases that breaks a documented rule
// is refused, with the rule named, and every other is accepted.
func TestTensorDescriptionRules(t *testing.T) {
	for _, c := range rttest.TensorMapCases(0x7f0000000000) {
		var err error
		if c.Tiled != nil {
			err = c.Tiled.Validate()
		} else {
			err = c.Im2col.Validate()
		}
		switch {
		case c.Invalid && !errors.Is(err, rt.ErrInvalidValue):
			t.Errorf("%s: accepted (%v)", c.Name, err)
		case !c.Invalid && err != nil:
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	tt := rttest.TensorMapCases(0x7f0000000000)[0].Tiled
	bad := *tt
	bad.Strides = []uint64{264}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "Strides[0] is 264, want a multiple of 16 below 2^40") {
		t.Errorf("stride 264: %v", err)
	}
}

// noEncoder is a driver without the Encoder capability.
type noEncoder struct{}

func (noEncoder) Name() string { return "none" }

// encoder is a driver that encodes every tensor map as its address.
type encoder struct {
	noEncoder
	calls int
}

func (e *encoder) EncodeTiled(t *tensormap.Tiled) (tensormap.Map, error) {
	e.calls++
	return tensormap.Map{Opaque: [16]uint64{t.Addr}}, nil
}

func (e *encoder) EncodeIm2col(t *tensormap.Im2col) (tensormap.Map, error) {
	e.calls++
	return tensormap.Map{Opaque: [16]uint64{t.Addr}}, nil
}

// EncodeTiled and EncodeIm2col validate before they ask the backend, and
// say so when it cannot encode.
func TestEncodeTensorMaps(t *testing.T) {
	cases := rttest.TensorMapCases(0x7f0000000000)
	e := &encoder{}
	for _, c := range cases {
		var err error
		if c.Tiled != nil {
			_, err = tensormap.EncodeTiled(e, *c.Tiled)
		} else {
			_, err = tensormap.EncodeIm2col(e, *c.Im2col)
		}
		if (err != nil) != c.Invalid {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	valid := 0
	for _, c := range cases {
		if !c.Invalid {
			valid++
		}
	}
	if e.calls != valid {
		t.Errorf("the backend encoded %d descriptions, want the %d valid ones", e.calls, valid)
	}
	if _, err := tensormap.EncodeTiled(noEncoder{}, *cases[0].Tiled); !errors.Is(err, rt.ErrNotSupported) {
		t.Errorf("a backend without Encoder: %v", err)
	}
	if _, err := tensormap.EncodeIm2col(nil, tensormap.Im2col{}); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("a nil driver: %v", err)
	}
}

// A Map is its 16 words, little-endian, as the device reads it.
func TestTensorMapBytes(t *testing.T) {
	var m tensormap.Map
	for i := range m.Opaque {
		m.Opaque[i] = 0x0102030405060708 * uint64(i+1)
	}
	b := m.Bytes()
	if b[0] != 0x08 || b[7] != 0x01 || b[8] != 0x10 || b[127] != 0x10 {
		t.Errorf("bytes % x", b[:16])
	}
	if tensormap.FromBytes(b) != m {
		t.Error("FromBytes(m.Bytes()) != m")
	}
	buf := make([]byte, 130)
	m.Put(buf[1:])
	if [128]byte(buf[1:129]) != b || buf[0] != 0 || buf[129] != 0 {
		t.Error("Put wrote elsewhere than b[:128]")
	}
}

// TestTensorEnums: each element type's size and name (the packed sub-byte
// types have no element size), each enum's range, the swizzles' spans and
// which types take the NaN fill.
func TestTensorEnums(t *testing.T) {
	for dt, want := range map[tensormap.DataType]struct {
		size int
		name string
	}{
		tensormap.Uint64: {8, "uint64"}, tensormap.Int64: {8, "int64"}, tensormap.Float32FTZ: {4, "float32 (ftz)"},
		tensormap.TFloat32: {4, "tfloat32"}, tensormap.TFloat32FTZ: {4, "tfloat32 (ftz)"},
		tensormap.Packed16U4Align8B: {0, "16 x u4 in 8 bytes"}, tensormap.Packed16U4Align16B: {0, "16 x u4 in 16 bytes"},
	} {
		if dt.Size() != want.size || dt.String() != want.name {
			t.Errorf("%d: size %d %q, want %d %q", int32(dt), dt.Size(), dt, want.size, want.name)
		}
	}
	base := tensormap.Tiled{DataType: tensormap.Float32, Addr: 1 << 20, Dims: []uint64{64, 64}, Strides: []uint64{256}, Box: []uint32{32, 8},
		Interleave: tensormap.InterleaveNone, L2Promotion: tensormap.L2PromotionNone, OOBFill: tensormap.OOBFillNone}
	ok := func(name string, f func(*tensormap.Tiled), want bool) {
		d := base
		f(&d)
		if err := d.Validate(); (err == nil) != want {
			t.Errorf("%s: %v, want ok %v", name, err, want)
		}
	}
	ok("base", func(*tensormap.Tiled) {}, true)
	ok("interleave 3", func(d *tensormap.Tiled) { d.Interleave = tensormap.Interleave(3) }, false)
	ok("L2 promotion 4", func(d *tensormap.Tiled) { d.L2Promotion = tensormap.L2Promotion(4) }, false)
	ok("OOB fill 2", func(d *tensormap.Tiled) { d.OOBFill = tensormap.OOBFill(2) }, false)
	ok("NaN fill, int64", func(d *tensormap.Tiled) {
		d.DataType, d.Box, d.OOBFill = tensormap.Int64, []uint32{16, 8}, tensormap.OOBFillNaNRequestZeroFMA
	}, false)
	ok("NaN fill, tf32 ftz", func(d *tensormap.Tiled) {
		d.DataType, d.OOBFill = tensormap.TFloat32FTZ, tensormap.OOBFillNaNRequestZeroFMA
	}, true)
	for _, sw := range []tensormap.Swizzle{tensormap.Swizzle128BAtom32B, tensormap.Swizzle128BAtom32BFlip8B} {
		ok(fmt.Sprintf("swizzle %d, 128-byte rows", sw), func(d *tensormap.Tiled) { d.Swizzle = sw }, true)
		ok(fmt.Sprintf("swizzle %d, 160-byte rows", sw), func(d *tensormap.Tiled) { d.Swizzle, d.Box = sw, []uint32{40, 8} }, false)
	}
	im := tensormap.Im2col{DataType: tensormap.Float16, Addr: 1 << 20, Dims: []uint64{8, 16, 16, 2}, Strides: []uint64{16, 256, 4096},
		LowerCorner: []int32{-1, -1}, UpperCorner: []int32{1, 1}, ChannelsPerPixel: 8, PixelsPerColumn: 64, Interleave: tensormap.InterleaveNone}
	if err := im.Validate(); err != nil {
		t.Errorf("im2col: %v", err)
	}
	im.Interleave = tensormap.Interleave32B
	if err := im.Validate(); err == nil {
		t.Error("im2col with a 32-byte interleave and 16-byte strides passes")
	}
}

// TestBackendEncoder: any rt.Driver is a Driver, and rt/soft's is an
// Encoder whose maps start with the tensor's address (rt/soft's tests check
// every byte against the H100's); a driver without the capability is not
// one.
func TestBackendEncoder(t *testing.T) {
	var d tensormap.Driver = soft.New(soft.Options{})
	e, ok := d.(tensormap.Encoder)
	if !ok {
		t.Fatalf("%T is not a tensormap.Encoder", d)
	}
	c := rttest.TensorMapCases(0x7f0000000000)[0]
	m, err := e.EncodeTiled(c.Tiled)
	if err != nil || m.Opaque[0] != c.Tiled.Addr {
		t.Errorf("%s: %v, first word %#x, want the address %#x", c.Name, err, m.Opaque[0], c.Tiled.Addr)
	}
	var f tensormap.Driver = &rttest.Fake{}
	if _, ok := f.(tensormap.Encoder); ok {
		t.Errorf("%T, which does not encode, is a tensormap.Encoder", f)
	}
}
