package soft

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
	"github.com/cugen/cugen/rt/soft/internal/texunit"
	"github.com/cugen/cugen/rt/soft/loadcheck"
	"github.com/cugen/cugen/rt/tex/texobj"
)

// texGradPTX is a module of kernels that sample with tex.grad and, at the
// same coordinates, with plain tex: for each geometry g, grad_g(tex, crd,
// grd, res, n) reads four coordinate words crd[4i..4i+3] (an array's layer
// index first, as a u32) and eight gradient words grd[8i..8i+7] (dPdx then
// dPdy, each padded to four), and stores the tex.grad result in res[8i..]
// and the plain tex result in res[8i+4..].
func texGradPTX() string {
	var b strings.Builder
	b.WriteString(softtest.PTXHeader)
	for _, g := range []struct {
		name   string
		crd    string // coordinate vector
		dx, dy string // gradient vectors
	}{
		{"1d", "{%f1}", "{%g1}", "{%g5}"},
		{"2d", "{%f1, %f2}", "{%g1, %g2}", "{%g5, %g6}"},
		{"3d", "{%f1, %f2, %f3, %f4}", "{%g1, %g2, %g3, %g4}", "{%g5, %g6, %g7, %g8}"},
		{"a1d", "{%r9, %f2}", "%g1", "%g5"}, // a scalar is a singleton
		{"a2d", "{%r9, %f2, %f3, %f4}", "{%g1, %g2}", "{%g5, %g6}"},
		{"cube", "{%f1, %f2, %f3, %f4}", "{%g1, %g2, %g3, %g4}", "{%g5, %g6, %g7, %g8}"},
		{"acube", "{%r9, %f2, %f3, %f4}", "{%g1, %g2, %g3, %g4}", "{%g5, %g6, %g7, %g8}"}, // loaded (TestTexGradDecode), not run: nothing recorded
	} {
		fmt.Fprintf(&b, `
.visible .entry grad_%[1]s(.param .u64 tex, .param .u64 crd, .param .u64 grd, .param .u64 res, .param .u32 n)
{
	.reg .pred %%p<2>;
	.reg .b32 %%r<12>;
	.reg .f32 %%f<8>;
	.reg .f32 %%g<9>;
	.reg .f32 %%o<9>;
	.reg .b64 %%rd<12>;
	ld.param.u64 %%rd1, [tex];
	ld.param.u64 %%rd2, [crd];
	ld.param.u64 %%rd3, [grd];
	ld.param.u64 %%rd4, [res];
	ld.param.u32 %%r1, [n];
	mov.u32 %%r2, %%tid.x;
	mov.u32 %%r3, %%ctaid.x;
	mov.u32 %%r4, %%ntid.x;
	mad.lo.u32 %%r5, %%r3, %%r4, %%r2;
	setp.ge.u32 %%p1, %%r5, %%r1;
	@%%p1 bra END;
	mul.wide.u32 %%rd5, %%r5, 16;
	add.u64 %%rd6, %%rd2, %%rd5;
	ld.global.v4.f32 {%%f1, %%f2, %%f3, %%f4}, [%%rd6];
	ld.global.u32 %%r9, [%%rd6];
	mul.wide.u32 %%rd7, %%r5, 32;
	add.u64 %%rd8, %%rd3, %%rd7;
	ld.global.v4.f32 {%%g1, %%g2, %%g3, %%g4}, [%%rd8];
	ld.global.v4.f32 {%%g5, %%g6, %%g7, %%g8}, [%%rd8+16];
	tex.grad.%[1]s.v4.f32.f32 {%%o1, %%o2, %%o3, %%o4}, [%%rd1, %[2]s], %[3]s, %[4]s;
	tex.%[1]s.v4.f32.f32 {%%o5, %%o6, %%o7, %%o8}, [%%rd1, %[2]s];
	add.u64 %%rd9, %%rd4, %%rd7;
	st.global.v4.f32 [%%rd9], {%%o1, %%o2, %%o3, %%o4};
	st.global.v4.f32 [%%rd9+16], {%%o5, %%o6, %%o7, %%o8};
END:
	ret;
}
`, g.name, g.crd, g.dx, g.dy)
	}
	return b.String()
}

