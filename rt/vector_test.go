package rt_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

type putter interface{ Put(b []byte) }

// TestVectorPut checks every vector type's Put against encoding/binary's
// little-endian encoding of the Go value (blank alignment fields encode as
// nothing), for components built by the Make function.
func TestVectorPut(t *testing.T) {
	if len(vectorTypes) != 48 {
		t.Fatalf("%d vector types, want 12 element types × 4", len(vectorTypes))
	}
	for _, vt := range vectorTypes {
		typ := reflect.TypeOf(vt.zero)
		n := 0
		for i := range typ.NumField() {
			if typ.Field(i).Name != "_" {
				n++
			}
		}
		// Components with every byte distinct and the sign bit set where signed.
		comps := []float64{-2, 3, -5, 7}[:n]
		v := vt.make(comps)
		want := new(bytes.Buffer)
		if err := binary.Write(want, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
		if want.Len() != int(typ.Size()) {
			t.Errorf("%s: %d encoded bytes, size %d: padding in the Go type", typ.Name(), want.Len(), typ.Size())
		}
		got := make([]byte, typ.Size()+1)
		got[len(got)-1] = 0xAA
		v.Put(got)
		if !bytes.Equal(got[:typ.Size()], want.Bytes()) || got[len(got)-1] != 0xAA {
			t.Errorf("%s.Put = % x, want % x (and the next byte untouched)", typ.Name(), got, want.Bytes())
		}
		// The fields are the Make arguments, in order.
		rv := reflect.ValueOf(v)
		k := 0
		for i := range typ.NumField() {
			if typ.Field(i).Name == "_" {
				continue
			}
			f := rv.Field(i)
			var c float64
			switch f.Kind() {
			case reflect.Float32, reflect.Float64:
				c = f.Float()
			case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				c = float64(f.Int())
			default:
				c = float64(int64(f.Uint()) << (64 - 8*f.Type().Size()) >> (64 - 8*f.Type().Size()))
			}
			if c != comps[k] {
				t.Errorf("%s.%s = %v, want %v", typ.Name(), typ.Field(i).Name, c, comps[k])
			}
			k++
		}
	}
}

func TestVectorLayouts(t *testing.T) {
	for _, c := range []struct {
		v           any
		size, align uintptr
	}{
		{rt.Char3{}, 3, 1}, {rt.Char2{}, 2, 2}, {rt.Char4{}, 4, 4}, {rt.Short4{}, 8, 8},
		{rt.Float3{}, 12, 4}, {rt.Float4{}, 16, 8}, {rt.Int2{}, 8, 8}, {rt.Double4{}, 32, 8},
		{rt.Long3{}, 24, 8}, {rt.Half2{}, 4, 4}, {rt.BFloat162{}, 4, 4}, {rt.Int128{}, 16, 8},
		{rt.Dim3{}, 12, 4},
	} {
		typ := reflect.TypeOf(c.v)
		if typ.Size() != c.size || uintptr(typ.Align()) != c.align {
			t.Errorf("%s: size %d align %d, want %d, %d", typ.Name(), typ.Size(), typ.Align(), c.size, c.align)
		}
	}
}

func TestScalarPut(t *testing.T) {
	b := make([]byte, 16)
	rt.Dim3{X: 1, Y: 0, Z: 0x01020304}.Put(b)
	if want := []byte{1, 0, 0, 0, 0, 0, 0, 0, 4, 3, 2, 1}; !bytes.Equal(b[:12], want) {
		t.Errorf("Dim3.Put = % x, want % x (raw components, no Norm)", b[:12], want)
	}
	rt.Int128From(-2).Put(b)
	want := bytes.Repeat([]byte{0xff}, 16)
	want[0] = 0xfe
	if !bytes.Equal(b, want) {
		t.Errorf("Int128From(-2).Put = % x", b)
	}
	rt.Uint128{Lo: 1, Hi: 1 << 63}.Put(b)
	if binary.LittleEndian.Uint64(b) != 1 || binary.LittleEndian.Uint64(b[8:]) != 1<<63 {
		t.Errorf("Uint128.Put = % x", b)
	}
	rt.Half2From(1, -2).Put(b)
	if want := []byte{0x00, 0x3c, 0x00, 0xc0}; !bytes.Equal(b[:4], want) {
		t.Errorf("Half2From(1, -2).Put = % x, want % x", b[:4], want)
	}
	rt.BFloat162From(1, -2).Put(b)
	if want := []byte{0x80, 0x3f, 0x00, 0xc0}; !bytes.Equal(b[:4], want) {
		t.Errorf("BFloat162From(1, -2).Put = % x, want % x", b[:4], want)
	}
}

func TestPutDoesNotAllocate(t *testing.T) {
	var b [32]byte
	v := rt.MakeFloat4(1, 2, 3, 4)
	h := rt.Half2From(1, 2)
	if n := testing.AllocsPerRun(100, func() {
		v.Put(b[:])
		h.Put(b[16:])
		rt.MakeDouble4(1, 2, 3, 4).Put(b[:])
	}); n != 0 {
		t.Errorf("Put allocates %v times", n)
	}
}

func TestPutPanicsOnShortBuffer(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Float4.Put into 15 bytes did not panic")
		}
	}()
	rt.Float4{}.Put(make([]byte, 15))
}

