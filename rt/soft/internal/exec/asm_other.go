//go:build !amd64 || purego

package exec

import "unsafe"

// hasSIMD: this build runs the Go forms only (asm_amd64.go).
const hasSIMD = false

func fmaRow4x2(sh, v, acc unsafe.Pointer, o, s uint64, xz *[8]float32) uint32 {
	panic("exec: fmaRow4x2 without FMA3")
}

func fmaRNWarp(d, a, b, c *[32]uint64) { panic("exec: fmaRNWarp without FMA3") }

func fmaRNWarpUB(d, a *[32]uint64, b uint32, c *[32]uint64) {
	panic("exec: fmaRNWarpUB without FMA3")
}

func addRNWarp(d, a, b *[32]uint64) { panic("exec: addRNWarp without AVX") }

func addRNWarpUB(d, a *[32]uint64, b uint32) { panic("exec: addRNWarpUB without AVX") }

func subRNWarp(d, a, b *[32]uint64) { panic("exec: subRNWarp without AVX") }

func subRNWarpUB(d, a *[32]uint64, b uint32) { panic("exec: subRNWarpUB without AVX") }

func mulRNWarp(d, a, b *[32]uint64) { panic("exec: mulRNWarp without AVX") }

func mulRNWarpUB(d, a *[32]uint64, b uint32) { panic("exec: mulRNWarpUB without AVX") }

func cvtZext32(d, a *[32]uint64) { panic("exec: cvtZext32 without AVX2") }

func cvtSext32(d, a *[32]uint64) { panic("exec: cvtSext32 without AVX2") }

func loadRun32(d, u *[32]uint64, src unsafe.Pointer) bool { panic("exec: loadRun32 without AVX2") }

func storeRun32(dst unsafe.Pointer, u, v *[32]uint64) bool { panic("exec: storeRun32 without AVX2") }

func loadRun8(d, u *[32]uint64, src unsafe.Pointer) bool { panic("exec: loadRun8 without AVX2") }
