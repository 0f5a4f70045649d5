package clang

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cugen/cugen/rt"
)

// clangLib compiles testdata/<name>.cu for gpu, once per test binary,
// and returns it as a library with a fresh rt/soft context.
func clangLib(t *testing.T, name, gpu string) (*rt.Context, *rt.Library) {
	t.Helper()
	// testClang skips or fails here, in the test: a t.Skip or t.Fatal inside
	// once.Do would end the once with nothing cached, and every later test of
	// the key would fail with an empty message.
	cc := testClang(t)
	key := name + "/" + gpu
	libMu.Lock()
	e, ok := libCache[key]
	if !ok {
		e = &libEntry{}
		libCache[key] = e
	}
	libMu.Unlock()
	e.once.Do(func() {
		src, err := os.ReadFile("testdata/" + name + ".cu")
		if err != nil {
			e.err = err.Error()
			return
		}
		path := filepath.Join(t.TempDir(), name+".cu")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			e.err = err.Error()
			return
		}
		ptx, err := Compile(path, Options{Compiler: cc, GPU: gpu})
		if err != nil {
			e.err = err.Error()
			return
		}
		e.ptx = ptx
	})
	if e.ptx == nil {
		t.Fatalf("%s: %s", key, e.err)
	}
	return softCtx(t), rt.NewLibrary(name+".ptx", e.ptx)
}

type libEntry struct {
	once sync.Once
	ptx  []byte
	err  string
}

var (
	libMu    sync.Mutex
	libCache = map[string]*libEntry{}
)

func randU32(r *rand.Rand, n int) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		switch r.IntN(4) {
		case 0:
			v[i] = r.Uint32() >> r.IntN(32) // small values too
		case 1:
			v[i] = uint32(int32(r.IntN(200) - 100))
		default:
			v[i] = r.Uint32()
		}
	}
	return v
}

