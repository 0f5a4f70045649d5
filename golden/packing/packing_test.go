// Package packing checks that generated launch functions pack exactly the
// bytes the PTX parameter layout dictates. It runs the golden packages for
// types.cu (golden/testdata/types and types_typemap) against rttest.Fake and
// compares every recorded parameter byte with a buffer built independently:
// offsets from the PTX .param declarations (read here with a regular
// expression, not cugen's parser, and cross-checked against nvcc's own
// EIATTR_KPARAM_INFO in golden/src/types.elf.txt), values encoded by hand at
// their C++ field offsets. It lives apart from package golden so that
// go test ./golden -update works while a golden package does not compile.
package packing

import (
	"encoding/binary"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cugen/cugen/golden/testdata/gotypes"
	"github.com/cugen/cugen/golden/testdata/types"
	typesrc "github.com/cugen/cugen/golden/testdata/types_src"
	typemap "github.com/cugen/cugen/golden/testdata/types_typemap"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/rttest"
)

type param struct{ off, size int }

var (
	entryRE = regexp.MustCompile(`(?s)\.entry\s+(\w+)\s*\((.*?)\)`)
	paramRE = regexp.MustCompile(`\.param\s+(?:\.align\s+(\d+)\s+)?\.([a-z]+)(\d+)\s+\w+(?:\[(\d+)\])?`)
	infoRE  = regexp.MustCompile(`Ordinal : 0x([0-9a-f]+)\s+Offset  : 0x([0-9a-f]+)\s+Size    : 0x([0-9a-f]+)`)
)

// layouts reads each kernel's parameter offsets and sizes from the PTX.
func layouts(t *testing.T) map[string][]param {
	data, err := os.ReadFile("../testdata/types/types.ptx")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]param{}
	for _, e := range entryRE.FindAllStringSubmatch(string(data), -1) {
		var ps []param
		off := 0
		for _, m := range paramRE.FindAllStringSubmatch(e[2], -1) {
			bits, _ := strconv.Atoi(m[3])
			elem := bits / 8
			size, align := elem, elem
			if m[4] != "" {
				n, _ := strconv.Atoi(m[4])
				size = elem * n
			}
			if m[1] != "" {
				align, _ = strconv.Atoi(m[1])
			}
			off = (off + align - 1) / align * align
			ps = append(ps, param{off, size})
			off += size
		}
		out[e[1]] = ps
	}
	return out
}

// TestLayoutsMatchNVCC cross-checks the PTX-derived layouts with the
// parameter info nvcc wrote into the cubin.
func TestLayoutsMatchNVCC(t *testing.T) {
	data, err := os.ReadFile("../src/types.elf.txt")
	if err != nil {
		t.Fatal(err)
	}
	ls := layouts(t)
	sections := strings.Split(string(data), "\n.nv.info.")
	checked := 0
	for _, s := range sections[1:] {
		name, body, _ := strings.Cut(s, "\n")
		want, ok := ls[name]
		if !ok {
			t.Errorf("kernel %s is in the cubin but not in the PTX", name)
			continue
		}
		got := make([]param, len(want))
		for _, m := range infoRE.FindAllStringSubmatch(body, -1) {
			ord, _ := strconv.ParseInt(m[1], 16, 32)
			off, _ := strconv.ParseInt(m[2], 16, 32)
			size, _ := strconv.ParseInt(m[3], 16, 32)
			if int(ord) < len(got) {
				got[ord] = param{int(off), int(size)}
			}
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s parameter %d: PTX says %+v, nvcc's cubin %+v", name, i, want[i], got[i])
			}
		}
		checked++
	}
	if checked != 16 || len(ls) != 16 {
		t.Errorf("checked %d of the PTX's %d kernels, want 16", checked, len(ls))
	}
}

// buf builds the expected parameter buffer of a kernel.
type buf struct {
	t  *testing.T
	ps []param
	b  []byte
}

func newBuf(t *testing.T, kernel string) *buf {
	ps := layouts(t)[kernel]
	if len(ps) == 0 {
		t.Fatalf("no kernel %s in the PTX", kernel)
	}
	last := ps[len(ps)-1]
	return &buf{t: t, ps: ps, b: make([]byte, last.off+last.size)}
}

// at returns parameter i's bytes, checking that the value written is its size.
func (b *buf) at(i, size int) []byte {
	if b.ps[i].size != size {
		b.t.Fatalf("parameter %d is %d bytes in the PTX, the test writes %d", i, b.ps[i].size, size)
	}
	return b.b[b.ps[i].off:]
}

