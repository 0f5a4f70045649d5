// Package gotypes holds the Go types the types_typemap golden case maps
// types.cu's structs to (cugen -type); their layouts match the C++ ones.
package gotypes

// Params mirrors struct Params { float scale; int count; double offset; }.
type Params struct {
	Scale  float32
	Count  int32
	Offset float64
}

// PairF32 mirrors Pair<float>.
type PairF32 struct{ First, Second float32 }

// PairF64 mirrors Pair<double>.
type PairF64 struct{ First, Second float64 }
