//go:build amd64 && !purego

package exec

import "unsafe"

// hasSIMD reports that the CPU runs x86-64-v3's AVX2 and FMA3 and the OS
// saves the YMM registers. FMA3's float32 multiply-add rounds a·b+c once,
// as fma.rn.f32 does (subnormals included: Go leaves MXCSR's
// flush-to-zero and denormals-are-zero off); Go has no float32 fma of its
// own, so without it fma.rn.f32 is a float64 sum that must be tested for
// double rounding (roundsPlain). AVX2 runs four registers' integer ops an
// instruction (simd_amd64.s). Other hosts, and builds with the purego
// tag, run the Go code only.
var hasSIMD = cpuHasSIMD()

func cpuHasSIMD() bool {
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	const avx2 = 1 << 5
	if leaves, _, _, _ := cpuid(0, 0); leaves < 7 {
		return false
	}
	if _, _, c, _ := cpuid(1, 0); c&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if _, b, _, _ := cpuid(7, 0); b&avx2 == 0 {
		return false
	}
	// XCR0: the OS saves the SSE and AVX state.
	eax, _ := xgetbv()
	return eax&6 == 6
}

// low32 is the assembly's mask of four 64-bit registers' low halves.
var low32 = [4]uint64{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}

// sign64 is the assembly's bit 63 of four 64-bit registers.
var sign64 = [4]uint64{1 << 63, 1 << 63, 1 << 63, 1 << 63}

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// fmaRow4x2 is chainRow4x2 on FMA3, for any operands: for l = 0…15,
// w_j = [sh+v[l]+o+j·s], acc[l] += w_j·xz[j] and acc[l+16] += w_j·xz[4+j]
// for j = 0…3, each a fused float32 multiply-add. Bit l of nan says that
// one of the two sums came out NaN (x86's NaN is not the GPU's canonical
// one): both are left as they were.
//
//go:noescape
func fmaRow4x2(sh, v, acc unsafe.Pointer, o, s uint64, xz *[8]float32) (nan uint32)

// fmaRNWarp is fma.rn.f32 for a full warp on FMA3: d[l] = a[l]·b[l]+c[l]
// rounded once, a NaN the GPU's canonical one, for the f32 in each
// register's low half (d's high half zero).
//
//go:noescape
func fmaRNWarp(d, a, b, c *[32]uint64)

// fmaRNWarpUB is fmaRNWarp with every lane's b the f32 with bits b.
//
//go:noescape
func fmaRNWarpUB(d, a *[32]uint64, b uint32, c *[32]uint64)

// addRNWarp, subRNWarp and mulRNWarp are add, sub and mul.rn.f32 for a
// full warp, as fmaRNWarp is fma's: x86's float32 operations round as
// IEEE 754's, as the GPU's do without .ftz; only NaN differs, which they
// make canonical. The UB forms take every lane's b from the bits b.
//
//go:noescape
func addRNWarp(d, a, b *[32]uint64)

//go:noescape
func subRNWarp(d, a, b *[32]uint64)

//go:noescape
func mulRNWarp(d, a, b *[32]uint64)

//go:noescape
func addRNWarpUB(d, a *[32]uint64, b uint32)

//go:noescape
func subRNWarpUB(d, a *[32]uint64, b uint32)

//go:noescape
func mulRNWarpUB(d, a *[32]uint64, b uint32)

// cvtZext32 and cvtSext32 are cvt.u64.u32 and cvt.s64.s32 (and the other
// 32-to-64-bit integer cvts without .sat) for a full warp: d[l] is a[l]'s
// low half extended with zeros or its sign.
//
//go:noescape
func cvtZext32(d, a *[32]uint64)

//go:noescape
func cvtSext32(d, a *[32]uint64)

// run4, step16 and evens are loadRun32's and storeRun32's lane offsets,
// their step and VPERMD's indices of the low dwords; run1 and step4
// loadRun8's offsets and step.
var (
	run4   = [4]uint64{0, 4, 8, 12}
	step16 = uint64(16)
	evens  = [8]uint32{0, 2, 4, 6, 0, 0, 0, 0}
	run1   = [4]uint64{0, 1, 2, 3}
	step4  = uint64(4)
)

// loadRun32 is a full warp's 4-byte load when its offsets u[l] are
// u[0]+4l (a coalesced access): d[l] = the uint32 at src+4l, and true;
// false, with nothing written, when they are not. The caller has checked
// the 128 bytes at src.
//
//go:noescape
func loadRun32(d, u *[32]uint64, src unsafe.Pointer) bool

// storeRun32 is loadRun32's store: the low halves of v to dst+4l.
//
//go:noescape
func storeRun32(dst unsafe.Pointer, u, v *[32]uint64) bool

// loadRun8 is loadRun32 for a 1-byte load (offsets u[0]+l, 32 bytes at
// src, each zero-extended).
//
//go:noescape
func loadRun8(d, u *[32]uint64, src unsafe.Pointer) bool
