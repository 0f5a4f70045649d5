package soft

import (
	"encoding/binary"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tex/texobj"
)

// TestTextureOfAnotherContext: a texture or surface object belongs to the
// context it was made in. A kernel of another context that uses it reads
// zeros and its stores are dropped, as on the H200 (rt/cgo's
// TestTextureOfAnotherContextGPU printed "in B read [0 0 0 0]" for both,
// and the array unchanged by B's bump); soft sampled it before. The owning
// context's kernels use it as before.
func TestTextureOfAnotherContext(t *testing.T) {
	lib := rt.NewLibrary("tex.ptx", []byte(texKernelPTX))
	p := func(off, size uint32) rt.ParamSpec { return rt.ParamSpec{Offset: off, Size: size} }
	fetch1d := lib.Kernel("fetch1d", p(0, 8), p(8, 8), p(16, 8))
	bump := lib.Kernel("bump", p(0, 8))
	setup := func(t *testing.T) (own, other *rt.Context) {
		d := New(Options{})
		devs, err := rt.DevicesOf(d)
		mustT(t, err)
		own, err = devs[0].Primary()
		mustT(t, err)
		other, err = devs[0].NewContext(0)
		mustT(t, err)
		return own, other
	}
	t.Run("texture", func(t *testing.T) {
		own, other := setup(t)
		texels, err := rt.AllocFrom(own, []uint32{7, 8, 9, 10})
		mustT(t, err)
		tex, err := texobj.NewTexture(own, texobj.LinearResource(texels.Ptr.Addr(), rt.FormatUint32, 1, 4), rt.TextureDesc{})
		mustT(t, err)
		launch := func(c *rt.Context) ([]uint32, error) {
			res, err := rt.Alloc[uint32](c, 4)
			mustT(t, err)
			dims, err := rt.Alloc[uint32](c, 2)
			mustT(t, err)
			var b [24]byte
			binary.LittleEndian.PutUint64(b[0:], uint64(tex.Object))
			binary.LittleEndian.PutUint64(b[8:], uint64(res.Ptr))
			binary.LittleEndian.PutUint64(b[16:], uint64(dims.Ptr))
			if err := fetch1d.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(4), Stream: c.NullStream()}, b[:]); err != nil {
				return nil, err
			}
			if err := c.Synchronize(); err != nil {
				return nil, err
			}
			return res.ToHost()
		}
		got, err := launch(own)
		mustT(t, err)
		if got[0] != 7 || got[3] != 10 {
			t.Fatalf("in its own context: %v", got)
		}
		got, err = launch(other)
		mustT(t, err)
		if got[0] != 0 || got[1] != 0 || got[2] != 0 || got[3] != 0 {
			t.Fatalf("in another context: %v, want zeros (the H200's answer)", got)
		}
	})
	t.Run("surface", func(t *testing.T) {
		own, other := setup(t)
		arr, err := texobj.NewArray(own, rt.ArrayDesc{Width: 4, Height: 1, Format: rt.FormatUint32, Channels: 1, Flags: rt.ArraySurfaceLoadStore})
		mustT(t, err)
		surf, err := texobj.NewSurface(arr)
		mustT(t, err)
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(surf.Object))
		mustT(t, bump.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(4), Stream: own.NullStream()}, b[:]))
		mustT(t, own.Synchronize())
		back := make([]uint32, 4)
		mustT(t, texobj.CopyFromArray(arr, back))
		mustT(t, bump.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(4), Stream: other.NullStream()}, b[:]))
		mustT(t, other.Synchronize())
		after := make([]uint32, 4)
		mustT(t, texobj.CopyFromArray(arr, after))
		if after != nil && (after[0] != back[0] || after[1] != back[1] || after[2] != back[2] || after[3] != back[3]) {
			t.Fatalf("another context's bump changed the surface: %v, then %v; its stores are dropped on the H200", back, after)
		}
	})
}