func TestConstPtr(t *testing.T) {
	p := rt.PtrOf[float32](0x1000)
	c := p.Const()
	if c.Addr() != 0x1000 || c.Add(3) != 0x100c || c.IsNil() || c.String() != "0x1000" {
		t.Errorf("ConstPtr %v, Add(3) %v", c, c.Add(3))
	}
	if rt.Ptr[float32](c) != p {
		t.Error("explicit conversion back does not round-trip")
	}
	if unsafe.Sizeof(c) != 8 {
		t.Errorf("ConstPtr is %d bytes", unsafe.Sizeof(c))
	}
}

func TestHalfKnownValues(t *testing.T) {
	for _, c := range []struct {
		f    float32
		bits uint16
	}{
		{0, 0x0000}, {float32(math.Copysign(0, -1)), 0x8000}, {1, 0x3c00}, {-2, 0xc000},
		{0.1, 0x2e66}, {1.0 / 3, 0x3555}, {65504, 0x7bff}, {65519.996, 0x7bff},
		{65520, 0x7c00}, // halfway to 65536: ties to even, which is Inf
		{1e9, 0x7c00}, {float32(math.Inf(-1)), 0xfc00},
		{0x1p-14, 0x0400}, {0x1p-24, 0x0001}, {1023 * 0x1p-24, 0x03ff},
		{0x1p-25, 0x0000},              // exactly half the smallest subnormal: ties to even, 0
		{0x1.000002p-25, 0x0001},       // just above: rounds up
		{3 * 0x1p-25, 0x0002},          // 1.5 subnormal ulps: ties to even, 2
		{1 + 0x1p-11, 0x3c00},          // tie between 1 and 1+2^-10: even is 1
		{1 + 3*0x1p-11, 0x3c02},        // tie between 1+2^-10 and 1+2^-9: even is 1+2^-9
		{float32(0x1p-140), 0x0000},    // a float32 subnormal
		{-1023.5 * 0x1p-24, 0x8400},    // rounds up into the smallest normal
		{2049, 0x6800}, {2051, 0x6802}, // ties at integers of spacing 2
	} {
		if got := rt.HalfFrom(c.f); uint16(got) != c.bits {
			t.Errorf("HalfFrom(%g) = %#04x, want %#04x", c.f, uint16(got), c.bits)
		}
	}
	nan := rt.HalfFrom(float32(math.NaN()))
	if !math.IsNaN(float64(nan.Float32())) || nan&0x0200 == 0 {
		t.Errorf("HalfFrom(NaN) = %#04x, not a quiet NaN", uint16(nan))
	}
	if f := rt.Half(0x0001).Float32(); f != 0x1p-24 {
		t.Errorf("Half(1).Float32() = %g", f)
	}
	if f := rt.Half(0x7bff).Float32(); f != 65504 {
		t.Errorf("Half(0x7bff).Float32() = %g", f)
	}
}

