package main

import (
	"bytes"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"strings"
)

// simdKind says how an integer form's registers map onto AVX2 lanes:
// four 64-bit registers a YMM, a 32-bit value in each one's low dword.
type simdKind int

const (
	simd32    simdKind = iota // d = a OP b in the low dwords; the high dwords zeroed
	simd64                    // d = a OP b on the whole registers (or, for the wide multiplies, their low dwords)
	simd64Cnt                 // simd64 whose b is a 32-bit shift count: its high dword is zeroed first
	simdMad32                 // d = a·b + c in the low dwords; the high dwords zeroed
	simdMul64                 // d = a·b mod 2^64, from three 32-bit VPMULUDQs (AVX2 has no 64-bit one)
	simdMad64                 // d = a·b + c mod 2^64, as simdMul64
)

// simdOps are the integer forms a full warp runs with one AVX2
// instruction per four registers (exec/simd_amd64.s), each as the Go
// expression of its form computes it: Go's shifts by 32 or 64 or more
// give 0 or the sign, as VPSLLV/VPSRLV/VPSRAV do; VPMULUDQ and VPMULDQ
// multiply the low dwords into 64 bits, as mul.wide does; a 64-bit
// product's low half is lo·lo + (hi·lo + lo·hi)<<32. The signed 64-bit
// shift has no AVX2 instruction.
var simdOps = []struct {
	name, inst string
	kind       simdKind
}{
	{"Add32", "VPADDD", simd32}, {"Sub32", "VPSUBD", simd32}, {"MulLo32", "VPMULLD", simd32},
	{"And32", "VPAND", simd32}, {"Or32", "VPOR", simd32}, {"Xor32", "VPXOR", simd32},
	{"Shl32", "VPSLLVD", simd32}, {"ShrU32", "VPSRLVD", simd32}, {"ShrS32", "VPSRAVD", simd32},
	{"MinS32", "VPMINSD", simd32}, {"MaxS32", "VPMAXSD", simd32}, {"MinU32", "VPMINUD", simd32}, {"MaxU32", "VPMAXUD", simd32},
	{"Add64", "VPADDQ", simd64}, {"Sub64", "VPSUBQ", simd64},
	{"And64", "VPAND", simd64}, {"Or64", "VPOR", simd64}, {"Xor64", "VPXOR", simd64},
	{"MulWideU32", "VPMULUDQ", simd64}, {"MulWideS32", "VPMULDQ", simd64},
	{"Shl64", "VPSLLVQ", simd64Cnt}, {"ShrU64", "VPSRLVQ", simd64Cnt},
	{"MadLo32", "VPMULLD", simdMad32},
	{"MulLo64", "", simdMul64}, {"MadLo64", "", simdMad64},
}

// simdCmps are the comparisons a full warp runs in AVX2, two registers'
// signed compare (VPCMPGTQ, VPCMPEQQ) per four lanes and VMOVMSKPD for
// their bits: a 32-bit value shifted to the high dword compares as it
// does alone, and flipping bit 63 makes a signed compare an unsigned one.
// swap compares b with a; not inverts the result (ge is not lt).
var simdCmps = func() []simdCmp {
	var cs []simdCmp
	for _, w := range []int{32, 64} {
		cs = append(cs, simdCmp{fmt.Sprintf("SetEq%d", w), w, false, true, false, false},
			simdCmp{fmt.Sprintf("SetNe%d", w), w, false, true, false, true})
		for _, c := range []struct {
			names     []string
			swap, not bool
		}{{[]string{"Lt", "Lo"}, true, false}, {[]string{"Le", "Ls"}, false, true}, {[]string{"Gt", "Hi"}, false, false}, {[]string{"Ge", "Hs"}, true, true}} {
			cs = append(cs, simdCmp{fmt.Sprintf("Set%sS%d", c.names[0], w), w, false, false, c.swap, c.not},
				simdCmp{fmt.Sprintf("Set%sU%d", c.names[0], w), w, true, false, c.swap, c.not},
				simdCmp{fmt.Sprintf("Set%sU%d", c.names[1], w), w, true, false, c.swap, c.not})
		}
	}
	return cs
}()

type simdCmp struct {
	name         string
	width        int
	unsigned, eq bool
	swap, not    bool
}

// simdFloats are the float forms with a hand-written assembly full-warp
// form (exec/asm_amd64.s): x86's float32 add, sub and mul are IEEE's, as
// the GPU's are without .ftz, and FMA3 rounds a·b+c once, as fma.rn does.
var simdFloats = []struct{ name, asm, asmUB string }{
	{"AddF32Rn", "addRNWarp(d, a, b)", "addRNWarpUB(d, a, uint32(B))"},
	{"SubF32Rn", "subRNWarp(d, a, b)", "subRNWarpUB(d, a, uint32(B))"},
	{"MulF32Rn", "mulRNWarp(d, a, b)", "mulRNWarpUB(d, a, uint32(B))"},
	{"FmaF32Rn", "fmaRNWarp(d, a, b, c)", "fmaRNWarpUB(d, a, uint32(B), c)"},
}

