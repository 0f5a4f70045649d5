package exec

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// TestWarpAsmBinary: the generated add, sub and mul.rn.f32 forms (and
// their uniform-B twins) give IEEE's float32 result with the GPU's
// canonical NaN in every lane of a full warp, in assembly (warpAsm, where
// the CPU has it) and in Go, with the destination apart from the sources
// or equal to one, on random and special operands (zeros, subnormals,
// infinities, NaNs with payloads, overflowing and underflowing results)
// and sources whose high halves are not zero.
func TestWarpAsmBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	specials := []uint32{0, 0x80000000, 1, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000,
		0x7fc00000, 0xffc00001, 0x7f800001, 0x3f800000, math.Float32bits(0x1p-75)}
	forms := []struct {
		op  opcode
		ub  bool
		ref func(a, b float32) float32
	}{
		{opAddF32Rn, false, func(a, b float32) float32 { return a + b }},
		{opSubF32Rn, false, func(a, b float32) float32 { return a - b }},
		{opMulF32Rn, false, func(a, b float32) float32 { return a * b }},
		{opAddF32RnUB, true, func(a, b float32) float32 { return a + b }},
		{opSubF32RnUB, true, func(a, b float32) float32 { return a - b }},
		{opMulF32RnUB, true, func(a, b float32) float32 { return a * b }},
	}
	for trial := range 3000 {
		f := forms[trial%len(forms)]
		asm := hasSIMD && trial/len(forms)%2 == 0
		reg := make([]uint64, 4*32)
		for i := 32; i < 3*32; i++ {
			switch r.IntN(6) {
			case 0:
				reg[i] = uint64(specials[r.IntN(len(specials))])
			case 1:
				reg[i] = uint64(r.Uint32())
			default:
				reg[i] = uint64(math.Float32bits(float32(r.NormFloat64())))
			}
		}
		if f.ub {
			for l := 1; l < 32; l++ {
				reg[64+l] = reg[64]
			}
		}
		want := append([]uint64(nil), reg...)
		if trial%5 == 2 {
			for i := 32; i < 3*32; i++ {
				reg[i] |= r.Uint64() << 32
			}
		}
		d := []uint32{3 * 32, 32, 64}[trial/2%3]
		if f.ub && d == 64 {
			d = 3 * 32
		}
		for l := range uint32(32) {
			a, b := math.Float32frombits(uint32(want[32+l])), math.Float32frombits(uint32(want[64+l]))
			want[d+l] = gpumath.R32(f.ref(a, b))
		}
		warpAsm = asm
		execALU(&inst{op: f.op, d: d, a: 32, b: 64}, reg, fullMask)
		warpAsm = hasSIMD
		for l := range uint32(32) {
			if reg[d+l] != want[d+l] {
				t.Fatalf("%s d=%d asm %v lane %d: %#x, want %#x (a %#x, b %#x)", genNames[f.op], d/32, asm, l,
					reg[d+l], want[d+l], want[32+l], want[64+l])
			}
		}
	}
}

// TestWarpAsmInt: every integer form with an AVX2 full-warp form (opgen's
// simdOps), and its uniform-B twin, writes the registers the Go form
// writes, on random values, edge values (0, ±1, the signed and unsigned
// extremes, shift counts around the width) and sources whose high
// halves are not zero, with the destination apart from the sources or
// equal to one. The Go forms are the reference: the corpus and recorded
// H100 tests check those.
func TestWarpAsmInt(t *testing.T) {
	if !hasSIMD {
		t.Skip("no AVX2 and FMA3 here (or -tags purego): only the Go forms run")
	}
	r := rand.New(rand.NewPCG(43, 44))
	edges := []uint64{0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 31, 32, 33, 63, 64, 65, 1 << 63, ^uint64(0), 0x8000000000000001}
	for _, base := range simdForms {
		forms := []opcode{base}
		if ub, ok := aluUniformB[base]; ok {
			forms = append(forms, ub)
		}
		for _, op := range forms {
			_, ub := uniformBBase()[op]
			for trial := range 200 {
				reg := make([]uint64, 5*32)
				for i := 32; i < 4*32; i++ {
					switch r.IntN(4) {
					case 0:
						reg[i] = edges[r.IntN(len(edges))]
					case 1:
						reg[i] = uint64(r.IntN(80))
					default:
						reg[i] = r.Uint64()
					}
					if trial%2 == 0 {
						reg[i] &= 0xffffffff
					}
				}
				if ub {
					for l := 1; l < 32; l++ {
						reg[64+l] = reg[64]
					}
				}
				d := []uint32{4 * 32, 32, 64, 96}[trial%4]
				if ub && d == 64 {
					d = 4 * 32
				}
				want := append([]uint64(nil), reg...)
				in := &inst{op: op, d: d, a: 32, b: 64, c: 96}
				warpAsm = false
				execALU(in, want, fullMask)
				warpAsm = true
				execALU(in, reg, fullMask)
				warpAsm = hasSIMD
				for i := range reg {
					if reg[i] != want[i] {
						t.Fatalf("%s trial %d d=%d: register word %d is %#x, the Go form gives %#x", genNames[op], trial, d/32, i, reg[i], want[i])
					}
				}
			}
		}
	}
}

