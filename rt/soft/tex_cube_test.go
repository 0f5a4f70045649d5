package soft

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
	"github.com/cugen/cugen/rt/soft/internal/texunit"
	"github.com/cugen/cugen/rt/tex/texobj"
)

// Cube-map kernels: tex.cube and tex.acube read a direction (and a layer)
// per thread from crd and store the four result words in res; dims gets
// txq width, height and depth.
var texCubePTX = ptxHeader +
	softtest.TexSampleKernel("samplecube", 16, 16, `ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5];
	tex.cube.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2, %f3, %f4}];
	st.global.v4.f32 [%rd6], {%f5, %f6, %f7, %f8};`) +
	// levelcube: tex.level.cube with the direction's fourth word as the lod
	// (the recorder's form 102; textures without mipmaps read level 0).
	softtest.TexSampleKernel("levelcube", 16, 16, `ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5];
	tex.level.cube.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2, %f3, %f4}], %f4;
	st.global.v4.f32 [%rd6], {%f5, %f6, %f7, %f8};`) + `
.visible .entry sampleacube(.param .u64 tex, .param .u64 crd, .param .u64 res, .param .u32 n, .param .u64 dims)
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .f32 %f<10>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [tex];
	ld.param.u64 %rd2, [crd];
	ld.param.u64 %rd3, [res];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.u32 %r5, %r3, %r4, %r2;
	setp.ne.u32 %p1, %r5, 0;
	@%p1 bra SAMPLE;
	ld.param.u64 %rd7, [dims];
	txq.width.b32 %r8, [%rd1];
	txq.height.b32 %r9, [%rd1];
	txq.depth.b32 %r10, [%rd1];
	st.global.v2.u32 [%rd7], {%r8, %r9};
	st.global.u32 [%rd7+8], %r10;
SAMPLE:
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra END;
	mul.wide.u32 %rd4, %r5, 16;
	add.u64 %rd5, %rd2, %rd4;
	ld.global.u32 %r6, [%rd5];
	ld.global.f32 %f1, [%rd5+4];
	ld.global.f32 %f2, [%rd5+8];
	ld.global.f32 %f3, [%rd5+12];
	tex.acube.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%r6, %f1, %f2, %f3}];
	add.u64 %rd6, %rd3, %rd4;
	st.global.v4.f32 [%rd6], {%f5, %f6, %f7, %f8};
END:
	ret;
}
`

// texCubeIntPTX: tex.cube and tex.acube with .u32 and .s32 results (the
// recorder's forms 51, 52 and 62), storing the four result words.
func texCubeIntPTX() string {
	var b strings.Builder
	b.WriteString(softtest.PTXHeader)
	for _, k := range []struct{ name, geom, typ, crd string }{
		{"cube_s32", "cube", "s32", "{%f1, %f2, %f3, %f4}"},
		{"cube_u32", "cube", "u32", "{%f1, %f2, %f3, %f4}"},
		{"acube_u32", "acube", "u32", "{%r6, %f2, %f3, %f4}"},
	} {
		// in: the coordinates, 16 bytes a sample; out: the texel, 16 bytes.
		b.WriteString(softtest.TexSampleKernel(k.name, 16, 16, fmt.Sprintf(`ld.global.v4.f32 {%%f1, %%f2, %%f3, %%f4}, [%%rd5];
	mov.b32 %%r6, %%f1;
	tex.%s.v4.%s.f32 {%%r20, %%r21, %%r22, %%r23}, [%%rd1, %s];
	st.global.v4.u32 [%%rd6], {%%r20, %%r21, %%r22, %%r23};`, k.geom, k.typ, k.crd)))
	}
	return b.String()
}

