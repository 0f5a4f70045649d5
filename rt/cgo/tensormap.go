//go:build cgo

package cgo

/*
#include <string.h>
#include "shim.h"

typedef unsigned long long u64;
typedef int (*cg_tm_tiled_fn)(void *, int, unsigned int, void *, const u64 *, const u64 *, const unsigned int *,
                              const unsigned int *, int, int, int, int);
typedef int (*cg_tm_im2col_fn)(void *, int, unsigned int, void *, const u64 *, const u64 *, const int *, const int *,
                               unsigned int, unsigned int, const unsigned int *, int, int, int, int);
typedef int (*cg_ctx_fn)(CUcontext);
typedef int (*cg_ctx_pop_fn)(CUcontext *);

// cuTensorMapEncode* write a CUtensorMap, which must be 64-byte aligned
// (128 in CUDA 13's cuda.h): this one is, and is copied out after.
typedef struct {
	u64 w[16];
} __attribute__((aligned(128))) cg_tensor_map;

// The tensor map calls run with ctx current where one is given.
static int cg_tm_push(CUcontext ctx) {
	if (!ctx) return 0;
	cg_ctx_fn push = (cg_ctx_fn)cg_sym("cuCtxPushCurrent_v2");
	return push ? push(ctx) : CG_MISSING | CG_NOT_SUPPORTED;
}

static void cg_tm_pop(CUcontext ctx) {
	if (!ctx) return;
	cg_ctx_pop_fn pop = (cg_ctx_pop_fn)cg_sym("cuCtxPopCurrent_v2");
	CUcontext o;
	if (pop) pop(&o);
}

static int cg_tm_tiled(CUcontext ctx, u64 *out, int dt, unsigned int rank, u64 addr, const u64 *dims,
                       const u64 *strides, const unsigned int *box, const unsigned int *estr, int il, int sw, int l2,
                       int oob) {
	cg_tm_tiled_fn f = (cg_tm_tiled_fn)cg_sym("cuTensorMapEncodeTiled");
	if (!f) return CG_MISSING | CG_NOT_SUPPORTED;
	int r = cg_tm_push(ctx);
	if (r) return CG_PUSH_FAILED | r;
	cg_tensor_map m;
	memset(&m, 0, sizeof m);
	r = f(&m, dt, rank, (void *)addr, dims, strides, box, estr, il, sw, l2, oob);
	cg_tm_pop(ctx);
	memcpy(out, &m, sizeof m);
	return r;
}

static int cg_tm_im2col(CUcontext ctx, u64 *out, int dt, unsigned int rank, u64 addr, const u64 *dims,
                        const u64 *strides, const int *lower, const int *upper, unsigned int channels,
                        unsigned int pixels, const unsigned int *estr, int il, int sw, int l2, int oob) {
	cg_tm_im2col_fn f = (cg_tm_im2col_fn)cg_sym("cuTensorMapEncodeIm2col");
	if (!f) return CG_MISSING | CG_NOT_SUPPORTED;
	int r = cg_tm_push(ctx);
	if (r) return CG_PUSH_FAILED | r;
	cg_tensor_map m;
	memset(&m, 0, sizeof m);
	r = f(&m, dt, rank, (void *)addr, dims, strides, lower, upper, channels, pixels, estr, il, sw, l2, oob);
	cg_tm_pop(ctx);
	memcpy(out, &m, sizeof m);
	return r;
}
*/
import "C"

import (
	"fmt"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tensormap"
)

var _ tensormap.Encoder = (*Driver)(nil)

// tensorArrays are a description's arrays in C's form, room for any rank
// the driver could be asked about (it reads rank entries of each).
type tensorArrays struct {
	dims, strides [8]C.u64
	box, estr     [8]C.uint
	lower, upper  [8]C.int
}

func (a *tensorArrays) fill(op string, dims, strides []uint64, estr []uint32) error {
	if len(dims) > len(a.dims) {
		return rt.Errorf(op, rt.ErrInvalidValue, "rank %d", len(dims))
	}
	for i := range a.estr {
		a.estr[i] = 1 // nil ElementStrides: 1 everywhere
	}
	for i, d := range dims {
		a.dims[i] = C.u64(d)
	}
	for i, s := range strides[:min(len(strides), len(a.strides))] {
		a.strides[i] = C.u64(s)
	}
	for i, e := range estr[:min(len(estr), len(a.estr))] {
		a.estr[i] = C.uint(e)
	}
	return nil
}

