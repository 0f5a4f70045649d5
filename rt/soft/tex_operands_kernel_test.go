package soft

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
	"github.com/cugen/cugen/rt/soft/internal/texunit"
	"github.com/cugen/cugen/rt/tex/texobj"
)

// texForms3 are the recorder's round-3 and round-4 forms
// (testdata/tex/genforms2.py, TEX3_CASES and TEX4_CASES) as PTX: each
// reads the coordinate words x, y, z, w of a sample into %r1..%r4 and
// leaves the four result words in %r5..%r8, the way rec.cu's ktex stores
// them (forms 106, 128, 129, 135: word w is the residency predicate).
var texForms3 = map[uint32]string{
	103: "tex.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], {%r3, %r4};",
	104: "tex.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], %r3;",
	105: "tex.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], {%r3, %r3}, %r4;",
	106: "tex.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}|%p2, [%rd1, {%r1, %r2}];\n\tselp.u32 %r8, 1, 0, %p2;",
	107: "tld4.r.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], {%r3, %r4};",
	108: "tld4.r.a2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}];",
	109: "tld4.g.a2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}];",
	110: "tld4.b.a2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}];",
	111: "tld4.a.a2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}];",
	112: "tld4.r.cube.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}];",
	113: "tld4.g.cube.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}];",
	114: "tld4.b.cube.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}];",
	115: "tld4.a.cube.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}];",
	119: "tex.level.acube.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r4}], %r4;",
	// immediate offsets: run on the form-103 samples whose z, w are -3, 7
	1103: "tex.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], {-3, 7};",
	// the same through tld4 (form 107)
	1107: "tld4.r.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], {-3, 7};",

	// Round 4 (tex2-g.bin.zst, genforms2.py's TEX4_CASES): offsets are the
	// signed bytes of word w (x bits 0-7, y 8-15, z 16-23, the fourth 3-D
	// element 24-31), unpacked into %r16..%r19.
	121: texB4 + "tex.1d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1}], {%r16};",
	122: texB4 + "tex.a1d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], {%r16};",
	123: texB4 + "tex.a2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}], {%r16, %r17};",
	124: texB4 + "tex.3d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}], {%r16, %r17, %r18, %r19};",
	125: texB4 + "tex.2d.v4.f32.s32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], {%r16, %r17};",
	126: texB4 + "tex.level.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], %r3, {%r16, %r17};",
	127: texB4 + "tld4.r.a2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}], {%r16, %r17};",
	128: "tld4.r.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}|%p2, [%rd1, {%r1, %r2}];\n\tselp.u32 %r8, 1, 0, %p2;",
	129: "tex.3d.v4.f32.f32 {%r5, %r6, %r7, %r8}|%p2, [%rd1, {%r1, %r2, %r3, %r3}];\n\tselp.u32 %r8, 1, 0, %p2;",
	130: "tex.a2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}], %r4;",
	131: "tex.cube.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}], %r4;",
	132: "tex.1d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1}], %r4;",
	133: "tld4.r.acube.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r4}];",
	134: "tld4.r.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], %r3;",
	// an immediate offset on tex.1d (bits 4-7 clear, so unambiguous): run
	// on the form-121 samples whose x offset byte is 15
	1121: "tex.1d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1}], {15};",
	135:  texB4 + "tex.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}|%p2, [%rd1, {%r1, %r2}], {%r16, %r17};\n\tselp.u32 %r8, 1, 0, %p2;",

	// Round 5 (tex2-k.bin.zst, genforms2.py's TEX5_CASES; 139, tex.3d
	// with a depth compare, is what ptxas refused): offsets as round 4's,
	// depth-compare values in w, lods and gradients in z.
	136: "tex.1d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1}], {-3};",
	137: "tex.1d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1}], {100};",
	138: "tex.a1d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], %r4;",
	140: "tex.acube.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r4}], %r4;",
	141: "tld4.r.a2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}], %r4;",
	142: "tld4.r.cube.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}], %r4;",
	143: texB4 + "tex.1d.v4.f32.s32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1}], {%r16};",
	144: texB4 + "tex.a1d.v4.f32.s32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], {%r16};",
	145: texB4 + "tex.a2d.v4.f32.s32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}], {%r16, %r17};",
	146: texB4 + "tex.3d.v4.f32.s32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}], {%r16, %r17, %r18, %r19};",
	147: texB4 + "tex.level.1d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1}], %r3, {%r16};",
	148: texB4 + "tex.level.a2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}], %r3, {%r16, %r17};",
	149: texB4 + "tex.level.3d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2, %r3, %r3}], %r3, {%r16, %r17, %r18, %r19};",
	150: texB4 + "tex.grad.2d.v4.f32.f32 {%r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}], {%r3, %r3}, {%r3, %r3}, {%r16, %r17};",
	151: "tex.a2d.v4.f32.f32 {%r5, %r6, %r7, %r8}|%p2, [%rd1, {%r1, %r2, %r3, %r3}];\n\tselp.u32 %r8, 1, 0, %p2;",
	152: "tex.cube.v4.f32.f32 {%r5, %r6, %r7, %r8}|%p2, [%rd1, {%r1, %r2, %r3, %r3}];\n\tselp.u32 %r8, 1, 0, %p2;",
	153: "tld4.r.a2d.v4.f32.f32 {%r5, %r6, %r7, %r8}|%p2, [%rd1, {%r1, %r2, %r3, %r3}];\n\tselp.u32 %r8, 1, 0, %p2;",
	154: "tex.1d.v4.f32.f32 {%r5, %r6, %r7, %r8}|%p2, [%rd1, {%r1}];\n\tselp.u32 %r8, 1, 0, %p2;",
	155: "tex.2d.v4.f32.s32 {%r5, %r6, %r7, %r8}|%p2, [%rd1, {%r1, %r2}];\n\tselp.u32 %r8, 1, 0, %p2;",
}

