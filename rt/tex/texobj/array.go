package texobj

import (
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tex"
)

// Array is a CUDA array of one context (cuArray3DCreate): device memory in
// a layout only the texture units know, 1-D, 2-D or 3-D, layered, or a cube
// map, of elements of 1, 2 or 4 channels of one tex.ArrayFormat. Host and
// device memory reach it by copies.
type Array struct {
	a *rt.Array
}

// NewArray creates an array; its contents are undefined.
func NewArray(ctx *rt.Context, d tex.ArrayDesc) (*Array, error) {
	a, err := rt.NewArray(ctx, d)
	if err != nil {
		return nil, err
	}
	return &Array{a}, nil
}

// impl is a's implementation; nil for a nil or zero Array, which rt refuses
// with ErrInvalidHandle.
func (a *Array) impl() *rt.Array {
	if a == nil {
		return nil
	}
	return a.a
}

// Handle is the driver's handle (0 after Destroy), for an rt.Copy3D side.
func (a *Array) Handle() rt.ArrayHandle { return a.impl().Handle() }

// Desc is the array's description (Channels filled in from the format).
func (a *Array) Desc() tex.ArrayDesc { return a.impl().Desc() }

// Context is the context the array was created in.
func (a *Array) Context() *rt.Context { return a.impl().Context() }

// Destroy frees the array (cuArrayDestroy). Destroy the textures and
// surfaces over it first: what they read afterwards is undefined.
func (a *Array) Destroy() error { return a.impl().Destroy() }

// CopyFromDevice copies the whole array from device memory (see
// rt.DeviceSide), synchronously with respect to all work in its context.
func (a *Array) CopyFromDevice(src rt.CopySide) error { return a.impl().CopyFromDevice(src) }

// CopyToDevice copies the whole array to device memory, synchronously.
func (a *Array) CopyToDevice(dst rt.CopySide) error { return a.impl().CopyToDevice(dst) }

// CopyFromDeviceAsync is CopyFromDevice in s's order.
func (a *Array) CopyFromDeviceAsync(s *rt.Stream, src rt.CopySide) error {
	return a.impl().CopyFromDeviceAsync(s, src)
}

// CopyToDeviceAsync is CopyToDevice in s's order.
func (a *Array) CopyToDeviceAsync(s *rt.Stream, dst rt.CopySide) error {
	return a.impl().CopyToDeviceAsync(s, dst)
}

// CopyToArray copies src, the array's elements densely packed (row by
// row, slice by slice), into a, synchronously with respect to all work in
// its context (see rt.Buffer). T's size times len(src) must be the array's
// bytes: a []float32 for a 1-channel f32 array, a []rt.Uchar4 or []uint8
// (4 per element) for a 4-channel u8 one.
func CopyToArray[T any](a *Array, src []T) error { return rt.CopyToArray(a.impl(), src) }

// CopyFromArray copies a into dst, densely packed, synchronously with
// respect to all work in a's context.
func CopyFromArray[T any](a *Array, dst []T) error { return rt.CopyFromArray(a.impl(), dst) }

// CopyToArrayAsync is CopyToArray in s's order (see
// rt.Buffer.CopyFromAsync).
func CopyToArrayAsync[T any](s *rt.Stream, a *Array, src []T) error {
	return rt.CopyToArrayAsync(s, a.impl(), src)
}

// CopyFromArrayAsync is CopyFromArray in s's order (see
// rt.Buffer.CopyToAsync): dst holds the copy once s has passed it.
func CopyFromArrayAsync[T any](s *rt.Stream, a *Array, dst []T) error {
	return rt.CopyFromArrayAsync(s, a.impl(), dst)
}
