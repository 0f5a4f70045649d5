// Package mapped holds Go types for gen's -type tests.
package mapped

// Params mirrors struct Params { float scale; int count; double offset; }.
type Params struct {
	Scale  float32
	Count  int32
	Offset float64
}

// Short is Params without its last field: 8 bytes, 4-aligned.
type Short struct {
	Scale float32
	Count int32
}

// Pair is generic: it cannot be mapped directly.
type Pair[T any] struct{ First, Second T }

// PairF32 is a defined instance-like type.
type PairF32 struct{ First, Second float32 }

// Alias is an alias.
type Alias = Params

// WithPointer holds a Go pointer.
type WithPointer struct {
	N int32
	P *int32
}

// WithString holds a string.
type WithString struct{ S string }

// Mode mirrors enum class Mode : unsigned char.
type Mode uint8

// Vec holds an array.
type Vec [4]float32
