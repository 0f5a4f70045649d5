// Package params holds the Go twin of structs.cu's Params: cugen checks that
// its size and alignment match the kernel's parameter and then lets the
// generated code take it by value.
package params

// Params mirrors `struct Params { float scale; int count; double offset; }`.
type Params struct {
	Scale  float32
	Count  int32
	Offset float64
}
