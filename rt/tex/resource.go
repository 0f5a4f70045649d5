package tex

// ResourceKind is a CUresourcetype: what a texture reads.
type ResourceKind int32

const (
	ResourceArray   ResourceKind = 0 // a CUDA array
	ResourceLinear  ResourceKind = 2 // linear device memory (tex1Dfetch)
	ResourcePitch2D ResourceKind = 3 // a pitched 2-D region of device memory
)

// Texture alignment rules (cuDeviceGetAttribute TEXTURE_ALIGNMENT and
// TEXTURE_PITCH_ALIGNMENT on the H100; CUDA documents that the driver
// refuses pointers and pitches not aligned to them) and the linear and
// pitched limits.
const (
	TextureAlign       = 512
	TexturePitchAlign  = 32
	MaxTextureLinear   = 1 << 28 // elements (MAXIMUM_TEXTURE1D_LINEAR_WIDTH)
	MaxTexturePitch2D  = 1 << 17 // width and height (…TEXTURE2D_LINEAR_*)
	MaxTexturePitchRow = 1 << 21 // bytes (…TEXTURE2D_LINEAR_PITCH)
)
