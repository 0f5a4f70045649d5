package soft

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
	"github.com/cugen/cugen/rt/tex/texobj"
)

// probe8 (testdata/tex/probe8.cu; the H100's answers in probe8.txt.gz):
// does tex.grad.{2d,3d,a1d}.s32 read its coordinate registers' bits as
// f32? Each of 12 configurations (2d 11×7, 3d 5×4×3 and a1d 13 wide with
// 3 layers, f32x1 CUDA arrays whose texel i holds i+1; point/clamp,
// linear/clamp, linear/wrap/normalized and point/border, the others
// unnormalized) ran 1,024 samples, the registers holding the bits of a
// float around the texture (512) or random bits (512), beside plain
// tex.<geom>.f32 at that float (the reference). A 13th ran
// tex.grad.1d.s32 on 37 texels of linear memory (point, clamp,
// unnormalized) at integers -4..40, beside tex.1d.s32 (tex1Dfetch).

// probe8Config is one configuration of the probe and its samples.
type probe8Config struct {
	geom    string // 2d, 3d, a1d, 1d-linear
	cfg     int
	addr    rt.AddressMode
	linear  bool // linear filtering
	norm    bool // normalized coordinates
	same    int  // samples whose result equals the reference, as printed
	samples []probe8Sample
}

// probe8Sample is one sample: the x, y, z, layer and gradient registers'
// bits, and the H100's result and reference.
type probe8Sample struct {
	in       [5]uint32
	res, ref [4]uint32
}

// loadProbe8 reads probe8.txt.gz.
func loadProbe8(path string) ([]probe8Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var cs []probe8Config
	sc := bufio.NewScanner(zr)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		bad := func(why string) error { return fmt.Errorf("%s:%d: %s: %q", path, ln, why, line) }
		if strings.HasPrefix(line, "config ") {
			var c probe8Config
			var addr, n int
			var filter, norm string
			if _, err := fmt.Sscanf(line, "config %s cfg %d (addr %d, %s %s %d/%d", &c.geom, &c.cfg, &addr, &filter, &norm, &c.same, &n); err != nil {
				return nil, bad("want config G cfg N (addr A, FILTER, NORM): S/N ...: " + err.Error())
			}
			switch filter {
			case "point,", "linear,":
				c.linear = filter == "linear,"
			default:
				return nil, bad("unknown filter")
			}
			switch norm {
			case "normalized):", "unnormalized):":
				c.norm = norm == "normalized):"
			default:
				return nil, bad("unknown coordinates")
			}
			if addr < int(rt.AddressWrap) || addr > int(rt.AddressBorder) {
				return nil, bad("unknown address mode")
			}
			c.addr = rt.AddressMode(addr)
			if n != 1024 {
				return nil, bad("want 1024 samples")
			}
			cs = append(cs, c)
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(cs) == 0 {
			return nil, bad("a sample outside a configuration")
		}
		c := &cs[len(cs)-1]
		var s probe8Sample
		var geom string
		var cfg, i int
		var l int32
		_, err := fmt.Sscanf(strings.TrimSpace(line), "%s %d s %d x %x y %x z %x l %d g %x: res %x %x %x %x ref %x %x %x %x",
			&geom, &cfg, &i, &s.in[0], &s.in[1], &s.in[2], &l, &s.in[4],
			&s.res[0], &s.res[1], &s.res[2], &s.res[3], &s.ref[0], &s.ref[1], &s.ref[2], &s.ref[3])
		if err != nil {
			return nil, bad(err.Error())
		}
		if geom != c.geom || cfg != c.cfg || i != len(c.samples) {
			return nil, bad("sample out of order")
		}
		s.in[3] = uint32(l)
		c.samples = append(c.samples, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return cs, nil
}

// probe8Instrs are the probe's two instructions per geometry (the form,
// then its reference), on the registers of probe8PTX's kernels: x, y, z,
// layer in %r1..%r4 (their bits as f32 in %f1..%f3), the gradient in %f5;
// results in %r21..%r24 and %r25..%r28.
var probe8Instrs = map[string][2]string{
	"2d": {"tex.grad.2d.v4.f32.s32 {%r21, %r22, %r23, %r24}, [%rd1, {%r1, %r2}], {%f5, %f5}, {%f5, %f5};",
		"tex.2d.v4.f32.f32 {%r25, %r26, %r27, %r28}, [%rd1, {%f1, %f2}];"},
	"3d": {"tex.grad.3d.v4.f32.s32 {%r21, %r22, %r23, %r24}, [%rd1, {%r1, %r2, %r3, %r3}], {%f5, %f5, %f5, %f5}, {%f5, %f5, %f5, %f5};",
		"tex.3d.v4.f32.f32 {%r25, %r26, %r27, %r28}, [%rd1, {%f1, %f2, %f3, %f3}];"},
	"a1d": {"tex.grad.a1d.v4.f32.s32 {%r21, %r22, %r23, %r24}, [%rd1, {%r4, %r1}], {%f5}, {%f5};",
		"tex.a1d.v4.f32.f32 {%r25, %r26, %r27, %r28}, [%rd1, {%r4, %f1}];"},
	"1d-linear": {"tex.grad.1d.v4.f32.s32 {%r21, %r22, %r23, %r24}, [%rd1, {%r1}], {%f5}, {%f5};",
		"tex.1d.v4.f32.s32 {%r25, %r26, %r27, %r28}, [%rd1, {%r1}];"},
}

// probe8PTX holds a kernel per geometry, p8_<geom>(tex, in, out, n),
// running the form and its reference on n samples of 8 words (x, y, z,
// layer, gradient), writing 8 words each (result, reference).
func probe8PTX() string {
	var b strings.Builder
	b.WriteString(softtest.PTXHeader)
	for _, g := range []string{"2d", "3d", "a1d", "1d-linear"} {
		ins := probe8Instrs[g]
		b.WriteString(softtest.TexSampleKernel("p8_"+strings.ReplaceAll(g, "-", "_"), 32, 32, `ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd5];
	ld.global.u32 %r5, [%rd5+16];
	mov.b32 %f1, %r1;
	mov.b32 %f2, %r2;
	mov.b32 %f3, %r3;
	mov.b32 %f5, %r5;
	`+ins[0]+`
	`+ins[1]+`
	st.global.v4.u32 [%rd6], {%r21, %r22, %r23, %r24};
	st.global.v4.u32 [%rd6+16], {%r25, %r26, %r27, %r28};`))
	}
	return b.String()
}

// TestTexProbe8 replays probe8 through kernels, every sample's result and
// reference bit for bit (testdata/tex/NOTES.md, "probe8"): on 2d, 3d and
// a1d, point and linear, clamp, wrap and border, normalized or not,
// tex.grad.s32 samples as tex.f32 at the float of its coordinate
// registers' bits (the H100: 12,288 of 12,288 samples equal to the
// reference); tex.grad.1d.s32 on linear memory reads 0 in every channel
// where tex.1d.s32 (tex1Dfetch) reads texel x.
func TestTexProbe8(t *testing.T) {
	cs, err := loadProbe8("testdata/tex/probe8.txt.gz")
	mustT(t, err)
	if len(cs) != 13 {
		t.Fatalf("probe8.txt.gz: %d configurations, want 13", len(cs))
	}
	_, ctx, s := graphEnv(t, Options{})
	lib := rt.NewLibrary("p8.ptx", []byte(probe8PTX()))
	p := func(off, size uint32) rt.ParamSpec { return rt.ParamSpec{Offset: off, Size: size} }
	shapes := map[string]rt.ArrayDesc{
		"2d":        {Width: 11, Height: 7},
		"3d":        {Width: 5, Height: 4, Depth: 3},
		"a1d":       {Width: 13, Depth: 3, Flags: rt.ArrayLayered},
		"1d-linear": {Width: 37},
	}
	var samples, equal, zeros int
	for _, c := range cs {
		what := fmt.Sprintf("%s cfg %d", c.geom, c.cfg)
		ad, ok := shapes[c.geom]
		if !ok {
			t.Fatalf("%s: unknown geometry", what)
		}
		if len(c.samples) != 1024 {
			t.Fatalf("%s: %d samples, want 1024", what, len(c.samples))
		}
		ad.Format, ad.Channels = rt.FormatFloat, 1
		nt := ad.Width * max(ad.Height, 1) * max(ad.Depth, 1)
		texels := make([]byte, 4*nt)
		for i := 0; i < nt; i++ {
			binary.LittleEndian.PutUint32(texels[4*i:], math.Float32bits(float32(i+1)))
		}
		var res rt.ResourceDesc
		var arr *texobj.Array
		var lin rt.Buffer[byte]
		if c.geom == "1d-linear" {
			lin, err = rt.AllocFrom(ctx, texels)
			mustT(t, err)
			res = texobj.LinearResource(rt.DevPtr(lin.Ptr), ad.Format, 1, ad.Width)
		} else {
			arr, err = texobj.NewArray(ctx, ad)
			mustT(t, err)
			mustT(t, texobj.CopyToArray(arr, texels))
			res = texobj.ArrayResource(arr)
		}
		td := rt.TextureDesc{Filter: rt.FilterPoint}
		if c.linear {
			td.Filter = rt.FilterLinear
		}
		for i := range td.AddressMode {
			td.AddressMode[i] = c.addr
		}
		td = td.Normalized(c.norm).Read(rt.ReadElementType)
		tex, err := texobj.NewTexture(ctx, res, td)
		mustT(t, err)
		n := len(c.samples)
		words := make([]uint32, 8*n)
		for i, sm := range c.samples {
			copy(words[8*i:], sm.in[:])
		}
		in, err := rt.AllocFrom(ctx, words)
		mustT(t, err)
		out, err := rt.Alloc[uint32](ctx, 8*n)
		mustT(t, err)
		var b [28]byte
		binary.LittleEndian.PutUint64(b[0:], uint64(tex.Object))
		binary.LittleEndian.PutUint64(b[8:], uint64(in.Ptr))
		binary.LittleEndian.PutUint64(b[16:], uint64(out.Ptr))
		binary.LittleEndian.PutUint32(b[24:], uint32(n))
		k := lib.Kernel("p8_"+strings.ReplaceAll(c.geom, "-", "_"), p(0, 8), p(8, 8), p(16, 8), p(24, 4))
		mustT(t, k.Launch(rt.Config{Grid: rt.D1((n + 127) / 128), Block: rt.D1(128), Stream: s}, b[:]))
		got, err := out.ToHost()
		mustT(t, err)
		bad, same := 0, 0
		for i, sm := range c.samples {
			var r, f [4]uint32
			copy(r[:], got[8*i:])
			copy(f[:], got[8*i+4:])
			if sm.res == sm.ref {
				same++
			}
			if sm.res == [4]uint32{} {
				zeros++
			}
			if r != sm.res || f != sm.ref {
				if bad++; bad <= 5 {
					t.Errorf("%s: sample %d (x y z l g %08x): res %08x ref %08x, H100 res %08x ref %08x", what, i, sm.in, r, f, sm.res, sm.ref)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d samples differ", what, bad, n)
		}
		if same != c.same {
			t.Errorf("%s: %d samples' result equal their reference, probe8.txt.gz says %d", what, same, c.same)
		}
		samples += n
		equal += same
		mustT(t, tex.Destroy())
		if arr != nil {
			mustT(t, arr.Destroy())
		} else {
			lin.Free()
		}
		in.Free()
		out.Free()
	}
	t.Logf("probe8: %d configurations, %d samples through kernels, result and reference exact (%d results equal to their reference, %d all zero)",
		len(cs), samples, equal, zeros)
}
