package contractgen

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// Input classes, by thread index modulo 8. Contraction changes a result
// only where rounding the product first loses bits that matter, so most
// classes are built to make that happen: products of a pair that cancel,
// products that overflow or underflow where the fused result does not,
// exact integer products whose difference is a signed zero.
const (
	classUniform = iota // uniform in (-1, 1)
	classWide           // random sign and mantissa, exponent in ±20
	classCancel         // c*d ≈ ±a*b: x[2k+1] = round(±x0*x1/x[2k])
	classCancel2        // c = b, d = a nudged by an ulp
	classInteger        // small integers: exact products, signed zeros
	classHuge           // products overflow the type; pairs cancel
	classTiny           // products in or below the subnormal range
	classSpecial        // ±0, ±inf, NaN, subnormals, max among wide values
	numClasses
)

// Inputs returns the input set of the kernel whose input key is key: Threads
// sets of nin values of type t, little-endian, in[thread*nin + j]. The values
// depend only on (key, t, nin), so GPU recordings and rt/soft's tests agree.
func Inputs(key string, t Type, nin int) []byte {
	h := fnv.New64a()
	h.Write([]byte(key))
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(nin)))
	size := t.Size()
	out := make([]byte, Threads*nin*size)
	x := make([]float64, nin)
	for th := 0; th < Threads; th++ {
		fill(rng, t, th%numClasses, x)
		for j, v := range x {
			off := (th*nin + j) * size
			if t == F64 {
				binary.LittleEndian.PutUint64(out[off:], math.Float64bits(v))
			} else {
				binary.LittleEndian.PutUint32(out[off:], math.Float32bits(float32(v)))
			}
		}
	}
	return out
}

// round makes v representable in t (f32 values are carried in float64).
func round(t Type, v float64) float64 {
	if t == F64 {
		return v
	}
	return float64(float32(v))
}

func fill(rng *rand.Rand, t Type, class int, x []float64) {
	maxExp, minExp := 127, -149 // f32
	if t == F64 {
		maxExp, minExp = 1023, -1074
	}
	sign := func() float64 {
		if rng.IntN(2) == 0 {
			return -1
		}
		return 1
	}
	mant := func() float64 { return 1 + rng.Float64() } // [1, 2)
	uniform := func() float64 { return round(t, rng.Float64()*2-1) }
	wide := func(lo, hi int) float64 { return round(t, sign()*math.Ldexp(mant(), lo+rng.IntN(hi-lo+1))) }
	cancel := func(scaleLo, scaleHi int) {
		for j := range x {
			x[j] = wide(scaleLo, scaleHi)
		}
		for j := 2; j+1 < len(x); j += 2 {
			x[j+1] = round(t, sign()*x[0]*x[1]/x[j])
		}
	}
	switch class {
	case classUniform:
		for j := range x {
			x[j] = uniform()
		}
	case classWide:
		for j := range x {
			x[j] = wide(-20, 20)
		}
	case classCancel:
		cancel(-4, 4)
	case classCancel2:
		for j := range x {
			x[j] = wide(-4, 4)
		}
		for j := 2; j+1 < len(x); j += 2 {
			x[j] = x[1]
			d := math.Inf(1)
			if rng.IntN(2) == 0 {
				d = math.Inf(-1)
			}
			if t == F64 {
				x[j+1] = math.Nextafter(x[0], d)
			} else {
				x[j+1] = float64(math.Nextafter32(float32(x[0]), float32(d)))
			}
			if rng.IntN(2) == 0 {
				x[j+1] = -x[j+1]
			}
		}
	case classInteger:
		for j := range x {
			x[j] = float64(rng.IntN(17) - 8)
		}
	case classHuge:
		cancel(maxExp/2-1, maxExp/2+1)
	case classTiny:
		lo := minExp / 2
		cancel(lo-6, lo+6)
		if rng.IntN(2) == 0 && len(x) > 2 {
			x[2] = round(t, sign()*math.Ldexp(mant(), minExp+1+rng.IntN(20))) // a subnormal addend
		}
	case classSpecial:
		specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
			math.Ldexp(1, minExp), -math.Ldexp(1, minExp+3), round(t, math.Ldexp(mant(), maxExp))}
		for j := range x {
			if rng.IntN(4) == 0 {
				x[j] = specials[rng.IntN(len(specials))]
			} else {
				x[j] = wide(-10, 10)
			}
		}
	}
}
