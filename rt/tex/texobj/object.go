package texobj

import (
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tex"
)

// Texture is a texture object of one context (cuTexObjectCreate): it
// samples an array, a pitched 2-D region or linear device memory with the
// addressing, filtering and conversion of a tex.TextureDesc.
type Texture struct {
	// Object is the handle a kernel takes (0 after Destroy).
	Object rt.TextureObject
	t      *rt.Texture
}

// NewTexture creates a texture object over r (ArrayResource,
// LinearResource, PitchedResource).
func NewTexture(ctx *rt.Context, r rt.ResourceDesc, d tex.TextureDesc) (*Texture, error) {
	t, err := rt.NewTexture(ctx, r, d)
	if err != nil {
		return nil, err
	}
	return &Texture{Object: t.Object, t: t}, nil
}

func (t *Texture) impl() *rt.Texture {
	if t == nil {
		return nil
	}
	return t.t
}

// Desc reads back the texture's resource and texture descriptions
// (cuTexObjectGetResourceDesc, cuTexObjectGetTextureDesc). The border color
// may read back as zeros (the H100's driver, CUDA 13.0, returned zeros for
// a u8×4 array's).
func (t *Texture) Desc() (rt.ResourceDesc, tex.TextureDesc, error) { return t.impl().Desc() }

// Destroy destroys the texture object (cuTexObjectDestroy).
func (t *Texture) Destroy() error {
	err := t.impl().Destroy()
	if err == nil {
		t.Object = 0
	}
	return err
}

// Surface is a surface object of one context (cuSurfObjectCreate): it
// reads and writes an array made with tex.ArraySurfaceLoadStore.
type Surface struct {
	// Object is the handle a kernel takes (0 after Destroy).
	Object rt.SurfaceObject
	s      *rt.Surface
}

// NewSurface creates a surface object over a, which must have been made
// with tex.ArraySurfaceLoadStore.
func NewSurface(a *Array) (*Surface, error) {
	s, err := rt.NewSurface(a.impl())
	if err != nil {
		return nil, err
	}
	return &Surface{Object: s.Object, s: s}, nil
}

// Destroy destroys the surface object (cuSurfObjectDestroy).
func (s *Surface) Destroy() error {
	var impl *rt.Surface
	if s != nil {
		impl = s.s
	}
	err := impl.Destroy()
	if err == nil {
		s.Object = 0
	}
	return err
}

// ArrayResource is the resource of array a.
func ArrayResource(a *Array) rt.ResourceDesc { return rt.ArrayResource(a.impl()) }

// LinearResource is n elements of format×channels at p (channels 0 for a
// format that carries its own, tex.FormatUnorm8X4 …), 512-byte aligned
// (tex.TextureAlign) as rt.Alloc gives.
func LinearResource(p rt.DevPtr, format tex.ArrayFormat, channels int, n int) rt.ResourceDesc {
	return rt.LinearResource(p, format, channels, n)
}

// PitchedResource is the pitched array p, whose T is channels channels of
// format (a Pitched[float32] is tex.FormatFloat, 1; a Pitched[rt.Float4]
// tex.FormatFloat, 4).
func PitchedResource[T any](p rt.Pitched[T], format tex.ArrayFormat, channels int) rt.ResourceDesc {
	return rt.PitchedResource(p, format, channels)
}
