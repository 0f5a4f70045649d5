package rt_test

import (
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tex"
)

// TestResourceValidate: a texture resource's alignment and limits are
// checked where CUDA documents them, one past each failing.
func TestResourceValidate(t *testing.T) {
	const p = rt.DevPtr(1 << 20)
	for _, c := range []struct {
		name string
		r    rt.ResourceDesc
		ok   bool
	}{
		{"array", rt.ResourceDesc{Kind: tex.ResourceArray, Array: rt.ArrayHandle(7)}, true},
		{"no array", rt.ResourceDesc{Kind: tex.ResourceArray}, false},
		{"kind", rt.ResourceDesc{Kind: tex.ResourceKind(1), Ptr: p}, false},
		{"linear", rt.LinearResource(p, tex.FormatFloat, 1, tex.MaxTextureLinear), true},
		{"linear too long", rt.LinearResource(p, tex.FormatFloat, 1, tex.MaxTextureLinear+1), false},
		{"linear size", rt.ResourceDesc{Kind: tex.ResourceLinear, Ptr: p, Format: tex.FormatUint8, Channels: 1, SizeBytes: 0}, false},
		{"misaligned", rt.LinearResource(p+tex.TextureAlign/2, tex.FormatFloat, 1, 16), false},
		{"pitched", rt.ResourceDesc{Kind: tex.ResourcePitch2D, Ptr: p, Format: tex.FormatFloat, Channels: 1, Width: 8, Height: tex.MaxTexturePitch2D, Pitch: tex.TexturePitchAlign}, true},
		{"pitched too high", rt.ResourceDesc{Kind: tex.ResourcePitch2D, Ptr: p, Format: tex.FormatFloat, Channels: 1, Width: 8, Height: tex.MaxTexturePitch2D + 1, Pitch: 32}, false},
		{"pitch unaligned", rt.ResourceDesc{Kind: tex.ResourcePitch2D, Ptr: p, Format: tex.FormatFloat, Channels: 1, Width: 8, Height: 2, Pitch: tex.TexturePitchAlign + 4}, false},
		{"pitch too wide", rt.ResourceDesc{Kind: tex.ResourcePitch2D, Ptr: p, Format: tex.FormatUint8, Channels: 1, Width: 8, Height: 2, Pitch: tex.MaxTexturePitchRow + 32}, false},
	} {
		err := c.r.Validate("test")
		if (err == nil) != c.ok || err != nil && rt.CodeOf(err) != rt.ErrInvalidValue {
			t.Errorf("%s: %v, want ok %v", c.name, err, c.ok)
		}
	}
	if r := rt.LinearResource(p, tex.FormatHalf, 2, 10); r.SizeBytes != 40 || r.Kind != tex.ResourceLinear {
		t.Errorf("LinearResource: %+v", r)
	}
}

// TestCopy3DValidate: each side is one kind of memory, and pitches hold
// the rows.
func TestCopy3DValidate(t *testing.T) {
	host := make([]byte, 64)
	ok := rt.Copy3D{Src: rt.CopySide{Host: unsafe.Pointer(&host[0]), Pitch: 16, Height: 2}, Dst: rt.DeviceSide(1<<20, 16, 2), WidthBytes: 16, Height: 2, Depth: 2}
	if err := ok.Validate(); err != nil {
		t.Errorf("a 16×2×2 copy: %v", err)
	}
	two := ok
	two.Dst.Array = rt.ArrayHandle(1)
	short := ok
	short.Src.Pitch = 8
	for name, c := range map[string]rt.Copy3D{"two kinds": two, "pitch": short, "none": {WidthBytes: 1, Height: 1, Depth: 1}} {
		if err := c.Validate(); rt.CodeOf(err) != rt.ErrInvalidValue {
			t.Errorf("%s: %v, want ErrInvalidValue", name, err)
		}
	}
}
