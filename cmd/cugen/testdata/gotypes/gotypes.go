// Package gotypes holds Go types for the cugen -type tests.
package gotypes

// Params mirrors types.cu's struct Params { float scale; int count; double offset; }.
type Params struct {
	Scale  float32
	Count  int32
	Offset float64
}

// Short lacks Params' last field: 8 bytes, 4-aligned.
type Short struct {
	Scale float32
	Count int32
}
