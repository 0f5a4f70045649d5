package ptx

import (
	"encoding/hex"
	"math"
	"reflect"
	"strings"
	"testing"
)

// parseVar parses one module-scope declaration and returns its variable.
func parseVar(t *testing.T, decl string) *Var {
	t.Helper()
	m, err := Parse("i.ptx", []byte(".version 8.0\n.target sm_90\n.address_size 64\n"+decl+"\n"))
	if err != nil {
		t.Fatalf("%s: %v", decl, err)
	}
	return m.Vars[len(m.Vars)-1]
}

// The expected bytes are worked out by hand from the PTX ISA (Initializers:
// nesting follows the dimensions, short lists leave zeros) and IEEE 754.
var initCases = []struct {
	decl  string
	bytes string // hex, little-endian, up to the last element given
	addrs []InitAddr
}{
	// Integers of every width and sign; literals in every base.
	{".global .u8 a = 200;", "c8", nil},
	{".global .s8 a = -2;", "fe", nil},
	{".global .u16 a = 0x1234;", "3412", nil},
	{".global .s16 a = -1;", "ffff", nil},
	{".global .u16 a = 017;", "0f00", nil},
	{".global .u32 a = 4000000000;", "00286bee", nil},
	{".global .s32 a = -5;", "fbffffff", nil},
	{".global .u32 a = 0b101;", "05000000", nil},
	{".global .b32 a = 0x1FFFFFFFF;", "ffffffff", nil}, // truncated to the width
	{".global .u64 a = 0x0102030405060708;", "0807060504030201", nil},
	{".global .s64 a = -2;", "feffffffffffffff", nil},
	{".global .b128 a = 5;", "05000000000000000000000000000000", nil},
	// .f32 and .f64 from hex, decimal and integer literals.
	{".global .f32 a = 0f3F800000;", "0000803f", nil},
	{".global .f32 a = 0f7FC00001;", "0100c07f", nil}, // NaN payload kept
	{".global .f32 a = 1.5;", "0000c03f", nil},
	{".global .f32 a = -2;", "000000c0", nil},
	{".global .f32 a = 0d3FF0000000000000;", "0000803f", nil},
	{".global .f64 a = 0d3FF8000000000000;", "000000000000f83f", nil},
	{".global .f64 a = 0f3F800000;", "000000000000f03f", nil},
	{".global .f64 a = 0.1;", "9a9999999999b93f", nil},
	{".global .f64 a = 3;", "0000000000000840", nil},
	// .f16 and .bf16: the value rounded to nearest even; integers are bits.
	{".global .f16 a = 0f3F800000;", "003c", nil},
	{".global .f16 a = 1.5;", "003e", nil},
	{".global .f16 a = -0.0;", "0080", nil},
	{".global .f16 a = 0f477FF000;", "007c", nil},         // 65520: the tie above 65504 rounds to +inf
	{".global .f16 a = 0d3E70000000000000;", "0100", nil}, // 2^-24, the least subnormal
	{".global .f16 a = 0f33000000;", "0000", nil},         // 2^-25: the tie rounds to even zero
	{".global .f16 a = 0f7FC00000;", "ff7f", nil},
	{".global .f16 a = 0x3C00;", "003c", nil},
	{".global .bf16 a = 0f3F808000;", "803f", nil}, // 1+2^-8: the tie rounds to even 1.0
	{".global .bf16 a = 0f3F818000;", "823f", nil}, // 1+3·2^-8: the tie rounds to even 1+2^-6
	{".global .bf16 a = 1;", "0100", nil},
	// Packed halves and bit types take a hex literal's bits.
	{".global .f16x2 a = 0f3C004000;", "0040003c", nil},
	{".global .b32 a = 0f3F800000;", "0000803f", nil},
	// Vectors, arrays, partial lists, nesting.
	{".global .v2 .f32 a = {0f3F800000, -1.5};", "0000803f0000c0bf", nil},
	{".global .b8 a[8] = {1, 2, 3};", "010203", nil},
	{".global .f32 a[4] = {};", "", nil},
	{".global .u32 a = {7};", "07000000", nil},
	{".global .u8 a[2][3] = {{1, 2, 3}, {4, 5, 6}};", "010203040506", nil},
	{".global .s32 a[3][2] = {{1, 2}, {3}};", "010000000200000003000000", nil},
	{".global .u8 a[3][2] = {{1}, {2, 3}};", "01000203", nil},
	{".global .u8 a[2][2] = {1, 2, 3, 4};", "01020304", nil},
	{".global .u8 a[2][2] = {1, {2, 3}};", "01000203", nil}, // a braced list starts the next sub-array
	{".global .v2 .u16 a[2] = {{1, 2}, {3}};", "010002000300", nil},
	{".global .u32 a[] = {2, 3, 5};", "020000000300000005000000", nil},
	{".global .s32 a[][2] = {{-1, 0}, {0, -1}, {1, 0}, {0, 1}};",
		"ffffffff0000000000000000ffffffff010000000000000000000000" + "01000000", nil},
	// Addresses: zero bytes, and where the loader puts what.
	{".global .u64 a = generic(g)+8;", "0000000000000000",
		[]InitAddr{{Offset: 0, Size: 8, Sym: "g", Generic: true, Add: 8}}},
	{".global .u32 a[3] = {1, g, g+4};", "010000000000000000000000",
		[]InitAddr{{Offset: 4, Size: 4, Sym: "g"}, {Offset: 8, Size: 4, Sym: "g", Add: 4}}},
	{".global .u8 a[2] = {0xFF00(generic(g)+4), 0xFF(g-1)};", "0000",
		[]InitAddr{{Offset: 0, Size: 1, Sym: "g", Generic: true, Add: 4, Mask: 0xFF00}, {Offset: 1, Size: 1, Sym: "g", Add: -1, Mask: 0xFF}}},
}

