package soft

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
	"github.com/cugen/cugen/rt/soft/internal/texunit"
	"github.com/cugen/cugen/rt/tex/texobj"
)

// Kernels that use the texture and surface instructions, run end to end
// through rt's arrays and objects.
var texKernelPTX = ptxHeader +
	// sample2d: res[i] = tex.2d.v4.f32.f32(tex, crd[i].xy), 4 words each.
	softtest.TexSampleKernel("sample2d", 16, 16, `ld.global.v2.f32 {%f1, %f2}, [%rd5];
	tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
	st.global.v4.f32 [%rd6], {%f3, %f4, %f5, %f6};`) + `
// fetch1d: res[i] = tex.1d.v4.u32.s32(tex, i).x; dims[0..1] = txq width, height.
.visible .entry fetch1d(.param .u64 tex, .param .u64 res, .param .u64 dims)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [tex];
	ld.param.u64 %rd2, [res];
	ld.param.u64 %rd3, [dims];
	mov.u32 %r1, %tid.x;
	tex.1d.v4.u32.s32 {%r2, %r3, %r4, %r5}, [%rd1, {%r1}];
	mul.wide.u32 %rd4, %r1, 4;
	add.u64 %rd5, %rd2, %rd4;
	st.global.u32 [%rd5], %r2;
	txq.width.b32 %r6, [%rd1];
	txq.height.b32 %r7, [%rd1];
	st.global.v2.u32 [%rd3], {%r6, %r7};
	ret;
}

// bump: adds 1 to element (x, y) of a 2-D u32 surface, x = tid.x - 1 so
// that thread 0 reaches outside (clamped to x = 0 by .clamp); every
// thread then stores at x = suq.width*4, y = -100 with .zero: out of
// range, so dropped.
.visible .entry bump(.param .u64 surf)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [surf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	sub.u32 %r3, %r1, 1;
	shl.b32 %r3, %r3, 2;
	suld.b.2d.b32.clamp {%r4}, [%rd1, {%r3, %r2}];
	add.u32 %r4, %r4, 1;
	bar.sync 0;
	sust.b.2d.b32.clamp [%rd1, {%r3, %r2}], {%r4};
	suq.width.b32 %r5, [%rd1];
	shl.b32 %r5, %r5, 2;
	mov.u32 %r6, -100;
	sust.b.2d.b32.zero [%rd1, {%r5, %r6}], {%r5};
	ret;
}
`

