package tex_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tex"
)

// TestValidateErrorsAreRt: with rt linked, a description's check fails
// with an *rt.Error carrying CUDA_ERROR_INVALID_VALUE and the call's name,
// as it did when the descriptions were rt's.
func TestValidateErrorsAreRt(t *testing.T) {
	for _, c := range []struct {
		name, op, detail string
		err              error
	}{
		{"array format", "cuArray3DCreate", "format ArrayFormat(0x7)", (&tex.ArrayDesc{Width: 4, Format: 7, Channels: 1}).Validate()},
		{"cube faces", "cuArray3DCreate", "cube map has Depth 5", (&tex.ArrayDesc{Width: 8, Height: 8, Depth: 5, Format: tex.FormatFloat, Channels: 1, Flags: tex.ArrayCubemap}).Validate()},
		{"too wide", "cuArray3DCreate", "width 131073 is more than 131072", (&tex.ArrayDesc{Width: tex.MaxArray1D + 1, Format: tex.FormatUint8, Channels: 1}).Validate()},
		{"filter", "cuTexObjectCreate", "filter mode 9", (&tex.TextureDesc{Filter: 9}).Validate()},
		{"anisotropy", "cuTexObjectCreate", "max anisotropy 17", (&tex.TextureDesc{MaxAnisotropy: 17}).Validate()},
	} {
		var e *rt.Error
		if !errors.As(c.err, &e) || !errors.Is(c.err, rt.ErrInvalidValue) || e.Op != c.op || !strings.Contains(e.Detail, c.detail) {
			t.Errorf("%s: %v (%T), want an *rt.Error of %s, ErrInvalidValue, saying %q", c.name, c.err, c.err, c.op, c.detail)
		}
	}
	if err := (&tex.ArrayDesc{Width: 8, Height: 8, Depth: 6, Format: tex.FormatUnorm8X4, Flags: tex.ArrayCubemap}).Validate(); err != nil {
		t.Errorf("a u8x4 cube map: %v", err)
	}
}

// TestRtAliases: rt's deprecated names are tex's, so code that mixes them
// compiles and one value serves both.
func TestRtAliases(t *testing.T) {
	d := rt.ArrayDesc{Width: 16, Height: 4, Format: rt.FormatHalf, Channels: 2}
	var td tex.ArrayDesc = d
	if td.ElemSize() != 4 || td.Dims() != 2 || td.Bytes() != 256 || rt.FormatSnorm16X4 != tex.FormatSnorm16X4 {
		t.Errorf("%v: elem %d, dims %d, bytes %d", td, td.ElemSize(), td.Dims(), td.Bytes())
	}
	if got := (rt.TextureDesc{}).Read(rt.ReadElementType).Normalized(true).Flags; got != tex.TexReadAsInteger|tex.TexNormalizedCoords {
		t.Errorf("flags %#x", got)
	}
}

// TestFormats: each format's size, channels and kind, and their names.
func TestFormats(t *testing.T) {
	for _, c := range []struct {
		f                   tex.ArrayFormat
		size, ch            int
		signed, norm, float bool
		name                string
	}{
		{tex.FormatUint8, 1, 0, false, false, false, "u8"},
		{tex.FormatInt16, 2, 0, true, false, false, "s16"},
		{tex.FormatHalf, 2, 0, true, false, true, "f16"},
		{tex.FormatFloat, 4, 0, true, false, true, "f32"},
		{tex.FormatUnorm8X2, 1, 2, false, true, false, "unorm8x2"},
		{tex.FormatSnorm16X4, 2, 4, true, true, false, "snorm16x4"},
	} {
		f := c.f
		if !f.Valid() || f.Size() != c.size || f.Channels() != c.ch || f.Signed() != c.signed || f.Normalized() != c.norm || f.Float() != c.float || f.String() != c.name {
			t.Errorf("%v: size %d channels %d signed %v normalized %v float %v", f, f.Size(), f.Channels(), f.Signed(), f.Normalized(), f.Float())
		}
	}
	if bad := tex.ArrayFormat(0x11); bad.Valid() || bad.Size() != 0 || bad.String() != "ArrayFormat(0x11)" {
		t.Errorf("0x11: valid %v size %d %q", bad.Valid(), bad.Size(), bad)
	}
}