// TestClangIntIntrinsics checks CUDA's integer and bit intrinsics against
// their definitions (CUDA's documentation, PTX's for prmt, shf and fns).
func TestClangIntIntrinsics(t *testing.T) {
	t.Parallel()
	ctx, lib := clangLib(t, "intrin", "sm_70")
	const n = 512
	r := rand.New(rand.NewPCG(3, 4))
	a, b, c := randU32(r, n), randU32(r, n), randU32(r, n)
	const nops = 29
	out := devZero[uint32](t, ctx, n*nops)
	launch(t, ctx, lib, "ints", (n+127)/128, 128, new(kernelArgs).ptr(devBuf(t, ctx, a).Ptr.Addr()).
		ptr(devBuf(t, ctx, b).Ptr.Addr()).ptr(devBuf(t, ctx, c).Ptr.Addr()).ptr(out.Ptr.Addr()).i32(n))
	got := toHost(t, out)
	names := []string{"__popc", "__clz", "__ffs", "__brev", "__byte_perm", "__funnelshift_l", "__funnelshift_lc",
		"__funnelshift_r", "__funnelshift_rc", "__mul24", "__umul24", "__mulhi", "__umulhi", "__sad", "__usad",
		"__hadd", "__rhadd", "__uhadd", "__urhadd", "__dp4a(int)", "__dp4a(unsigned)", "__dp2a_lo", "__dp2a_hi",
		"min(int)", "max(int)", "min(unsigned)", "max(unsigned)", "__fns", "abs"}
	for i := 0; i < n; i++ {
		x, y, z := a[i], b[i], c[i]
		sx, sy, sz := int32(x), int32(y), int32(z)
		want := []uint32{
			uint32(bits.OnesCount32(x)), uint32(bits.LeadingZeros32(x)), ffs32(x), bits.Reverse32(x), prmt(x, y, z),
			uint32((uint64(y)<<32 | uint64(x)) << (z & 31) >> 32), uint32((uint64(y)<<32 | uint64(x)) << min(z, 32) >> 32),
			uint32((uint64(y)<<32 | uint64(x)) >> (z & 31)), uint32((uint64(y)<<32 | uint64(x)) >> min(z, 32)),
			uint32(int32(x<<8) >> 8 * (int32(y<<8) >> 8)), (x & 0xffffff) * (y & 0xffffff),
			uint32((int64(sx) * int64(sy)) >> 32), uint32((uint64(x) * uint64(y)) >> 32),
			z + uint32(absDiff(int64(sx), int64(sy))), z + uint32(absDiff(int64(x), int64(y))),
			uint32((int64(sx) + int64(sy)) >> 1), uint32((int64(sx) + int64(sy) + 1) >> 1),
			uint32((uint64(x) + uint64(y)) >> 1), uint32((uint64(x) + uint64(y) + 1) >> 1),
			uint32(dp4a(sx, sy, sz, true)), uint32(dp4a(int32(x), int32(y), int32(z), false)),
			uint32(sz + int32(int16(x))*int32(int8(y)) + int32(int16(x>>16))*int32(int8(y>>8))),
			uint32(sz + int32(int16(x))*int32(int8(y>>16)) + int32(int16(x>>16))*int32(int8(y>>24))),
			uint32(min(sx, sy)), uint32(max(sx, sy)), min(x, y), max(x, y), fns(x, z&31, int32(y%9)-4), uint32(abs32(sx)),
		}
		for k, w := range want {
			if g := got[k*n+i]; g != w {
				t.Errorf("%s(%#x, %#x, %#x) = %#x, want %#x", names[k], x, y, z, g, w)
			}
		}
	}

	a64, b64 := make([]uint64, n), make([]uint64, n)
	for i := range a64 {
		a64[i] = uint64(randU32(r, 1)[0])<<32 | uint64(randU32(r, 1)[0])
		b64[i] = r.Uint64() >> r.IntN(64)
	}
	out64 := devZero[uint64](t, ctx, n*11)
	launch(t, ctx, lib, "ints64", (n+127)/128, 128, new(kernelArgs).ptr(devBuf(t, ctx, a64).Ptr.Addr()).
		ptr(devBuf(t, ctx, b64).Ptr.Addr()).ptr(out64.Ptr.Addr()).i32(n))
	got64 := toHost(t, out64)
	names64 := []string{"__popcll", "__clzll", "__ffsll", "__brevll", "__mul64hi", "__umul64hi", "llmin", "llmax", "ullmin", "ullmax", "llabs"}
	for i := 0; i < n; i++ {
		x, y := a64[i], b64[i]
		hi, _ := bits.Mul64(x, y)
		shi := new(big.Int).Rsh(new(big.Int).Mul(big.NewInt(int64(x)), big.NewInt(int64(y))), 64).Int64()
		ffs := uint64(0)
		if x != 0 {
			ffs = uint64(bits.TrailingZeros64(x) + 1)
		}
		want := []uint64{uint64(bits.OnesCount64(x)), uint64(bits.LeadingZeros64(x)), ffs, bits.Reverse64(x),
			uint64(shi), hi, uint64(min(int64(x), int64(y))), uint64(max(int64(x), int64(y))), min(x, y), max(x, y),
			uint64(abs64(int64(x)))}
		for k, w := range want {
			if g := got64[k*n+i]; g != w {
				t.Errorf("%s(%#x, %#x) = %#x, want %#x", names64[k], x, y, g, w)
			}
		}
	}
}

func ffs32(x uint32) uint32 {
	if x == 0 {
		return 0
	}
	return uint32(bits.TrailingZeros32(x) + 1)
}

// prmt is PTX's prmt.b32 in its default mode: each selector nibble picks a
// byte of y:x, its top bit replicating the byte's sign.
func prmt(x, y, s uint32) uint32 {
	src := uint64(y)<<32 | uint64(x)
	var r uint32
	for n := 0; n < 4; n++ {
		sel := s >> (4 * n) & 0xf
		b := uint32(src>>(8*(sel&7))) & 0xff
		if sel&8 != 0 {
			b = 0
			if uint32(src>>(8*(sel&7)))&0x80 != 0 {
				b = 0xff
			}
		}
		r |= b << (8 * n)
	}
	return r
}

// fns is PTX's fns.b32.
func fns(mask, base uint32, offset int32) uint32 {
	if offset == 0 {
		if mask>>base&1 != 0 {
			return base
		}
		return 0xffffffff
	}
	inc, count := int32(1), offset-1
	if offset < 0 {
		inc, count = -1, -offset-1
	}
	for pos := int32(base); pos >= 0 && pos < 32; pos += inc {
		if mask>>pos&1 != 0 {
			if count == 0 {
				return uint32(pos)
			}
			count--
		}
	}
	return 0xffffffff
}