// addSIMD gives the simdOps, simdFloats and simdCmps forms (and their
// uniform-B twins) their assembly calls; writeSIMD writes the simdOps and
// simdCmps functions, next to out.
func addSIMD() {
	for _, s := range simdOps {
		o := byName[s.name]
		if o == nil {
			log.Fatalf("simdOps: no form %s", s.name)
		}
		args := "d, a, b"
		if s.kind == simdMad32 || s.kind == simdMad64 {
			args += ", c"
		}
		o.asm = fmt.Sprintf("simd%s(%s)", s.name, args)
		o.asmUB = fmt.Sprintf("simd%sUB(%s)", s.name, strings.Replace(args, "b", simdUBArg(s.kind), 1))
	}
	for _, f := range simdFloats {
		o := byName[f.name]
		if o == nil {
			log.Fatalf("simdFloats: no form %s", f.name)
		}
		o.asm, o.asmUB = f.asm, f.asmUB
	}
	for _, c := range simdCmps {
		o := byName[c.name]
		if o == nil || !o.cmp {
			log.Fatalf("simdCmps: no comparison %s", c.name)
		}
		o.asm = fmt.Sprintf("simd%s(a, b)", c.name)
	}
}

// simdUBArg is how a uniform-B twin passes B.
func simdUBArg(k simdKind) string {
	switch k {
	case simd64, simdMul64, simdMad64:
		return "B"
	case simd64Cnt:
		return "uint64(uint32(B))"
	}
	return "uint32(B)"
}

