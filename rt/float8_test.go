package rt_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
)

// cvt8 converts each float32 to e4m3 and e5m2 with PTX's
// cvt.rn.satfinite (what __nv_fp8 constructors compile to) and back to
// half (cvt.rn.f16x2), storing the fp8 bytes and the halves.
const cvt8PTX = `.version 8.0
.target sm_90
.address_size 64
.visible .entry cvt8(.param .u64 p_in, .param .u64 p_e4, .param .u64 p_e5, .param .u64 p_h4, .param .u64 p_h5, .param .u32 p_n)
{
	.reg .pred %p;
	.reg .b16 %b<3>;
	.reg .b32 %r<8>;
	.reg .f32 %f;
	.reg .b64 %rd<12>;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.u32 %r1, %r1, %r2, %r3;
	ld.param.u32 %r4, [p_n];
	setp.ge.u32 %p, %r1, %r4;
	@%p ret;
	cvt.u64.u32 %rd1, %r1;
	ld.param.u64 %rd2, [p_in];
	mad.lo.u64 %rd3, %rd1, 4, %rd2;
	ld.global.f32 %f, [%rd3];
	cvt.rn.satfinite.e4m3x2.f32 %b1, %f, %f;
	cvt.rn.satfinite.e5m2x2.f32 %b2, %f, %f;
	ld.param.u64 %rd4, [p_e4];
	add.u64 %rd5, %rd4, %rd1;
	st.global.u8 [%rd5], %b1;
	ld.param.u64 %rd6, [p_e5];
	add.u64 %rd7, %rd6, %rd1;
	st.global.u8 [%rd7], %b2;
	cvt.rn.f16x2.e4m3x2 %r5, %b1;
	cvt.rn.f16x2.e5m2x2 %r6, %b2;
	ld.param.u64 %rd8, [p_h4];
	mad.lo.u64 %rd9, %rd1, 4, %rd8;
	st.global.u32 [%rd9], %r5;
	ld.param.u64 %rd10, [p_h5];
	mad.lo.u64 %rd11, %rd1, 4, %rd10;
	st.global.u32 [%rd11], %r6;
	ret;
}
`

// The fp8 conversions agree with rt/soft's cvt, which is the H100's
// (recorded there): rounding, saturation, subnormals, NaN; decoding is
// exact.
func TestFloat8AgainstCvt(t *testing.T) {
	in := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 448, 449, 464, 480, 1e9, -1e9, 57344, 61440, 65536,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0x1p-9, 0x1p-10, 0x3p-11, 0x1p-16, 0x1p-17, 0x3p-18,
		0x1.2p-7, 1.0625, 1.125, 1.1875, 1.25, 1.375, 0.1, -0.3, 3.3e-3}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		in = append(in, float32(math.Ldexp(rng.NormFloat64(), rng.IntN(40)-24)))
	}
	ctx, err := mustSoftCtx(t)
	if err != nil {
		t.Fatal(err)
	}
	lib := rt.NewLibrary("cvt8.ptx", []byte(cvt8PTX))
	k := lib.Kernel("cvt8", rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 8}, rt.ParamSpec{Offset: 16, Size: 8},
		rt.ParamSpec{Offset: 24, Size: 8}, rt.ParamSpec{Offset: 32, Size: 8}, rt.ParamSpec{Offset: 40, Size: 4})
	n := len(in)
	src, _ := rt.AllocFrom(ctx, in)
	e4, _ := rt.Alloc[uint8](ctx, n)
	e5, _ := rt.Alloc[uint8](ctx, n)
	h4, _ := rt.Alloc[rt.Half2](ctx, n)
	h5, _ := rt.Alloc[rt.Half2](ctx, n)
	var args [44]byte
	for i, p := range []rt.DevPtr{src.Ptr.Addr(), e4.Ptr.Addr(), e5.Ptr.Addr(), h4.Ptr.Addr(), h5.Ptr.Addr()} {
		for b := range 8 {
			args[8*i+b] = byte(uint64(p) >> (8 * b))
		}
	}
	args[40], args[41] = byte(n), byte(n>>8)
	if err := k.Launch(rt.Config{Grid: rt.D1((n + 127) / 128), Block: rt.D1(128), Stream: ctx.NullStream()}, args[:]); err != nil {
		t.Fatal(err)
	}
	g4, _ := e4.ToHost()
	g5, _ := e5.ToHost()
	d4, _ := h4.ToHost()
	d5, _ := h5.ToHost()
	for i, f := range in {
		if got := rt.Float8E4M3From(f); uint8(got) != g4[i] {
			t.Errorf("Float8E4M3From(%g) = %#02x, cvt gives %#02x", f, got, g4[i])
		}
		if got := rt.Float8E5M2From(f); uint8(got) != g5[i] {
			t.Errorf("Float8E5M2From(%g) = %#02x, cvt gives %#02x", f, got, g5[i])
		}
		if got := rt.HalfFrom(rt.Float8E4M3(g4[i]).Float32()); got != d4[i].X && !(got.Float32() != got.Float32() && d4[i].X == 0x7fff) {
			t.Errorf("e4m3 %#02x decodes to %v, cvt to half gives %#04x", g4[i], rt.Float8E4M3(g4[i]).Float32(), d4[i].X)
		}
		if got := rt.HalfFrom(rt.Float8E5M2(g5[i]).Float32()); got != d5[i].X && !(got.Float32() != got.Float32() && d5[i].X == 0x7fff) {
			t.Errorf("e5m2 %#02x decodes to %v, cvt to half gives %#04x", g5[i], rt.Float8E5M2(g5[i]).Float32(), d5[i].X)
		}
		if t.Failed() {
			break
		}
	}
	// Every encoding decodes and re-encodes to itself (NaNs to 0x7f).
	for b := range 256 {
		v4, v5 := rt.Float8E4M3(b), rt.Float8E5M2(b)
		if f := v4.Float32(); f == f && rt.Float8E4M3From(f) != v4 || f != f && rt.Float8E4M3From(f) != 0x7f {
			t.Errorf("e4m3 %#02x: %v re-encodes to %#02x", b, f, rt.Float8E4M3From(f))
		}
		if f := v5.Float32(); f == f && !math.IsInf(float64(f), 0) && rt.Float8E5M2From(f) != v5 {
			t.Errorf("e5m2 %#02x: %v re-encodes to %#02x", b, f, rt.Float8E5M2From(f))
		}
	}
	if rt.Float8E4M3(0x7e).Float32() != 448 || rt.Float8E5M2(0x7b).Float32() != 57344 || rt.Float8E4M3(1).Float32() != 0x1p-9 {
		t.Errorf("the largest and smallest values are wrong")
	}
}

func mustSoftCtx(t *testing.T) (*rt.Context, error) {
	devs, err := rt.DevicesOf(soft.New(soft.Options{}))
	if err != nil {
		return nil, err
	}
	return devs[0].Primary()
}
