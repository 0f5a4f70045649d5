package rt_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
	"github.com/cugen/cugen/rt/tex"
)

// TestDeprecatedTextureObjects: rt's names for the texture object model
// (now rt/tex/texobj's) still make, fill, read, describe and destroy
// arrays, textures and surfaces, on rt/soft.
func TestDeprecatedTextureObjects(t *testing.T) {
	ctx := primary(t, soft.New(soft.Options{}))
	a, err := rt.NewArray(ctx, tex.ArrayDesc{Width: 4, Height: 2, Format: tex.FormatFloat, Channels: 1, Flags: tex.ArraySurfaceLoadStore})
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	if err := rt.CopyToArray(a, want); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, len(want))
	if err := rt.CopyFromArray(a, got); err != nil || !slices.Equal(got, want) {
		t.Errorf("CopyFromArray = %v, %v; want %v", got, err, want)
	}
	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(want)
	slices.Reverse(rev)
	if err := rt.CopyToArrayAsync(s, a, rev); err != nil {
		t.Fatal(err)
	}
	clear(got)
	if err := rt.CopyFromArrayAsync(s, a, got); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil || !slices.Equal(got, rev) {
		t.Errorf("CopyFromArrayAsync = %v, %v; want %v", got, err, rev)
	}

	tx, err := rt.NewTexture(ctx, rt.ArrayResource(a), tex.TextureDesc{Filter: tex.FilterPoint})
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := tx.Desc()
	if err != nil || r.Kind != tex.ResourceArray || r.Array != a.Handle() {
		t.Errorf("Texture.Desc = %+v, %v; want array %v", r, err, a.Handle())
	}
	sf, err := rt.NewSurface(a)
	if err != nil || sf.Object == 0 {
		t.Fatalf("NewSurface = %v, %v", sf, err)
	}

	buf, err := rt.Alloc[float32](ctx, 256)
	if err != nil {
		t.Fatal(err)
	}
	lin, err := rt.NewTexture(ctx, rt.LinearResource(buf.Ptr.Addr(), tex.FormatFloat, 1, 256), tex.TextureDesc{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt.AllocPitched[float32](ctx, 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := rt.NewTexture(ctx, rt.PitchedResource(p, tex.FormatFloat, 1), tex.TextureDesc{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []interface{ Destroy() error }{pt, lin, tx, sf, a} {
		if err := d.Destroy(); err != nil {
			t.Errorf("%T.Destroy: %v", d, err)
		}
	}
	if err := rt.CopyToArray(a, want); !errors.Is(err, rt.ErrInvalidHandle) {
		t.Errorf("CopyToArray after Destroy = %v, want ErrInvalidHandle", err)
	}
}