func TestTexKernels(t *testing.T) {
	_, ctx, s := graphEnv(t, Options{})
	lib := rt.NewLibrary("tex.ptx", []byte(texKernelPTX))
	p := func(off, size uint32) rt.ParamSpec { return rt.ParamSpec{Offset: off, Size: size} }
	sample2d := lib.Kernel("sample2d", p(0, 8), p(8, 8), p(16, 8), p(24, 4))
	fetch1d := lib.Kernel("fetch1d", p(0, 8), p(8, 8), p(16, 8))
	bump := lib.Kernel("bump", p(0, 8))

	// The H100's recorded 2-D f32 samples, now through a kernel: each
	// recorded configuration over a CUDA array of its texels.
	tr, _, err := loadTexRecords("testdata/tex")
	mustT(t, err)
	checked, gaps := 0, 0
	for _, r := range tr {
		r := r.raceSampled()
		h := r.hdr
		if h[0] != 0 || h[1] != texunit.Geom2D || h[2] != texunit.ChanFloat || h[3] != 32 || h[22] != 10 || h[21] != 0 {
			continue
		}
		texels := make([]uint32, len(r.texels)/4)
		for i := range texels {
			texels[i] = binary.LittleEndian.Uint32(r.texels[4*i:])
		}
		arr, err := texobj.NewArray(ctx, rt.ArrayDesc{Width: int(h[5]), Height: int(h[6]), Format: rt.FormatFloat, Channels: int(h[4])})
		mustT(t, err)
		mustT(t, texobj.CopyToArray(arr, texels))
		td := rt.TextureDesc{Filter: rt.FilterMode(h[13])}
		for i := range td.AddressMode {
			td.AddressMode[i] = rt.AddressMode(h[10+i])
		}
		td = td.Normalized(h[15] != 0)
		for i := range td.BorderColor {
			td.BorderColor[i] = mathF32(h[17+i])
		}
		tex, err := texobj.NewTexture(ctx, texobj.ArrayResource(arr), td)
		mustT(t, err)
		n := len(r.coords)
		crd := make([]uint32, 4*n)
		for i, c := range r.coords {
			copy(crd[4*i:], c[:])
		}
		in, err := rt.AllocFrom(ctx, crd)
		mustT(t, err)
		out, err := rt.Alloc[uint32](ctx, 4*n)
		mustT(t, err)
		var b [28]byte
		binary.LittleEndian.PutUint64(b[0:], uint64(tex.Object))
		binary.LittleEndian.PutUint64(b[8:], uint64(in.Ptr))
		binary.LittleEndian.PutUint64(b[16:], uint64(out.Ptr))
		binary.LittleEndian.PutUint32(b[24:], uint32(n))
		mustT(t, sample2d.Launch(rt.Config{Grid: rt.D1((n + 127) / 128), Block: rt.D1(128), Stream: s}, b[:]))
		got, err := out.ToHost()
		mustT(t, err)
		v := texRecView(&r)
		for i, c := range r.coords {
			if v.Sample(texunit.Op{Geom: texunit.Geom2D}, c) != r.res[i] {
				gaps++ // one the sampler does not reproduce (TestTexRecorded counts them)
				continue
			}
			for j := 0; j < 4; j++ {
				if got[4*i+j] != r.res[i][j] {
					t.Fatalf("%s: coords %08x: channel %d is %08x, H100 %08x", texRecKey(h), r.coords[i], j, got[4*i+j], r.res[i][j])
				}
			}
		}
		checked += n
		mustT(t, tex.Destroy())
		mustT(t, arr.Destroy())
		in.Free()
		out.Free()
	}
	if checked == 0 {
		t.Fatal("no recorded 2-D f32 configuration found")
	}
	t.Logf("%d recorded 2-D samples through tex.2d in a kernel: all but the sampler's %d known gaps exact", checked, gaps)

	// tex1Dfetch over linear memory, and txq.
	const n = 40
	vals := make([]uint32, n)
	for i := range vals {
		vals[i] = uint32(i*i + 7)
	}
	lin, err := rt.AllocFrom(ctx, vals)
	mustT(t, err)
	tex, err := texobj.NewTexture(ctx, texobj.LinearResource(lin.Ptr.Addr(), rt.FormatUint32, 1, n), rt.TextureDesc{}.Read(rt.ReadElementType))
	mustT(t, err)
	res, err := rt.Alloc[uint32](ctx, n+8)
	mustT(t, err)
	dims, err := rt.Alloc[uint32](ctx, 2)
	mustT(t, err)
	var b [24]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(tex.Object))
	binary.LittleEndian.PutUint64(b[8:], uint64(res.Ptr))
	binary.LittleEndian.PutUint64(b[16:], uint64(dims.Ptr))
	mustT(t, fetch1d.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(n + 8), Stream: s}, b[:]))
	got, err := res.ToHost()
	mustT(t, err)
	for i := range got {
		want := uint32(0) // outside the 40 elements a fetch reads zeros
		if i < n {
			want = vals[i]
		}
		if got[i] != want {
			t.Fatalf("tex1Dfetch(%d) = %d, want %d", i, got[i], want)
		}
	}
	dd, err := dims.ToHost()
	mustT(t, err)
	if dd[0] != n || dd[1] != 0 {
		t.Fatalf("txq width, height of linear memory = %d, %d; want %d, 0 (as on the H100)", dd[0], dd[1], n)
	}

	// Surface loads and stores.
	const w, hgt = 6, 3
	arr, err := texobj.NewArray(ctx, rt.ArrayDesc{Width: w, Height: hgt, Format: rt.FormatUint32, Channels: 1, Flags: rt.ArraySurfaceLoadStore})
	mustT(t, err)
	init := make([]uint32, w*hgt)
	for i := range init {
		init[i] = uint32(100 * i)
	}
	mustT(t, texobj.CopyToArray(arr, init))
	surf, err := texobj.NewSurface(arr)
	mustT(t, err)
	mustT(t, bump.Launch(rt.Config{Grid: rt.D1(hgt), Block: rt.D1(w + 1), Stream: s}, binary.LittleEndian.AppendUint64(nil, uint64(surf.Object))))
	back := make([]uint32, w*hgt)
	mustT(t, texobj.CopyFromArray(arr, back))
	for i := range back {
		// x = -1 clamps to x = 0: element 0 of each row is bumped by two
		// threads that both read the old value, so it ends one up.
		if want := init[i] + 1; back[i] != want {
			t.Fatalf("surface element %d = %d after the bump, want %d", i, back[i], want)
		}
	}

	// A handle that names no texture object reads zeros, as on the H200
	// (rt/cgo's TestTextureOfAnotherContextGPU: handle 0x1234 read [0 0 0 0]).
	mustT(t, res.Fill(0xdeadbeef))
	mustT(t, fetch1d.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: s}, append(binary.LittleEndian.AppendUint64(nil, 0x1234), b[8:]...)))
	mustT(t, s.Synchronize())
	if got, err := res.ToHost(); err != nil || got[0] != 0 {
		t.Fatalf("a bogus texture handle read %#x (%v), want 0", got[0], err)
	}
}

func mathF32(b uint32) float32 { return math.Float32frombits(b) }