// TestWarpAsmCmp: every comparison with an AVX2 full-warp form
// (simdCmpForms) gives a full warp the lane mask the Go form gives, on
// random values, edge values and equal pairs, with and without nonzero
// high halves (a 32-bit compare ignores them).
func TestWarpAsmCmp(t *testing.T) {
	if !hasSIMD {
		t.Skip("no AVX2 and FMA3 here (or -tags purego): only the Go forms run")
	}
	r := rand.New(rand.NewPCG(45, 46))
	edges := []uint64{0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0x80000001, 1 << 63, ^uint64(0), 1<<63 - 1, 0x100000000}
	for _, op := range simdCmpForms {
		for trial := range 300 {
			reg := make([]uint64, 3*32)
			for i := 32; i < 3*32; i++ {
				switch r.IntN(3) {
				case 0:
					reg[i] = edges[r.IntN(len(edges))]
				default:
					reg[i] = r.Uint64()
				}
				if trial%2 == 0 {
					reg[i] &= 0xffffffff
				}
			}
			for l := range 32 {
				if r.IntN(4) == 0 {
					reg[64+l] = reg[32+l] // equal
				}
			}
			in := &inst{op: op, a: 32, b: 64}
			warpAsm = false
			want := execCmp(in, reg, fullMask)
			warpAsm = true
			got := execCmp(in, reg, fullMask)
			warpAsm = hasSIMD
			if got != want {
				t.Fatalf("%s trial %d: mask %#08x, the Go form gives %#08x", genNames[op], trial, got, want)
			}
		}
	}
}

// TestRunAccess: loadRun32 and storeRun32 move a warp's 128 bytes when its
// offsets are one run (u[l] = u[0]+4l) and touch nothing, reporting false,
// when any lane breaks the run (off by 4 or 1, the run reversed, another
// start in the upper half, high bits set).
func TestRunAccess(t *testing.T) {
	if !hasSIMD {
		t.Skip("no AVX2 and FMA3 here (or -tags purego): only the Go forms run")
	}
	r := rand.New(rand.NewPCG(47, 48))
	mem := make([]uint32, 64)
	for i := range mem {
		mem[i] = r.Uint32()
	}
	base := uint64(1000)
	run := func() *[32]uint64 {
		var u [32]uint64
		for l := range u {
			u[l] = base + 4*uint64(l)
		}
		return &u
	}
	breaks := []func(u *[32]uint64){
		func(u *[32]uint64) { u[7] += 4 },
		func(u *[32]uint64) { u[31]++ },
		func(u *[32]uint64) { u[0]-- },
		func(u *[32]uint64) { u[20] |= 1 << 40 },
		func(u *[32]uint64) {
			for l := range u {
				u[l] = base + 4*uint64(31-l)
			}
		},
		func(u *[32]uint64) {
			for l := 16; l < 32; l++ {
				u[l] += 8
			}
		},
	}
	src := unsafe.Pointer(&mem[5])
	var d [32]uint64
	if !loadRun32(&d, run(), src) {
		t.Fatal("loadRun32 refused a run")
	}
	for l := range d {
		if d[l] != uint64(mem[5+l]) {
			t.Fatalf("loadRun32 lane %d: %#x, want %#x", l, d[l], mem[5+l])
		}
	}
	var v [32]uint64
	for l := range v {
		v[l] = r.Uint64()
	}
	out := make([]uint32, 64)
	if !storeRun32(unsafe.Pointer(&out[3]), run(), &v) {
		t.Fatal("storeRun32 refused a run")
	}
	for i := range out {
		want := uint32(0)
		if i >= 3 && i < 35 {
			want = uint32(v[i-3])
		}
		if out[i] != want {
			t.Fatalf("storeRun32 word %d: %#x, want %#x", i, out[i], want)
		}
	}
	for i, br := range breaks {
		u := run()
		br(u)
		d := [32]uint64{}
		out := make([]uint32, 64)
		if loadRun32(&d, u, src) || d != ([32]uint64{}) {
			t.Errorf("break %d: loadRun32 took it or wrote", i)
		}
		if storeRun32(unsafe.Pointer(&out[3]), u, &v) || slices.ContainsFunc(out, func(x uint32) bool { return x != 0 }) {
			t.Errorf("break %d: storeRun32 took it or wrote", i)
		}
	}
}
