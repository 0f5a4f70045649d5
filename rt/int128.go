package rt

import "encoding/binary"

// Int128 is CUDA's __int128: 16 bytes, two's complement. Lo comes first, as
// in memory on the (little-endian) device, so a Buffer[Int128] holds __int128
// values. CUDA aligns it to 16 bytes, Go to 8.
type Int128 struct {
	Lo uint64
	Hi int64
}

// Uint128 is CUDA's unsigned __int128, laid out like Int128.
type Uint128 struct {
	Lo, Hi uint64
}

// Int128From sign-extends v.
func Int128From(v int64) Int128 { return Int128{Lo: uint64(v), Hi: v >> 63} }

// Uint128From zero-extends v.
func Uint128From(v uint64) Uint128 { return Uint128{Lo: v} }

// Put stores x in b[:16], little-endian.
func (x Int128) Put(b []byte) {
	_ = b[15]
	binary.LittleEndian.PutUint64(b[0:], x.Lo)
	binary.LittleEndian.PutUint64(b[8:], uint64(x.Hi))
}

// Put stores x in b[:16], little-endian.
func (x Uint128) Put(b []byte) {
	_ = b[15]
	binary.LittleEndian.PutUint64(b[0:], x.Lo)
	binary.LittleEndian.PutUint64(b[8:], x.Hi)
}
