package mm

import (
	"fmt"

	"github.com/cugen/cugen/rt"
)

// Vector is a field of n 3-vectors, each component an array of its own.
type Vector struct {
	X, Y, Z rt.Buffer[float32]
}

// NewVector allocates a field of n vectors in ctx, zeroed.
func NewVector(ctx *rt.Context, n int) (Vector, error) {
	var v Vector
	for _, c := range []*rt.Buffer[float32]{&v.X, &v.Y, &v.Z} {
		b, err := rt.Alloc[float32](ctx, n)
		if err == nil {
			err = b.Zero()
		}
		if err != nil {
			v.Free()
			return Vector{}, err
		}
		*c = b
	}
	return v, nil
}

// Len is the number of vectors.
func (v Vector) Len() int { return v.X.Len }

// Free frees the components.
func (v Vector) Free() {
	for _, c := range []rt.Buffer[float32]{v.X, v.Y, v.Z} {
		c.Free()
	}
}

// Madd3 sets dst = a·fa + b·fb on s.
func Madd3(s *rt.Stream, dst, a Vector, fa float32, b Vector, fb float32) error {
	n := dst.Len()
	if a.Len() != n || b.Len() != n {
		return fmt.Errorf("mm.Madd3: lengths %d, %d and %d", n, a.Len(), b.Len())
	}
	return madd3(rt.Linear(n, 256).On(s), dst.X.Ptr, dst.Y.Ptr, dst.Z.Ptr, a.X.Const(), a.Y.Const(), a.Z.Const(), fa,
		b.X.Const(), b.Y.Const(), b.Z.Const(), fb, int32(n))
}

// Normalize scales every vector of v to unit length on s.
func Normalize(s *rt.Stream, v Vector) error {
	return normalize(rt.Linear(v.Len(), 256).On(s), v.X.Ptr, v.Y.Ptr, v.Z.Ptr, int32(v.Len()))
}

// Image says which image of the library the device of ctx runs: the PTX
// target it was compiled from (80 for compute_80) and the architecture it
// runs as (90 on sm_90), as the driver reports them for the kernels
// (CU_FUNC_ATTRIBUTE_PTX_VERSION and _BINARY_VERSION).
func Image(ctx *rt.Context) (ptx, binary int, err error) {
	a, err := madd3Kernel.Attributes(ctx.Device())
	if err != nil {
		return 0, 0, err
	}
	return a.PTXVersion, a.BinaryVersion, nil
}
