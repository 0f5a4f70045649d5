// Package tex is the vocabulary of CUDA arrays and texture objects: the
// element formats of an array (ArrayFormat) and its shape (ArrayDesc), what
// a texture reads (ResourceKind) and how it samples (TextureDesc: address
// modes, filtering, read mode, flags), and the H100's limits and
// alignments, each value cuda.h's. Descriptions check themselves
// (ArrayDesc.Validate, TextureDesc.Validate) by CUDA's documented rules,
// with rt's errors (rt.ErrInvalidValue) in a program that links rt.
//
// The objects made from them belong to a context and live in package
// rt/tex/texobj, which binds this vocabulary to rt:
//
//	a, err := texobj.NewArray(ctx, tex.ArrayDesc{Width: w, Height: h, Format: tex.FormatFloat, Channels: 1})
//	err = texobj.CopyToArray(a, pixels)
//	t, err := texobj.NewTexture(ctx, texobj.ArrayResource(a), tex.TextureDesc{Filter: tex.FilterLinear}.Read(tex.ReadNormalizedFloat))
//	err = kernels.Blur(cfg, t.Object, out)
//
// The package imports nothing of rt (rt imports it, and a backend or a tool
// can use it alone), which is why the objects are texobj's and the
// driver-level descriptions holding device addresses (rt.ResourceDesc,
// rt.Copy3D) stay in rt; rt's old names for what moved here (rt.ArrayDesc,
// rt.FormatFloat, …) are deprecated aliases of these.
package tex
