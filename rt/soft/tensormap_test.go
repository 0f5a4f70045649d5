package soft

import (
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/rttest"
	"github.com/cugen/cugen/rt/tensormap"
)

// field11_host.cu's tensor map, as cuTensorMapEncodeTiled made it on the
// H100 for tmaTile's 64×32 float matrix at 0x7f0ec1a00200, boxes of 32×8
// (the TENSORMAP line it printed).
const hostTensorMap = "0002a0c10e7f00009003000010000000000000000000000000000000000000003f0000001f000000" +
	"0000000000000000000000000000001f070000000000000000040000000000001000000000000000" +
	"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"

func TestTensorMapOfTheHostProgram(t *testing.T) {
	m, err := New(Options{}).EncodeTiled(&tensormap.Tiled{DataType: tensormap.Float32, Addr: 0x7f0ec1a00200,
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
	tt := tensormap.Tiled{DataType: tensormap.Float32, Addr: 0x1000, Dims: []uint64{64, 32}, Strides: []uint64{256}, Box: []uint32{32, 8}}
	a, err := d.EncodeTiled(&tt)
	if err != nil {
		t.Fatal(err)
	}
	tt.ElementStrides = []uint32{1, 1}
	if b, _ := d.EncodeTiled(&tt); a != b {
		t.Error("nil element strides encode differently from ones")
	}
	tt.Box = []uint32{3, 8}
	if _, err := d.EncodeTiled(&tt); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("a 12-byte box row: %v", err)
	}
}

// TestTensorMapsOfTheH100 encodes every description of rttest.TensorMapCases
// and compares with what the H100's driver made of it (recorded by rt/cgo's
// TestTensorMapEncodings): the same bytes wherever the driver encoded, an
// error where it refused.
func TestTensorMapsOfTheH100(t *testing.T) {
	base, recorded := readRecorded(t)
	d := New(Options{})
	for _, c := range rttest.TensorMapCases(base) {
		want, ok := recorded[c.Name]
		if !ok {
			t.Errorf("%s: not recorded (record again: rt/cgo's TestTensorMapEncodings)", c.Name)
			continue
		}
		var m rt.TensorMap
		var err error
		if c.Tiled != nil {
			m, err = d.EncodeTiled(c.Tiled)
		} else {
			m, err = d.EncodeIm2col(c.Im2col)
		}
		b := m.Bytes()
		got := hex.EncodeToString(b[:])
		switch {
		case strings.HasPrefix(want, "error "):
			if err == nil {
				t.Errorf("%s: the driver refused it (%s), soft encodes it", c.Name, want)
			}
		case err != nil:
			t.Errorf("%s: the driver encoded it, soft refuses it: %v", c.Name, err)
		case got != want:
			t.Errorf("%s: soft encodes\n%s\nthe driver\n%s", c.Name, got, want)
		}
	}
}

func readRecorded(t *testing.T) (rt.DevPtr, map[string]string) {
	data, err := os.ReadFile("testdata/tensormaps_h100.txt")
	if err != nil {
		t.Fatal(err)
	}
	var base uint64
	recorded := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if b, ok := strings.CutPrefix(line, "base 0x"); ok {
			if base, err = strconv.ParseUint(b, 16, 64); err != nil {
				t.Fatal(err)
			}
			continue
		}
		name, result, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		recorded[name] = result
	}
	if base == 0 {
		t.Fatal("no base address recorded")
	}
	return rt.DevPtr(base), recorded
}
