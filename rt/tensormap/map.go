package tensormap

import "encoding/binary"

// Map is a CUtensorMap. Its bytes are the driver's, opaque as in cuda.h
// (rt/soft documents the layout it encodes and the H100's bytes it was
// checked against).
//
// cuda.h declares it as 16 cuuint64_t, 128 bytes, alignas(64) in CUDA 12
// and alignas(128) in CUDA 13.0 ("requires compiler support for aligning to
// 128 bytes"; a host program built with nvcc 13.0 printed sizeof 128,
// alignof 128), and nvcc 13 declares such a parameter .param .align 128 .b8
// [128]. Go aligns a type to 8 at most. That does not matter: a Map is
// copied into the parameter buffer, and the 128-byte alignment is the
// parameter's, which generated code declares (rt.ParamSpec.Align) and rt
// honours by having the backend place the bytes where the compiled kernel
// reads them (the H100 reads tmaTile's map at offset 112 of its parameter
// block; the PTX has it at 0).
type Map struct {
	Opaque [16]uint64
}

// Put stores m in b[:128] as the device reads it: the words little-endian.
func (m Map) Put(b []byte) {
	_ = b[127]
	for i, w := range m.Opaque {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
}

// Bytes is m's memory, as Put stores it.
func (m Map) Bytes() [128]byte {
	var b [128]byte
	m.Put(b[:])
	return b
}

// FromBytes is the Map whose memory is b.
func FromBytes(b [128]byte) Map {
	var m Map
	for i := range m.Opaque {
		m.Opaque[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return m
}