func (b *buf) u8(i int, vs ...uint8) {
	p := b.at(i, len(vs))
	copy(p, vs)
}
func (b *buf) u16(i int, vs ...uint16) {
	p := b.at(i, 2*len(vs))
	for j, v := range vs {
		binary.LittleEndian.PutUint16(p[2*j:], v)
	}
}
func (b *buf) u32(i int, vs ...uint32) {
	p := b.at(i, 4*len(vs))
	for j, v := range vs {
		binary.LittleEndian.PutUint32(p[4*j:], v)
	}
}
func (b *buf) u64(i int, vs ...uint64) {
	p := b.at(i, 8*len(vs))
	for j, v := range vs {
		binary.LittleEndian.PutUint64(p[8*j:], v)
	}
}
func f32(v float32) uint32 { return math.Float32bits(v) }
func f64(v float64) uint64 { return math.Float64bits(v) }

// params writes Params{scale, count, offset} at its C++ field offsets 0, 4, 8.
func (b *buf) params(i int, scale float32, count int32, offset float64) {
	p := b.at(i, 16)
	binary.LittleEndian.PutUint32(p[0:], f32(scale))
	binary.LittleEndian.PutUint32(p[4:], uint32(count))
	binary.LittleEndian.PutUint64(p[8:], f64(offset))
}

var kernelNames = []string{
	"_Z5pairs4PairIfES_IdE6Params4BitsPS2_Pf",
	"_Z7vectors5char15char25char35char46uchar46short24int24int34int45uint36float26float36float47double29longlong24dim3Pf",
	"_Z6halves6__half7__half213__nv_bfloat1614__nv_bfloat162PS_Pf",
	"cvecAdd",
	"_Z5enums5Color4Mode4WidePi",
	"_Z4widenoPn",
}

// allKernels are the names the fake resolves: every kernel of the library,
// since loading looks each declared kernel up.
func allKernels(t *testing.T) []string {
	var names []string
	for name := range layouts(t) {
		names = append(names, name)
	}
	return names
}

func launch(t *testing.T, f func(rt.Config) error) []byte {
	t.Helper()
	fake := &rttest.Fake{Kernels: allKernels(t), Record: true}
	devs, err := rt.DevicesOf(fake)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		t.Fatal(err)
	}
	if err := f(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: ctx.NullStream()}); err != nil {
		t.Fatal(err)
	}
	if len(fake.Launches) != 1 {
		t.Fatalf("%d launches", len(fake.Launches))
	}
	return fake.Launches[0].Params
}

func compare(t *testing.T, got []byte, want *buf) {
	t.Helper()
	if len(got) != len(want.b) {
		t.Fatalf("%d parameter bytes, the PTX has %d", len(got), len(want.b))
	}
	for i := range got {
		if got[i] != want.b[i] {
			t.Errorf("byte %d: %#02x, want %#02x\ngot  % x\nwant % x", i, got[i], want.b[i], got, want.b)
			return
		}
	}
}

func TestPairsMapped(t *testing.T) {
	want := newBuf(t, kernelNames[0])
	want.u32(0, f32(1.5), f32(-2.5))
	want.u64(1, f64(3.25), f64(-4.75))
	want.params(2, 0.5, -7, 1e10)
	want.u32(3, 0xdeadbeef)
	want.u64(4, 0x1000)
	want.u64(5, 0x2000)
	var bits typemap.Bits // the union stays opaque
	binary.LittleEndian.PutUint32(bits.Bytes(), 0xdeadbeef)
	got := launch(t, func(cfg rt.Config) error {
		return typemap.Pairs(cfg, gotypes.PairF32{First: 1.5, Second: -2.5}, gotypes.PairF64{First: 3.25, Second: -4.75},
			gotypes.Params{Scale: 0.5, Count: -7, Offset: 1e10}, bits, 0x1000, 0x2000)
	})
	compare(t, got, want)
}

func TestPairsOpaque(t *testing.T) {
	want := newBuf(t, kernelNames[0])
	want.u32(0, f32(1.5), f32(-2.5))
	want.u64(1, f64(3.25), f64(-4.75))
	want.params(2, 0.5, -7, 1e10)
	want.u32(3, 0xdeadbeef)
	want.u64(4, 0x1000)
	want.u64(5, 0x2000)
	var p types.PairFloat32
	var q types.PairFloat64
	var prm types.Params
	var bits types.Bits
	copy(p.Bytes(), want.at(0, 8))
	copy(q.Bytes(), want.at(1, 16))
	copy(prm.Bytes(), want.at(2, 16))
	copy(bits.Bytes(), want.at(3, 4))
	got := launch(t, func(cfg rt.Config) error { return types.Pairs(cfg, p, q, prm, bits, 0x1000, 0x2000) })
	compare(t, got, want)
}

