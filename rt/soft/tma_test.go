package soft

import (
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tensormap"
)

// tmaCase is one recorded tensor copy: the H100 driver's tensor map, where
// the box starts, and what the copy produced.
type tmaCase struct {
	name    string
	rank    int
	coords  []int32
	bytes   int
	tmap    []byte
	want    []byte // shared memory (loads) or the tensor (the store)
	isStore bool
}

func readTMACases(t *testing.T) []tmaCase {
	lines := readRecordingLines(t, "tma_h100.txt")
	var cs []tmaCase
	for i := 0; i+2 < len(lines); i++ {
		f := strings.Fields(lines[i])
		if len(f) < 4 || f[1] != "rank" {
			continue
		}
		c := tmaCase{name: f[0], isStore: strings.HasPrefix(f[0], "store")}
		c.rank, _ = strconv.Atoi(f[2])
		for j := 0; j < len(f); j++ {
			switch f[j] {
			case "coords":
				for k := 1; k <= c.rank; k++ {
					v, _ := strconv.Atoi(f[j+k])
					c.coords = append(c.coords, int32(v))
				}
			case "bytes":
				c.bytes, _ = strconv.Atoi(f[j+1])
			}
		}
		var err error
		if c.tmap, err = hex.DecodeString(strings.TrimPrefix(lines[i+1], "map ")); err != nil {
			t.Fatal(err)
		}
		data := lines[i+2][strings.IndexByte(lines[i+2], ' ')+1:]
		if c.want, err = hex.DecodeString(data); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	return cs
}

// tmaParams packs tmaLoad's (or, load false, tmaStore's) parameters: the
// 128-byte map (.align 128) first.
func tmaParams(m []byte, load bool, rank int, coords []int32, buf rt.DevPtr, bytes int) []byte {
	p := make([]byte, 168)
	copy(p, m)
	le := binary.LittleEndian
	if load {
		le.PutUint32(p[128:], uint32(rank))
		for i, c := range coords {
			le.PutUint32(p[132+4*i:], uint32(c))
		}
		le.PutUint64(p[152:], uint64(buf))
		le.PutUint32(p[160:], uint32(bytes))
		return p[:164]
	}
	le.PutUint32(p[128:], uint32(coords[0]))
	le.PutUint32(p[132:], uint32(coords[1]))
	le.PutUint64(p[136:], uint64(buf))
	le.PutUint32(p[144:], uint32(bytes))
	return p[:148]
}

// TestTMAH100 runs nvcc's tmaLoad and tmaStore (testdata/async/tma.cu)
// with the tensor maps the H100's driver encoded, pointed at the same
// tensor in soft's memory: boxes inside and across the tensor's edges,
// zero and NaN fills for f16, bf16, f32 and f64, the 32-, 64- and 128-byte
// swizzles, element strides, 1-D to 5-D, and a store that leaves the
// outside untouched; soft must put the H100's bytes where it put them.
func TestTMAH100(t *testing.T) {
	cases := readTMACases(t)
	if len(cases) < 10 {
		t.Fatalf("%d recorded cases", len(cases))
	}
	e := newEnv(t, Options{})
	lib := e.load("async/tma.ptx")
	load, store := e.kernel(lib, "tmaLoad"), e.kernel(lib, "tmaStore")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tensor := make([]byte, 1<<16)
			for i := range tensor {
				tensor[i] = byte(i*7 + 3)
			}
			if c.isStore {
				for i := 0; i < 40*12*4; i++ {
					tensor[i] = 0xAA
				}
			}
			tp := e.buf(tensor)
			m := append([]byte(nil), c.tmap...)
			binary.LittleEndian.PutUint64(m, uint64(tp))
			var err error
			if c.isStore {
				in := make([]byte, 512)
				for i := range in {
					in[i] = byte(i*5 + 1)
				}
				err = e.launchEx(store, rt.D1(1), rt.D1(128), rt.Dim3{}, 0, tmaParams(m, false, 2, c.coords, e.buf(in), 512))
			} else {
				out := e.buf(make([]byte, c.bytes))
				err = e.launchEx(load, rt.D1(1), rt.D1(128), rt.Dim3{}, 0, tmaParams(m, true, c.rank, c.coords, out, c.bytes))
				tp = out
			}
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(c.want))
			e.get(tp, got)
			bad := 0
			for i := range got {
				if got[i] != c.want[i] {
					if bad < 4 {
						t.Errorf("byte %d = %#02x, the H100 put %#02x", i, got[i], c.want[i])
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d bytes differ", bad, len(got))
			}
		})
	}
}

