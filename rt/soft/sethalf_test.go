package soft

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// set on packed halves and with half destinations, and cvt.rXi.bf16.bf16,
// against values worked out from the PTX ISA (the H100's bits are in
// TestISA8 once recorded).
func TestSetHalvesRoundBF16(t *testing.T) {
	d := New(Options{Deterministic: true})
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		t.Fatal(err)
	}
	pred := func(body string) string { return "{ .reg .pred %c; setp.ne.b32 %c, %a2, 0; " + body + " }" }
	for _, c := range []struct {
		name    string
		in, out string
		args    []uint64
		want    uint64
	}{
		{"set.lt.f16x2.f16x2 %d0, %a0, %a1;", "b32", "b32", []uint64{0x3c000000, 0x00003c00}, 0x00003c00},
		{"set.eq.f16x2.f16x2 %d0, %a0, %a1;", "b32", "b32", []uint64{0x3c007e00, 0x3c007e00}, 0x3c000000}, // NaN ≠ NaN
		{"set.neu.f16x2.f16x2 %d0, %a0, %a1;", "b32", "b32", []uint64{0x3c007e00, 0x3c007e00}, 0x00003c00},
		{"set.eq.f16x2.f16x2 %d0, %a0, %a1;", "b32", "b32", []uint64{0x00010001, 0x80000000}, 0},
		{"set.eq.ftz.f16x2.f16x2 %d0, %a0, %a1;", "b32", "b32", []uint64{0x00010001, 0x80000000}, 0x3c003c00}, // flushed to ±0
		{"set.gt.bf16x2.bf16x2 %d0, %a0, %a1;", "b32", "b32", []uint64{0x40003f80, 0x3f804000}, 0x3f800000},
		{"set.num.bf16x2.bf16x2 %d0, %a0, %a1;", "b32", "b32", []uint64{0x7fc10000, 0x00000001}, 0x00003f80},
		{"set.lt.u32.f16x2 %d0, %a0, %a1;", "b32", "b32", []uint64{0x0000bc00, 0}, 0x0000ffff},
		{"set.ge.s32.bf16x2 %d0, %a0, %a1;", "b32", "b32", []uint64{0x3f80bf80, 0}, 0xffff0000},
		{pred("set.le.and.f16x2.f16x2 %d0, %a0, %a1, %c;"), "b32", "b32", []uint64{0, 0, 0}, 0},
		{pred("set.le.and.f16x2.f16x2 %d0, %a0, %a1, %c;"), "b32", "b32", []uint64{0x7e000000, 0, 1}, 0x00003c00},
		{pred("set.gt.or.bf16x2.bf16x2 %d0, %a0, %a1, !%c;"), "b32", "b32", []uint64{0, 0, 0}, 0x3f803f80},
		{pred("set.gt.xor.bf16x2.bf16x2 %d0, %a0, %a1, %c;"), "b32", "b32", []uint64{0x3f800000, 0, 1}, 0x00003f80},
		{"set.lt.f16.f32 %d0, %a0, %a1;", "b32", "b16", []uint64{0x3f800000, 0x40000000}, 0x3c00},
		{"set.lt.f16.f32 %d0, %a0, %a1;", "b32", "b16", []uint64{0x40000000, 0x3f800000}, 0},
		{"set.ltu.bf16.f32 %d0, %a0, %a1;", "b32", "b16", []uint64{0x7fc00000, 0x3f800000}, 0x3f80},
		{"set.gt.u16.f16 %d0, %a0, %a1;", "b16", "b16", []uint64{0x3c00, 0}, 0xffff},
		{"cvt.rni.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0x3fc0}, 0x4000}, // 1.5 → 2
		{"cvt.rni.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0x4020}, 0x4000}, // 2.5 → 2
		{"cvt.rni.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0xbe80}, 0x8000}, // -0.25 → -0
		{"cvt.rni.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0x7fc1}, 0x7fff},
		{"cvt.rni.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0xff80}, 0xff80},
		{"cvt.rzi.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0xbfc0}, 0xbf80}, // -1.5 → -1
		{"cvt.rzi.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0x4b40}, 0x4b40}, // 2^23·1.5
		{"cvt.rmi.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0xbf00}, 0xbf80}, // -0.5 → -1
		{"cvt.rpi.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0xbf00}, 0x8000}, // -0.5 → -0
		{"cvt.rpi.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0x0001}, 0x3f80}, // subnormal → 1
		{"cvt.rmi.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0x8001}, 0xbf80}, // -subnormal → -1
		{"cvt.rpi.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0x42fd}, 0x42fe}, // 126.5 → 127
		{"cvt.rni.bf16.bf16 %d0, %a0;", "b16", "b16", []uint64{0x42fd}, 0x42fc}, // 126.5 → 126
	} {
		in := make([]string, len(c.args))
		for i := range in {
			in[i] = c.in
		}
		if len(c.args) == 3 {
			in[2] = "b32"
		}
		ic := &isaCase{name: c.name, in: in, out: c.out, rows: func(*rand.Rand) [][]uint64 { return [][]uint64{c.args} }}
		rin, n, _ := isaInputs(ic)
		got, err := runISA(t, d, ctx, ic, rin, n, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var g uint64
		if len(got) == 2 {
			g = uint64(binary.LittleEndian.Uint16(got))
		} else {
			g = uint64(binary.LittleEndian.Uint32(got))
		}
		if g != c.want {
			t.Errorf("%s on %x: %#x, want %#x", c.name, c.args, g, c.want)
		}
	}
}