// With -src, the structs are Go structs of their members, packed member
// by member at the C++ offsets.
func TestPairsFromSource(t *testing.T) {
	want := newBuf(t, kernelNames[0])
	want.u32(0, f32(1.5), f32(-2.5))
	want.u64(1, f64(3.25), f64(-4.75))
	want.params(2, 0.5, -7, 1e10)
	want.u32(3, 0xdeadbeef)
	want.u64(4, 0x1000)
	want.u64(5, 0x2000)
	var bits typesrc.Bits // a union: opaque
	binary.LittleEndian.PutUint32(bits.Bytes(), 0xdeadbeef)
	got := launch(t, func(cfg rt.Config) error {
		return typesrc.Pairs(cfg, typesrc.PairFloat32{First: 1.5, Second: -2.5}, typesrc.PairFloat64{First: 3.25, Second: -4.75},
			typesrc.Params{Scale: 0.5, Count: -7, Offset: 1e10}, bits, 0x1000, 0x2000)
	})
	compare(t, got, want)

	want = newBuf(t, "cvecAdd")
	want.u64(0, 0x10)
	want.u64(1, 0x20)
	want.u64(2, 0x30)
	want.u32(3, uint32(0xfffffffb)) // -5
	want.params(4, 2, 3, -1.5)
	got = launch(t, func(cfg rt.Config) error {
		return typesrc.CvecAdd(cfg, 0x10, 0x20, 0x30, -5, typesrc.Params{Scale: 2, Count: 3, Offset: -1.5})
	})
	compare(t, got, want)
}

func TestVectors(t *testing.T) {
	want := newBuf(t, kernelNames[1])
	want.u8(0, 0xff)                                                // char1{-1}
	want.u8(1, 0xfe, 0x02)                                          // char2{-2, 2}
	want.u8(2, 0x01, 0x02, 0x03)                                    // char3
	want.u8(3, 0x04, 0x05, 0x06, 0x80)                              // char4, w = -128
	want.u8(4, 0xa0, 0xa1, 0xa2, 0xa3)                              // uchar4
	want.u16(5, 0xfff0, 0x7fff)                                     // short2{-16, 32767}
	want.u32(6, 0xffffffff, 7)                                      // int2{-1, 7}
	want.u32(7, 1, 2, 3)                                            // int3
	want.u32(8, 4, 5, 6, 0x80000000)                                // int4, w = MinInt32
	want.u32(9, 10, 11, 12)                                         // uint3
	want.u32(10, f32(0.25), f32(-0.5))                              // float2
	want.u32(11, f32(1), f32(2), f32(3))                            // float3
	want.u32(12, f32(4), f32(5), f32(6), f32(float32(math.Inf(1)))) // float4
	want.u64(13, f64(1e-300), f64(-1e300))                          // double2
	want.u64(14, 0x8000000000000000, 0x0102030405060708)            // longlong2
	want.u32(15, 0, 1, 0x10000)                                     // dim3: raw components, 0 stays 0
	want.u64(16, 0x3000)
	got := launch(t, func(cfg rt.Config) error {
		return types.Vectors(cfg, rt.Char1{X: -1}, rt.MakeChar2(-2, 2), rt.Char3{X: 1, Y: 2, Z: 3}, rt.MakeChar4(4, 5, 6, -128),
			rt.MakeUchar4(0xa0, 0xa1, 0xa2, 0xa3), rt.MakeShort2(-16, 32767), rt.MakeInt2(-1, 7), rt.Int3{X: 1, Y: 2, Z: 3},
			rt.MakeInt4(4, 5, 6, math.MinInt32), rt.Uint3{X: 10, Y: 11, Z: 12}, rt.MakeFloat2(0.25, -0.5), rt.Float3{X: 1, Y: 2, Z: 3},
			rt.MakeFloat4(4, 5, 6, float32(math.Inf(1))), rt.MakeDouble2(1e-300, -1e300), rt.MakeLonglong2(math.MinInt64, 0x0102030405060708),
			rt.Dim3{X: 0, Y: 1, Z: 0x10000}, 0x3000)
	})
	compare(t, got, want)
}

