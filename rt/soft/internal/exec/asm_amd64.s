//go:build amd64 && !purego

#include "textflag.h"

// BIN4 runs OP on the four registers at off: d = a OP b (Go's operand
// order: VSUBPS b, a, d is d = a - b), NaN made canonical (Y14), the
// high halves zero (Y13). UB4 is BIN4 with every b in Y1. The macros
// come before every TEXT, where go vet's asmdecl does not take them for
// a function's lines.
#define BIN4(OP, off) \
	VMOVUPS off(SI), Y0; \
	OP off(BX), Y0, Y2; \
	VCMPPS $3, Y2, Y2, Y3; \
	VBLENDVPS Y3, Y14, Y2, Y2; \
	VANDPS Y13, Y2, Y2; \
	VMOVUPS Y2, off(DI)

#define UB4(OP, off) \
	VMOVUPS off(SI), Y0; \
	OP Y1, Y0, Y2; \
	VCMPPS $3, Y2, Y2, Y3; \
	VBLENDVPS Y3, Y14, Y2, Y2; \
	VANDPS Y13, Y2, Y2; \
	VMOVUPS Y2, off(DI)

#define CONSTS \
	VMOVDQU ·low32(SB), Y13; \
	VMOVDQU nan32<>(SB), Y14

#define BINWARP(OP) \
	CONSTS; \
	BIN4(OP, 0); BIN4(OP, 32); BIN4(OP, 64); BIN4(OP, 96); \
	BIN4(OP, 128); BIN4(OP, 160); BIN4(OP, 192); BIN4(OP, 224); \
	VZEROUPPER; \
	RET

#define UBWARP(OP) \
	CONSTS; \
	UB4(OP, 0); UB4(OP, 32); UB4(OP, 64); UB4(OP, 96); \
	UB4(OP, 128); UB4(OP, 160); UB4(OP, 192); UB4(OP, 224); \
	VZEROUPPER; \
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// func fmaRow4x2(sh, v, acc unsafe.Pointer, o, s uint64, xz *[8]float32) (nan uint32)
//
// VEX encodings throughout (no legacy SSE), so that dirty upper YMM
// halves cost no transition.
TEXT ·fmaRow4x2(SB), NOSPLIT, $0-52
	MOVQ sh+0(FP), SI
	MOVQ v+8(FP), DI
	MOVQ acc+16(FP), BX
	MOVQ o+24(FP), R8
	MOVQ s+32(FP), R9
	MOVQ xz+40(FP), AX
	VMOVSS 0(AX), X0
	VMOVSS 4(AX), X1
	VMOVSS 8(AX), X2
	VMOVSS 12(AX), X3
	VMOVSS 16(AX), X4
	VMOVSS 20(AX), X5
	VMOVSS 24(AX), X6
	VMOVSS 28(AX), X7
	XORL DX, DX
	XORQ CX, CX
	ADDQ SI, R8 // sh+o

lane:
	MOVQ (DI)(CX*8), R10
	ADDQ R8, R10
	VMOVSS (BX)(CX*4), X8
	VMOVSS 64(BX)(CX*4), X9
	VMOVSS (R10), X10
	VFMADD231SS X0, X10, X8
	VFMADD231SS X4, X10, X9
	ADDQ R9, R10
	VMOVSS (R10), X10
	VFMADD231SS X1, X10, X8
	VFMADD231SS X5, X10, X9
	ADDQ R9, R10
	VMOVSS (R10), X10
	VFMADD231SS X2, X10, X8
	VFMADD231SS X6, X10, X9
	ADDQ R9, R10
	VMOVSS (R10), X10
	VFMADD231SS X3, X10, X8
	VFMADD231SS X7, X10, X9
	VUCOMISS X8, X8
	JPS nan
	VUCOMISS X9, X9
	JPS nan
	VMOVSS X8, (BX)(CX*4)
	VMOVSS X9, 64(BX)(CX*4)

next:
	INCQ CX
	CMPQ CX, $16
	JLT lane
	MOVL DX, nan+48(FP)
	RET

nan:
	BTSL CX, DX
	JMP next

// Per 64-bit register: the GPU's canonical f32 NaN (·low32, its low 32
// bits, is in asm_amd64.go).
DATA nan32<>+0(SB)/8, $0x000000007fffffff
DATA nan32<>+8(SB)/8, $0x000000007fffffff
DATA nan32<>+16(SB)/8, $0x000000007fffffff
DATA nan32<>+24(SB)/8, $0x000000007fffffff
GLOBL nan32<>(SB), RODATA|NOPTR, $32