// TestTexCubeKernels runs the H100's recorded cube-map samples (tex.cube,
// tex.acube, tex.level.cube) through kernels: each recorded cube and layered-cube configuration becomes a
// cubemap array (faces copied in CUDA's order, +x -x +y -y +z -z per
// layer) and a texture object, and every sample must come back with the
// H100's bits.
func TestTexCubeKernels(t *testing.T) {
	_, ctx, s := graphEnv(t, Options{})
	lib := rt.NewLibrary("cube.ptx", []byte(texCubePTX))
	p := func(off, size uint32) rt.ParamSpec { return rt.ParamSpec{Offset: off, Size: size} }
	cube := lib.Kernel("samplecube", p(0, 8), p(8, 8), p(16, 8), p(24, 4))
	acube := lib.Kernel("sampleacube", p(0, 8), p(8, 8), p(16, 8), p(24, 4), p(32, 8))
	level := lib.Kernel("levelcube", p(0, 8), p(8, 8), p(16, 8), p(24, 4))
	ilib := rt.NewLibrary("cubeint.ptx", []byte(texCubeIntPTX()))
	intKernels := map[uint32]*rt.Kernel{
		51: ilib.Kernel("cube_s32", p(0, 8), p(8, 8), p(16, 8), p(24, 4)),
		52: ilib.Kernel("cube_u32", p(0, 8), p(8, 8), p(16, 8), p(24, 4)),
		62: ilib.Kernel("acube_u32", p(0, 8), p(8, 8), p(16, 8), p(24, 4)),
	}

	tr, _, err := loadTexRecords("testdata/tex")
	mustT(t, err)
	checked := map[uint32]int{}
	seamlessN := 0
	for _, r := range tr {
		r := r.raceSampled()
		h := r.hdr
		ik := intKernels[h[22]]
		if h[21] != 0 || h[22] != 50 && h[22] != 60 && h[22] != 102 && ik == nil {
			continue
		}
		layered := h[22] == 60 || h[22] == 62
		ad := rt.ArrayDesc{Width: int(h[5]), Height: int(h[6]), Depth: int(h[8]), Channels: int(h[4]), Flags: rt.ArrayCubemap}
		switch {
		case h[2] == texunit.ChanFloat && h[3] == 32:
			ad.Format = rt.FormatFloat
		case h[2] == texunit.ChanUnsigned && h[3] == 8:
			ad.Format = rt.FormatUint8
		case h[2] == texunit.ChanSigned && h[3] == 8:
			ad.Format = rt.FormatInt8
		case h[2] == texunit.ChanUnsigned && h[3] == 16:
			ad.Format = rt.FormatUint16
		case h[2] == texunit.ChanFloat && h[3] == 16:
			ad.Format = rt.FormatHalf
		case h[2] == texunit.ChanUnsigned && h[3] == 32:
			ad.Format = rt.FormatUint32
		default:
			t.Fatalf("%s: a texel format this test does not make", texRecKey(h))
		}
		if layered {
			ad.Flags |= rt.ArrayLayered
		}
		arr, err := texobj.NewArray(ctx, ad)
		mustT(t, err)
		mustT(t, texobj.CopyToArray(arr, r.texels))
		td := rt.TextureDesc{Filter: rt.FilterMode(h[13])}
		for i := range td.AddressMode {
			td.AddressMode[i] = rt.AddressMode(h[10+i])
		}
		td = td.Normalized(h[15] != 0).Read(rt.ReadMode(h[14]))
		seamless := len(h) > 23 && h[23] != 0
		if seamless {
			td.Flags |= rt.TexSeamlessCubemap
		}
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
		dims, err := rt.Alloc[uint32](ctx, 3)
		mustT(t, err)
		var b [40]byte
		binary.LittleEndian.PutUint64(b[0:], uint64(tex.Object))
		binary.LittleEndian.PutUint64(b[8:], uint64(in.Ptr))
		binary.LittleEndian.PutUint64(b[16:], uint64(out.Ptr))
		binary.LittleEndian.PutUint32(b[24:], uint32(n))
		cfg := rt.Config{Grid: rt.D1((n + 127) / 128), Block: rt.D1(128), Stream: s}
		switch {
		case ik != nil:
			mustT(t, ik.Launch(cfg, b[:28]))
		case layered:
			binary.LittleEndian.PutUint64(b[32:], uint64(dims.Ptr))
			mustT(t, acube.Launch(cfg, b[:]))
		case h[22] == 102:
			mustT(t, level.Launch(cfg, b[:28]))
		default:
			mustT(t, cube.Launch(cfg, b[:28]))
		}
		got, err := out.ToHost()
		mustT(t, err)
		for i, c := range r.coords {
			for j := 0; j < 4; j++ {
				if got[4*i+j] != r.res[i][j] {
					t.Fatalf("%s address %d: coords %08x: channel %d is %08x, H100 %08x", texRecKey(h), h[10], c, j, got[4*i+j], r.res[i][j])
				}
			}
		}
		if layered && ik == nil {
			dd, err := dims.ToHost()
			mustT(t, err)
			if dd[0] != r.txq[0] || dd[1] != r.txq[1] || dd[2] != r.txq[2] {
				t.Fatalf("%s: txq width, height, depth %d, H100 %d", texRecKey(h), dd, r.txq[:3])
			}
		}
		checked[h[22]] += n
		if seamless {
			seamlessN += n
		}
		mustT(t, tex.Destroy())
		mustT(t, arr.Destroy())
		in.Free()
		out.Free()
		dims.Free()
	}
	for _, f := range []uint32{50, 51, 52, 60, 62, 102} {
		if checked[f] == 0 || seamlessN == 0 {
			t.Fatalf("recorded samples checked: %v, %d seamless; want tex.cube (50, .s32 51, .u32 52), tex.acube (60, .u32 62), tex.level.cube (102) and seamless ones", checked, seamlessN)
		}
	}
	t.Logf("recorded samples through kernels, all exact: %d tex.cube (.s32 %d, .u32 %d), %d tex.acube (.u32 %d), %d tex.level.cube; %d of them seamless",
		checked[50], checked[51], checked[52], checked[60], checked[62], checked[102], seamlessN)
}

