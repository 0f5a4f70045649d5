package tex_test

import (
	"testing"

	"github.com/cugen/cugen/rt/tex"
)

// TestArrayLimits: every shape limit is accepted at the H100's value and
// refused one past it, in the dimension it names.
func TestArrayLimits(t *testing.T) {
	f := tex.FormatFloat
	for _, c := range []struct {
		name string
		at   tex.ArrayDesc
		past func(d *tex.ArrayDesc)
	}{
		{"1-D width", tex.ArrayDesc{Width: tex.MaxArray1D, Format: f}, func(d *tex.ArrayDesc) { d.Width++ }},
		{"2-D width", tex.ArrayDesc{Width: tex.MaxArray2D, Height: 1, Format: f}, func(d *tex.ArrayDesc) { d.Width++ }},
		{"2-D height", tex.ArrayDesc{Width: 1, Height: tex.MaxArray2DHeight, Format: f}, func(d *tex.ArrayDesc) { d.Height++ }},
		{"3-D depth", tex.ArrayDesc{Width: 1, Height: 1, Depth: tex.MaxArray3D, Format: f}, func(d *tex.ArrayDesc) { d.Depth++ }},
		{"3-D width", tex.ArrayDesc{Width: tex.MaxArray3D, Height: 1, Depth: 1, Format: f}, func(d *tex.ArrayDesc) { d.Width++ }},
		{"layered 1-D width", tex.ArrayDesc{Width: tex.MaxArrayLayered1D, Depth: 1, Format: f, Flags: tex.ArrayLayered}, func(d *tex.ArrayDesc) { d.Width++ }},
		{"layered 2-D height", tex.ArrayDesc{Width: 1, Height: tex.MaxArrayLayered2D, Depth: 1, Format: f, Flags: tex.ArrayLayered}, func(d *tex.ArrayDesc) { d.Height++ }},
		{"layers", tex.ArrayDesc{Width: 1, Height: 1, Depth: tex.MaxArrayLayers, Format: f, Flags: tex.ArrayLayered}, func(d *tex.ArrayDesc) { d.Depth++ }},
		{"cube width", tex.ArrayDesc{Width: tex.MaxArrayCube, Height: tex.MaxArrayCube, Depth: 6, Format: f, Flags: tex.ArrayCubemap}, func(d *tex.ArrayDesc) { d.Width++; d.Height++ }},
		{"gather on 2-D only", tex.ArrayDesc{Width: 4, Height: 4, Format: f, Flags: tex.ArrayTextureGather}, func(d *tex.ArrayDesc) { d.Depth = 2 }},
	} {
		d := c.at
		d.Channels = 1
		if err := d.Validate(); err != nil {
			t.Errorf("%s at the limit (%v): %v", c.name, d, err)
		}
		c.past(&d)
		if err := d.Validate(); err == nil {
			t.Errorf("%s past the limit (%v) passes", c.name, d)
		}
	}
	if tex.MaxArray2D != 131072 || tex.MaxArray2DHeight != 65536 || tex.MaxArray3D != 16384 || tex.MaxArrayLayers != 2048 {
		t.Errorf("limits %d %d %d %d are not the H100's", tex.MaxArray2D, tex.MaxArray2DHeight, tex.MaxArray3D, tex.MaxArrayLayers)
	}
}

// TestTextureFlags: the flag setters and ReadMode agree with the CU_TRSF
// bits, and every flag but an unknown one validates.
func TestTextureFlags(t *testing.T) {
	d := tex.TextureDesc{}.SRGB(true)
	if d.Flags != tex.TexSRGB || d.ReadMode() != tex.ReadNormalizedFloat {
		t.Errorf("SRGB(true): flags %#x, read mode %v", d.Flags, d.ReadMode())
	}
	d = d.SRGB(false).Read(tex.ReadElementType)
	if d.Flags != tex.TexReadAsInteger || d.ReadMode() != tex.ReadElementType {
		t.Errorf("Read(ReadElementType): flags %#x, read mode %v", d.Flags, d.ReadMode())
	}
	all := tex.TextureDesc{Flags: tex.TexReadAsInteger | tex.TexNormalizedCoords | tex.TexSRGB | tex.TexDisableTrilinearOpt | tex.TexSeamlessCubemap, MaxAnisotropy: 16}
	if err := all.Validate(); err != nil {
		t.Errorf("every known flag: %v", err)
	}
	if tex.TexSRGB != 0x10 || tex.TexDisableTrilinearOpt != 0x20 || tex.TexSeamlessCubemap != 0x40 {
		t.Errorf("flags %#x %#x %#x are not cuda.h's CU_TRSF_*", tex.TexSRGB, tex.TexDisableTrilinearOpt, tex.TexSeamlessCubemap)
	}
	all.Flags |= 0x100
	if err := all.Validate(); err == nil {
		t.Error("an unknown flag passes")
	}
}