// texFormsKernels are the forms TestTexForms3Kernels runs: texForms3 and
// round 6's (texForms6, but those ptxas refused).
func texFormsKernels() map[uint32]string {
	m := maps.Clone(texForms3)
	for form, f := range texForms6 {
		if !texRecRefused6[form] {
			m[form] = f.ptx
		}
	}
	return m
}

// texB4 unpacks round 4's offsets, the signed bytes of %r4, into
// %r16..%r19.
const texB4 = "bfe.s32 %r16, %r4, 0, 8;\n\tbfe.s32 %r17, %r4, 8, 8;\n\tbfe.s32 %r18, %r4, 16, 8;\n\tbfe.s32 %r19, %r4, 24, 8;\n\t"

// texForms3PTX is one kernel per form of texFormsKernels: f<form>(tex,
// crd, res, n).
func texForms3PTX() string {
	var b strings.Builder
	b.WriteString(softtest.PTXHeader)
	for form, instr := range texFormsKernels() {
		b.WriteString(softtest.TexSampleKernel(fmt.Sprintf("f%d", form), 16, 16,
			"ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd5];\n\t"+instr+
				"\n\tst.global.v4.u32 [%rd6], {%r5, %r6, %r7, %r8};"))
	}
	return b.String()
}

// TestTexForms3Kernels runs the H100's recordings of the optional tex and
// tld4 operands through kernels: rounds 3 to 6 (tex2-f: texel offsets,
// depth compare, residency predicates, tld4 on layered 2-D and cube
// textures, tex.level.acube; tex2-g, tex2-k and tex2-l: the same on the
// other geometries, .s32 coordinates, tex.level, tex.grad, tld4 on
// seamless cubes, of integer texels too in tex2-sea4, tex2-sea5 and
// tex2-sea6 (the corner blend's ties);
// tex2-m: every remaining combination ptxas takes, tex.grad.1d's zeros
// with a depth compare included). Each configuration
// becomes a CUDA array and a texture object, and every sample must come
// back with the H100's bits, 3-D linear filtering of f32 texels included
// (under -race every 8th sample of each configuration; all of them in the
// ordinary go test).
func TestTexForms3Kernels(t *testing.T) {
	_, ctx, s := graphEnv(t, Options{})
	lib := rt.NewLibrary("forms3.ptx", []byte(texForms3PTX()))
	p := func(off, size uint32) rt.ParamSpec { return rt.ParamSpec{Offset: off, Size: size} }
	kernels := map[uint32]*rt.Kernel{}
	forms := texFormsKernels()
	for form := range forms {
		kernels[form] = lib.Kernel(fmt.Sprintf("f%d", form), p(0, 8), p(8, 8), p(16, 8), p(24, 4))
	}
	tr, _, err := loadTexRecords("testdata/tex")
	mustT(t, err)
	checked := map[uint32]int{}
	run := func(r *texRecord, form uint32, coords, want [][4]uint32) {
		coords, want = softtest.Strided(coords, softtest.Sample(8)), softtest.Strided(want, softtest.Sample(8))
		h := r.hdr
		ad := rt.ArrayDesc{Width: int(h[5]), Height: int(h[6]), Channels: int(h[4])}
		if h[1] == texunit.Geom1D || h[1] == texunit.GeomA1D {
			ad.Height = 0
		}
		switch h[0] {
		case 1:
		case 0:
			if h[1] == texunit.Geom3D {
				ad.Depth = int(h[7])
			}
		case 3:
			ad.Depth, ad.Flags = int(h[8]), rt.ArrayLayered
		case 4:
			ad.Depth, ad.Flags = int(h[8]), rt.ArrayCubemap
		case 5:
			ad.Depth, ad.Flags = int(h[8]), rt.ArrayCubemap|rt.ArrayLayered
		default:
			t.Fatalf("%s: a resource this test does not make", texRecKey(h))
		}
		switch {
		case h[2] == texunit.ChanFloat && h[3] == 32:
			ad.Format = rt.FormatFloat
		case h[2] == texunit.ChanUnsigned && h[3] == 8:
			ad.Format = rt.FormatUint8
		case h[2] == texunit.ChanUnsigned && h[3] == 16:
			ad.Format = rt.FormatUint16 // tex2-sea4
		case h[2] == texunit.ChanUnsigned && h[3] == 32:
			ad.Format = rt.FormatUint32 // tex2-sea4
		case h[2] == texunit.ChanSigned && h[3] == 32:
			ad.Format = rt.FormatInt32 // tex2-sea4
		case h[2] == texunit.ChanSigned && h[3] == 16:
			ad.Format = rt.FormatInt16 // tex2-sea5
		case h[2] == texunit.ChanSigned && h[3] == 8:
			ad.Format = rt.FormatInt8 // tex2-sea5
		default:
			t.Fatalf("%s: a texel format this test does not make", texRecKey(h))
		}
		var res rt.ResourceDesc
		var arr *texobj.Array
		var lin rt.Buffer[byte]
		if h[0] == 1 {
			// linear memory (tex1Dfetch)
			lin, err = rt.AllocFrom(ctx, r.texels)
			mustT(t, err)
			res = texobj.LinearResource(rt.DevPtr(lin.Ptr), ad.Format, ad.Channels, ad.Width)
		} else {
			arr, err = texobj.NewArray(ctx, ad)
			mustT(t, err)
			mustT(t, texobj.CopyToArray(arr, r.texels))
			res = texobj.ArrayResource(arr)
		}
		td := rt.TextureDesc{Filter: rt.FilterMode(h[13])}
		if len(h) > 23 && h[23] != 0 {
			td.Flags |= rt.TexSeamlessCubemap
		}
		for i := range td.AddressMode {
			td.AddressMode[i] = rt.AddressMode(h[10+i])
		}
		td = td.Normalized(h[15] != 0).Read(rt.ReadMode(h[14]))
		for i := range td.BorderColor {
			td.BorderColor[i] = mathF32(h[17+i])
		}
		tex, err := texobj.NewTexture(ctx, res, td)
		mustT(t, err)
		n := len(coords)
		crd := make([]uint32, 4*n)
		for i, c := range coords {
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
		mustT(t, kernels[form].Launch(rt.Config{Grid: rt.D1((n + 127) / 128), Block: rt.D1(128), Stream: s}, b[:]))
		got, err := out.ToHost()
		mustT(t, err)
		for i, c := range coords {
			for j := 0; j < 4; j++ {
				if got[4*i+j] != want[i][j] {
					t.Fatalf("form %d, %s: coords %08x: word %d is %08x, H100 %08x", form, texRecKey(h), c, j, got[4*i+j], want[i][j])
				}
			}
		}
		checked[form] += n
		mustT(t, tex.Destroy())
		if arr != nil {
			mustT(t, arr.Destroy())
		} else {
			lin.Free()
		}
		in.Free()
		out.Free()
	}
	for i := range tr {
		r := &tr[i]
		form := r.hdr[22]
		if r.hdr[21] != 0 || forms[form] == "" {
			continue
		}
		run(r, form, r.coords, r.res)
		if form == 103 || form == 107 {
			var cs, rs [][4]uint32
			for k, c := range r.coords {
				if int32(c[2]) == -3 && int32(c[3]) == 7 {
					cs, rs = append(cs, c), append(rs, r.res[k])
				}
			}
			if len(cs) > 0 {
				run(r, 1000+form, cs, rs)
			}
		}
		if form == 121 {
			var cs, rs [][4]uint32
			for k, c := range r.coords {
				if int8(c[3]) == 15 {
					cs, rs = append(cs, c), append(rs, r.res[k])
				}
			}
			if len(cs) > 0 {
				run(r, 1121, cs, rs)
			}
		}
	}
	for form := range forms {
		if checked[form] == 0 {
			t.Errorf("form %d: no recorded sample checked", form)
		}
	}
	t.Logf("recorded samples through kernels: %v, all exact", checked)
}

// TestTexForms3Decode: what soft refuses among the optional tex and tld4
// operands, with a message naming it: what PTX forbids (offsets on cube
// maps), what ptxas refuses (.s32 coordinates on tex.level, a depth
// compare with .s32 coordinates or on 3-D textures, quoting ptxas), and
// malformed operands; and that what rounds 3 to 6 and probe7 recorded
// loads.
func TestTexForms3Decode(t *testing.T) {
	d, _, _ := graphEnv(t, Options{})
	for _, tc := range []struct{ instr, want string }{
		{"tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}], {%r1, %r2};", "2 offsets, want 1"},
		{"tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f4}], {%r1, %r2};", "texel offsets on cube maps are not allowed"},
		{"tex.acube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f2, %f3, %f4}], {%r1, %r2}, %f1;", "texel offsets on cube maps are not allowed"},
		{"tex.level.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f4}], %f1, {%r1, %r2};", "texel offsets on cube maps are not allowed"},
		{"tld4.r.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f4}], {%r1, %r2};", "texel offsets on cube maps are not allowed"},
		{"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], {%r1, %r2, %r3};", "3 offsets, want 2"},
		{"tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f3}], {%r1, %r2};", "2 offsets, want 4"},
		{"tex.a1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f1}], {%r1, %r2};", "2 offsets, want 1"},
		{"tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f3}], %f4;", `ptxas refuses a depth-compare operand on tex.3d ("Illegal modifier '.3d' for instruction 'tex'")`},
		{"tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%f1, %f2, %f3, %f3}], {%r1, %r2, %r3, %r3}, %f4;", "Illegal modifier '.3d' for instruction 'tex'"},
		{"tex.level.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f3}], %f3, %f4;", `ptxas refuses a depth-compare operand on tex.level.3d ("Illegal modifier '.3d' for instruction 'tex.level'")`},
		{"tex.grad.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f3}], {%f1, %f2, %f3, %f3}, {%f1, %f2, %f3, %f3}, %f4;", `ptxas refuses a depth-compare operand on tex.grad.3d ("Illegal modifier '.3d' for instruction 'tex.grad'")`},
		{"tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}], %f2;", `ptxas refuses a depth-compare operand with .s32 coordinates ("Arguments mismatch for instruction 'tex'")`},
		{"tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}], {%r2}, %f2;", "Arguments mismatch for instruction 'tex'"},
		{"tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%r1, %r2}], {%r1, %r2}, %f2;", "Arguments mismatch for instruction 'tex'"},
		{"tex.level.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}], %f1, {%r1, %r2};", `ptxas refuses .s32 coordinates on tex.level ("Arguments mismatch for instruction 'tex.level'")`},
		{"tex.level.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}], %f1;", "Arguments mismatch for instruction 'tex.level'"},
		{"tex.level.3d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r3}], %f1, %f2;", "Arguments mismatch for instruction 'tex.level'"},
		{"tex.grad.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}], {%f1, %f1}, {%f1, %f1}, %f2;", `ptxas refuses a depth-compare operand with .s32 coordinates ("Arguments mismatch for instruction 'tex.grad'")`},
		{"tex.grad.3d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r3}], {%f1, %f1, %f1, %f1}, {%f1, %f1, %f1, %f1}, %f2;", "Arguments mismatch for instruction 'tex.grad'"},
		{"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], {%r1, %r2}, {%r3, %r4};", "the depth-compare operand is an .f32 scalar"},
		{"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], %f3, {%r1, %r2};", "too many operands"},
		{"tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], {%r1, %r2}, %f3;", "the lod is a scalar"},
		{"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], {%r1, %r2}, %f3, %f4;", "too many operands"},
		{"tld4.r.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1}];", "tld4 is for .2d, .a2d, .cube and .acube"},
	} {
		src := `
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 tex)
{
	.reg .pred %p<2>;
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
	// what rounds 5 (tex2-k) and 6 (tex2-m) recorded loads, immediates
	// included (round 6's forms one by one: TestTexForms6Decode)
	for _, instr := range []string{
		"tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1}], {-3};",
		"tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1}], {100};",
		"tex.a1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f1}], %f2;",
		"tex.acube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f1, %f2, %f3}], %f4;",
		"tld4.r.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f1, %f2, %f2}], %f4;",
		"tld4.r.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f3}], %f4;",
		"tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}], {%r2};",
		"tex.a1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}], {%r3};",
		"tex.a2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r3}], {%r1, %r2};",
		"tex.3d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r3}], {%r1, %r2, %r3, %r4};",
		"tex.level.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1}], %f2, {%r1};",
		"tex.level.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f1, %f2, %f2}], %f3, {%r1, %r2};",
		"tex.level.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f3}], %f3, {%r1, %r2, %r3, %r4};",
		"tex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], {%f1, %f2}, {%f1, %f2}, {%r1, %r2};",
		"tex.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%r1, %f1, %f2, %f3}];",
		"tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%f1, %f2, %f3, %f3}];",
		"tld4.r.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%r1, %f1, %f2, %f3}];",
		"tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%f1}];",
		"tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%r1, %r2}];",
		"tex.level.a1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f1}], %f3, {%r1};",
		"tex.grad.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f3}], {%f1, %f2, %f3, %f3}, {%f1, %f2, %f3, %f3}, {%r1, %r2, %r3, %r3};",
		"tex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], {%f1, %f2}, {%f1, %f2}, %f3;",
		"tex.grad.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1}], {%f1}, {%f1}, %f3;",
		"tld4.r.acube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f1, %f2, %f3}], %f4;",
		"tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], %f3, %f4;",
		"tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1}], {%r1}, %f2;",
		"tex.a1d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%r1, %f1}];",
		"tex.acube.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%r1, %f1, %f2, %f3}];",
		"tex.3d.v4.f32.s32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%r1, %r2, %r3, %r3}];",
		"tld4.r.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%f1, %f2, %f3, %f3}];",
		"tld4.r.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%r1, %f1, %f2, %f2}], {%r1, %r2}, %f3;",
		// probe7 (TestTexProbe7 runs them all)
		"tex.grad.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%r1}], {%f1}, {%f1};",
		"tex.grad.a2d.v4.f32.s32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%r1, %r2, %r3, %r3}], {%f1, %f1}, {%f1, %f1}, {%r1, %r2};",
		"tex.grad.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%f1}], {%f1}, {%f1}, %f2;",
		"tex.grad.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%f1}], {%f1}, {%f1}, {%r1}, %f2;",
	} {
		src := ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 tex)\n{\n" +
			"\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<4>;\n" +
			"\tld.param.u64 %rd1, [tex];\n\t" + instr + "\n\tret;\n}\n"
		if _, err := rt.NewLibrary("good.ptx", []byte(src)).Load(d); err != nil {
			t.Errorf("%s: %v, want it to load (recorded in tex2-k or tex2-m)", instr, err)
		}
	}
}

// TestTexForms3SeamlessGather: tld4.cube on a seamless cube map gathers
// across the cube's edges; where its footprint meets a corner, the
// missing texel comes back as the 85/85/86 blend of the other three
// (tex2-l; the recorded samples themselves run in TestTexForms3Kernels):
// for float texels a float blend; for integer texels read as integers
// (tex2-sea4, tex2-sea5) the integer blend, its sum in 1/256 cut toward
// -inf for 32-bit texels, rounded to nearest for 8- and 16-bit ones
// (their ties: TestTexForms3SeamlessGatherTie).
func TestTexForms3SeamlessGather(t *testing.T) {
	cases := []struct {
		name   string
		format rt.ArrayFormat
		size   int    // bytes per texel
		mul    uint32 // integer texel i: (i+1)·mul, negated for odd i when neg
		neg    bool
		round  bool
	}{
		{"f32", rt.FormatFloat, 4, 0, false, false},
		{"u32", rt.FormatUint32, 4, 251, false, false},
		{"s32", rt.FormatInt32, 4, 253, true, false},
		{"u16", rt.FormatUint16, 2, 251, false, true},
		{"s16", rt.FormatInt16, 2, 253, true, true},
		{"u8", rt.FormatUint8, 1, 251, false, true},
		{"s8", rt.FormatInt8, 1, 253, true, true},
	}
	for _, tc := range cases {
		// texel i: i+1 as a float; as an integer (i+1)·mul, negated for
		// odd i when neg, so that the blend has a fraction above 1/2
		// (cutting and rounding differ)
		texels := make([]byte, 24*tc.size)
		for i := 0; i < 24; i++ {
			x := uint32(i+1) * tc.mul
			switch {
			case tc.format == rt.FormatFloat:
				x = math.Float32bits(float32(i + 1))
			case tc.neg && i&1 != 0:
				x = -x
			}
			for b := 0; b < tc.size; b++ {
				texels[i*tc.size+b] = byte(x >> (8 * b))
			}
		}
		got := texSeamlessCornerGather(t, tc.format, texels)
		if tc.format == rt.FormatFloat {
			g := make([]float32, 4)
			for i := range g {
				g[i] = math.Float32frombits(got[i])
			}
			if g[1] != 1 || g[0] == g[2] || g[0] <= 4 || g[2] <= 4 {
				t.Errorf("f32: tld4.r.cube at a seamless corner: %v, want texel 1 at position 1 and texels of two other faces at 0 and 2", g)
			}
			if want := (85*g[0] + 86*g[1] + 85*g[2]) / 256; g[3] != want {
				t.Errorf("f32: tld4.r.cube at a seamless corner: missing texel %v, want (85·%v + 86·%v + 85·%v)/256 = %v", g[3], g[0], g[1], g[2], want)
			}
			continue
		}
		// integer texels read as integers come back as the channel's
		// value, sign-extended when signed
		shift := 64 - 8*tc.size
		val := func(x uint32) int64 {
			if tc.neg {
				return int64(x) << shift >> shift
			}
			return int64(x)
		}
		if val(got[1]) != val(tc.mul) || got[0] == got[2] {
			t.Errorf("%s: tld4.r.cube at a seamless corner: %d, want texel 1 (%d) at position 1 and texels of two other faces at 0 and 2", tc.name, got, val(tc.mul))
		}
		sum := 85*val(got[0]) + 86*val(got[1]) + 85*val(got[2])
		if sum&255 <= 128 {
			// (the texels must make cutting and rounding differ, or the
			// test would not tell them apart)
			t.Errorf("%s: the blend's fraction %d/256 does not tell cutting from rounding", tc.name, sum&255)
		}
		want := sum >> 8 // 32-bit texels: cut toward -inf
		if tc.round {
			want = (sum + 128) >> 8
		}
		if int64(int32(got[3])) != want {
			t.Errorf("%s: tld4.r.cube at a seamless corner: missing texel %d, want (85·%d + 86·%d + 85·%d)/256 %s = %d", tc.name,
				int64(int32(got[3])), val(got[0]), val(got[1]), val(got[2]), map[bool]string{false: "cut toward -inf", true: "rounded"}[tc.round], want)
		}
	}
}

// texSeamlessCornerGather runs tld4.r.cube (form 112's kernel) once on a
// seamless 2×2 cube map of one-channel texels (24 of them, face by face,
// in format's element size) read as elements, at the direction (1, 0.9,
// 0.9): +x face, s = -z, t = -y, face coordinates (0.05, 0.05), the
// footprint's texels at i, j = -1 and 0: (0, 0) of +x (texel 0) at gather
// position 1, its neighbours across the two edges at 0 and 2, the missing
// corner beyond both at 3.
func texSeamlessCornerGather(t *testing.T, format rt.ArrayFormat, texels []byte) []uint32 {
	t.Helper()
	_, ctx, s := graphEnv(t, Options{})
	lib := rt.NewLibrary("forms3.ptx", []byte(texForms3PTX()))
	p := func(off, size uint32) rt.ParamSpec { return rt.ParamSpec{Offset: off, Size: size} }
	k := lib.Kernel("f112", p(0, 8), p(8, 8), p(16, 8), p(24, 4))
	ad := rt.ArrayDesc{Width: 2, Height: 2, Depth: 6, Format: format, Channels: 1, Flags: rt.ArrayCubemap}
	arr, err := texobj.NewArray(ctx, ad)
	mustT(t, err)
	mustT(t, texobj.CopyToArray(arr, texels))
	td := rt.TextureDesc{Flags: rt.TexSeamlessCubemap}.Normalized(true).Read(rt.ReadElementType)
	tex, err := texobj.NewTexture(ctx, texobj.ArrayResource(arr), td)
	mustT(t, err)
	in, err := rt.AllocFrom(ctx, []float32{1, 0.9, 0.9, 0.9})
	mustT(t, err)
	out, err := rt.Alloc[uint32](ctx, 4)
	mustT(t, err)
	var b [28]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(tex.Object))
	binary.LittleEndian.PutUint64(b[8:], uint64(in.Ptr))
	binary.LittleEndian.PutUint64(b[16:], uint64(out.Ptr))
	binary.LittleEndian.PutUint32(b[24:], 1)
	err = k.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: s}, b[:])
	if err == nil {
		err = s.Synchronize()
	}
	mustT(t, err)
	got, err := out.ToHost()
	mustT(t, err)
	return got
}

// TestTexForms3SeamlessGatherTie: the corner blend of 8- and 16-bit
// integer texels on an exact half (sum ≡ 128 mod 256) rounds up, toward
// +inf for negative sums too (tex2-sea6: all 16,201 recorded ties). The
// texel at gather position 1 (weight 86) is ±64 and its two neighbours 0,
// so the sum is ±5,504 = ±21.5·256: 22, or -21.
func TestTexForms3SeamlessGatherTie(t *testing.T) {
	cases := []struct {
		name   string
		format rt.ArrayFormat
		size   int
		texel  int32
		want   int32
	}{
		{"u8", rt.FormatUint8, 1, 64, 22},
		{"u16", rt.FormatUint16, 2, 64, 22},
		{"s8", rt.FormatInt8, 1, 64, 22},
		{"s8 negative", rt.FormatInt8, 1, -64, -21},
		{"s16", rt.FormatInt16, 2, 64, 22},
		{"s16 negative", rt.FormatInt16, 2, -64, -21},
	}
	for _, tc := range cases {
		texels := make([]byte, 24*tc.size)
		for b := 0; b < tc.size; b++ {
			texels[b] = byte(uint32(tc.texel) >> (8 * b))
		}
		got := texSeamlessCornerGather(t, tc.format, texels)
		shift := 32 - 8*tc.size
		sext := func(x uint32) int32 { return int32(x<<shift) >> shift }
		if tc.format == rt.FormatUint8 || tc.format == rt.FormatUint16 {
			sext = func(x uint32) int32 { return int32(x) }
		}
		if sext(got[1]) != tc.texel || got[0] != 0 || got[2] != 0 {
			t.Errorf("%s: tld4.r.cube at a seamless corner: %d, want %d at position 1, 0 at 0 and 2", tc.name, got, tc.texel)
		}
		if int32(got[3]) != tc.want {
			t.Errorf("%s: the missing corner texel of 86·%d/256 (a tie) is %d, want %d (rounded up)", tc.name, tc.texel, int32(got[3]), tc.want)
		}
	}
}
