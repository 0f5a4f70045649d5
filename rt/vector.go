package rt

//go:generate go run ./internal/gentypes

// CUDA's built-in vector types (vector_types.h) have Go counterparts of the
// same name with a capital first letter: char4 is Char4, uchar4 is Uchar4,
// longlong2 is Longlong2, float4 is Float4, and dim3 is Dim3. Each is a struct
// of X, Y, Z and W fields of the exact-width element type (char is int8), of
// CUDA's exact size, so a []Float3 has the 12-byte stride a float3 array has
// on the device and a Buffer[Float4] holds float4 values.
//
// CUDA aligns two-component vectors to their size and four-component ones to
// their size capped at 16 bytes (char2: 2, short4: 8, int2: 8, float4: 16,
// double4: 16; one- and three-component vectors keep the element's alignment:
// float3 is 12 bytes, 4-aligned; char3 3 bytes, 1-aligned). The Go types carry
// a zero-size field that gives them the same alignment up to Go's strictest,
// 8 bytes, so a Go struct mirroring a C++ one lays out like it unless a field
// is 16-aligned in CUDA; cugen's -type check reports such a mismatch.
//
// Each type has a Make function (MakeFloat4, CUDA's make_float4) and a Put
// method, the little-endian encoder generated kernel wrappers call to pack a
// parameter; Put does not allocate. CUDA 13's alignment variants
// (double4_16a, double4_32a, long4_32a, ...) are passed as Double4, Long4, ...:
// the bytes are the same.
