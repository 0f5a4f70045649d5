package rt

import "github.com/cugen/cugen/rt/tex"

// The formats and descriptions of CUDA arrays and texture objects moved to
// rt/tex; these names stay for the code that spells them rt.X.

type (
	// Deprecated: use tex.AddressMode.
	AddressMode = tex.AddressMode
	// Deprecated: use tex.ArrayDesc.
	ArrayDesc = tex.ArrayDesc
	// Deprecated: use tex.ArrayFormat.
	ArrayFormat = tex.ArrayFormat
	// Deprecated: use tex.FilterMode.
	FilterMode = tex.FilterMode
	// Deprecated: use tex.ReadMode.
	ReadMode = tex.ReadMode
	// Deprecated: use tex.ResourceKind.
	ResourceKind = tex.ResourceKind
	// Deprecated: use tex.TextureDesc.
	TextureDesc = tex.TextureDesc
)

const (
	// Deprecated: use tex.FormatUint8.
	FormatUint8 = tex.FormatUint8
	// Deprecated: use tex.FormatUint16.
	FormatUint16 = tex.FormatUint16
	// Deprecated: use tex.FormatUint32.
	FormatUint32 = tex.FormatUint32
	// Deprecated: use tex.FormatInt8.
	FormatInt8 = tex.FormatInt8
	// Deprecated: use tex.FormatInt16.
	FormatInt16 = tex.FormatInt16
	// Deprecated: use tex.FormatInt32.
	FormatInt32 = tex.FormatInt32
	// Deprecated: use tex.FormatHalf.
	FormatHalf = tex.FormatHalf
	// Deprecated: use tex.FormatFloat.
	FormatFloat = tex.FormatFloat
	// Deprecated: use tex.FormatUnorm8.
	FormatUnorm8 = tex.FormatUnorm8
	// Deprecated: use tex.FormatUnorm16.
	FormatUnorm16 = tex.FormatUnorm16
	// Deprecated: use tex.FormatSnorm8.
	FormatSnorm8 = tex.FormatSnorm8
	// Deprecated: use tex.FormatSnorm16.
	FormatSnorm16 = tex.FormatSnorm16
	// Deprecated: use tex.FormatUnorm8X1.
	FormatUnorm8X1 = tex.FormatUnorm8X1
	// Deprecated: use tex.FormatUnorm8X2.
	FormatUnorm8X2 = tex.FormatUnorm8X2
	// Deprecated: use tex.FormatUnorm8X4.
	FormatUnorm8X4 = tex.FormatUnorm8X4
	// Deprecated: use tex.FormatUnorm16X1.
	FormatUnorm16X1 = tex.FormatUnorm16X1
	// Deprecated: use tex.FormatUnorm16X2.
	FormatUnorm16X2 = tex.FormatUnorm16X2
	// Deprecated: use tex.FormatUnorm16X4.
	FormatUnorm16X4 = tex.FormatUnorm16X4
	// Deprecated: use tex.FormatSnorm8X1.
	FormatSnorm8X1 = tex.FormatSnorm8X1
	// Deprecated: use tex.FormatSnorm8X2.
	FormatSnorm8X2 = tex.FormatSnorm8X2
	// Deprecated: use tex.FormatSnorm8X4.
	FormatSnorm8X4 = tex.FormatSnorm8X4
	// Deprecated: use tex.FormatSnorm16X1.
	FormatSnorm16X1 = tex.FormatSnorm16X1
	// Deprecated: use tex.FormatSnorm16X2.
	FormatSnorm16X2 = tex.FormatSnorm16X2
	// Deprecated: use tex.FormatSnorm16X4.
	FormatSnorm16X4 = tex.FormatSnorm16X4
	// Deprecated: use tex.ArrayLayered.
	ArrayLayered = tex.ArrayLayered
	// Deprecated: use tex.ArraySurfaceLoadStore.
	ArraySurfaceLoadStore = tex.ArraySurfaceLoadStore
	// Deprecated: use tex.ArrayCubemap.
	ArrayCubemap = tex.ArrayCubemap
	// Deprecated: use tex.ArrayTextureGather.
	ArrayTextureGather = tex.ArrayTextureGather
	// Deprecated: use tex.MaxArray1D.
	MaxArray1D = tex.MaxArray1D
	// Deprecated: use tex.MaxArray2D.
	MaxArray2D = tex.MaxArray2D
	// Deprecated: use tex.MaxArray2DHeight.
	MaxArray2DHeight = tex.MaxArray2DHeight
	// Deprecated: use tex.MaxArray3D.
	MaxArray3D = tex.MaxArray3D
	// Deprecated: use tex.MaxArrayLayers.
	MaxArrayLayers = tex.MaxArrayLayers
	// Deprecated: use tex.MaxArrayLayered1D.
	MaxArrayLayered1D = tex.MaxArrayLayered1D
	// Deprecated: use tex.MaxArrayLayered2D.
	MaxArrayLayered2D = tex.MaxArrayLayered2D
	// Deprecated: use tex.MaxArrayCube.
	MaxArrayCube = tex.MaxArrayCube
	// Deprecated: use tex.ResourceArray.
	ResourceArray = tex.ResourceArray
	// Deprecated: use tex.ResourceLinear.
	ResourceLinear = tex.ResourceLinear
	// Deprecated: use tex.ResourcePitch2D.
	ResourcePitch2D = tex.ResourcePitch2D
	// Deprecated: use tex.TextureAlign.
	TextureAlign = tex.TextureAlign
	// Deprecated: use tex.TexturePitchAlign.
	TexturePitchAlign = tex.TexturePitchAlign
	// Deprecated: use tex.MaxTextureLinear.
	MaxTextureLinear = tex.MaxTextureLinear
	// Deprecated: use tex.MaxTexturePitch2D.
	MaxTexturePitch2D = tex.MaxTexturePitch2D
	// Deprecated: use tex.MaxTexturePitchRow.
	MaxTexturePitchRow = tex.MaxTexturePitchRow
	// Deprecated: use tex.AddressWrap.
	AddressWrap = tex.AddressWrap
	// Deprecated: use tex.AddressClamp.
	AddressClamp = tex.AddressClamp
	// Deprecated: use tex.AddressMirror.
	AddressMirror = tex.AddressMirror
	// Deprecated: use tex.AddressBorder.
	AddressBorder = tex.AddressBorder
	// Deprecated: use tex.FilterPoint.
	FilterPoint = tex.FilterPoint
	// Deprecated: use tex.FilterLinear.
	FilterLinear = tex.FilterLinear
	// Deprecated: use tex.ReadElementType.
	ReadElementType = tex.ReadElementType
	// Deprecated: use tex.ReadNormalizedFloat.
	ReadNormalizedFloat = tex.ReadNormalizedFloat
	// Deprecated: use tex.TexReadAsInteger.
	TexReadAsInteger = tex.TexReadAsInteger
	// Deprecated: use tex.TexNormalizedCoords.
	TexNormalizedCoords = tex.TexNormalizedCoords
	// Deprecated: use tex.TexSRGB.
	TexSRGB = tex.TexSRGB
	// Deprecated: use tex.TexDisableTrilinearOpt.
	TexDisableTrilinearOpt = tex.TexDisableTrilinearOpt
	// Deprecated: use tex.TexSeamlessCubemap.
	TexSeamlessCubemap = tex.TexSeamlessCubemap
)