// TestTexCubeDecode: what soft refuses in cube-map instructions, with a
// message naming it.
func TestTexCubeDecode(t *testing.T) {
	d, _, _ := graphEnv(t, Options{})
	for _, tc := range []struct{ instr, want string }{
		{"tex.cube.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r4}];", "not .s32"},
		{"tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3}];", "3 coordinates, want 4"},
		{"tld4.r.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f4}];", "tld4 is for .2d, .a2d, .cube and .acube"},
	} {
		src := `
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 tex)
{
	.reg .b32 %r<8>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [tex];
	` + tc.instr + `
	ret;
}
`
		_, err := rt.NewLibrary("bad.ptx", []byte(src)).Load(d)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: load error %v, want one saying %q", tc.instr, err, tc.want)
		}
	}
}

// TestTexCubeSeamless: a texture object takes TexSeamlessCubemap on cube
// maps, layered or not, and on other arrays (where it means nothing).
// (Its sampling is checked against the H100 by TestTexCubeKernels and
// TestTexRecorded.)
func TestTexCubeSeamless(t *testing.T) {
	_, ctx, _ := graphEnv(t, Options{})
	seamless := rt.TextureDesc{Flags: rt.TexSeamlessCubemap, Filter: rt.FilterLinear}.Normalized(true)
	for _, ad := range []rt.ArrayDesc{
		{Width: 4, Height: 4, Depth: 6, Format: rt.FormatFloat, Channels: 1, Flags: rt.ArrayCubemap},
		{Width: 4, Height: 4, Depth: 12, Format: rt.FormatFloat, Channels: 1, Flags: rt.ArrayCubemap | rt.ArrayLayered},
		{Width: 4, Height: 4, Format: rt.FormatFloat, Channels: 1},
	} {
		arr, err := texobj.NewArray(ctx, ad)
		mustT(t, err)
		tex, err := texobj.NewTexture(ctx, texobj.ArrayResource(arr), seamless)
		if err != nil {
			t.Errorf("%v with TexSeamlessCubemap: %v, want a texture", ad, err)
		} else {
			mustT(t, tex.Destroy())
		}
		mustT(t, arr.Destroy())
	}
}