// texGradSpecials are gradients of every kind: the H100 answered tex.grad
// on textures without mipmaps with the level-0 sample whatever they were.
var texGradSpecials = []float32{0, 1, -1, 0.01, 100, 1e30, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0.5, 4, -3e38}

// TestTexGrad runs tex.grad in kernels: on the H100's recorded tex.grad
// samples (2d, 3d, a2d, cube, 1d; gradients of every kind, NaN, Inf and 1e30
// included), and on 1-D, 3-D and layered textures of every address mode,
// where tex.grad must answer what tex and the sampler do at the same
// coordinates (level 0: rt has no mipmaps).
func TestTexGrad(t *testing.T) {
	_, ctx, s := graphEnv(t, Options{})
	lib := rt.NewLibrary("texgrad.ptx", []byte(texGradPTX()))
	p := func(off, size uint32) rt.ParamSpec { return rt.ParamSpec{Offset: off, Size: size} }
	kernel := func(g string) *rt.Kernel {
		return lib.Kernel("grad_"+g, p(0, 8), p(8, 8), p(16, 8), p(24, 8), p(32, 4))
	}
	// run launches grad_g over coordinates crd and gradients grd and
	// returns the tex.grad and plain tex results.
	run := func(g string, tex *texobj.Texture, crd [][4]uint32, grd [][8]uint32) (gr, pl [][4]uint32) {
		t.Helper()
		n := len(crd)
		cw := make([]uint32, 0, 4*n)
		for _, c := range crd {
			cw = append(cw, c[:]...)
		}
		gw := make([]uint32, 0, 8*n)
		for _, d := range grd {
			gw = append(gw, d[:]...)
		}
		in, err := rt.AllocFrom(ctx, cw)
		mustT(t, err)
		defer in.Free()
		gin, err := rt.AllocFrom(ctx, gw)
		mustT(t, err)
		defer gin.Free()
		out, err := rt.Alloc[uint32](ctx, 8*n)
		mustT(t, err)
		defer out.Free()
		var b [36]byte
		binary.LittleEndian.PutUint64(b[0:], uint64(tex.Object))
		binary.LittleEndian.PutUint64(b[8:], uint64(in.Ptr))
		binary.LittleEndian.PutUint64(b[16:], uint64(gin.Ptr))
		binary.LittleEndian.PutUint64(b[24:], uint64(out.Ptr))
		binary.LittleEndian.PutUint32(b[32:], uint32(n))
		mustT(t, kernel(g).Launch(rt.Config{Grid: rt.D1((n + 127) / 128), Block: rt.D1(128), Stream: s}, b[:]))
		got, err := out.ToHost()
		mustT(t, err)
		gr, pl = make([][4]uint32, n), make([][4]uint32, n)
		for i := range n {
			copy(gr[i][:], got[8*i:])
			copy(pl[i][:], got[8*i+4:])
		}
		return gr, pl
	}

	// The recorded tex.grad samples: form 101 (tex.grad.2d, gradients
	// {z, w} and {w, z}) of testdata/tex, and tex2-f's forms 116 (3d), 117
	// (cube), 118 (a2d) and 120 (1d) with every gradient element w.
	tr, _, err := loadTexRecords("testdata/tex")
	mustT(t, err)
	tf, _, err := loadTexFiles("testdata/tex", "tex2-f.bin.zst")
	mustT(t, err)
	recorded := map[string]int{}
	for _, r := range append(tr, tf...) {
		r := r.raceSampled()
		h := r.hdr
		geom := map[uint32]string{101: "2d", 116: "3d", 117: "cube", 118: "a2d", 120: "1d"}[h[22]]
		if geom == "" || h[21] != 0 {
			continue
		}
		if h[2] != texunit.ChanFloat || h[3] != 32 {
			t.Fatalf("%s: a tex.grad record of an unexpected texel format", texRecKey(h))
		}
		ad := rt.ArrayDesc{Width: int(h[5]), Format: rt.FormatFloat, Channels: int(h[4])}
		switch geom {
		case "2d":
			ad.Height = int(h[6])
		case "3d":
			ad.Height, ad.Depth = int(h[6]), int(h[7])
		case "a2d":
			ad.Height, ad.Depth, ad.Flags = int(h[6]), int(h[8]), rt.ArrayLayered
		case "cube":
			ad.Height, ad.Depth, ad.Flags = int(h[6]), int(h[8]), rt.ArrayCubemap
		}
		arr, err := texobj.NewArray(ctx, ad)
		mustT(t, err)
		mustT(t, texobj.CopyToArray(arr, r.texels))
		td := rt.TextureDesc{Filter: rt.FilterMode(h[13])}
		for i := range td.AddressMode {
			td.AddressMode[i] = rt.AddressMode(h[10+i])
		}
		tex, err := texobj.NewTexture(ctx, texobj.ArrayResource(arr), td.Normalized(h[15] != 0).Read(rt.ReadMode(h[14])))
		mustT(t, err)
		crd := make([][4]uint32, len(r.coords))
		grd := make([][8]uint32, len(r.coords))
		for i, c := range r.coords {
			crd[i] = c
			if geom == "2d" {
				grd[i] = [8]uint32{c[2], c[3], 0, 0, c[3], c[2], 0, 0} // as rec.cu's form 101
				continue
			}
			if geom != "1d" {
				crd[i][3] = c[2] // the recorded instruction's {x, y, z, z}
			}
			for j := range grd[i] {
				grd[i][j] = c[3]
			}
		}
		gr, _ := run(geom, tex, crd, grd)
		for i := range r.coords {
			if gr[i] != r.res[i] {
				t.Fatalf("%s (form %d): tex.grad.%s at %08x, gradients %08x: %08x, H100 %08x", texRecKey(h), h[22], geom, crd[i], grd[i], gr[i], r.res[i])
			}
		}
		recorded[geom] += len(r.coords)
		mustT(t, tex.Destroy())
		mustT(t, arr.Destroy())
	}
	for _, g := range []string{"1d", "2d", "3d", "a2d", "cube"} {
		if recorded[g] == 0 {
			t.Fatalf("no recorded tex.grad.%s configuration found", g)
		}
	}

	// Other geometries: f32 texels, linear filtering, every address mode.
	rng := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return rng
	}
	unif := func(lo, hi float64) uint32 {
		return math.Float32bits(float32(lo + (hi-lo)*float64(next()>>11)/(1<<53)))
	}
	for _, c := range []struct {
		geom            string
		w, h, d, layers int
	}{
		{"1d", 13, 0, 0, 0},
		{"3d", 5, 4, 3, 0},
		{"a1d", 9, 0, 0, 3},
		{"a2d", 5, 4, 0, 3},
	} {
		ad := rt.ArrayDesc{Width: c.w, Height: c.h, Depth: c.d, Format: rt.FormatFloat, Channels: 1}
		v := &texunit.View{Res: texunit.ResArray, Chan: texunit.ChanFloat, Bits: 32, NChan: 1, W: c.w, H: max(c.h, 1), D: max(c.d, 1)}
		switch c.geom {
		case "1d":
			v.Geom = texunit.Geom1D
		case "3d":
			v.Geom = texunit.Geom3D
		case "a1d":
			v.Geom, v.Layers, ad.Depth, ad.Flags = texunit.GeomA1D, c.layers, c.layers, rt.ArrayLayered
		case "a2d":
			v.Geom, v.Layers, ad.Depth, ad.Flags = texunit.GeomA2D, c.layers, c.layers, rt.ArrayLayered
		}
		texels := make([]uint32, c.w*max(c.h, 1)*max(c.d, 1)*max(c.layers, 1))
		for i := range texels {
			texels[i] = unif(-8, 8)
		}
		v.Data = binary.LittleEndian.AppendUint32(nil, texels[0])
		for _, x := range texels[1:] {
			v.Data = binary.LittleEndian.AppendUint32(v.Data, x)
		}
		arr, err := texobj.NewArray(ctx, ad)
		mustT(t, err)
		mustT(t, texobj.CopyToArray(arr, texels))
		for mode := rt.AddressWrap; mode <= rt.AddressBorder; mode++ {
			td := rt.TextureDesc{Filter: rt.FilterLinear, AddressMode: [3]rt.AddressMode{mode, mode, mode},
				BorderColor: [4]float32{0.25, 0, 0, 0}}.Normalized(mode == rt.AddressWrap || mode == rt.AddressMirror)
			tex, err := texobj.NewTexture(ctx, texobj.ArrayResource(arr), td)
			mustT(t, err)
			v.Linear, v.Norm, v.Addr, v.Border = true, td.Flags&rt.TexNormalizedCoords != 0, [3]int{int(mode), int(mode), int(mode)}, [4]uint32{math.Float32bits(0.25)}
			const n = 500
			crd := make([][4]uint32, n)
			grd := make([][8]uint32, n)
			for i := range crd {
				hi := []float64{float64(c.w), float64(max(c.h, 1)), float64(max(c.d, 1))}
				if v.Norm {
					hi = []float64{1.5, 1.5, 1.5}
				}
				switch c.geom {
				case "1d":
					crd[i] = [4]uint32{unif(-1, hi[0]+1)}
				case "3d":
					crd[i] = [4]uint32{unif(-1, hi[0]+1), unif(-1, hi[1]+1), unif(-1, hi[2]+1), unif(0, 1)}
				case "a1d":
					crd[i] = [4]uint32{uint32(next() % uint64(c.layers+1)), unif(-1, hi[0]+1)}
				case "a2d":
					crd[i] = [4]uint32{uint32(next() % uint64(c.layers+1)), unif(-1, hi[0]+1), unif(-1, hi[1]+1), unif(0, 1)}
				}
				for j := range grd[i] {
					grd[i][j] = math.Float32bits(texGradSpecials[next()%uint64(len(texGradSpecials))])
				}
			}
			gr, pl := run(c.geom, tex, crd, grd)
			op := texunit.Op{Geom: v.Geom}
			for i := range crd {
				want := v.Sample(op, crd[i])
				if gr[i] != want || pl[i] != want {
					t.Fatalf("%s, address mode %d: at %08x with gradients %08x: tex.grad %08x, tex %08x, sampler %08x",
						c.geom, mode, crd[i], grd[i], gr[i], pl[i], want)
				}
			}
			mustT(t, tex.Destroy())
		}
		mustT(t, arr.Destroy())
	}
	t.Logf("recorded tex.grad samples exact through kernels: %v; tex.grad.{1d,3d,a1d,a2d} equal tex and the sampler", recorded)
}

