//go:build cgo

package cgo

/*
#include <stddef.h>
#include <string.h>
#include "shim.h"

// The structures of cuda.h, restated (cuda.h is the authority for every
// layout; the static asserts pin sizes and offsets on LP64).

// CUDA_ARRAY3D_DESCRIPTOR.
typedef struct {
	size_t Width, Height, Depth;
	int Format;
	unsigned int NumChannels, Flags;
} cgt_array3d_desc;
_Static_assert(sizeof(cgt_array3d_desc) == 40, "CUDA_ARRAY3D_DESCRIPTOR is 40 bytes");

// CUDA_MEMCPY3D.
typedef struct {
	size_t srcXInBytes, srcY, srcZ, srcLOD;
	int srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	void *srcArray;
	void *reserved0;
	size_t srcPitch, srcHeight;
	size_t dstXInBytes, dstY, dstZ, dstLOD;
	int dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	void *dstArray;
	void *reserved1;
	size_t dstPitch, dstHeight;
	size_t WidthInBytes, Height, Depth;
} cgt_memcpy3d_desc;
_Static_assert(sizeof(cgt_memcpy3d_desc) == 200, "CUDA_MEMCPY3D is 200 bytes");
_Static_assert(offsetof(cgt_memcpy3d_desc, dstXInBytes) == 88, "CUDA_MEMCPY3D.dstXInBytes at 88");
_Static_assert(offsetof(cgt_memcpy3d_desc, WidthInBytes) == 176, "CUDA_MEMCPY3D.WidthInBytes at 176");

// CUDA_RESOURCE_DESC.
typedef struct {
	int resType;
	union {
		struct { void *hArray; } array;
		struct { CUdeviceptr devPtr; int format; unsigned int numChannels; size_t sizeInBytes; } linear;
		struct { CUdeviceptr devPtr; int format; unsigned int numChannels; size_t width, height, pitchInBytes; } pitch2D;
		struct { int reserved[32]; } reserved;
	} res;
	unsigned int flags;
} cgt_res_desc;
_Static_assert(sizeof(cgt_res_desc) == 144, "CUDA_RESOURCE_DESC is 144 bytes");
_Static_assert(offsetof(cgt_res_desc, res) == 8, "CUDA_RESOURCE_DESC.res at 8");

// CUDA_TEXTURE_DESC.
typedef struct {
	int addressMode[3];
	int filterMode;
	unsigned int flags;
	unsigned int maxAnisotropy;
	int mipmapFilterMode;
	float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
	float borderColor[4];
	int reserved[12];
} cgt_tex_desc;
_Static_assert(sizeof(cgt_tex_desc) == 104, "CUDA_TEXTURE_DESC is 104 bytes");

enum { CGT_HOST = 1, CGT_DEVICE = 2, CGT_ARRAY = 3 };

typedef int (*cgt_ctx_fn)(CUcontext);
typedef int (*cgt_pop_fn)(CUcontext *);

static int cgt_push(CUcontext ctx) {
	if (!ctx) return 0;
	cgt_ctx_fn push = (cgt_ctx_fn)cg_sym("cuCtxPushCurrent_v2");
	return push ? push(ctx) : CG_MISSING | CG_NOT_SUPPORTED;
}

static void cgt_pop(CUcontext ctx) {
	if (!ctx) return;
	cgt_pop_fn pop = (cgt_pop_fn)cg_sym("cuCtxPopCurrent_v2");
	CUcontext o;
	if (pop) pop(&o);
}

// CGT_CALL resolves name's entry point as type T, and calls it with args
// in ctx.
#define CGT_CALL(ctx, T, name, ...)                          \
	do {                                                     \
		T f_ = (T)cg_sym(name);                              \
		if (!f_) return CG_MISSING | CG_NOT_SUPPORTED;       \
		int r_ = cgt_push(ctx);                              \
		if (r_) return CG_PUSH_FAILED | r_;                  \
		r_ = f_(__VA_ARGS__);                                \
		cgt_pop(ctx);                                        \
		return r_;                                           \
	} while (0)

typedef int (*cgt_arr_create_fn)(void **, const cgt_array3d_desc *);
typedef int (*cgt_arr_fn)(void *);
typedef int (*cgt_arr_desc_fn)(cgt_array3d_desc *, void *);
typedef int (*cgt_cpy3d_fn)(const cgt_memcpy3d_desc *);
typedef int (*cgt_cpy3d_async_fn)(const cgt_memcpy3d_desc *, CUstream);
typedef int (*cgt_tex_create_fn)(unsigned long long *, const cgt_res_desc *, const cgt_tex_desc *, const void *);
typedef int (*cgt_obj_fn)(unsigned long long);
typedef int (*cgt_tex_res_fn)(cgt_res_desc *, unsigned long long);
typedef int (*cgt_tex_tex_fn)(cgt_tex_desc *, unsigned long long);
typedef int (*cgt_surf_create_fn)(unsigned long long *, const cgt_res_desc *);

static int cgt_array_create(CUcontext ctx, void **out, size_t w, size_t h, size_t d, int format, unsigned int nch,
                            unsigned int flags) {
	cgt_array3d_desc a = {w, h, d, format, nch, flags};
	CGT_CALL(ctx, cgt_arr_create_fn, "cuArray3DCreate_v2", out, &a);
}

static int cgt_array_destroy(CUcontext ctx, void *a) { CGT_CALL(ctx, cgt_arr_fn, "cuArrayDestroy", a); }

static int cgt_array_desc(CUcontext ctx, void *a, cgt_array3d_desc *out) {
	CGT_CALL(ctx, cgt_arr_desc_fn, "cuArray3DGetDescriptor_v2", out, a);
}

// cgt_side is one side of a copy: kind 1 host, 2 device, 3 array.
typedef struct {
	int kind;
	CUdeviceptr dev;
	void *array;
	size_t x, y, z, pitch, height;
} cgt_side;

// The host pointers come apart from the sides: Go memory must not hold Go
// pointers when it is passed to C.
static int cgt_memcpy3d(CUcontext ctx, const cgt_side *src, void *src_host, const cgt_side *dst, void *dst_host,
                        size_t w, size_t h, size_t d, CUstream s, int async) {
	cgt_memcpy3d_desc c;
	memset(&c, 0, sizeof c);
	c.srcXInBytes = src->x, c.srcY = src->y, c.srcZ = src->z;
	c.srcMemoryType = src->kind, c.srcHost = src_host, c.srcDevice = src->dev, c.srcArray = src->array;
	c.srcPitch = src->pitch, c.srcHeight = src->height;
	c.dstXInBytes = dst->x, c.dstY = dst->y, c.dstZ = dst->z;
	c.dstMemoryType = dst->kind, c.dstHost = dst_host, c.dstDevice = dst->dev, c.dstArray = dst->array;
	c.dstPitch = dst->pitch, c.dstHeight = dst->height;
	c.WidthInBytes = w, c.Height = h, c.Depth = d;
	if (async) CGT_CALL(ctx, cgt_cpy3d_async_fn, "cuMemcpy3DAsync_v2", &c, s);
	CGT_CALL(ctx, cgt_cpy3d_fn, "cuMemcpy3D_v2", &c);
}

// cgt_res is CUDA_RESOURCE_DESC's fields, flat.
typedef struct {
	int kind;
	void *array;
	CUdeviceptr ptr;
	int format;
	unsigned int nch;
	size_t size, width, height, pitch;
} cgt_res;

static void cgt_res_in(cgt_res_desc *r, const cgt_res *in) {
	memset(r, 0, sizeof *r);
	r->resType = in->kind;
	switch (in->kind) {
	case 0:
		r->res.array.hArray = in->array;
		break;
	case 2:
		r->res.linear.devPtr = in->ptr, r->res.linear.format = in->format, r->res.linear.numChannels = in->nch;
		r->res.linear.sizeInBytes = in->size;
		break;
	case 3:
		r->res.pitch2D.devPtr = in->ptr, r->res.pitch2D.format = in->format, r->res.pitch2D.numChannels = in->nch;
		r->res.pitch2D.width = in->width, r->res.pitch2D.height = in->height, r->res.pitch2D.pitchInBytes = in->pitch;
		break;
	}
}

static void cgt_res_out(const cgt_res_desc *r, cgt_res *out) {
	memset(out, 0, sizeof *out);
	out->kind = r->resType;
	switch (r->resType) {
	case 0:
		out->array = r->res.array.hArray;
		break;
	case 2:
		out->ptr = r->res.linear.devPtr, out->format = r->res.linear.format, out->nch = r->res.linear.numChannels;
		out->size = r->res.linear.sizeInBytes;
		break;
	case 3:
		out->ptr = r->res.pitch2D.devPtr, out->format = r->res.pitch2D.format, out->nch = r->res.pitch2D.numChannels;
		out->width = r->res.pitch2D.width, out->height = r->res.pitch2D.height, out->pitch = r->res.pitch2D.pitchInBytes;
		break;
	}
}

// cgt_tex is CUDA_TEXTURE_DESC's fields rt uses.
typedef struct {
	int addr[3];
	int filter;
	unsigned int flags, aniso;
	float border[4];
} cgt_tex;

static int cgt_tex_create(CUcontext ctx, unsigned long long *out, const cgt_res *res, const cgt_tex *tex) {
	cgt_res_desc r;
	cgt_res_in(&r, res);
	cgt_tex_desc t;
	memset(&t, 0, sizeof t);
	memcpy(t.addressMode, tex->addr, sizeof t.addressMode);
	t.filterMode = tex->filter, t.flags = tex->flags, t.maxAnisotropy = tex->aniso;
	memcpy(t.borderColor, tex->border, sizeof t.borderColor);
	CGT_CALL(ctx, cgt_tex_create_fn, "cuTexObjectCreate", out, &r, &t, NULL);
}

static int cgt_tex_destroy(CUcontext ctx, unsigned long long o) {
	CGT_CALL(ctx, cgt_obj_fn, "cuTexObjectDestroy", o);
}

// cgt_obj_res_desc reads a texture's or surface's resource description
// through sym, cuTexObjectGetResourceDesc or cuSurfObjectGetResourceDesc.
static int cgt_obj_res_desc(CUcontext ctx, const char *sym, unsigned long long o, cgt_res *out) {
	cgt_tex_res_fn f = (cgt_tex_res_fn)cg_sym(sym);
	if (!f) return CG_MISSING | CG_NOT_SUPPORTED;
	int r = cgt_push(ctx);
	if (r) return CG_PUSH_FAILED | r;
	cgt_res_desc d;
	memset(&d, 0, sizeof d);
	r = f(&d, o);
	cgt_pop(ctx);
	cgt_res_out(&d, out);
	return r;
}

static int cgt_tex_tex_desc(CUcontext ctx, unsigned long long o, cgt_tex *out) {
	cgt_tex_tex_fn f = (cgt_tex_tex_fn)cg_sym("cuTexObjectGetTextureDesc");
	if (!f) return CG_MISSING | CG_NOT_SUPPORTED;
	int r = cgt_push(ctx);
	if (r) return CG_PUSH_FAILED | r;
	cgt_tex_desc t;
	memset(&t, 0, sizeof t);
	r = f(&t, o);
	cgt_pop(ctx);
	memcpy(out->addr, t.addressMode, sizeof out->addr);
	out->filter = t.filterMode, out->flags = t.flags, out->aniso = t.maxAnisotropy;
	memcpy(out->border, t.borderColor, sizeof out->border);
	return r;
}

static int cgt_surf_create(CUcontext ctx, unsigned long long *out, const cgt_res *res) {
	cgt_res_desc r;
	cgt_res_in(&r, res);
	CGT_CALL(ctx, cgt_surf_create_fn, "cuSurfObjectCreate", out, &r);
}

static int cgt_surf_destroy(CUcontext ctx, unsigned long long o) {
	CGT_CALL(ctx, cgt_obj_fn, "cuSurfObjectDestroy", o);
}

static int cgt_tex_res_desc(CUcontext ctx, unsigned long long o, cgt_res *out) {
	return cgt_obj_res_desc(ctx, "cuTexObjectGetResourceDesc", o, out);
}

static int cgt_surf_res_desc(CUcontext ctx, unsigned long long o, cgt_res *out) {
	return cgt_obj_res_desc(ctx, "cuSurfObjectGetResourceDesc", o, out);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// CUDA arrays, texture and surface objects (rt.Texturer), through the
// driver's own calls. The descriptions are checked here as rt checks them
// (the same rules, codes and messages on both backends); the driver checks
// them again.

var _ rt.Texturer = (*Driver)(nil)

func carray(h rt.ArrayHandle) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&h)) }

// ArrayCreate is cuArray3DCreate.
func (d *Driver) ArrayCreate(ctx rt.CtxHandle, desc *rt.ArrayDesc) (rt.ArrayHandle, error) {
	const op = "cuArray3DCreate"
	if err := desc.Validate(); err != nil {
		return 0, err
	}
	ch := desc.Channels
	if ch == 0 {
		ch = desc.Format.Channels()
	}
	var a unsafe.Pointer
	rc := C.cgt_array_create(cctx(ctx), &a, C.size_t(desc.Width), C.size_t(desc.Height), C.size_t(desc.Depth),
		C.int(desc.Format), C.uint(ch), C.uint(desc.Flags))
	if rc != 0 {
		return 0, checkd(op, rc, desc.String())
	}
	return rt.ArrayHandle(uintptr(a)), nil
}

// ArrayDestroy is cuArrayDestroy.
func (d *Driver) ArrayDestroy(ctx rt.CtxHandle, a rt.ArrayHandle) error {
	if a == 0 {
		return rt.Errorf("cuArrayDestroy", rt.ErrInvalidHandle, "array 0")
	}
	return check("cuArrayDestroy", C.cgt_array_destroy(cctx(ctx), carray(a)))
}

// ArrayDescriptor is cuArray3DGetDescriptor.
func (d *Driver) ArrayDescriptor(ctx rt.CtxHandle, a rt.ArrayHandle) (rt.ArrayDesc, error) {
	if a == 0 {
		return rt.ArrayDesc{}, rt.Errorf("cuArray3DGetDescriptor", rt.ErrInvalidHandle, "array 0")
	}
	var out C.cgt_array3d_desc
	if rc := C.cgt_array_desc(cctx(ctx), carray(a), &out); rc != 0 {
		return rt.ArrayDesc{}, check("cuArray3DGetDescriptor", rc)
	}
	return rt.ArrayDesc{Width: int(out.Width), Height: int(out.Height), Depth: int(out.Depth),
		Format: rt.ArrayFormat(out.Format), Channels: int(out.NumChannels), Flags: uint32(out.Flags)}, nil
}

func cside(s *rt.CopySide) C.cgt_side {
	c := C.cgt_side{x: C.size_t(s.X), y: C.size_t(s.Y), z: C.size_t(s.Z), pitch: C.size_t(s.Pitch), height: C.size_t(s.Height)}
	switch {
	case s.Host != nil:
		c.kind = C.CGT_HOST
	case s.Device != 0:
		c.kind, c.dev = C.CGT_DEVICE, C.CUdeviceptr(s.Device)
	default:
		c.kind, c.array = C.CGT_ARRAY, carray(s.Array)
	}
	return c
}

// Memcpy3D is cuMemcpy3D(Async). Go memory is read or written before a
// synchronous call returns, and staged by CUDA for an async one.
func (d *Driver) Memcpy3D(ctx rt.CtxHandle, c *rt.Copy3D, s rt.StreamHandle, async bool) error {
	const op = "cuMemcpy3D"
	if err := c.Validate(); err != nil {
		return err
	}
	if c.WidthBytes == 0 || c.Height == 0 || c.Depth == 0 {
		return nil
	}
	src, dst := cside(&c.Src), cside(&c.Dst)
	rc := C.cgt_memcpy3d(cctx(ctx), &src, c.Src.Host, &dst, c.Dst.Host, C.size_t(c.WidthBytes), C.size_t(c.Height), C.size_t(c.Depth), cstream(s), b2i(async))
	if rc != 0 {
		return checkd(op, rc, fmt.Sprintf("%d bytes × %d × %d", c.WidthBytes, c.Height, c.Depth))
	}
	return nil
}

func cres(r *rt.ResourceDesc) C.cgt_res {
	ch := r.Channels
	if ch == 0 {
		ch = r.Format.Channels()
	}
	return C.cgt_res{kind: C.int(r.Kind), array: carray(r.Array), ptr: C.CUdeviceptr(r.Ptr), format: C.int(r.Format),
		nch: C.uint(ch), size: C.size_t(r.SizeBytes), width: C.size_t(r.Width), height: C.size_t(r.Height), pitch: C.size_t(r.Pitch)}
}

func goRes(c *C.cgt_res) rt.ResourceDesc {
	return rt.ResourceDesc{Kind: rt.ResourceKind(c.kind), Array: rt.ArrayHandle(uintptr(c.array)), Ptr: rt.DevPtr(c.ptr),
		Format: rt.ArrayFormat(c.format), Channels: int(c.nch), SizeBytes: uint64(c.size), Width: int(c.width),
		Height: int(c.height), Pitch: uint64(c.pitch)}
}

// TexObjectCreate is cuTexObjectCreate.
func (d *Driver) TexObjectCreate(ctx rt.CtxHandle, r *rt.ResourceDesc, t *rt.TextureDesc) (rt.TextureObject, error) {
	const op = "cuTexObjectCreate"
	if err := r.Validate(op); err != nil {
		return 0, err
	}
	if err := t.Validate(); err != nil {
		return 0, err
	}
	res := cres(r)
	tex := C.cgt_tex{filter: C.int(t.Filter), flags: C.uint(t.Flags), aniso: C.uint(t.MaxAnisotropy)}
	for i := range 3 {
		tex.addr[i] = C.int(t.AddressMode[i])
	}
	for i := range 4 {
		tex.border[i] = C.float(t.BorderColor[i])
	}
	var o C.ulonglong
	if rc := C.cgt_tex_create(cctx(ctx), &o, &res, &tex); rc != 0 {
		return 0, checkd(op, rc, fmt.Sprintf("%+v, %+v", *r, *t))
	}
	return rt.TextureObject(o), nil
}

// TexObjectDestroy is cuTexObjectDestroy.
func (d *Driver) TexObjectDestroy(ctx rt.CtxHandle, t rt.TextureObject) error {
	return check("cuTexObjectDestroy", C.cgt_tex_destroy(cctx(ctx), C.ulonglong(t)))
}

// TexObjectDesc is cuTexObjectGetResourceDesc and cuTexObjectGetTextureDesc.
func (d *Driver) TexObjectDesc(ctx rt.CtxHandle, t rt.TextureObject) (rt.ResourceDesc, rt.TextureDesc, error) {
	var res C.cgt_res
	if rc := C.cgt_tex_res_desc(cctx(ctx), C.ulonglong(t), &res); rc != 0 {
		return rt.ResourceDesc{}, rt.TextureDesc{}, check("cuTexObjectGetResourceDesc", rc)
	}
	var tex C.cgt_tex
	if rc := C.cgt_tex_tex_desc(cctx(ctx), C.ulonglong(t), &tex); rc != 0 {
		return rt.ResourceDesc{}, rt.TextureDesc{}, check("cuTexObjectGetTextureDesc", rc)
	}
	td := rt.TextureDesc{Filter: rt.FilterMode(tex.filter), Flags: uint32(tex.flags), MaxAnisotropy: uint32(tex.aniso)}
	for i := range 3 {
		td.AddressMode[i] = rt.AddressMode(tex.addr[i])
	}
	for i := range 4 {
		td.BorderColor[i] = float32(tex.border[i])
	}
	return goRes(&res), td, nil
}

// SurfObjectCreate is cuSurfObjectCreate.
func (d *Driver) SurfObjectCreate(ctx rt.CtxHandle, r *rt.ResourceDesc) (rt.SurfaceObject, error) {
	const op = "cuSurfObjectCreate"
	if r.Kind != rt.ResourceArray {
		return 0, rt.Errorf(op, rt.ErrInvalidValue, "a surface is over an array, not resource type %d", r.Kind)
	}
	if err := r.Validate(op); err != nil {
		return 0, err
	}
	res := cres(r)
	var o C.ulonglong
	if rc := C.cgt_surf_create(cctx(ctx), &o, &res); rc != 0 {
		return 0, checkd(op, rc, fmt.Sprintf("array %#x", uintptr(r.Array)))
	}
	return rt.SurfaceObject(o), nil
}

// SurfObjectDestroy is cuSurfObjectDestroy.
func (d *Driver) SurfObjectDestroy(ctx rt.CtxHandle, s rt.SurfaceObject) error {
	return check("cuSurfObjectDestroy", C.cgt_surf_destroy(cctx(ctx), C.ulonglong(s)))
}

// SurfObjectDesc is cuSurfObjectGetResourceDesc.
func (d *Driver) SurfObjectDesc(ctx rt.CtxHandle, s rt.SurfaceObject) (rt.ResourceDesc, error) {
	var res C.cgt_res
	if rc := C.cgt_surf_res_desc(cctx(ctx), C.ulonglong(s), &res); rc != 0 {
		return rt.ResourceDesc{}, check("cuSurfObjectGetResourceDesc", rc)
	}
	return goRes(&res), nil
}
