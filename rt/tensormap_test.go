package rt_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/rttest"
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

// encoder is a driver that encodes every tensor map as its address.
type encoder struct {
	rt.Driver
	calls int
}

func (e *encoder) TensorMapEncodeTiled(t *rt.TiledTensor) (rt.TensorMap, error) {
	e.calls++
	return rt.TensorMap{Opaque: [16]uint64{uint64(t.Addr)}}, nil
}

func (e *encoder) TensorMapEncodeIm2col(t *rt.Im2colTensor) (rt.TensorMap, error) {
	e.calls++
	return rt.TensorMap{Opaque: [16]uint64{uint64(t.Addr)}}, nil
}

// EncodeTiled and EncodeIm2col validate before they ask the backend, and
// say so when it cannot encode.
func TestEncodeTensorMaps(t *testing.T) {
	cases := rttest.TensorMapCases(0x7f0000000000)
	e := &encoder{Driver: newFake()}
	for _, c := range cases {
		var err error
		if c.Tiled != nil {
			_, err = rt.EncodeTiled(e, *c.Tiled)
		} else {
			_, err = rt.EncodeIm2col(e, *c.Im2col)
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
	if _, err := rt.EncodeTiled(newFake(), *cases[0].Tiled); !errors.Is(err, rt.ErrNotSupported) {
		t.Errorf("a backend without TensorMapEncoder: %v", err)
	}
}

// A TensorMap is its 16 words, little-endian, as the device reads it.
func TestTensorMapBytes(t *testing.T) {
	var m rt.TensorMap
	for i := range m.Opaque {
		m.Opaque[i] = 0x0102030405060708 * uint64(i+1)
	}
	b := m.Bytes()
	if b[0] != 0x08 || b[7] != 0x01 || b[8] != 0x10 || b[127] != 0x10 {
		t.Errorf("bytes % x", b[:16])
	}
	if rt.TensorMapFromBytes(b) != m {
		t.Error("TensorMapFromBytes(m.Bytes()) != m")
	}
	buf := make([]byte, 130)
	m.Put(buf[1:])
	if [128]byte(buf[1:129]) != b || buf[0] != 0 || buf[129] != 0 {
		t.Error("Put wrote elsewhere than b[:128]")
	}
}