func TestInitData(t *testing.T) {
	for _, c := range initCases {
		v := parseVar(t, c.decl)
		d, err := v.InitData()
		if err != nil {
			t.Errorf("%s: %v", c.decl, err)
			continue
		}
		if got := hex.EncodeToString(d.Bytes); got != c.bytes {
			t.Errorf("%s: bytes %s, want %s", c.decl, got, c.bytes)
		}
		for i := range d.Addrs {
			d.Addrs[i].Pos = Pos{}
		}
		if !reflect.DeepEqual(d.Addrs, c.addrs) {
			t.Errorf("%s: addresses %+v, want %+v", c.decl, d.Addrs, c.addrs)
		}
		if size := v.Elems() * v.Type.Size(); len(d.Bytes) > size {
			t.Errorf("%s: %d bytes for a %d-byte variable", c.decl, len(d.Bytes), size)
		}
	}
	if d, err := parseVar(t, ".global .u32 a;").InitData(); d != nil || err != nil {
		t.Errorf("no initializer: %v, %v", d, err)
	}
}

func TestInitAddrValue(t *testing.T) {
	for _, c := range []struct {
		a    InitAddr
		addr uint64
		want uint64
	}{
		{InitAddr{Add: 8}, 0x7f0000001000, 0x7f0000001008},
		{InitAddr{Add: -4}, 0x1000, 0xffc},
		{InitAddr{Add: 4, Mask: 0xFF00}, 0x12345678, 0x56},
		{InitAddr{Mask: 0xFF00000000000000}, 0xAB00000000000000, 0xAB},
	} {
		if got := c.a.Value(c.addr); got != c.want {
			t.Errorf("%+v.Value(%#x) = %#x, want %#x", c.a, c.addr, got, c.want)
		}
	}
	b := make([]byte, 12)
	InitAddr{Offset: 4, Size: 8, Add: 1}.Put(b, 0x0102030405060708)
	if hex.EncodeToString(b) != "000000000907060504030201" {
		t.Errorf("Put: %x", b)
	}
}

func TestInitDataErrors(t *testing.T) {
	for _, c := range []struct{ decl, err string }{
		{".global .u32 a[2] = {1, 2, 3};", "i.ptx:4:28: variable a: too many initializers: the variable holds 2 elements"},
		{".global .u8 a[2][2] = {{1, 2, 3}};", "variable a: too many initializers: a sub-array holds 2 elements"},
		{".global .u32 a = {{1, 2}};", "too many initializers: a braced scalar holds 1 element"},
		{".global .u32 a = 1.5;", "i.ptx:4:18: variable a: a floating-point literal cannot initialize a .u32"},
		{".global .b8 a = 0f3F800000;", "a floating-point literal cannot initialize a .b8"},
		{".global .u8 a = 0xFF0(g);", "mask 0xff0 is not one byte"},
		{".global .u8 a = 0xFFFF(g);", "mask 0xffff is not one byte"},
		{".global .u32 a[][] = {1};", "variable a has no size"},
		{".global .u64 a[2147483647][2147483647][2147483647] = {1};", "variable a has too many elements"},
		{".global .b8 a[2147483647][2147483647] = {{1}, {1}};", "initialized data past 1073741824 bytes"},
		// A zero dimension holds nothing (these divided by zero).
		{".global .b8 a[0][0] = {{}, 0, {}};", "i.ptx:4:24: variable a: too many initializers: the variable holds 0 elements"},
		{".global .b8 a[][0] = {1};", "i.ptx:4:23: variable a: too many initializers: the variable holds 0 elements"},
		// 90 bytes of PTX would make InitData allocate 1 GiB.
		{".global .b8 x[2][1073741000] = {{1},{1}};", "i.ptx:4:38: variable x: this element is at byte 1073741000, more than 64 times the 7 bytes of initializer up to it"},
	} {
		_, err := parseVar(t, c.decl).InitData()
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want %q", c.decl, err, c.err)
		}
	}
}

func TestElems(t *testing.T) {
	for decl, want := range map[string]int{
		".global .u32 a;":                            1,
		".global .v4 .u32 a[3];":                     12,
		".global .u8 a[2][3];":                       6,
		".global .u32 a[] = {2, 3, 5};":              3,
		".global .s32 a[][2] = {{1, 2}, {3}, {4}};":  6,
		".global .s32 a[][2] = {1, 2, 3};":           4,
		".extern .global .u32 a[];":                  -1,
		".global .u64 a[2147483647][2147483647][8];": -1,
	} {
		if got := parseVar(t, decl).Elems(); got != want {
			t.Errorf("%s: Elems() = %d, want %d", decl, got, want)
		}
	}
}