func dp4a(a, b, c int32, signed bool) int32 {
	for i := 0; i < 32; i += 8 {
		if signed {
			c += int32(int8(a>>i)) * int32(int8(b>>i))
		} else {
			c += int32(uint32(a)>>i&0xff) * int32(uint32(b)>>i&0xff)
		}
	}
	return c
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestClangConstantsAndVectors checks NULL, INFINITY, NAN, the M_* and
// CUDART_* constants, the vector types' sizes and alignments (those of
// vector_types.h) and their make_ functions.
func TestClangConstantsAndVectors(t *testing.T) {
	t.Parallel()
	ctx, lib := clangLib(t, "intrin", "sm_70")
	o, ok := devZero[float64](t, ctx, 8), devZero[int32](t, ctx, 4)
	launch(t, ctx, lib, "consts", 1, 1, new(kernelArgs).ptr(o.Ptr.Addr()).ptr(ok.Ptr.Addr()))
	v, k := toHost(t, o), toHost(t, ok)
	if !math.IsInf(v[0], 1) || !math.IsNaN(v[1]) || v[2] != math.Pi || v[3] != float64(float32(math.Pi)) ||
		!math.IsInf(v[4], 1) || v[5] != math.Sqrt2 || !math.IsInf(v[6], 1) {
		t.Errorf("INFINITY, NAN, M_PI, CUDART_PI_F, CUDART_INF, M_SQRT2, HUGE_VALF = %v", v[:7])
	}
	if k[0] != 1 {
		t.Error("NULL is not a null pointer")
	}
	if k[1] != 1 {
		t.Error("a vector type's size or alignment differs from vector_types.h's")
	}
	if want := int32(1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 + 21 + 1); k[2] != want {
		t.Errorf("make_<vector> and dim3: sum %d, want %d", k[2], want)
	}
	if k[3] != 32 {
		t.Errorf("warpSize = %d", k[3])
	}
}

// TestClangLoadStoreHints runs __ldg, __ldcg, __ldca, __ldcs, __ldlu,
// __ldcv and __stcs, __stwb, __stcg, __stwt over scalars and float4.
func TestClangLoadStoreHints(t *testing.T) {
	t.Parallel()
	ctx, lib := clangLib(t, "intrin", "sm_70")
	const n = 100
	a, b, c := make([]float32, n), make([]float64, n), make([]float32, 4*n)
	for i := range a {
		a[i], b[i] = float32(i)+0.5, float64(i)*2
		for j := 0; j < 4; j++ {
			c[4*i+j] = float32(i*4 + j)
		}
	}
	o, od, o4 := devZero[float32](t, ctx, 2*n), devZero[float64](t, ctx, n), devZero[float32](t, ctx, 4*n)
	launch(t, ctx, lib, "ldst", 1, 128, new(kernelArgs).ptr(devBuf(t, ctx, a).Ptr.Addr()).ptr(devBuf(t, ctx, b).Ptr.Addr()).
		ptr(devBuf(t, ctx, c).Ptr.Addr()).ptr(o.Ptr.Addr()).ptr(od.Ptr.Addr()).ptr(o4.Ptr.Addr()).i32(n))
	go1, god, go4 := toHost(t, o), toHost(t, od), toHost(t, o4)
	for i := 0; i < n; i++ {
		if go1[i] != 6*a[i] || god[i] != 2*b[i] {
			t.Errorf("element %d: loads summed to %v and %v, want %v and %v", i, go1[i], god[i], 6*a[i], 2*b[i])
		}
		// __ldg of the float's first byte, as a signed char.
		if want := float32(int8(math.Float32bits(a[i]))); go1[n+i] != want {
			t.Errorf("element %d: __ldg(char) = %v, want %v", i, go1[n+i], want)
		}
		for j := 0; j < 4; j++ {
			if go4[4*i+j] != c[4*i+j] {
				t.Errorf("float4 %d.%d: %v, want %v", i, j, go4[4*i+j], c[4*i+j])
			}
		}
	}
}
