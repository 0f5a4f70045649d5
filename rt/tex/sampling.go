package tex

import "github.com/cugen/cugen/rt/internal/cuerr"

// AddressMode is a CUaddress_mode: what a coordinate outside the texture
// reads.
type AddressMode int32

const (
	AddressWrap   AddressMode = 0 // repeat (normalized coordinates only)
	AddressClamp  AddressMode = 1 // the nearest edge texel
	AddressMirror AddressMode = 2 // repeat mirrored (normalized coordinates only)
	AddressBorder AddressMode = 3 // the border color
)

// FilterMode is a CUfilter_mode.
type FilterMode int32

const (
	FilterPoint  FilterMode = 0 // the nearest texel
	FilterLinear FilterMode = 1 // (bi/tri)linear interpolation, float-returning textures only
)

// ReadMode is cudaTextureReadMode: whether integer texels read as they are
// or as normalized floats. The zero value is the runtime API's default.
type ReadMode int32

const (
	// ReadElementType reads integers as integers (CU_TRSF_READ_AS_INTEGER).
	ReadElementType ReadMode = 0
	// ReadNormalizedFloat reads 8- and 16-bit integers as floats in [0, 1]
	// (unsigned) or [-1, 1] (signed).
	ReadNormalizedFloat ReadMode = 1
)

// Texture flags (CU_TRSF_*), as TextureDesc.Flags spells them for the
// driver; the values are cuda.h's.
const (
	TexReadAsInteger       uint32 = 0x01
	TexNormalizedCoords    uint32 = 0x02
	TexSRGB                uint32 = 0x10
	TexDisableTrilinearOpt uint32 = 0x20
	TexSeamlessCubemap     uint32 = 0x40 // cube maps filter across faces (address modes off)

	texFlagsKnown      = TexReadAsInteger | TexNormalizedCoords | TexSRGB | TexDisableTrilinearOpt | TexSeamlessCubemap
	maxAnisotropyLimit = 16
)

// TextureDesc is a CUDA_TEXTURE_DESC without mipmaps: how a texture samples.
type TextureDesc struct {
	// AddressMode is per dimension: x, y, z. On a cube map x's mode
	// applies to a face's s coordinate and y's to its t, within the face
	// (wrap wraps to the same face's far edge, border reads the border
	// colour at its edges); with TexSeamlessCubemap they are ignored.
	AddressMode [3]AddressMode
	Filter      FilterMode
	// Flags are TexReadAsInteger, TexNormalizedCoords, TexSRGB,
	// TexDisableTrilinearOpt and TexSeamlessCubemap. The Read, Normalized
	// and SRGB helpers set them.
	Flags uint32
	// MaxAnisotropy is 0 or 1 (off) up to 16.
	MaxAnisotropy uint32
	// BorderColor is what AddressBorder reads outside, as RGBA floats.
	// Normalized-float reads see it converted to the texel format (sRGB
	// channels: encoded to an 8-bit sRGB code, then decoded like a texel).
	BorderColor [4]float32
}

// Read sets the read mode (TexReadAsInteger for ReadElementType).
func (t TextureDesc) Read(m ReadMode) TextureDesc {
	t.Flags &^= TexReadAsInteger
	if m == ReadElementType {
		t.Flags |= TexReadAsInteger
	}
	return t
}

// Normalized sets normalized coordinates ([0, 1) across each dimension).
func (t TextureDesc) Normalized(on bool) TextureDesc {
	t.Flags &^= TexNormalizedCoords
	if on {
		t.Flags |= TexNormalizedCoords
	}
	return t
}

// SRGB sets the sRGB-to-linear conversion of 8-bit unsigned texels read as
// normalized floats: red, green and blue of four-channel formats, the first
// channel of one- and two-channel ones. On 16-bit formats the H100 accepts
// the flag and ignores it.
func (t TextureDesc) SRGB(on bool) TextureDesc {
	t.Flags &^= TexSRGB
	if on {
		t.Flags |= TexSRGB
	}
	return t
}

// ReadMode is the read mode t's flags say.
func (t TextureDesc) ReadMode() ReadMode {
	if t.Flags&TexReadAsInteger != 0 {
		return ReadElementType
	}
	return ReadNormalizedFloat
}

// Validate checks the enums and flags.
func (t *TextureDesc) Validate() error {
	const op = "cuTexObjectCreate"
	for i, m := range t.AddressMode {
		if m < AddressWrap || m > AddressBorder {
			return cuerr.Invalid(op, "address mode %d of dimension %d", m, i)
		}
	}
	if t.Filter != FilterPoint && t.Filter != FilterLinear {
		return cuerr.Invalid(op, "filter mode %d", t.Filter)
	}
	if t.Flags&^texFlagsKnown != 0 {
		return cuerr.Invalid(op, "flags %#x: unknown bits %#x", t.Flags, t.Flags&^texFlagsKnown)
	}
	if t.MaxAnisotropy > maxAnisotropyLimit {
		return cuerr.Invalid(op, "max anisotropy %d, want 0 to %d", t.MaxAnisotropy, maxAnisotropyLimit)
	}
	return nil
}
