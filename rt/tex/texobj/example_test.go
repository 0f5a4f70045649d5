package texobj_test

import (
	"fmt"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
	"github.com/cugen/cugen/rt/tex"
	"github.com/cugen/cugen/rt/tex/texobj"
)

// An array filled from the host and a texture over it, whose Object a
// generated kernel takes as its cudaTextureObject_t (here on rt/soft).
func Example() {
	devs, _ := rt.DevicesOf(soft.New(soft.Options{}))
	ctx, _ := devs[0].Primary()
	a, err := texobj.NewArray(ctx, tex.ArrayDesc{Width: 4, Height: 2, Format: tex.FormatFloat, Channels: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Destroy()
	if err := texobj.CopyToArray(a, []float32{0, 1, 2, 3, 4, 5, 6, 7}); err != nil {
		fmt.Println(err)
		return
	}
	t, err := texobj.NewTexture(ctx, texobj.ArrayResource(a), tex.TextureDesc{Filter: tex.FilterLinear}.Normalized(true))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Destroy()
	r, d, _ := t.Desc()
	fmt.Println(a.Desc(), r.Kind == tex.ResourceArray, d.Filter == tex.FilterLinear, t.Object != 0)
	// Output: 4×2 array of f32×1 true true true
}