// roundHalf is checked against an independent decoder on every .f16 and
// .bf16 value: each converts to itself, the midpoint between two neighbours
// goes to the even one, and anything past it to the far one.
func TestRoundHalf(t *testing.T) {
	for _, f := range []struct {
		name      string
		man, exp  uint
		t         Type
		maxFinite uint64
	}{{"f16", 10, 5, F16, 0x7bff}, {"bf16", 7, 8, BF16, 0x7f7f}} {
		decode := func(h uint64) float64 {
			e := int(h>>f.man) & (1<<f.exp - 1)
			m := float64(h & (1<<f.man - 1))
			bias := 1<<(f.exp-1) - 1
			if e == 0 {
				return math.Ldexp(m, 1-bias-int(f.man))
			}
			return math.Ldexp(m+float64(uint64(1)<<f.man), e-bias-int(f.man))
		}
		round := func(x float64) uint64 { b, _ := FloatBits(x, 0, 0, f.t); return b }
		sign := uint64(1) << (f.man + f.exp)
		for h := uint64(0); h <= f.maxFinite; h++ {
			x := decode(h)
			if got := round(x); got != h {
				t.Fatalf("%s: %v (%#x) converts to %#x", f.name, x, h, got)
			}
			if got := round(-x); got != h|sign {
				t.Fatalf("%s: %v converts to %#x, want %#x", f.name, -x, got, h|sign)
			}
			var y float64 // the next value up, or the overflow threshold
			if h == f.maxFinite {
				y = math.Ldexp(1, 1<<(f.exp-1)) // 2^(emax+1): the "next" value, infinity
			} else {
				y = decode(h + 1)
			}
			mid := (x + y) / 2
			even := h
			if h&1 == 1 {
				even = h + 1 // for maxFinite, h+1 is the infinity's bits
			}
			if got := round(mid); got != even {
				t.Fatalf("%s: midpoint %v of %#x and %#x converts to %#x, want %#x", f.name, mid, h, h+1, got, even)
			}
			if got := round(math.Nextafter(mid, math.Inf(1))); got != h+1 {
				t.Fatalf("%s: just above %v converts to %#x, want %#x", f.name, mid, got, h+1)
			}
			if got := round(math.Nextafter(mid, 0)); got != h && mid != 0 {
				t.Fatalf("%s: just below %v converts to %#x, want %#x", f.name, mid, got, h)
			}
		}
		if got := round(math.Inf(-1)); got != sign|(f.maxFinite+1) {
			t.Errorf("%s: -Inf converts to %#x", f.name, got)
		}
		if got := round(math.NaN()); got != 0x7fff {
			t.Errorf("%s: NaN converts to %#x", f.name, got)
		}
	}
}

// An immediate converts as an initializer element of its type does.
func TestEncodeMatchesInitData(t *testing.T) {
	for _, c := range initCases {
		v := parseVar(t, c.decl)
		if v.Init.Kind == InitList || v.Init.Kind == InitSymbol {
			continue
		}
		d, err := v.InitData()
		if err != nil {
			t.Fatal(err)
		}
		var b uint64
		switch in := v.Init; in.Kind {
		case InitInt:
			b = (&Imm{Val: in.Int}).Encode(v.Type)
		case InitFloat:
			var ok bool
			if b, ok = (&FImm{Val: in.Float, Bits: in.Bits, BitsLen: in.BitsLen}).Encode(v.Type); !ok {
				t.Fatalf("%s: no encoding", c.decl)
			}
		}
		want := make([]byte, v.Type.Size())
		putLE(want, b)
		if got := append(d.Bytes, make([]byte, len(want)-len(d.Bytes))...); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: initializer %x, immediate %x", c.decl, got, want)
		}
	}
}

// Elems of a sized variable allocates nothing: rt/soft asks for sizes on
// every LibraryGlobal.
func TestElemsAllocs(t *testing.T) {
	v := &Var{Type: U32, Vector: 4, Dims: []int{16, 8}}
	if n := testing.AllocsPerRun(100, func() { _ = v.Elems() }); n != 0 {
		t.Errorf("Elems allocates %v times", n)
	}
}

// Sparse but ordinary initializers are laid out: rows partly given, a
// second sub-array within the slack.
func TestInitDataSparse(t *testing.T) {
	for _, c := range []struct {
		decl string
		last int // offset of the last element, whose first byte is 1
		n    int
	}{
		{".global .u32 m[64][64] = {" + strings.Repeat("{1},", 63) + "{1}};", 63 * 256, 63*256 + 4},
		{".global .b8 x[2][65536] = {{1},{1}};", 65536, 65537},
	} {
		d, err := parseVar(t, c.decl).InitData()
		if err != nil || len(d.Bytes) != c.n || d.Bytes[c.last] != 1 {
			t.Errorf("%.40s: %v", c.decl, err)
		}
	}
}
