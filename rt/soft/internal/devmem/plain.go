//go:build !race

package devmem

import "unsafe"

// Race reports whether accesses go through sync/atomic (a -race build).
const Race = false

// Load is the size-byte (1, 2, 4 or 8) little-endian value at p.
func Load(p unsafe.Pointer, size uint16) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// Store writes the low size bytes (1, 2, 4 or 8) of v at p.
func Store(p unsafe.Pointer, size uint16, v uint64) {
	switch size {
	case 1:
		*(*uint8)(p) = uint8(v)
	case 2:
		*(*uint16)(p) = uint16(v)
	case 4:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
}

// Load32 is the 32-bit value at p, 4-byte aligned.
func Load32(p unsafe.Pointer) uint32 { return *(*uint32)(p) }

// Store32 writes v at p, 4-byte aligned.
func Store32(p unsafe.Pointer, v uint32) { *(*uint32)(p) = v }

// Copy copies src to dst, both device memory, as the built-in copy does.
func Copy(dst, src []byte) int { return copy(dst, src) }

// CopyIn copies host memory into device memory.
func CopyIn(dst, src []byte) int { return copy(dst, src) }

// CopyOut copies device memory into host memory.
func CopyOut(dst, src []byte) int { return copy(dst, src) }

// Clear zeroes device memory.
func Clear(b []byte) { clear(b) }

// Fill writes the size-byte (1, 2 or 4) little-endian pattern v over b,
// whose length is a multiple of size, as cuMemsetD8/16/32 do.
func Fill(b []byte, v uint64, size int) {
	if size == 1 {
		for i := range b {
			b[i] = byte(v)
		}
		return
	}
	for i := 0; i+size <= len(b); i += size {
		for j := 0; j < size; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
}