// TestHalfRoundsToNearestEven checks every pair of adjacent finite halves: the
// exact midpoint rounds to the even one, and the float32 values just either
// side of it round to the nearer one. Every half converts to float32 and back
// unchanged.
func TestHalfRoundsToNearestEven(t *testing.T) {
	for bits := range 0x7c00 { // positive finite halves; the sign is symmetric
		for _, sign := range []uint16{0, 0x8000} {
			h := rt.Half(uint16(bits) | sign)
			if back := rt.HalfFrom(h.Float32()); back != h {
				t.Fatalf("Half %#04x → %g → %#04x", uint16(h), h.Float32(), uint16(back))
			}
		}
		lo, hi := rt.Half(bits), rt.Half(bits+1) // hi may be Inf
		mid := float32((float64(lo.Float32()) + float64(hi.Float32())) / 2)
		if bits == 0x7bff {
			mid = 65520 // Inf has no value to average with
		}
		even := lo
		if lo&1 == 1 {
			even = hi
		}
		if got := rt.HalfFrom(mid); got != even {
			t.Fatalf("HalfFrom(%g), the midpoint of %#04x and %#04x = %#04x, want %#04x", mid, uint16(lo), uint16(hi), uint16(got), uint16(even))
		}
		if got := rt.HalfFrom(math.Nextafter32(mid, 0)); got != lo {
			t.Fatalf("HalfFrom(just below %g) = %#04x, want %#04x", mid, uint16(got), uint16(lo))
		}
		if got := rt.HalfFrom(math.Nextafter32(mid, 1e6)); got != hi {
			t.Fatalf("HalfFrom(just above %g) = %#04x, want %#04x", mid, uint16(got), uint16(hi))
		}
	}
}

func TestBFloat16(t *testing.T) {
	for _, c := range []struct {
		f    float32
		bits uint16
	}{
		{1, 0x3f80}, {-2, 0xc000}, {3.14159265, 0x4049}, {1 + 0x1p-8, 0x3f80}, {1 + 3*0x1p-8, 0x3f82},
		{math.MaxFloat32, 0x7f80}, {0x1p-133, 0x0001}, {float32(math.Inf(-1)), 0xff80},
	} {
		if got := rt.BFloat16From(c.f); uint16(got) != c.bits {
			t.Errorf("BFloat16From(%g) = %#04x, want %#04x", c.f, uint16(got), c.bits)
		}
	}
	if nan := rt.BFloat16From(float32(math.NaN())); !math.IsNaN(float64(nan.Float32())) {
		t.Errorf("BFloat16From(NaN) = %#04x", uint16(nan))
	}
	// A signalling NaN whose payload lies only in the dropped bits stays a NaN.
	if nan := rt.BFloat16From(math.Float32frombits(0x7f800001)); !math.IsNaN(float64(nan.Float32())) {
		t.Errorf("BFloat16From(sNaN) = %#04x, not a NaN", uint16(nan))
	}
	for bits := range 0x7f80 {
		lo, hi := rt.BFloat16(bits), rt.BFloat16(bits+1)
		if back := rt.BFloat16From(lo.Float32()); back != lo {
			t.Fatalf("BFloat16 %#04x does not round-trip", bits)
		}
		if bits == 0x7f7f {
			continue // the midpoint to Inf is not a float32
		}
		mid := float32((float64(lo.Float32()) + float64(hi.Float32())) / 2)
		even := lo
		if lo&1 == 1 {
			even = hi
		}
		if got := rt.BFloat16From(mid); got != even {
			t.Fatalf("BFloat16From(%g) = %#04x, want %#04x", mid, uint16(got), uint16(even))
		}
		if got := rt.BFloat16From(math.Nextafter32(mid, 0)); got != lo {
			t.Fatalf("BFloat16From(just below %g) = %#04x, want %#04x", mid, uint16(got), uint16(lo))
		}
		if got := rt.BFloat16From(math.Nextafter32(mid, float32(math.Inf(1)))); got != hi {
			t.Fatalf("BFloat16From(just above %g) = %#04x, want %#04x", mid, uint16(got), uint16(hi))
		}
	}
}
