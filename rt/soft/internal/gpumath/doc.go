// Package gpumath is the H100's arithmetic on register bits, bit for bit:
// what rt/soft's executor calls for every arithmetic, conversion,
// comparison and atomic instruction. It imports nothing of the project.
//
//	fp.go        rounding modes and correctly rounded f32/f64 arithmetic
//	             (fma by a midpoint check and round-to-odd), half formats
//	             (SmallFmt: f16, bf16), conversions, saturation and .ftz,
//	             and the integer operations with more than an expression
//	             (bfe, bfi, bfind, prmt, lop3, shf, div and rem)
//	fpapprox.go  NaN results (f64 payload rules; canonical f32 and half
//	             NaNs), div.approx and div.full, and the f64 rcp and rsqrt
//	             approximations
//	mufu.go      the multi-function unit: rcp, rsqrt, sqrt, ex2, lg2, sin,
//	             cos, tanh (and ex2 and tanh on halves) from the recorded
//	             tables in mufu/, with the reductions ptxas puts around them
//	fp8.go       e4m3 and e5m2 conversions, cvt.pack.sat
//	atomic.go    the read-modify-write operations of atom and red on memory
//	             words (integer, float and packed-half; through sync/atomic)
//
// How each rule was established, and what it was checked against, is in
// the comments beside it and in rt/soft's package doc.
package gpumath
