// Package texobj is CUDA's texture object model on rt: the arrays, texture
// objects and surface objects of a context, and the copies that fill and
// read arrays.
//
// What these take (an array's format and shape, a texture's sampling, the
// limits) is package rt/tex's vocabulary, which imports nothing of rt so
// that a backend or a tool can use it alone; this package binds it to an
// rt.Context:
//
//	a, err := texobj.NewArray(ctx, tex.ArrayDesc{Width: w, Height: h, Format: tex.FormatFloat, Channels: 1})
//	err = texobj.CopyToArray(a, pixels)
//	t, err := texobj.NewTexture(ctx, texobj.ArrayResource(a), tex.TextureDesc{Filter: tex.FilterLinear}.Read(tex.ReadNormalizedFloat))
//	err = kernels.Blur(cfg, t.Object, out)
//
// Kernels receive textures and surfaces as 64-bit handles
// (cudaTextureObject_t, cudaSurfaceObject_t), which generated code takes as
// an rt.TextureObject and an rt.SurfaceObject: Texture.Object and
// Surface.Object. An Array, Texture or Surface keeps its handle with its
// context and destroys it.
//
// The driver-level side stays in rt, beside the backends that implement it:
// the handles, the rt.Texturer capability, and the descriptions it passes
// (rt.ResourceDesc, and rt.Copy3D, a copy between any two of host memory,
// device memory and arrays). rt's own Array, Texture, Surface, NewArray, …
// are deprecated forwarders of the same implementation; a value of this
// package is not one of rt's.
package texobj
