package texobj_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
	"github.com/cugen/cugen/rt/tex"
	"github.com/cugen/cugen/rt/tex/texobj"
)

func primary(t *testing.T) *rt.Context {
	t.Helper()
	devs, err := rt.DevicesOf(soft.New(soft.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// TestArrayRoundTrip: an array filled from the host, copied to device
// memory and back into a second array, in order and in a stream's order,
// reads back what went in; its description and context are what made it.
func TestArrayRoundTrip(t *testing.T) {
	ctx := primary(t)
	d := tex.ArrayDesc{Width: 8, Height: 3, Format: tex.FormatUint16, Channels: 2}
	a, err := texobj.NewArray(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	b, err := texobj.NewArray(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if a.Desc() != d || a.Context() != ctx || a.Handle() == 0 || a.Handle() == b.Handle() {
		t.Errorf("array %v in %v, handle %v (other %v); want %v in %v", a.Desc(), a.Context(), a.Handle(), b.Handle(), d, ctx)
	}
	in := make([]uint16, 8*3*2)
	for i := range in {
		in[i] = uint16(i*7 + 1)
	}
	if err := texobj.CopyToArray(a, in); err != nil {
		t.Fatal(err)
	}
	dev, err := rt.Alloc[uint16](ctx, len(in))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Free()
	side := rt.DeviceSide(dev.Ptr.Addr(), 0, 0)
	if err := a.CopyToDevice(side); err != nil {
		t.Fatal(err)
	}
	if err := b.CopyFromDevice(side); err != nil {
		t.Fatal(err)
	}
	out := make([]uint16, len(in))
	if err := texobj.CopyFromArray(b, out); err != nil || !slices.Equal(out, in) {
		t.Fatalf("through device memory: %v, %v; want %v", out, err, in)
	}

	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(in)
	if err := texobj.CopyToArrayAsync(s, a, in); err != nil {
		t.Fatal(err)
	}
	if err := a.CopyToDeviceAsync(s, side); err != nil {
		t.Fatal(err)
	}
	if err := b.CopyFromDeviceAsync(s, side); err != nil {
		t.Fatal(err)
	}
	clear(out)
	if err := texobj.CopyFromArrayAsync(s, b, out); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil || !slices.Equal(out, in) {
		t.Fatalf("in stream order: %v, %v; want %v", out, err, in)
	}
	for _, x := range []*texobj.Array{a, b} {
		if err := x.Destroy(); err != nil || x.Handle() != 0 {
			t.Errorf("Destroy = %v, handle %v after", err, x.Handle())
		}
	}
}

// TestObjects: textures over an array, linear and pitched memory, and a
// surface, describe what they were made over and read 0 as their handle
// once destroyed.
func TestObjects(t *testing.T) {
	ctx := primary(t)
	a, err := texobj.NewArray(ctx, tex.ArrayDesc{Width: 16, Format: tex.FormatFloat, Channels: 1, Flags: tex.ArraySurfaceLoadStore})
	if err != nil {
		t.Fatal(err)
	}
	buf, err := rt.Alloc[float32](ctx, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	p, err := rt.AllocPitched[float32](ctx, 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	for _, r := range []rt.ResourceDesc{
		texobj.ArrayResource(a),
		texobj.LinearResource(buf.Ptr.Addr(), tex.FormatFloat, 1, 64),
		texobj.PitchedResource(p, tex.FormatFloat, 1),
	} {
		tx, err := texobj.NewTexture(ctx, r, tex.TextureDesc{Filter: tex.FilterLinear})
		if err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		got, d, err := tx.Desc()
		if err != nil || got.Kind != r.Kind || got.Array != r.Array || got.Ptr != r.Ptr || d.Filter != tex.FilterLinear {
			t.Errorf("Desc = %+v, %+v, %v; want %+v", got, d, err, r)
		}
		if err := tx.Destroy(); err != nil || tx.Object != 0 {
			t.Errorf("Destroy = %v, Object %v after", err, tx.Object)
		}
	}
	sf, err := texobj.NewSurface(a)
	if err != nil || sf.Object == 0 {
		t.Fatalf("NewSurface = %v, %v", sf, err)
	}
	if err := sf.Destroy(); err != nil || sf.Object != 0 {
		t.Errorf("Surface.Destroy = %v, Object %v after", err, sf.Object)
	}
	if err := a.Destroy(); err != nil {
		t.Error(err)
	}
}

// TestMisuse: nil and zero objects and a surface over an array made
// without ArraySurfaceLoadStore are errors, not panics.
func TestMisuse(t *testing.T) {
	var a *texobj.Array
	var tx *texobj.Texture
	var sf *texobj.Surface
	for name, err := range map[string]error{
		"nil Array.Destroy":    a.Destroy(),
		"zero Array.Destroy":   (&texobj.Array{}).Destroy(),
		"nil CopyToArray":      texobj.CopyToArray(a, []float32{1}),
		"nil NewSurface":       func() error { _, err := texobj.NewSurface(a); return err }(),
		"nil Texture.Destroy":  tx.Destroy(),
		"zero Texture.Desc":    func() error { _, _, err := (&texobj.Texture{}).Desc(); return err }(),
		"nil Surface.Destroy":  sf.Destroy(),
		"zero Surface.Destroy": (&texobj.Surface{}).Destroy(),
	} {
		if !errors.Is(err, rt.ErrInvalidHandle) {
			t.Errorf("%s = %v, want ErrInvalidHandle", name, err)
		}
	}
	if a.Handle() != 0 || a.Context() != nil || a.Desc() != (tex.ArrayDesc{}) {
		t.Errorf("a nil Array reads %v, %v, %v", a.Handle(), a.Context(), a.Desc())
	}
	ctx := primary(t)
	plain, err := texobj.NewArray(ctx, tex.ArrayDesc{Width: 4, Format: tex.FormatFloat, Channels: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Destroy()
	if _, err := texobj.NewSurface(plain); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("NewSurface without ArraySurfaceLoadStore = %v, want ErrInvalidValue", err)
	}
}
