package exec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// TestRoundsPlain: wherever roundsPlain accepts the float64 sum of an f32
// product and an f32, its float32 is fma.rn.f32's result bit for bit
// (gpumath.Fma32), over random operands, operands that cancel exactly
// (zeros of either sign), near-midpoints, subnormals, infinities and NaNs;
// and it accepts the exact zeros.
func TestRoundsPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, 3, 1.0000001, 0x1p-126, 0x1p-149, -0x1p-140,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32, 0x1p-64, 0x1p64}
	pick := func() float32 {
		switch r.IntN(4) {
		case 0:
			return special[r.IntN(len(special))]
		case 1:
			return math.Float32frombits(r.Uint32())
		default:
			return float32(r.NormFloat64() * math.Exp2(float64(r.IntN(40)-20)))
		}
	}
	accepted, zeros := 0, 0
	for i := 0; i < 400000; i++ {
		a, b, c := pick(), pick(), pick()
		switch i % 4 {
		case 1:
			c = -a * b // often exact: a zero sum
		case 2:
			c = float32(math.Copysign(0, float64(-a*b))) // a product and a zero
			if r.IntN(2) == 0 {
				b = float32(math.Copysign(0, float64(b)))
			}
		}
		fs := float64(a)*float64(b) + float64(c)
		if !roundsPlain(fs) {
			continue
		}
		accepted++
		if fs == 0 {
			zeros++
		}
		got, want := math.Float32bits(float32(fs)), math.Float32bits(gpumath.Fma32(a, b, c, gpumath.RN))
		if got != want {
			t.Fatalf("fma(%g, %g, %g): roundsPlain holds, float32 %#08x, fma.rn %#08x", a, b, c, got, want)
		}
	}
	if accepted < 100000 || zeros < 10000 {
		t.Fatalf("roundsPlain accepted %d sums, %d of them zero", accepted, zeros)
	}
}

// TestFmaSplit: the generated fma.rn.f32 forms (plain, .ftz, uniform B),
// whose full warp runs the fast lanes first and the rest after
// (opgen's split), give fma.rn's result in every lane of full and partial
// warps, with the destination apart from the sources or equal to each,
// on operands where a few lanes need the slow path (midpoints, subnormal
// and infinite results, NaNs) and zero sums, and with FMA3's form
// (fmaRNWarp) where the CPU has it.
func TestFmaSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, 1.5, 0x1p-126, 0x1p-140, 0x1.000002p0, 3,
		float32(math.Inf(1)), float32(math.NaN()), math.MaxFloat32, -1}
	forms := []struct {
		op  opcode
		ftz bool
		ub  bool
	}{{opFmaF32Rn, false, false}, {opFmaF32RnFtz, true, false}, {opFmaF32RnUB, false, true}}
	slowLanes := 0
	for trial := 0; trial < 3000; trial++ {
		f := forms[trial%len(forms)]
		reg := make([]uint64, 5*32)
		for i := range reg {
			v := float32(r.NormFloat64())
			if r.IntN(8) == 0 {
				v = vals[r.IntN(len(vals))]
			}
			reg[i] = uint64(math.Float32bits(v))
		}
		if trial%7 == 3 { // the sources' high halves are no part of an f32
			for i := 32; i < 4*32; i++ {
				reg[i] |= r.Uint64() << 32
			}
		}
		if f.ub {
			for l := 1; l < 32; l++ {
				reg[64+l] = reg[64]
			}
		}
		if trial%5 == 0 { // lanes whose sum is a float32 midpoint: a=1, b=1+2^-23, c=2^-24
			for l := 0; l < 32; l += 7 {
				reg[32+l], reg[64+l], reg[96+l] = uint64(math.Float32bits(1)), uint64(math.Float32bits(0x1.000002p0)), uint64(math.Float32bits(0x1p-24))
			}
		}
		m := fullMask
		if trial%3 == 1 {
			m = r.Uint32() | 1
		}
		d := []uint32{4 * 32, 32, 96}[trial%3]
		if f.ub && d == 64 {
			d = 4 * 32
		}
		want := append([]uint64(nil), reg...)
		for l := 0; l < 32; l++ {
			if m&(1<<l) == 0 {
				continue
			}
			a, b, c := math.Float32frombits(uint32(reg[32+l])), math.Float32frombits(uint32(reg[64+l])), math.Float32frombits(uint32(reg[96+l]))
			if f.ub {
				b = math.Float32frombits(uint32(reg[64]))
			}
			if f.ftz { // .ftz flushes subnormal sources too
				a, b, c = gpumath.Ftz32(a), gpumath.Ftz32(b), gpumath.Ftz32(c)
			}
			fs := float64(a)*float64(b) + float64(c)
			if !roundsPlain(fs) {
				slowLanes++
			}
			v := gpumath.Fma32(a, b, c, gpumath.RN)
			if f.ftz {
				v = gpumath.Ftz32(v)
			}
			want[d+uint32(l)] = gpumath.R32(v)
		}
		warpAsm = hasSIMD && trial/3%2 == 0
		execALU(&inst{op: f.op, d: d, a: 32, b: 64, c: 96}, reg, m)
		warpAsm = hasSIMD
		for i := range reg {
			if reg[i] != want[i] {
				t.Fatalf("%s d=%d mask %#x fma3 %v: register word %d is %#x, fma.rn gives %#x", genNames[f.op], d/32, m, hasSIMD && trial/3%2 == 0, i, reg[i], want[i])
			}
		}
	}
	if slowLanes < 1000 {
		t.Fatalf("only %d lanes needed the slow path", slowLanes)
	}
}
