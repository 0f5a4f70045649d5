//go:build cgo

package cgo

import (
	_ "embed"
	"encoding/binary"
	"math"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tex/texobj"
)

//go:embed testdata/texture.ptx
var texturePTX []byte

// TestTextureKernels reads textures and writes surfaces from kernels: a 2-D
// float array through a point-sampled texture (each texel as written) and a
// linearly filtered one (halfway between neighbours: their mean), linear
// memory through tex1Dfetch, and the array through a surface that doubles
// each element in place.
func TestTextureKernels(t *testing.T) {
	d := gpu(t)
	ctx := primary(t, d)
	defer ctx.Release()
	lib := rt.NewLibrary("texture.ptx", texturePTX)
	p := func(off, size uint32) rt.ParamSpec { return rt.ParamSpec{Offset: off, Size: size} }
	texRead := lib.Kernel("texRead", p(0, 8), p(8, 8), p(16, 4), p(20, 4))
	texFetch := lib.Kernel("texFetch", p(0, 8), p(8, 8), p(16, 4))
	surfDouble := lib.Kernel("surfDouble", p(0, 8), p(8, 4))
	defer lib.Unload(d)
	st, err := ctx.NewStream()
	must(t, err)
	defer st.Destroy()
	putU64 := func(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) }
	putU32 := func(b []byte, v uint32) { binary.LittleEndian.PutUint32(b, v) }
	putF32 := func(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) }

	const w, h = 16, 8
	vals := make([]float32, w*h)
	for i := range vals {
		vals[i] = float32(i%w) + 100*float32(i/w)
	}
	arr, err := texobj.NewArray(ctx, rt.ArrayDesc{Width: w, Height: h, Format: rt.FormatFloat, Channels: 1, Flags: rt.ArraySurfaceLoadStore})
	must(t, err)
	defer arr.Destroy()
	must(t, texobj.CopyToArray(arr, vals))
	out, err := rt.Alloc[float32](ctx, w*h)
	must(t, err)
	defer out.Free()

	read := func(d rt.TextureDesc, dx float32) []float32 {
		t.Helper()
		tex, err := texobj.NewTexture(ctx, texobj.ArrayResource(arr), d)
		must(t, err)
		defer tex.Destroy()
		var buf [24]byte
		putU64(buf[0:], uint64(tex.Object))
		putU64(buf[8:], uint64(out.Ptr))
		putU32(buf[16:], w)
		putF32(buf[20:], dx)
		must(t, texRead.Launch(rt.Config{Grid: rt.D1(h), Block: rt.D1(w), Stream: st}, buf[:]))
		got, err := out.ToHost()
		must(t, err)
		return got
	}
	clamp := [3]rt.AddressMode{rt.AddressClamp, rt.AddressClamp, rt.AddressClamp}
	got := read(rt.TextureDesc{AddressMode: clamp}, 0.5)
	for i := range vals {
		if got[i] != vals[i] {
			t.Fatalf("point-sampled texel %d is %v, want %v", i, got[i], vals[i])
		}
	}
	got = read(rt.TextureDesc{AddressMode: clamp, Filter: rt.FilterLinear}, 1.0)
	for y := range h {
		for x := range w - 1 {
			if want := (vals[y*w+x] + vals[y*w+x+1]) / 2; got[y*w+x] != want {
				t.Fatalf("linear filtering halfway between texels (%d, %d) and (%d, %d): %v, want %v", x, y, x+1, y, got[y*w+x], want)
			}
		}
	}
	t.Logf("TEXTURE: point and linear 2-D reads as expected (%d texels)", len(vals))

	lin, err := rt.AllocFrom(ctx, vals)
	must(t, err)
	defer lin.Free()
	ltex, err := texobj.NewTexture(ctx, texobj.LinearResource(lin.Ptr.Addr(), rt.FormatFloat, 1, len(vals)), rt.TextureDesc{})
	must(t, err)
	defer ltex.Destroy()
	var lbuf [20]byte
	putU64(lbuf[0:], uint64(ltex.Object))
	putU64(lbuf[8:], uint64(out.Ptr))
	putU32(lbuf[16:], w*h)
	must(t, out.Zero())
	must(t, texFetch.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(w * h), Stream: st}, lbuf[:]))
	got, err = out.ToHost()
	must(t, err)
	for i := range vals {
		if got[i] != vals[i] {
			t.Fatalf("tex1Dfetch %d is %v, want %v", i, got[i], vals[i])
		}
	}

	surf, err := texobj.NewSurface(arr)
	must(t, err)
	defer surf.Destroy()
	var sbuf [12]byte
	putU64(sbuf[0:], uint64(surf.Object))
	putU32(sbuf[8:], w)
	must(t, surfDouble.Launch(rt.Config{Grid: rt.D1(h), Block: rt.D1(w), Stream: st}, sbuf[:]))
	back := make([]float32, w*h)
	must(t, texobj.CopyFromArray(arr, back))
	for i := range vals {
		if back[i] != 2*vals[i] {
			t.Fatalf("surface element %d is %v after doubling, want %v", i, back[i], 2*vals[i])
		}
	}
	t.Logf("TEXTURE: tex1Dfetch and surface load/store as expected")
}