func writeSIMD(out string) {
	dir := filepath.Dir(out)
	var s, g, o bytes.Buffer
	hdr := "// Code generated by internal/opgen; DO NOT EDIT.\n\n"
	fmt.Fprintf(&s, "%s//go:build amd64 && !purego\n\n#include \"textflag.h\"\n\n", hdr)
	fmt.Fprintf(&g, "%s//go:build amd64 && !purego\n\npackage exec\n\n", hdr)
	fmt.Fprintf(&o, "%s//go:build !amd64 || purego\n\npackage exec\n\n", hdr)
	fmt.Fprintf(&g, "// simdForms are the forms with an AVX2 full-warp form, for tests.\nvar simdForms = []opcode{")
	fmt.Fprintf(&o, "// simdForms: none in this build (simd_amd64.go).\nvar simdForms []opcode\n\n")
	for _, op := range simdOps {
		fmt.Fprintf(&g, "op%s, ", op.name)
	}
	fmt.Fprintf(&g, "}\n\n")
	for _, op := range simdOps {
		ubType := map[simdKind]string{simd64: "uint64", simd64Cnt: "uint64", simdMul64: "uint64", simdMad64: "uint64"}[op.kind]
		if ubType == "" {
			ubType = "uint32"
		}
		sig, sigUB, frame, frameUB := "d, a, b *[32]uint64", "d, a *[32]uint64, b "+ubType, 24, 24
		if ubType == "uint32" {
			frameUB = 20
		}
		switch op.kind {
		case simdMad32:
			sig, sigUB, frame, frameUB = "d, a, b, c *[32]uint64", "d, a *[32]uint64, b uint32, c *[32]uint64", 32, 32
		case simdMad64:
			sig, sigUB, frame, frameUB = "d, a, b, c *[32]uint64", "d, a *[32]uint64, b uint64, c *[32]uint64", 32, 32
		}
		for _, ub := range []bool{false, true} {
			name, sg, fr := "simd"+op.name, sig, frame
			if ub {
				name, sg, fr = name+"UB", sigUB, frameUB
			}
			fmt.Fprintf(&g, "//go:noescape\nfunc %s(%s)\n\n", name, sg)
			fmt.Fprintf(&o, "func %s(%s) { panic(\"exec: %s without AVX2\") }\n\n", name, sg, name)
			fmt.Fprintf(&s, "// func %s(%s)\nTEXT ·%s(SB), NOSPLIT, $0-%d\n", name, sg, name, fr)
			fmt.Fprintf(&s, "\tMOVQ d+0(FP), DI\n\tMOVQ a+8(FP), SI\n")
			switch {
			case ub && ubType == "uint32":
				fmt.Fprintf(&s, "\tVBROADCASTSS b+16(FP), Y1\n")
			case ub:
				fmt.Fprintf(&s, "\tVPBROADCASTQ b+16(FP), Y1\n")
			default:
				fmt.Fprintf(&s, "\tMOVQ b+16(FP), BX\n")
			}
			if op.kind == simdMad32 || op.kind == simdMad64 {
				fmt.Fprintf(&s, "\tMOVQ c+24(FP), DX\n")
			}
			if op.kind == simdMul64 || op.kind == simdMad64 {
				if ub {
					fmt.Fprintf(&s, "\tVPSRLQ $32, Y1, Y5\n") // b's high halves, once
				}
				for off := 0; off < 256; off += 32 {
					if !ub {
						fmt.Fprintf(&s, "\tVMOVDQU %d(BX), Y1\n\tVPSRLQ $32, Y1, Y5\n", off)
					}
					fmt.Fprintf(&s, "\tVMOVDQU %d(SI), Y0\n\tVPSRLQ $32, Y0, Y3\n"+
						"\tVPMULUDQ Y1, Y3, Y3\n\tVPMULUDQ Y5, Y0, Y4\n\tVPADDQ Y4, Y3, Y3\n\tVPSLLQ $32, Y3, Y3\n"+
						"\tVPMULUDQ Y1, Y0, Y2\n\tVPADDQ Y3, Y2, Y2\n", off)
					if op.kind == simdMad64 {
						fmt.Fprintf(&s, "\tVPADDQ %d(DX), Y2, Y2\n", off)
					}
					fmt.Fprintf(&s, "\tVMOVDQU Y2, %d(DI)\n", off)
				}
				fmt.Fprintf(&s, "\tVZEROUPPER\n\tRET\n\n")
				continue
			}
			if op.kind != simd64 {
				fmt.Fprintf(&s, "\tVMOVDQU ·low32(SB), Y13\n")
			}
			if ub && op.kind == simd64Cnt {
				fmt.Fprintf(&s, "\tVPAND Y13, Y1, Y1\n")
			}
			for off := 0; off < 256; off += 32 {
				b := fmt.Sprintf("%d(BX)", off)
				if ub {
					b = "Y1"
				} else if op.kind == simd64Cnt {
					fmt.Fprintf(&s, "\tVPAND %d(BX), Y13, Y1\n", off)
					b = "Y1"
				}
				fmt.Fprintf(&s, "\tVMOVDQU %d(SI), Y0\n\t%s %s, Y0, Y2\n", off, op.inst, b)
				if op.kind == simdMad32 {
					fmt.Fprintf(&s, "\tVPADDD %d(DX), Y2, Y2\n", off)
				}
				if op.kind == simd32 || op.kind == simdMad32 {
					fmt.Fprintf(&s, "\tVPAND Y13, Y2, Y2\n")
				}
				fmt.Fprintf(&s, "\tVMOVDQU Y2, %d(DI)\n", off)
			}
			fmt.Fprintf(&s, "\tVZEROUPPER\n\tRET\n\n")
		}
	}
	fmt.Fprintf(&g, "// simdCmpForms are the comparisons with an AVX2 full-warp form, for tests.\nvar simdCmpForms = []opcode{")
	fmt.Fprintf(&o, "// simdCmpForms: none in this build (simd_amd64.go).\nvar simdCmpForms []opcode\n\n")
	for _, c := range simdCmps {
		fmt.Fprintf(&g, "op%s, ", c.name)
	}
	fmt.Fprintf(&g, "}\n\n")
	for _, c := range simdCmps {
		name := "simd" + c.name
		fmt.Fprintf(&g, "//go:noescape\nfunc %s(a, b *[32]uint64) uint32\n\n", name)
		fmt.Fprintf(&o, "func %s(a, b *[32]uint64) uint32 { panic(\"exec: %s without AVX2\") }\n\n", name, name)
		fmt.Fprintf(&s, "// func %s(a, b *[32]uint64) uint32\nTEXT ·%s(SB), NOSPLIT, $0-20\n", name, name)
		fmt.Fprintf(&s, "\tMOVQ a+0(FP), SI\n\tMOVQ b+8(FP), BX\n\tXORL AX, AX\n")
		if c.unsigned {
			fmt.Fprintf(&s, "\tVMOVDQU ·sign64(SB), Y12\n")
		}
		for k := 0; k < 8; k++ {
			off := 32 * k
			fmt.Fprintf(&s, "\tVMOVDQU %d(SI), Y0\n\tVMOVDQU %d(BX), Y1\n", off, off)
			if c.width == 32 {
				fmt.Fprintf(&s, "\tVPSLLQ $32, Y0, Y0\n\tVPSLLQ $32, Y1, Y1\n")
			}
			if c.unsigned {
				fmt.Fprintf(&s, "\tVPXOR Y12, Y0, Y0\n\tVPXOR Y12, Y1, Y1\n")
			}
			switch {
			case c.eq:
				fmt.Fprintf(&s, "\tVPCMPEQQ Y1, Y0, Y2\n")
			case c.swap: // b > a
				fmt.Fprintf(&s, "\tVPCMPGTQ Y0, Y1, Y2\n")
			default: // a > b
				fmt.Fprintf(&s, "\tVPCMPGTQ Y1, Y0, Y2\n")
			}
			if k == 0 {
				fmt.Fprintf(&s, "\tVMOVMSKPD Y2, AX\n")
			} else {
				fmt.Fprintf(&s, "\tVMOVMSKPD Y2, CX\n\tSHLL $%d, CX\n\tORL CX, AX\n", 4*k)
			}
		}
		if c.not {
			fmt.Fprintf(&s, "\tNOTL AX\n")
		}
		fmt.Fprintf(&s, "\tMOVL AX, ret+16(FP)\n\tVZEROUPPER\n\tRET\n\n")
	}
	gs, err := format.Source(g.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	os_, err := format.Source(o.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	for name, text := range map[string][]byte{"simd_amd64.s": s.Bytes(), "simd_amd64.go": gs, "simd_other.go": os_} {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
