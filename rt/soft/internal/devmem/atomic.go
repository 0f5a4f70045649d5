//go:build race

package devmem

import (
	"sync/atomic"
	"unsafe"
)

// Race reports whether accesses go through sync/atomic (a -race build).
const Race = true

// word is the aligned 32-bit word holding the byte at p, and the byte's
// bit offset in it.
func word(p unsafe.Pointer) (*uint32, uint) {
	o := uintptr(p) & 3
	return (*uint32)(unsafe.Add(p, -int(o))), uint(o) * 8
}

func loadByte(p unsafe.Pointer) uint8 {
	w, sh := word(p)
	return uint8(atomic.LoadUint32(w) >> sh)
}

func storeByte(p unsafe.Pointer, v uint8) {
	w, sh := word(p)
	for {
		o := atomic.LoadUint32(w)
		if atomic.CompareAndSwapUint32(w, o, o&^(0xff<<sh)|uint32(v)<<sh) {
			return
		}
	}
}

// Load is the size-byte (1, 2, 4 or 8) little-endian value at p.
func Load(p unsafe.Pointer, size uint16) uint64 {
	a := uintptr(p)
	switch {
	case size == 8 && a&7 == 0:
		return atomic.LoadUint64((*uint64)(p))
	case size == 4 && a&3 == 0:
		return uint64(atomic.LoadUint32((*uint32)(p)))
	case size == 2 && a&1 == 0:
		w, sh := word(p)
		return uint64(uint16(atomic.LoadUint32(w) >> sh))
	case size == 1:
		return uint64(loadByte(p))
	}
	var v uint64
	for i := int(size) - 1; i >= 0; i-- {
		v = v<<8 | uint64(loadByte(unsafe.Add(p, i)))
	}
	return v
}

// Store writes the low size bytes (1, 2, 4 or 8) of v at p.
func Store(p unsafe.Pointer, size uint16, v uint64) {
	a := uintptr(p)
	switch {
	case size == 8 && a&7 == 0:
		atomic.StoreUint64((*uint64)(p), v)
		return
	case size == 4 && a&3 == 0:
		atomic.StoreUint32((*uint32)(p), uint32(v))
		return
	case size == 2 && a&1 == 0:
		w, sh := word(p)
		for {
			o := atomic.LoadUint32(w)
			if atomic.CompareAndSwapUint32(w, o, o&^(0xffff<<sh)|uint32(uint16(v))<<sh) {
				return
			}
		}
	}
	for i := 0; i < int(size); i++ {
		storeByte(unsafe.Add(p, i), uint8(v>>(8*i)))
	}
}

// Load32 is the 32-bit value at p, 4-byte aligned.
func Load32(p unsafe.Pointer) uint32 { return atomic.LoadUint32((*uint32)(p)) }

// Store32 writes v at p, 4-byte aligned.
func Store32(p unsafe.Pointer, v uint32) { atomic.StoreUint32((*uint32)(p), v) }

// Copy copies src to dst, both device memory, as the built-in copy does
// (overlapping spans included).
func Copy(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n == 0 {
		return 0
	}
	d, s := unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0])
	if uintptr(d) > uintptr(s) && uintptr(d) < uintptr(s)+uintptr(n) {
		// Overlapping, dst after src: back to front, a byte at a time.
		for i := n - 1; i >= 0; i-- {
			storeByte(unsafe.Add(d, i), loadByte(unsafe.Add(s, i)))
		}
		return n
	}
	i := 0
	for ; i < n; i++ {
		if (uintptr(d)+uintptr(i))&7 == 0 {
			break
		}
		storeByte(unsafe.Add(d, i), loadByte(unsafe.Add(s, i)))
	}
	if (uintptr(s)+uintptr(i))&7 == 0 {
		for ; i+8 <= n; i += 8 {
			atomic.StoreUint64((*uint64)(unsafe.Add(d, i)), atomic.LoadUint64((*uint64)(unsafe.Add(s, i))))
		}
	}
	for ; i < n; i++ {
		storeByte(unsafe.Add(d, i), loadByte(unsafe.Add(s, i)))
	}
	return n
}

// CopyIn copies host memory into device memory.
func CopyIn(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n == 0 {
		return 0
	}
	d := unsafe.Pointer(&dst[0])
	i := 0
	for ; i < n && (uintptr(d)+uintptr(i))&7 != 0; i++ {
		storeByte(unsafe.Add(d, i), src[i])
	}
	for ; i+8 <= n; i += 8 {
		s := src[i : i+8]
		v := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		atomic.StoreUint64((*uint64)(unsafe.Add(d, i)), v)
	}
	for ; i < n; i++ {
		storeByte(unsafe.Add(d, i), src[i])
	}
	return n
}

// CopyOut copies device memory into host memory.
func CopyOut(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n == 0 {
		return 0
	}
	s := unsafe.Pointer(&src[0])
	i := 0
	for ; i < n && (uintptr(s)+uintptr(i))&7 != 0; i++ {
		dst[i] = loadByte(unsafe.Add(s, i))
	}
	for ; i+8 <= n; i += 8 {
		v := atomic.LoadUint64((*uint64)(unsafe.Add(s, i)))
		d := dst[i : i+8]
		d[0], d[1], d[2], d[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		d[4], d[5], d[6], d[7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
	}
	for ; i < n; i++ {
		dst[i] = loadByte(unsafe.Add(s, i))
	}
	return n
}

// Clear zeroes device memory.
func Clear(b []byte) {
	i := 0
	for ; i < len(b) && uintptr(unsafe.Pointer(&b[i]))&7 != 0; i++ {
		storeByte(unsafe.Pointer(&b[i]), 0)
	}
	for ; i+8 <= len(b); i += 8 {
		atomic.StoreUint64((*uint64)(unsafe.Pointer(&b[i])), 0)
	}
	for ; i < len(b); i++ {
		storeByte(unsafe.Pointer(&b[i]), 0)
	}
}

// Fill writes the size-byte (1, 2 or 4) little-endian pattern v over b,
// whose length is a multiple of size, as cuMemsetD8/16/32 do.
func Fill(b []byte, v uint64, size int) {
	var pat [8]byte
	for j := range pat {
		pat[j] = byte(v >> (8 * (j % size)))
	}
	i := 0
	for ; i < len(b) && uintptr(unsafe.Pointer(&b[i]))&7 != 0; i++ {
		storeByte(unsafe.Pointer(&b[i]), pat[i%size])
	}
	// From here on i is 8-aligned in memory; the pattern's phase is i%size.
	var w uint64
	for j := 7; j >= 0; j-- {
		w = w<<8 | uint64(pat[(i+j)%size])
	}
	for ; i+8 <= len(b); i += 8 {
		atomic.StoreUint64((*uint64)(unsafe.Pointer(&b[i])), w)
	}
	for ; i < len(b); i++ {
		storeByte(unsafe.Pointer(&b[i]), pat[i%size])
	}
}