func TestHalves(t *testing.T) {
	want := newBuf(t, kernelNames[2])
	want.u16(0, 0x3e00)         // __half 1.5
	want.u16(1, 0x3c00, 0xc000) // __half2 {1, -2}
	want.u16(2, 0x4040)         // __nv_bfloat16 3
	want.u16(3, 0x3f00, 0xbf80) // __nv_bfloat162 {0.5, -1}
	want.u64(4, 0x4000)
	want.u64(5, 0x5000)
	got := launch(t, func(cfg rt.Config) error {
		return typemap.Halves(cfg, rt.HalfFrom(1.5), rt.Half2From(1, -2), rt.BFloat16From(3), rt.BFloat162From(0.5, -1), 0x4000, 0x5000)
	})
	compare(t, got, want)
}

func TestCvecAdd(t *testing.T) {
	want := newBuf(t, "cvecAdd")
	want.u64(0, 0x10)
	want.u64(1, 0x20)
	want.u64(2, 0x30)
	want.u32(3, uint32(0xfffffffb)) // -5
	want.params(4, 2, 3, -1.5)
	a := rt.PtrOf[float32](0x10)
	got := launch(t, func(cfg rt.Config) error {
		return typemap.CvecAdd(cfg, a.Const(), rt.ConstPtr[float32](0x20), 0x30, -5, gotypes.Params{Scale: 2, Count: 3, Offset: -1.5})
	})
	compare(t, got, want)

	// Without -src: PTX widths and an opaque aggregate, the same bytes.
	var p types.CvecAddParam4
	copy(p.Bytes(), want.at(4, 16))
	got = launch(t, func(cfg rt.Config) error { return types.CvecAdd(cfg, 0x10, 0x20, 0x30, 0xfffffffb, p) })
	compare(t, got, want)
}

func TestEnumsAndWide(t *testing.T) {
	want := newBuf(t, kernelNames[4])
	want.u32(0, 2)
	want.u8(1, 0xfe)
	want.u64(2, 1<<40)
	want.u64(3, 0x6000)
	got := launch(t, func(cfg rt.Config) error { return typemap.Enums(cfg, 2, 0xfe, 1<<40, 0x6000) })
	compare(t, got, want)

	want = newBuf(t, kernelNames[5])
	want.u64(0, 0xfffffffffffffffe, 0xffffffffffffffff) // __int128 -2
	want.u64(1, 1, 1<<63)                               // unsigned __int128
	want.u64(2, 0x7000)
	got = launch(t, func(cfg rt.Config) error {
		return typemap.Wide(cfg, rt.Int128From(-2), rt.Uint128{Lo: 1, Hi: 1 << 63}, 0x7000)
	})
	compare(t, got, want)
}

// TestPackingDoesNotAllocate: mapped structs are copied by value through an
// unsafe byte view, structs of members member by member, vectors through
// Put; none allocates.
func TestPackingDoesNotAllocate(t *testing.T) {
	fake := &rttest.Fake{Kernels: allKernels(t)}
	devs, err := rt.DevicesOf(fake)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		t.Fatal(err)
	}
	cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: ctx.NullStream()}
	prm := gotypes.Params{Scale: 1, Count: 2, Offset: 3}
	var bits typemap.Bits
	f4 := rt.MakeFloat4(1, 2, 3, 4)
	run := func() {
		if err := typemap.Pairs(cfg, gotypes.PairF32{}, gotypes.PairF64{}, prm, bits, 0, 0); err != nil {
			t.Fatal(err)
		}
		if err := typemap.CvecAdd(cfg, 0, 0, 0, 1, prm); err != nil {
			t.Fatal(err)
		}
		if err := typesrc.Pairs(cfg, typesrc.PairFloat32{First: 1}, typesrc.PairFloat64{Second: 2}, typesrc.Params{Count: 3}, typesrc.Bits{}, 0, 0); err != nil {
			t.Fatal(err)
		}
		if err := typemap.Vectors(cfg, rt.Char1{}, rt.Char2{}, rt.Char3{}, rt.Char4{}, rt.Uchar4{}, rt.Short2{}, rt.Int2{}, rt.Int3{}, rt.Int4{},
			rt.Uint3{}, rt.Float2{}, rt.Float3{}, f4, rt.Double2{}, rt.Longlong2{}, rt.Dim3{}, 0); err != nil {
			t.Fatal(err)
		}
	}
	run() // load the library
	if n := testing.AllocsPerRun(200, run); n != 0 {
		t.Errorf("a launch allocates %v times", n)
	}
}