// TestTexGradDecode: malformed tex.grad instructions are refused at load
// with a message, not run.
func TestTexGradDecode(t *testing.T) {
	src := texGradPTX()
	good := "tex.grad.2d.v4.f32.f32 {%o1, %o2, %o3, %o4}, [%rd1, {%f1, %f2}], {%g1, %g2}, {%g5, %g6};"
	if !strings.Contains(src, good) {
		t.Fatal("the 2-D tex.grad line is not in the module")
	}
	if err := loadcheck.Check("g.ptx", []byte(src)); err != nil {
		t.Fatalf("the tex.grad module: %v", err)
	}
	for _, c := range []struct{ to, want string }{
		{"tex.grad.2d.v4.f32.f32 {%o1, %o2, %o3, %o4}, [%rd1, {%f1, %f2}], {%g1}, {%g5, %g6};", "dPdx has 1 elements, want 2"},
		{"tex.grad.2d.v4.f32.f32 {%o1, %o2, %o3, %o4}, [%rd1, {%f1, %f2}], {%g1, %g2}, {%g5, %g6, %g7, %g8};", "dPdy has 4 elements, want 2"},
		{"tex.grad.2d.v4.f32.f32 {%o1, %o2, %o3, %o4}, [%rd1, {%f1, %f2}], {%g1, %g2};", "want d, [handle, {coordinates}], dPdx, dPdy"},
		{"tld4.grad.r.2d.v4.f32.f32 {%o1, %o2, %o3, %o4}, [%rd1, {%f1, %f2}], {%g1, %g2}, {%g5, %g6};", "modifier .grad is only for tex"},
	} {
		err := loadcheck.Check("g.ptx", []byte(strings.Replace(src, good, c.to, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.to, err, c.want)
		}
	}
}
