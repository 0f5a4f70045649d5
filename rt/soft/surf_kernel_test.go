package soft

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
	"github.com/cugen/cugen/rt/soft/internal/texunit"
	"github.com/cugen/cugen/rt/tex/texobj"
)

// Kernels that run the H100's recorded formatted stores and reductions
// through rt's arrays and surface objects.
var surfKernelPTX = `
.version 8.0
.target sm_90
.address_size 64

// sustp2d: one thread stores n values in order, vals[i] (4 words) at
// element (crd[i].x, crd[i].y) with sust.p.2d.v4.b32.clamp.
.visible .entry sustp2d(.param .u64 surf, .param .u64 crd, .param .u64 vals, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [surf];
	ld.param.u64 %rd2, [crd];
	ld.param.u64 %rd3, [vals];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, 0;
LOOP:
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra END;
	mul.wide.u32 %rd4, %r2, 16;
	add.u64 %rd5, %rd2, %rd4;
	ld.global.v2.u32 {%r3, %r4}, [%rd5];
	add.u64 %rd6, %rd3, %rd4;
	ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd6];
	sust.p.2d.v4.b32.clamp [%rd1, {%r3, %r4}], {%r5, %r6, %r7, %r8};
	add.u32 %r2, %r2, 1;
	bra LOOP;
END:
	ret;
}

` +
	suredKernel("sured_add", "ld.global.u32 %r8, [%rd6];", "sured.b.add.2d.u32.clamp [%rd1, {%r6, %r7}], %r8;") +
	suredKernel("sured_min64", "ld.global.u64 %rd7, [%rd6];", "sured.b.min.2d.u64.zero [%rd1, {%r6, %r7}], %rd7;") +
	suredKernel("sured_or", "ld.global.u32 %r8, [%rd6];", "sured.p.or.2d.b32.zero [%rd1, {%r6, %r7}], %r8;") +
	suredPKernels() +
	suredKernel("sured_b_add_u32_clamp", "ld.global.u32 %r8, [%rd6];", "sured.b.add.1d.u32.clamp [%rd1, {%r6}], %r8;") +
	suredKernel("sured_b_add_u32_zero", "ld.global.u32 %r8, [%rd6];", "sured.b.add.1d.u32.zero [%rd1, {%r6}], %r8;") +
	suredKernel("sured_b_min_u64_clamp", "ld.global.u64 %rd7, [%rd6];", "sured.b.min.1d.u64.clamp [%rd1, {%r6}], %rd7;") +
	suredKernel("sured_b_min_u64_zero", "ld.global.u64 %rd7, [%rd6];", "sured.b.min.1d.u64.zero [%rd1, {%r6}], %rd7;")

// suredPForm is one of surf3.cu's 1-D sured.p forms: its 'SUR2' form
// number, op, type and mode.
type suredPForm struct {
	form         uint32
	op, ty, mode string
}

// suredPForms are the recorded ones: redfmt's (surf4.bin.zst, and
// surf5.bin.zst's snorm records), clamped, and redshort's (surf5.bin.zst),
// clamped and zeroed.
var suredPForms = func() []suredPForm {
	var fs []suredPForm
	for _, f := range []suredPForm{{1040, "add", "b32", ""}, {1140, "min", "b32", ""}, {1240, "max", "b32", ""},
		{1340, "and", "b32", ""}, {1440, "or", "b32", ""}, {1150, "min", "b64", ""}, {1250, "max", "b64", ""}} {
		fs = append(fs, suredPForm{f.form, f.op, f.ty, "clamp"}, suredPForm{f.form + 1, f.op, f.ty, "zero"})
	}
	return fs
}()

// suredPKernels are sured_p_OP_TY_MODE for suredPForms.
func suredPKernels() string {
	var b strings.Builder
	for _, f := range suredPForms {
		load, val := "ld.global.u32 %r8, [%rd6];", "%r8"
		if f.ty == "b64" {
			load, val = "ld.global.u64 %rd7, [%rd6];", "%rd7"
		}
		b.WriteString(suredKernel(suredPKernelName(f), load, "sured.p."+f.op+".1d."+f.ty+"."+f.mode+" [%rd1, {%r6}], "+val+";"))
	}
	return b.String()
}

// suredPKernelName is f's kernel in surfKernelPTX.
func suredPKernelName(f suredPForm) string { return "sured_p_" + f.op + "_" + f.ty + "_" + f.mode }

// suredKernel is name(surf, crd, vals, n): thread i loads vals[i] (load,
// into %r8 or %rd7) and reduces it into the surface at (crd[i].x,
// crd[i].y) with op: x in bytes for sured.b, in elements for sured.p.
func suredKernel(name, load, op string) string {
	return `
.visible .entry ` + name + `(.param .u64 surf, .param .u64 crd, .param .u64 vals, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [surf];
	ld.param.u64 %rd2, [crd];
	ld.param.u64 %rd3, [vals];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.u32 %r5, %r3, %r4, %r2;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra END;
	mul.wide.u32 %rd4, %r5, 16;
	add.u64 %rd5, %rd2, %rd4;
	ld.global.v2.u32 {%r6, %r7}, [%rd5];
	add.u64 %rd6, %rd3, %rd4;
	` + load + `
	` + op + `
END:
	ret;
}
`
}

// surfRecFormat is the rt format of a recorded surface's header.
func surfRecFormat(h []uint32) rt.ArrayFormat {
	kind, bits, nch := h[1], h[2], h[3]
	switch kind {
	case 0:
		return map[uint32]rt.ArrayFormat{8: rt.FormatUint8, 16: rt.FormatUint16, 32: rt.FormatUint32}[bits]
	case 1:
		return map[uint32]rt.ArrayFormat{8: rt.FormatInt8, 16: rt.FormatInt16, 32: rt.FormatInt32}[bits]
	case 2:
		return map[uint32]rt.ArrayFormat{16: rt.FormatHalf, 32: rt.FormatFloat}[bits]
	}
	base := map[[2]uint32]rt.ArrayFormat{{3, 8}: rt.FormatUnorm8, {3, 16}: rt.FormatUnorm16, {4, 8}: rt.FormatSnorm8, {4, 16}: rt.FormatSnorm16}[[2]uint32{kind, bits}]
	return base + rt.ArrayFormat(map[uint32]int{1: 0, 2: 1, 4: 2}[nch])
}

// TestSurfKernels runs recorded sust.p and sured sequences (2-D; and
// surf4's 84 and surf5's 112 sured.p sequences on formats that are not
// 32-bit integers and on rows that are not a whole number of accesses,
// and surf6's 16 sured.b sequences on such rows, 1-D) through kernels,
// rt's arrays and surface objects, and requires the H100's images; then
// surf6's .trap cases (surfTrapKernels).
func TestSurfKernels(t *testing.T) {
	_, ctx, s := graphEnv(t, Options{})
	lib := rt.NewLibrary("surf.ptx", []byte(surfKernelPTX))
	p := func(off, size uint32) rt.ParamSpec { return rt.ParamSpec{Offset: off, Size: size} }
	kernel := func(name string) *rt.Kernel {
		return lib.Kernel(name, p(0, 8), p(8, 8), p(16, 8), p(24, 4))
	}
	type form struct{ tag, form uint32 }
	kernels := map[form]*rt.Kernel{
		{surfRecStoreP, 120}: kernel("sustp2d"), // 2d v4 clamp
		{surfRecRed, 2}:      kernel("sured_add"),
		{surfRecRed, 63}:     kernel("sured_min64"),
		{surfRecRed, 363}:    kernel("sured_or"),
	}
	for _, f := range suredPForms {
		kernels[form{surfRecRed2, f.form}] = kernel(suredPKernelName(f))
	}
	// surf6 redb: 1-D sured.b (form = op*100 + ty*10 + mode)
	kernels[form{surfRecRed2, 0}] = kernel("sured_b_add_u32_clamp")
	kernels[form{surfRecRed2, 1}] = kernel("sured_b_add_u32_zero")
	kernels[form{surfRecRed2, 120}] = kernel("sured_b_min_u64_clamp")
	kernels[form{surfRecRed2, 121}] = kernel("sured_b_min_u64_zero")
	ran := map[string]int{}
	for _, file := range []string{"surf2-sustp.bin.zst", "surf2-sured.bin.zst", "surf4.bin.zst", "surf5.bin.zst", "surf6.bin.zst"} {
		_, sr, err := loadTexFiles("testdata/tex", file)
		mustT(t, err)
		for _, r := range sr {
			h := r.hdr
			k := kernels[form{r.tag, h[8]}]
			if k == nil {
				continue
			}
			f := surfRecFormat(h)
			height := int(h[5])
			if r.tag == surfRecRed2 {
				height = 0 // surf4, surf5, surf6: 1-D arrays
			}
			arr, err := texobj.NewArray(ctx, rt.ArrayDesc{Width: int(h[4]), Height: height, Format: f, Channels: int(h[3]), Flags: rt.ArraySurfaceLoadStore})
			mustT(t, err)
			mustT(t, texobj.CopyToArray(arr, r.img))
			surf, err := texobj.NewSurface(arr)
			mustT(t, err)
			n := len(r.coords)
			crd, vals := make([]uint32, 4*n), make([]uint32, 4*n)
			for i := range r.coords {
				copy(crd[4*i:], r.coords[i][:])
				copy(vals[4*i:], r.res[i][:])
			}
			cb, err := rt.AllocFrom(ctx, crd)
			mustT(t, err)
			vb, err := rt.AllocFrom(ctx, vals)
			mustT(t, err)
			var b [28]byte
			binary.LittleEndian.PutUint64(b[0:], uint64(surf.Object))
			binary.LittleEndian.PutUint64(b[8:], uint64(cb.Ptr))
			binary.LittleEndian.PutUint64(b[16:], uint64(vb.Ptr))
			binary.LittleEndian.PutUint32(b[24:], uint32(n))
			cfg := rt.Config{Grid: rt.D1((n + 127) / 128), Block: rt.D1(128), Stream: s}
			if r.tag == surfRecStoreP {
				cfg.Grid, cfg.Block = rt.D1(1), rt.D1(1) // one thread, stores in order
			}
			// (surf5's redshort and surf6's redb records were reduced in
			// order by one thread; their ops commute, so concurrent threads
			// give the same image)
			mustT(t, k.Launch(cfg, b[:]))
			got := make([]byte, len(r.after))
			mustT(t, texobj.CopyFromArray(arr, got))
			tag := map[uint32]string{surfRecStoreP: "sust.p", surfRecRed: "sured", surfRecRed2: "sured.p (" + strings.TrimSuffix(file, ".bin.zst") + ")"}[r.tag]
			if r.tag == surfRecRed2 && h[8] < 1000 {
				tag = "sured.b (" + strings.TrimSuffix(file, ".bin.zst") + ")" // surf6 redb
			}
			name := fmt.Sprintf("%s form %d on %v", tag, h[8], f)
			if d := imageDiff(got, r.after); d != "" {
				t.Errorf("%s: image differs %s", name, d)
			}
			ran[tag]++
			mustT(t, surf.Destroy())
			mustT(t, arr.Destroy())
			cb.Free()
			vb.Free()
		}
	}
	if ran["sust.p"] < 16 || ran["sured"] < 3 || ran["sured.p (surf4)"] < 84 || ran["sured.p (surf5)"] < 112 || ran["sured.b (surf6)"] < 16 {
		t.Fatalf("ran %v recorded sequences, want 16 sust.p (every format), 3 sured, 84 sured.p of surf4, 112 of surf5 and surf6's 16 sured.b", ran)
	}
	t.Logf("recorded sequences through kernels, all exact: %v", ran)

	surfTrapKernels(t)
}

// surfTrapCase is one of surf3.cu's redtrap cases as surf6.txt logs it.
type surfTrapCase struct {
	k, w, x  int
	ins, fmt string
	faulted  bool
	kernel   string // its kernel in the library surfTrapKernels builds
	recorded *surfRecord
}

var surfTrapLine = regexp.MustCompile(`^TRAP case (\d+) \((sured\.[a-z0-9.]+) on (u8x1|u16x1) W (\d+) at x (-?\d+)\): (faulted|no fault)$`)

// surfTrapKernels runs surf3.cu's redtrap cases (surf6.txt: one .trap
// access alone, value 5, on a 1-D u8x1 or u16x1 surface whose rows are not
// a whole number of accesses) through kernels: those the H100 faulted on
// (an illegal memory access) must stop the kernel with an illegal-address
// fault; those it ran must give its image (surf6.bin.zst).
func surfTrapKernels(t *testing.T) {
	b, err := os.ReadFile("testdata/tex/surf6.txt")
	mustT(t, err)
	_, sr, err := loadTexFiles("testdata/tex", "surf6.bin.zst")
	mustT(t, err)
	var cases []surfTrapCase
	var ptx strings.Builder
	ptx.WriteString(softtest.PTXHeader)
	kernels := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		m := surfTrapLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		c := surfTrapCase{ins: m[2], fmt: m[3], faulted: m[6] == "faulted"}
		c.k, _ = strconv.Atoi(m[1])
		c.w, _ = strconv.Atoi(m[4])
		c.x, _ = strconv.Atoi(m[5])
		if c.kernel = kernels[c.ins]; c.kernel == "" {
			c.kernel = strings.ReplaceAll(c.ins, ".", "_")
			kernels[c.ins] = c.kernel
			load, val := "ld.global.u32 %r8, [%rd6];", "%r8"
			if strings.HasSuffix(c.ins, "64.trap") {
				load, val = "ld.global.u64 %rd7, [%rd6];", "%rd7"
			}
			ptx.WriteString(suredKernel(c.kernel, load, c.ins+" [%rd1, {%r6}], "+val+";"))
		}
		if !c.faulted {
			// its record: the 'SUR2' .trap form (9 in the geom*2+mode
			// place) of this instruction on this surface at this x
			for i := range sr {
				r := &sr[i]
				_, _, _, _, _, mode, name := suredRecForm(r.tag, r.hdr[8])
				if mode == texunit.SurfTrap && name == c.ins && surfRecFmt(r.hdr) == c.fmt && int(r.hdr[4]) == c.w &&
					len(r.coords) == 1 && int(int32(r.coords[0][0])) == c.x {
					c.recorded = r
				}
			}
			if c.recorded == nil {
				t.Fatalf("surf6.txt: case %d (%s on %s W %d at x %d) ran, but surf6.bin.zst has no record of it", c.k, c.ins, c.fmt, c.w, c.x)
			}
		}
		cases = append(cases, c)
	}
	faulted := 0
	for _, c := range cases {
		if c.faulted {
			faulted++
		}
	}
	if len(cases) != 9 || faulted != 6 {
		t.Fatalf("surf6.txt: %d redtrap cases, %d faulted; want 9 and 6", len(cases), faulted)
	}
	for _, c := range cases {
		name := fmt.Sprintf("redtrap %d: %s on %s W %d at x %d", c.k, c.ins, c.fmt, c.w, c.x)
		_, ctx, s := graphEnv(t, Options{})
		lib := rt.NewLibrary("trap.ptx", []byte(ptx.String()))
		p := func(off, size uint32) rt.ParamSpec { return rt.ParamSpec{Offset: off, Size: size} }
		k := lib.Kernel(c.kernel, p(0, 8), p(8, 8), p(16, 8), p(24, 4))
		f := map[string]rt.ArrayFormat{"u8x1": rt.FormatUint8, "u16x1": rt.FormatUint16}[c.fmt]
		arr, err := texobj.NewArray(ctx, rt.ArrayDesc{Width: c.w, Format: f, Channels: 1, Flags: rt.ArraySurfaceLoadStore})
		mustT(t, err)
		img := make([]byte, c.w*f.Size())
		crd, val := []uint32{uint32(int32(c.x)), 0, 0, 0}, []uint32{5, 0, 0, 0} // surf3.cu: value 5
		if c.recorded != nil {
			img = c.recorded.img
			copy(val, c.recorded.res[0][:])
		}
		mustT(t, texobj.CopyToArray(arr, img))
		surf, err := texobj.NewSurface(arr)
		mustT(t, err)
		cb, err := rt.AllocFrom(ctx, crd)
		mustT(t, err)
		vb, err := rt.AllocFrom(ctx, val)
		mustT(t, err)
		var pb [28]byte
		binary.LittleEndian.PutUint64(pb[0:], uint64(surf.Object))
		binary.LittleEndian.PutUint64(pb[8:], uint64(cb.Ptr))
		binary.LittleEndian.PutUint64(pb[16:], uint64(vb.Ptr))
		binary.LittleEndian.PutUint32(pb[24:], 1)
		err = k.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: s}, pb[:])
		if err == nil {
			err = s.Synchronize()
		}
		if c.faulted {
			// (the fault ends the context; the next case makes a new one)
			if !errors.Is(err, rt.ErrIllegalAddress) || !strings.Contains(err.Error(), "outside") {
				t.Errorf("%s: %v; the H100 faulted (an illegal memory access), want an illegal-address fault", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v; the H100 ran it", name, err)
			continue
		}
		got := make([]byte, len(img))
		mustT(t, texobj.CopyFromArray(arr, got))
		if d := imageDiff(got, c.recorded.after); d != "" {
			t.Errorf("%s: image differs %s", name, d)
		}
	}
	t.Logf("surf6 redtrap through kernels: %d cases, %d illegal-address faults as on the H100, %d images exact", len(cases), faulted, len(cases)-faulted)
}

const surfEdgePTX = `
.version 8.0
.target sm_90
.address_size 64

// sustp_trap: sust.p.2d.b32.trap of v at (x, 0).
.visible .entry sustp_trap(.param .u64 surf, .param .u32 x, .param .u32 v)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [surf];
	ld.param.u32 %r1, [x];
	ld.param.u32 %r3, [v];
	mov.u32 %r2, 0;
	sust.p.2d.b32.trap [%rd1, {%r1, %r2}], {%r3};
	ret;
}

// sured_trap: sured.b.add.2d.u32.trap of v at (x bytes, 0).
.visible .entry sured_trap(.param .u64 surf, .param .u32 x, .param .u32 v)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [surf];
	ld.param.u32 %r1, [x];
	ld.param.u32 %r3, [v];
	mov.u32 %r2, 0;
	sured.b.add.2d.u32.trap [%rd1, {%r1, %r2}], %r3;
	ret;
}
`

// TestSurfEdges: sust.p counts x in elements (x = 3 on a 4-byte element is
// element 3, not a misaligned byte offset) and sured.b in bytes; under
// .trap an access outside the surface is an illegal address and a
// misaligned sured.b a misaligned address, as for suld.b/sust.b.
func TestSurfEdges(t *testing.T) {
	for _, c := range []struct {
		kernel string
		format rt.ArrayFormat
		x, v   uint32
		want   []byte // the 4×1 image after, from zeros
		err    string
	}{
		{"sustp_trap", rt.FormatUnorm8X4, 3, 0x3f000000, []byte{12: 127}, ""}, // 0.5 → 127 in r; g, b, a 0
		{"sustp_trap", rt.FormatUnorm8X4, 4, 0x3f800000, nil, "outside"},
		{"sustp_trap", rt.FormatUint32, 0xffffffff, 1, nil, "outside"},
		{"sured_trap", rt.FormatUint32, 12, 7, []byte{12: 7}, ""},
		{"sured_trap", rt.FormatUint32, 2, 7, nil, "not a multiple"},
		{"sured_trap", rt.FormatUint32, 16, 7, nil, "outside"},
	} {
		name := fmt.Sprintf("%s(%v, x=%d)", c.kernel, c.format, int32(c.x))
		_, ctx, s := graphEnv(t, Options{})
		lib := rt.NewLibrary("edge.ptx", []byte(surfEdgePTX))
		k := lib.Kernel(c.kernel, rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 4}, rt.ParamSpec{Offset: 12, Size: 4})
		arr, err := texobj.NewArray(ctx, rt.ArrayDesc{Width: 4, Height: 1, Format: c.format, Channels: max(c.format.Channels(), 1), Flags: rt.ArraySurfaceLoadStore})
		mustT(t, err)
		mustT(t, texobj.CopyToArray(arr, make([]byte, 16)))
		surf, err := texobj.NewSurface(arr)
		mustT(t, err)
		var b [16]byte
		binary.LittleEndian.PutUint64(b[0:], uint64(surf.Object))
		binary.LittleEndian.PutUint32(b[8:], c.x)
		binary.LittleEndian.PutUint32(b[12:], c.v)
		err = k.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: s}, b[:])
		if err == nil {
			err = s.Synchronize()
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error saying %q", name, err, c.err)
			}
			continue
		}
		mustT(t, err)
		got := make([]byte, 16)
		mustT(t, texobj.CopyFromArray(arr, got))
		want := append(c.want, make([]byte, 16-len(c.want))...)
		if d := imageDiff(got, want); d != "" {
			t.Errorf("%s: image differs %s", name, d)
		}
	}
}
