package soft

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/cugen/cugen/rt"
)

// field11_host.cu's tensor map, as cuTensorMapEncodeTiled made it on the
// H100 for tmaTile's 64×32 float matrix at 0x7f0ec1a00200, boxes of 32×8
// (the TENSORMAP line it printed).
const hostTensorMap = "0002a0c10e7f00009003000010000000000000000000000000000000000000003f0000001f000000" +
	"0000000000000000000000000000001f070000000000000000040000000000001000000000000000" +
	"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"

func TestTensorMapOfTheHostProgram(t *testing.T) {
	m, err := New(Options{}).TensorMapEncodeTiled(&rt.TiledTensor{DataType: rt.TensorFloat32, Addr: 0x7f0ec1a00200,
		Dims: []uint64{64, 32}, Strides: []uint64{256}, Box: []uint32{32, 8}, ElementStrides: []uint32{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if b := m.Bytes(); hex.EncodeToString(b[:]) != hostTensorMap {
		t.Errorf("soft encodes\n%x\nthe H100's driver\n%s", b, hostTensorMap)
	}
}

// Descriptions the driver's rules refuse are refused; nil element strides
// mean 1.
func TestTensorMapEncodeChecks(t *testing.T) {
	d := New(Options{})
	tt := rt.TiledTensor{DataType: rt.TensorFloat32, Addr: 0x1000, Dims: []uint64{64, 32}, Strides: []uint64{256}, Box: []uint32{32, 8}}
	a, err := d.TensorMapEncodeTiled(&tt)
	if err != nil {
		t.Fatal(err)
	}
	tt.ElementStrides = []uint32{1, 1}
	if b, _ := d.TensorMapEncodeTiled(&tt); a != b {
		t.Error("nil element strides encode differently from ones")
	}
	tt.Box = []uint32{3, 8}
	if _, err := d.TensorMapEncodeTiled(&tt); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("a 12-byte box row: %v", err)
	}
}