// tmapSpec describes a tiled tensor map: the control word's type code,
// the element size, dimensions, box, element strides (nil: 1), swizzle and
// the NaN fill.
type tmapSpec struct {
	code, esize uint32
	dims        []uint64
	box, estr   []uint32
	swizzle     uint32 // 0 none, 1 32B, 2 64B, 3 128B
	nan         bool
}

// strides are the dense byte strides of dimensions 1.., each rounded up
// to 16 as record.cu makes them.
func (s tmapSpec) strides() []uint64 {
	var out []uint64
	st := s.dims[0] * uint64(s.esize)
	for i := 1; i < len(s.dims); i++ {
		st = (st + 15) &^ 15
		out = append(out, st)
		st *= s.dims[i]
	}
	return out
}

// encode makes the map with soft's encoder (tensormap.EncodeTiled's), which
// writes the H100 driver's bytes (tensormap_test.go).
func (s tmapSpec) encode(t *testing.T, d *Driver, addr rt.DevPtr) []byte {
	t.Helper()
	types := map[uint32]tensormap.DataType{0: tensormap.Uint8, 1: tensormap.Uint16, 2: tensormap.Uint32, 6: tensormap.Float16,
		7: tensormap.Float32, 9: tensormap.Float64, 10: tensormap.BFloat16}
	tt := tensormap.Tiled{DataType: types[s.code], Addr: uint64(addr), Dims: s.dims, Strides: s.strides(), Box: s.box,
		ElementStrides: s.estr, Swizzle: tensormap.Swizzle(s.swizzle)}
	if s.nan {
		tt.OOBFill = tensormap.OOBFillNaNRequestZeroFMA
	}
	m, err := tensormap.EncodeTiled(d, tt)
	if err != nil {
		t.Fatal(err)
	}
	b := m.Bytes()
	return b[:]
}

var recordedSpecs = map[string]tmapSpec{
	"f32_inside":     {7, 4, []uint64{40, 24}, []uint32{16, 8}, nil, 0, false},
	"f32_oob_zero":   {7, 4, []uint64{40, 24}, []uint32{16, 8}, nil, 0, false},
	"f32_oob_nan":    {7, 4, []uint64{40, 24}, []uint32{16, 8}, nil, 0, true},
	"f16_oob_nan":    {6, 2, []uint64{64, 16}, []uint32{16, 4}, nil, 0, true},
	"bf16_oob_nan":   {10, 2, []uint64{64, 16}, []uint32{16, 4}, nil, 0, true},
	"f64_oob_nan":    {9, 8, []uint64{16, 8}, []uint32{8, 4}, nil, 0, true},
	"u16_swz128":     {1, 2, []uint64{128, 16}, []uint32{64, 8}, nil, 3, false},
	"u16_swz64":      {1, 2, []uint64{128, 16}, []uint32{32, 8}, nil, 2, false},
	"u16_swz32":      {1, 2, []uint64{128, 16}, []uint32{16, 8}, nil, 1, false},
	"u16_swz128_oob": {1, 2, []uint64{100, 16}, []uint32{64, 16}, nil, 3, false},
}

// TestTMASpecs: the specs of the recorded cases encode to the driver's
// maps, so refBox and the shapes below describe what the H100 ran.
func TestTMASpecs(t *testing.T) {
	e := newEnv(t, Options{})
	for _, c := range readTMACases(t) {
		s, ok := recordedSpecs[c.name]
		if !ok {
			continue
		}
		got := s.encode(t, e.d, rt.DevPtr(binary.LittleEndian.Uint64(c.tmap)))
		if string(got) != string(c.tmap) {
			t.Errorf("%s: encoded %x\nthe driver: %x", c.name, got, c.tmap)
		}
	}
}

// refBox is the box a tile load of s at coords reads from tensor (no
// swizzle): elements innermost first, stepping by the element strides
// (dimension 0 by 1), outside the tensor zero or 0x7ff7 per 16 bits.
func refBox(tensor []byte, s tmapSpec, coords []int32) []byte {
	rank := len(s.dims)
	strides := append([]uint64{uint64(s.esize)}, s.strides()...)
	n := make([]int, rank)
	total := 1
	for i := range n {
		e := uint32(1)
		if s.estr != nil && i > 0 {
			e = s.estr[i]
		}
		n[i] = int((s.box[i] + e - 1) / e)
		total *= n[i]
	}
	out := make([]byte, 0, total*int(s.esize))
	for idx := 0; idx < total; idx++ {
		rem, inside, off := idx, true, uint64(0)
		for i := 0; i < rank; i++ {
			k := rem % n[i]
			rem /= n[i]
			e := int64(1)
			if s.estr != nil && i > 0 {
				e = int64(s.estr[i])
			}
			x := int64(coords[i]) + int64(k)*e
			if x < 0 || x >= int64(s.dims[i]) {
				inside = false
			}
			off += uint64(x) * strides[i]
		}
		for j := uint64(0); j < uint64(s.esize); j++ {
			switch {
			case inside:
				out = append(out, tensor[off+j])
			case s.nan:
				out = append(out, [2]byte{0xf7, 0x7f}[j%2])
			default:
				out = append(out, 0)
			}
		}
	}
	return out
}

