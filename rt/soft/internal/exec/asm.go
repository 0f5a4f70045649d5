package exec

// The executor's assembly forms (asm_amd64.s, and opgen's simd_amd64.s)
// stand in for Go code that computes the same bits, where the CPU has
// AVX2 and FMA3 (hasSIMD, asm_amd64.go); elsewhere, and with -tags
// purego, asm_other.go's stubs are never called.

// chainFMA lets chainRows take fmaRow4x2 where the CPU has FMA3
// (hasSIMD); tests turn it off to run the Go forms.
var chainFMA = hasSIMD

// warpAsm lets the generated forms that have one run a full warp in
// assembly where the CPU has AVX2 and FMA3 (hasSIMD): float32 add, sub,
// mul and fma (.rn, no .ftz or .sat), 32-to-64-bit integer cvt, the
// shfl-add step's add, coalesced 32-bit and byte global accesses
// (asm_amd64.s) and opgen's simdOps and simdCmps integer forms
// (simd_amd64.s). Tests turn it off to run the Go forms.
var warpAsm = hasSIMD

// SetSIMD turns the assembly forms (chainFMA, warpAsm) on, where the CPU
// has them, or off, and reports whether they were on: benchmarks compare
// the Go forms with them in one binary. Call it with no launch running.
func SetSIMD(on bool) (was bool) {
	was = warpAsm
	chainFMA, warpAsm = on && hasSIMD, on && hasSIMD
	return was
}