// TestTexCubeNeighbour checks the seamless filter's texel across an edge
// against the cube's geometry: the centre of texel (i, j) of a face, one
// texel beyond an edge, folded over that edge (keeping its distance to
// it), projected with texCubeProject and read back as a texel of the face
// it lands on. Every texel one beyond an edge is that of another face,
// next to the edge, whose own neighbour across the edge is a texel of the
// first face next to the edge; the corners have none.
func TestTexCubeNeighbour(t *testing.T) {
	for n := 1; n <= 6; n++ {
		for face := 0; face < 6; face++ {
			for i := -1; i <= n; i++ {
				for j := -1; j <= n; j++ {
					f, fi, fj, ok := texunit.CubeNeighbour(face, i, j, n)
					outI, outJ := i < 0 || i >= n, j < 0 || j >= n
					if outI && outJ {
						if ok {
							t.Errorf("n %d face %d texel (%d, %d): a corner, got face %d (%d, %d)", n, face, i, j, f, fi, fj)
						}
						continue
					}
					if !ok || fi < 0 || fi >= n || fj < 0 || fj >= n {
						t.Fatalf("n %d face %d texel (%d, %d): got face %d (%d, %d) ok %v", n, face, i, j, f, fi, fj, ok)
					}
					if !outI && !outJ {
						if f != face || fi != i || fj != j {
							t.Errorf("n %d face %d texel (%d, %d) inside: got face %d (%d, %d)", n, face, i, j, f, fi, fj)
						}
						continue
					}
					// geometry: the texel centre in face coordinates,
					// folded onto the next face half a texel from the edge
					st := [2]float64{-1 + float64(2*i+1)/float64(n), -1 + float64(2*j+1)/float64(n)}
					var p [3]float64
					p[face/2] = 1 - 1/float64(n)
					if face&1 != 0 {
						p[face/2] = -p[face/2]
					}
					for k, a := range texunit.CubeFaces[face] {
						x := math.Max(-1, math.Min(1, st[k]))
						if a < 0 {
							x = -x
						}
						p[gpumath.AbsI(int64(a))-1] = x
					}
					var d [3]uint32
					for k := range p {
						d[k] = math.Float32bits(float32(p[k]))
					}
					gf, s, tt := texunit.CubeProject(d)
					gi := int(math.Floor((float64(s) + 1) / 2 * float64(n)))
					gj := int(math.Floor((float64(tt) + 1) / 2 * float64(n)))
					if f != gf || fi != gi || fj != gj {
						t.Errorf("n %d face %d texel (%d, %d): face %d (%d, %d), geometry says face %d (%d, %d)", n, face, i, j, f, fi, fj, gf, gi, gj)
					}
					if f == face || f/2 == face/2 {
						t.Errorf("n %d face %d texel (%d, %d): face %d is not a neighbour", n, face, i, j, f)
					}
					// and back: the neighbour's texel across the same edge
					back := false
					for _, q := range [][2]int{{fi - 1, fj}, {fi + 1, fj}, {fi, fj - 1}, {fi, fj + 1}} {
						bf, bi, bj, bok := texunit.CubeNeighbour(f, q[0], q[1], n)
						if bok && bf == face && gpumath.AbsI(int64(bi-min(max(i, 0), n-1)))+gpumath.AbsI(int64(bj-min(max(j, 0), n-1))) == 0 {
							back = true
						}
					}
					if !back {
						t.Errorf("n %d face %d texel (%d, %d) -> face %d (%d, %d): no way back across the edge", n, face, i, j, f, fi, fj)
					}
				}
			}
		}
	}
}