// EncodeTiled is cuTensorMapEncodeTiled. It checks nothing itself:
// tensormap.EncodeTiled has, and the driver does.
func (d *Driver) EncodeTiled(t *tensormap.Tiled) (tensormap.Map, error) {
	const op = "cuTensorMapEncodeTiled"
	var a tensorArrays
	if err := a.fill(op, t.Dims, t.Strides, t.ElementStrides); err != nil {
		return tensormap.Map{}, err
	}
	for i, b := range t.Box[:min(len(t.Box), len(a.box))] {
		a.box[i] = C.uint(b)
	}
	var m tensormap.Map
	rc := C.cg_tm_tiled(d.someCtx(), (*C.u64)(&m.Opaque[0]), C.int(t.DataType), C.uint(len(t.Dims)), C.u64(t.Addr),
		&a.dims[0], &a.strides[0], &a.box[0], &a.estr[0], C.int(t.Interleave), C.int(t.Swizzle), C.int(t.L2Promotion), C.int(t.OOBFill))
	if rc != 0 {
		return tensormap.Map{}, checkd(op, rc, fmt.Sprintf("%v tensor at %#x, dims %v, strides %v, box %v, element strides %v, interleave %d, swizzle %d, L2 promotion %d, OOB fill %d",
			t.DataType, t.Addr, t.Dims, t.Strides, t.Box, t.ElementStrides, t.Interleave, t.Swizzle, t.L2Promotion, t.OOBFill))
	}
	return m, nil
}

// EncodeIm2col is cuTensorMapEncodeIm2col, as EncodeTiled is
// cuTensorMapEncodeTiled.
func (d *Driver) EncodeIm2col(t *tensormap.Im2col) (tensormap.Map, error) {
	const op = "cuTensorMapEncodeIm2col"
	var a tensorArrays
	if err := a.fill(op, t.Dims, t.Strides, t.ElementStrides); err != nil {
		return tensormap.Map{}, err
	}
	for i, c := range t.LowerCorner[:min(len(t.LowerCorner), len(a.lower))] {
		a.lower[i] = C.int(c)
	}
	for i, c := range t.UpperCorner[:min(len(t.UpperCorner), len(a.upper))] {
		a.upper[i] = C.int(c)
	}
	var m tensormap.Map
	rc := C.cg_tm_im2col(d.someCtx(), (*C.u64)(&m.Opaque[0]), C.int(t.DataType), C.uint(len(t.Dims)), C.u64(t.Addr),
		&a.dims[0], &a.strides[0], &a.lower[0], &a.upper[0], C.uint(t.ChannelsPerPixel), C.uint(t.PixelsPerColumn),
		&a.estr[0], C.int(t.Interleave), C.int(t.Swizzle), C.int(t.L2Promotion), C.int(t.OOBFill))
	if rc != 0 {
		return tensormap.Map{}, checkd(op, rc, fmt.Sprintf("%v tensor at %#x, dims %v, strides %v, corners %v to %v, %d channels per pixel, %d pixels per column, element strides %v, interleave %d, swizzle %d, L2 promotion %d, OOB fill %d",
			t.DataType, t.Addr, t.Dims, t.Strides, t.LowerCorner, t.UpperCorner, t.ChannelsPerPixel, t.PixelsPerColumn, t.ElementStrides, t.Interleave, t.Swizzle, t.L2Promotion, t.OOBFill))
	}
	return m, nil
}

// TensorMapEncodeTiled is rt.EncodeTiled on d: it validates t first, as
// EncodeTiled does not.
//
// Deprecated: use EncodeTiled (or tensormap.EncodeTiled).
func (d *Driver) TensorMapEncodeTiled(t *rt.TiledTensor) (rt.TensorMap, error) {
	return rt.EncodeTiled(d, *t)
}

// TensorMapEncodeIm2col is rt.EncodeIm2col on d: it validates t first, as
// EncodeIm2col does not.
//
// Deprecated: use EncodeIm2col (or tensormap.EncodeIm2col).
func (d *Driver) TensorMapEncodeIm2col(t *rt.Im2colTensor) (rt.TensorMap, error) {
	return rt.EncodeIm2col(d, *t)
}