// func fmaRNWarp(d, a, b, c *[32]uint64)
//
// Four registers a YMM: the f32s sit in the even dwords; the odd dwords'
// results (of the registers' high halves) are masked off.
TEXT ·fmaRNWarp(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DX
	VMOVDQU ·low32(SB), Y13
	VMOVDQU nan32<>(SB), Y14
	XORQ CX, CX

quad:
	VMOVUPS (SI)(CX*1), Y0
	VMOVUPS (DX)(CX*1), Y2
	VFMADD231PS (BX)(CX*1), Y0, Y2
	VCMPPS $3, Y2, Y2, Y3
	VBLENDVPS Y3, Y14, Y2, Y2
	VANDPS Y13, Y2, Y2
	VMOVUPS Y2, (DI)(CX*1)
	ADDQ $32, CX
	CMPQ CX, $256
	JLT quad
	VZEROUPPER
	RET

// func fmaRNWarpUB(d, a *[32]uint64, b uint32, c *[32]uint64)
TEXT ·fmaRNWarpUB(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	VBROADCASTSS b+16(FP), Y1
	MOVQ c+24(FP), DX
	VMOVDQU ·low32(SB), Y13
	VMOVDQU nan32<>(SB), Y14
	XORQ CX, CX

quad:
	VMOVUPS (SI)(CX*1), Y0
	VMOVUPS (DX)(CX*1), Y2
	VFMADD231PS Y1, Y0, Y2
	VCMPPS $3, Y2, Y2, Y3
	VBLENDVPS Y3, Y14, Y2, Y2
	VANDPS Y13, Y2, Y2
	VMOVUPS Y2, (DI)(CX*1)
	ADDQ $32, CX
	CMPQ CX, $256
	JLT quad
	VZEROUPPER
	RET

// func addRNWarp(d, a, b *[32]uint64)
TEXT ·addRNWarp(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), BX
	BINWARP(VADDPS)

// func subRNWarp(d, a, b *[32]uint64)
TEXT ·subRNWarp(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), BX
	BINWARP(VSUBPS)

// func mulRNWarp(d, a, b *[32]uint64)
TEXT ·mulRNWarp(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), BX
	BINWARP(VMULPS)

// func addRNWarpUB(d, a *[32]uint64, b uint32)
TEXT ·addRNWarpUB(SB), NOSPLIT, $0-20
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	VBROADCASTSS b+16(FP), Y1
	UBWARP(VADDPS)

// func subRNWarpUB(d, a *[32]uint64, b uint32)
TEXT ·subRNWarpUB(SB), NOSPLIT, $0-20
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	VBROADCASTSS b+16(FP), Y1
	UBWARP(VSUBPS)

// func mulRNWarpUB(d, a *[32]uint64, b uint32)
TEXT ·mulRNWarpUB(SB), NOSPLIT, $0-20
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	VBROADCASTSS b+16(FP), Y1
	UBWARP(VMULPS)

// func cvtZext32(d, a *[32]uint64)
TEXT ·cvtZext32(SB), NOSPLIT, $0-16
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	VMOVDQU ·low32(SB), Y13
	XORQ CX, CX

quad:
	VPAND (SI)(CX*1), Y13, Y0
	VMOVDQU Y0, (DI)(CX*1)
	ADDQ $32, CX
	CMPQ CX, $256
	JLT quad
	VZEROUPPER
	RET

// func cvtSext32(d, a *[32]uint64)
//
// The low dword's sign, spread over its dword (VPSRAD) and moved to the
// high one (VPSLLQ), above the low dword.
TEXT ·cvtSext32(SB), NOSPLIT, $0-16
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	VMOVDQU ·low32(SB), Y13
	XORQ CX, CX

quad:
	VMOVDQU (SI)(CX*1), Y0
	VPSRAD $31, Y0, Y1
	VPSLLQ $32, Y1, Y1
	VPAND Y13, Y0, Y0
	VPOR Y1, Y0, Y0
	VMOVDQU Y0, (DI)(CX*1)
	ADDQ $32, CX
	CMPQ CX, $256
	JLT quad
	VZEROUPPER
	RET

// RUNCHECK sets AX to 15 when u[l] = u[0] + s·l for every lane l, for
// the lanes' first offsets OFFS (0, s, 2s, 3s) and their STEP (4s): the
// warp's s-byte accesses are one run of 32s bytes.
#define RUNCHECK(OFFS, STEP) \
	VPBROADCASTQ (SI), Y2; \
	VPADDQ OFFS, Y2, Y2; \
	VPBROADCASTQ STEP, Y7; \
	VPCMPEQQ 0(SI), Y2, Y9; \
	VPADDQ Y7, Y2, Y2; \
	VPCMPEQQ 32(SI), Y2, Y3; \
	VPAND Y3, Y9, Y9; \
	VPADDQ Y7, Y2, Y2; \
	VPCMPEQQ 64(SI), Y2, Y3; \
	VPAND Y3, Y9, Y9; \
	VPADDQ Y7, Y2, Y2; \
	VPCMPEQQ 96(SI), Y2, Y3; \
	VPAND Y3, Y9, Y9; \
	VPADDQ Y7, Y2, Y2; \
	VPCMPEQQ 128(SI), Y2, Y3; \
	VPAND Y3, Y9, Y9; \
	VPADDQ Y7, Y2, Y2; \
	VPCMPEQQ 160(SI), Y2, Y3; \
	VPAND Y3, Y9, Y9; \
	VPADDQ Y7, Y2, Y2; \
	VPCMPEQQ 192(SI), Y2, Y3; \
	VPAND Y3, Y9, Y9; \
	VPADDQ Y7, Y2, Y2; \
	VPCMPEQQ 224(SI), Y2, Y3; \
	VPAND Y3, Y9, Y9; \
	VMOVMSKPD Y9, AX

// func loadRun32(d, u *[32]uint64, src unsafe.Pointer) bool
TEXT ·loadRun32(SB), NOSPLIT, $0-25
	MOVQ d+0(FP), DI
	MOVQ u+8(FP), SI
	MOVQ src+16(FP), BX
	RUNCHECK(·run4(SB), ·step16(SB))
	CMPL AX, $15
	JNE noRun
	VPMOVZXDQ 0(BX), Y0
	VMOVDQU Y0, 0(DI)
	VPMOVZXDQ 16(BX), Y0
	VMOVDQU Y0, 32(DI)
	VPMOVZXDQ 32(BX), Y0
	VMOVDQU Y0, 64(DI)
	VPMOVZXDQ 48(BX), Y0
	VMOVDQU Y0, 96(DI)
	VPMOVZXDQ 64(BX), Y0
	VMOVDQU Y0, 128(DI)
	VPMOVZXDQ 80(BX), Y0
	VMOVDQU Y0, 160(DI)
	VPMOVZXDQ 96(BX), Y0
	VMOVDQU Y0, 192(DI)
	VPMOVZXDQ 112(BX), Y0
	VMOVDQU Y0, 224(DI)
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET

noRun:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET

// func storeRun32(dst unsafe.Pointer, u, v *[32]uint64) bool
//
// The values' low dwords, four registers at a time, gathered into the low
// 16 bytes by VPERMD.
TEXT ·storeRun32(SB), NOSPLIT, $0-25
	MOVQ dst+0(FP), DI
	MOVQ u+8(FP), SI
	MOVQ v+16(FP), BX
	RUNCHECK(·run4(SB), ·step16(SB))
	CMPL AX, $15
	JNE noRun
	VMOVDQU ·evens(SB), Y8
	VPERMD 0(BX), Y8, Y0
	VMOVDQU X0, 0(DI)
	VPERMD 32(BX), Y8, Y0
	VMOVDQU X0, 16(DI)
	VPERMD 64(BX), Y8, Y0
	VMOVDQU X0, 32(DI)
	VPERMD 96(BX), Y8, Y0
	VMOVDQU X0, 48(DI)
	VPERMD 128(BX), Y8, Y0
	VMOVDQU X0, 64(DI)
	VPERMD 160(BX), Y8, Y0
	VMOVDQU X0, 80(DI)
	VPERMD 192(BX), Y8, Y0
	VMOVDQU X0, 96(DI)
	VPERMD 224(BX), Y8, Y0
	VMOVDQU X0, 112(DI)
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET

noRun:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET

// func loadRun8(d, u *[32]uint64, src unsafe.Pointer) bool
TEXT ·loadRun8(SB), NOSPLIT, $0-25
	MOVQ d+0(FP), DI
	MOVQ u+8(FP), SI
	MOVQ src+16(FP), BX
	RUNCHECK(·run1(SB), ·step4(SB))
	CMPL AX, $15
	JNE noRun
	VPMOVZXBQ 0(BX), Y0
	VMOVDQU Y0, 0(DI)
	VPMOVZXBQ 4(BX), Y0
	VMOVDQU Y0, 32(DI)
	VPMOVZXBQ 8(BX), Y0
	VMOVDQU Y0, 64(DI)
	VPMOVZXBQ 12(BX), Y0
	VMOVDQU Y0, 96(DI)
	VPMOVZXBQ 16(BX), Y0
	VMOVDQU Y0, 128(DI)
	VPMOVZXBQ 20(BX), Y0
	VMOVDQU Y0, 160(DI)
	VPMOVZXBQ 24(BX), Y0
	VMOVDQU Y0, 192(DI)
	VPMOVZXBQ 28(BX), Y0
	VMOVDQU Y0, 224(DI)
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET

noRun:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET
