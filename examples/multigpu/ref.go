package main

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
)

// Host references: what each kernel of kernels/multigpu.cu computes, the
// same bits, in Go.

// mixRef is mix's output for seed.
func mixRef(seed uint32, n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		x := uint32(i)*0x9e3779b9 ^ seed
		x ^= x >> 16
		x *= 0x85ebca6b
		x ^= x >> 13
		x *= 0xc2b2ae35
		x ^= x >> 16
		out[i] = x
	}
	return out
}

// floats is n values in [-1, 1) made from mix's hash of seed: inputs that
// are the same on every backend and every run.
func floats(seed uint32, n int) []float32 {
	out := make([]float32, n)
	for i, h := range mixRef(seed, n) {
		out[i] = float32(int32(h)>>8) / (1 << 23)
	}
	return out
}

// fma32 is a*x+y rounded once to float32 (fmaf, fma.rn.f32). Go has no
// float32 fused multiply-add, and math.FMA's float64 result rounded to
// float32 would round twice: the sum is computed exactly and rounded once.
func fma32(a, x, y float32) float32 {
	p := float64(a) * float64(x) // exact: 48 bits of product
	var s big.Float
	s.SetPrec(1100).Add(new(big.Float).SetFloat64(p), new(big.Float).SetFloat64(float64(y)))
	if s.Sign() == 0 {
		// IEEE 754: an exact zero sum is -0 only when both terms are -0.
		if p == 0 && y == 0 && math.Signbit(p) && math.Signbit(float64(y)) {
			return float32(math.Copysign(0, -1))
		}
		return 0
	}
	f, _ := s.SetMode(big.ToNearestEven).SetPrec(24).Float32()
	return f
}

// axpyRef is axpy's y after one launch.
func axpyRef(y, x []float32, a float32) []float32 {
	out := slices.Clone(y)
	for i := range out {
		out[i] = fma32(a, x[i], y[i])
	}
	return out
}

// addRef is peerAdd's output.
func addRef(a, b []float32) []float32 {
	out := make([]float32, len(a))
	for i := range out {
		out[i] = a[i] + b[i]
	}
	return out
}

// blockSumRef is blockSum's output: each block of 256 added pairwise, in
// the kernel's order.
func blockSumRef(in []float32) []float32 {
	out := make([]float32, (len(in)+255)/256)
	var s [256]float32
	for b := range out {
		for t := range s {
			s[t] = 0
			if i := b*256 + t; i < len(in) {
				s[t] = in[i]
			}
		}
		for k := 128; k > 0; k >>= 1 {
			for t := 0; t < k; t++ {
				s[t] += s[t+k]
			}
		}
		out[b] = s[0]
	}
	return out
}

// same compares a result with its reference bit for bit (NaNs and signed
// zeros included), naming the first difference.
func same[T uint32 | float32](what string, got, want []T) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range got {
		if bitsOf(got[i]) != bitsOf(want[i]) {
			return fmt.Errorf("%s: element %d is %v, want %v (%d elements)", what, i, got[i], want[i], len(got))
		}
	}
	return nil
}

func bitsOf[T uint32 | float32](v T) uint32 {
	switch v := any(v).(type) {
	case float32:
		return math.Float32bits(v)
	case uint32:
		return v
	}
	panic("unreachable")
}

// digest writes the line "DIGEST name sha256" for the bytes of the values
// (little-endian): the same output on two backends has the same line.
// two-gpu.sh compares a GPU run's lines with rt/soft's.
func digest[T uint32 | float32](w io.Writer, name string, parts ...[]T) {
	h := sha256.New()
	var b [4]byte
	for _, p := range parts {
		for _, v := range p {
			binary.LittleEndian.PutUint32(b[:], bitsOf(v))
			h.Write(b[:])
		}
	}
	fmt.Fprintf(w, "DIGEST %s %x\n", name, h.Sum(nil))
}