// TestTMAShapes: loads of the shapes the H100 recording lacks — 1-D,
// 3-D and 5-D boxes across the tensor's edges and element strides (TMA
// reads ceil(box/stride) elements in each dimension but the first, as
// CUDA's documentation of cuTensorMapEncodeTiled says) — through maps
// soft's encoder made, against refBox, and refBox itself against the
// recorded 2-D loads.
func TestTMAShapes(t *testing.T) {
	e := newEnv(t, Options{})
	load := e.kernel(e.load("async/tma.ptx"), "tmaLoad")
	tensor := make([]byte, 1<<16)
	for i := range tensor {
		tensor[i] = byte(i*7 + 3)
	}
	tp := e.buf(tensor)
	for _, c := range readTMACases(t) {
		if s, ok := recordedSpecs[c.name]; ok && s.swizzle == 0 {
			if got := refBox(tensor, s, c.coords); string(got) != string(c.want) {
				t.Errorf("refBox disagrees with the H100 for %s", c.name)
			}
		}
	}
	for _, c := range []struct {
		name   string
		s      tmapSpec
		coords []int32
	}{
		{"f32_1d", tmapSpec{7, 4, []uint64{100}, []uint32{32}, nil, 0, false}, []int32{80}},
		{"f32_3d", tmapSpec{7, 4, []uint64{16, 4, 6}, []uint32{8, 2, 3}, nil, 0, false}, []int32{4, 3, 4}},
		{"u8_3d", tmapSpec{0, 1, []uint64{32, 4, 6}, []uint32{16, 2, 3}, nil, 0, false}, []int32{8, 3, 4}},
		{"u32_5d", tmapSpec{2, 4, []uint64{8, 2, 2, 2, 3}, []uint32{4, 2, 1, 2, 2}, nil, 0, false}, []int32{4, 0, 1, -1, 2}},
		{"u32_estr12", tmapSpec{2, 4, []uint64{64, 32}, []uint32{16, 8}, []uint32{1, 2}, 0, false}, []int32{4, 3}},
		{"u32_estr23", tmapSpec{2, 4, []uint64{64, 32}, []uint32{16, 8}, []uint32{2, 3}, 0, false}, []int32{4, 27}},
		{"f64_5d_nan", tmapSpec{9, 8, []uint64{2, 3, 2, 2, 2}, []uint32{2, 2, 2, 2, 2}, nil, 0, true}, []int32{0, 2, -1, 1, 0}},
	} {
		want := refBox(tensor, c.s, c.coords)
		out := e.buf(make([]byte, len(want)))
		m := c.s.encode(t, e.d, tp)
		if err := e.launchEx(load, rt.D1(1), rt.D1(128), rt.Dim3{}, 0, tmaParams(m, true, len(c.s.dims), c.coords, out, len(want))); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got := make([]byte, len(want))
		e.get(out, got)
		if string(got) != string(want) {
			t.Errorf("%s: the box differs from the reference:\n got %x\nwant %x", c.name, got, want)
		}
	}
}

// TestTMAStore: a tile store writes the box's elements inside the tensor
// and nothing outside it.
func TestTMAStore(t *testing.T) {
	e := newEnv(t, Options{})
	store := e.kernel(e.load("async/tma.ptx"), "tmaStore")
	s := tmapSpec{2, 4, []uint64{40, 12}, []uint32{16, 8}, nil, 0, false}
	tensor := make([]uint32, 40*12)
	for i := range tensor {
		tensor[i] = 0xAAAAAAAA
	}
	tp := e.buf(tensor)
	in := make([]uint32, 128)
	for i := range in {
		in[i] = uint32(i*5 + 1)
	}
	m := s.encode(t, e.d, tp)
	if err := e.launchEx(store, rt.D1(1), rt.D1(128), rt.Dim3{}, 0, tmaParams(m, false, 2, []int32{32, 8}, e.buf(in), 512)); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, 40*12)
	e.get(tp, got)
	want := make([]uint32, 40*12)
	for i := range want {
		want[i] = 0xAAAAAAAA
	}
	for y := 0; y < 8; y++ {
		for x := 0; x < 16; x++ {
			if 32+x < 40 && 8+y < 12 {
				want[(8+y)*40+32+x] = in[y*16+x]
			}
		}
	}
	compareWords(t, "tensor", got, want)
}
