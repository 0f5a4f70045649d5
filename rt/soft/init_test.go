package soft

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/parse"
	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// initPTX has an initializer of every kind: integers of each width and sign,
// floats from hex and decimal literals into every float type, vectors,
// partial and nested lists, an unsized array, and addresses (plain,
// generic, with an offset, one byte of one).
const initPTX = ptxHeader + `
.global .u8 u8v = 200;
.global .s8 s8v = -2;
.global .u16 u16v = 0x1234;
.global .s16 s16v = -1;
.global .u32 u32v = 4000000000;
.global .s32 s32v = -5;
.global .u64 u64v = 0x0102030405060708;
.global .s64 s64v = -2;
.global .b32 b32v = 0x1FFFFFFFF;
.global .b128 b128v = 5;
.global .f32 f32h = 0f3F800000;
.global .f32 f32d = 1.5;
.global .f32 f32i = -2;
.global .f32 f32n = 0f7FC00001;
.global .f64 f64h = 0d3FF8000000000000;
.global .f64 f64f = 0f3F800000;
.global .f64 f64d = 0.1;
.global .f16 f16h = 0f3F800000;
.global .f16 f16d = 1.5;
.global .f16 f16o = 0f477FF000;
.global .f16 f16s = 0d3E70000000000000;
.global .bf16 bf16h = 0f3F818000;
.global .bf16 bf16d = 0.1;
.global .f16x2 f16x2 = 0f3C004000;
.const .f32 cvals[8] = {0.33, 0.25, 0.125};
.global .v2 .f32 vec = {0f3F800000, -1.5};
.global .v4 .u16 vecs[2] = {{1, 2, 3, 4}, {5}};
.global .s32 x[3][2] = {{1, 2}, {3}};
.global .u8 grid[3][2] = {{1}, {2, 3}};
.global .u32 idx[] = {2, 3, 5};
.global .s32 offs[][2] = {{-1, 0}, {0, -1}, {1, 0}, {0, 1}};
.global .b8 bytes[64] = {0, 0, 128, 63, 0, 0, 0, 64};
.global .u64 ptr = generic(idx);
.global .u64 ptrs[3] = {generic(offs), generic(offs)+8, u32v};
.global .u32 off32 = idx+4;
.global .u8 addrb[8] = {0xFF(generic(idx)), 0xFF00(generic(idx)), 0xFF0000(generic(idx)), 0xFF000000(generic(idx)), 0xFF00000000(generic(idx)), 0xFF0000000000(generic(idx)), 0xFF000000000000(generic(idx)+4), 0xFF00000000000000(generic(idx))};
.global .attribute(.managed) .f16 mh = 0.5;

.visible .entry k()
{
	ret;
}
`

// The model (parse, for -list and the generated docs) and rt/soft (for the
// bytes a kernel reads) evaluate initializers with one evaluator: what soft
// puts in memory is the model's bytes with the loader's addresses filled in.
func TestInitializersModelAndSoftAgree(t *testing.T) {
	mod, err := parse.Read("init.ptx", []byte(initPTX), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := ptx.Parse("init.ptx", []byte(initPTX))
	if err != nil {
		t.Fatal(err)
	}
	d := New(Options{})
	lib, err := d.LibraryLoad([]byte(initPTX), rt.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		t.Fatal(err)
	}
	addrOf := func(name string, managed bool) (rt.DevPtr, uint64) {
		get := d.LibraryGlobal
		if managed {
			get = d.LibraryManaged
		}
		p, size, err := get(ctx, lib, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return p, size
	}
	if len(mod.Globals) != len(src.Vars) {
		t.Fatalf("model has %d globals, the PTX %d", len(mod.Globals), len(src.Vars))
	}
	for _, v := range src.Vars {
		g := mod.Global(v.Name)
		if g == nil {
			t.Fatalf("%s: not in the model", v.Name)
		}
		p, size := addrOf(v.Name, g.Managed)
		if int(size) != g.Size {
			t.Errorf("%s: soft allocates %d bytes, the model says %d", v.Name, size, g.Size)
			continue
		}
		got := make([]byte, size)
		if err := d.MemcpyDtoH(ctx, unsafe.Pointer(&got[0]), p, size, 0, false); err != nil {
			t.Fatal(err)
		}
		want := make([]byte, size)
		copy(want, g.Init)
		data, err := v.InitData()
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range data.Addrs {
			base, _ := addrOf(a.Sym, false)
			a.Put(want, uint64(base))
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: soft holds %x, the model %x with addresses %x", v.Name, got, g.Init, want)
		}
		if len(g.Init) == 0 {
			t.Errorf("%s: the model says it is not initialized", v.Name)
		}
	}
	// Spot checks that the agreement is on the right values.
	for name, want := range map[string]string{
		"f16h":  "\x00\x3c",                             // the .f16 the model used to leave empty
		"bf16d": "\xcd\x3d",                             // 0.1 rounded to nearest even
		"vecs":  "\x01\x00\x02\x00\x03\x00\x04\x00\x05", // trailing zeros trimmed
		"grid":  "\x01\x00\x02\x03",
	} {
		if g := mod.Global(name); string(g.Init) != want {
			t.Errorf("%s: model bytes %x, want %x", name, g.Init, want)
		}
	}
}

// Literals round to .f16 and .bf16 as soft's arithmetic does (gpumath's
// SmallFmt.Round, to nearest even), over every kind of float64: exact
// halves, ties, subnormals, overflow, NaN.
func TestLiteralRoundingMatchesArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, f := range []struct {
		t   ptx.Type
		fmt gpumath.SmallFmt
	}{{ptx.F16, gpumath.F16}, {ptx.BF16, gpumath.BF16}} {
		check := func(x float64) {
			got, _ := ptx.FloatBits(x, 0, 0, f.t)
			if want := f.fmt.Round(x, gpumath.RN); got != want {
				t.Fatalf("%v %v: literal %#x, arithmetic %#x", f.t, x, got, want)
			}
		}
		for i := 0; i < 1<<20; i++ {
			check(math.Float64frombits(r.Uint64()))                            // any float64
			check(float64(math.Float32frombits(uint32(r.Uint64()))))           // any float32
			check(math.Ldexp(float64(r.IntN(1<<12)), r.IntN(300)-150))         // near the grids
			check(math.Ldexp(float64(2*r.IntN(1<<11)+1), r.IntN(300)-150) / 2) // ties
		}
		for _, x := range []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, 65520, -65520} {
			check(x)
		}
	}
}
