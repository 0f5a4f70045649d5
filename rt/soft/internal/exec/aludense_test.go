package exec

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestALUPartialMatchesLanes: for every lane-pure op, a partial warp run as a
// full one (aluPartial) leaves every register, the inactive lanes'
// destinations included, as the lane-by-lane loop does, with a destination
// apart from the sources or equal to each of them, and on operand bits that
// include NaNs, infinities, subnormals and extreme integers.
func TestALUPartialMatchesLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	special := []uint64{0, 1, 0x7fc00000, 0xff800000, 0x7f800000, 0x00000001, 0x80000000, 0x7fffffff, 0xffffffff,
		1 << 63, 1<<63 - 1, ^uint64(0), 0x7ff8000000000000, 0x0000000100000000, 31, 32, 63, 64}
	masks := []uint32{0x7ffffffe, 0xfffffffe, 0x7fffffff, 0xffff0fff, 0xfff0ffff, 0x00ffffff, 0xaaaaaaaa, 1}
	ops, dense := 0, 0
	for op := opALU; op < opALU+nALU; op++ {
		if !aluDense[op%opCmp] {
			continue
		}
		ops++
		for _, dst := range []uint32{5 * 32, 1 * 32, 2 * 32, 3 * 32} {
			for _, m := range masks {
				reg := make([]uint64, 6*32)
				for i := range reg {
					if r.IntN(3) == 0 {
						reg[i] = special[r.IntN(len(special))]
					} else {
						reg[i] = r.Uint64()
					}
				}
				in := &inst{op: op, d: dst, a: 1 * 32, b: 2 * 32, c: 3 * 32, e: 4 * 32}
				want := append([]uint64(nil), reg...)
				execALUMask(in, want, m)
				execALU(in, reg, m)
				if bits.OnesCount32(m) >= aluDenseLanes {
					dense++
				}
				for i := range reg {
					if reg[i] != want[i] {
						t.Fatalf("%s, d=%d, mask %#x: register word %d is %#x, the lane loop gives %#x", genNames[op], dst/32, m, i, reg[i], want[i])
					}
				}
			}
		}
	}
	if ops < 100 || dense == 0 {
		t.Errorf("only %d lane-pure ops (%d dense runs)", ops, dense)
	}
}

// TestUniformBMatchesLanes: each form's uniform-B twin, given a second
// source that holds one value in all lanes, leaves every register as the
// form itself does, on full and partial warps, with the destination apart
// or equal to a source.
func TestUniformBMatchesLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	special := []uint64{0, 1, 2, 4, 31, 32, 63, 0x7fc00000, 0xff800000, 0x80000000, 0xffffffff, 1 << 63, ^uint64(0)}
	masks := []uint32{fullMask, 0x7ffffffe, 0x80000001, 0xaaaaaaaa, 0xfffff0ff}
	if len(aluUniformB) < 20 {
		t.Fatalf("only %d forms have a uniform-B twin", len(aluUniformB))
	}
	for op, twin := range aluUniformB {
		for _, dst := range []uint32{5 * 32, 1 * 32, 2 * 32, 3 * 32} {
			for _, m := range masks {
				for trial := 0; trial < 4; trial++ {
					reg := make([]uint64, 6*32)
					for i := range reg {
						reg[i] = r.Uint64()
						if r.IntN(3) == 0 {
							reg[i] = special[r.IntN(len(special))]
						}
					}
					bv := special[r.IntN(len(special))]
					if trial > 1 {
						bv = r.Uint64()
					}
					for l := 0; l < 32; l++ {
						reg[2*32+l] = bv
					}
					want := append([]uint64(nil), reg...)
					execALU(&inst{op: op, d: dst, a: 32, b: 64, c: 96, e: 128}, want, m)
					execALU(&inst{op: twin, d: dst, a: 32, b: 64, c: 96, e: 128}, reg, m)
					for i := range reg {
						if reg[i] != want[i] {
							t.Fatalf("%s: d=%d mask %#x b=%#x: word %d is %#x, the form gives %#x", genNames[twin], dst/32, m, bv, i, reg[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestUniformBDecode: vadd's index and address arithmetic reads its
// parameter and %ntid operands through the uniform-B twins (the address
// adds with their sources swapped), its lane-varying float add does not,
// and the kernel still adds.
func TestUniformBDecode(t *testing.T) {
	// Folding would turn the address adds into nops, their accesses
	// adding the sources (TestFoldAddr).
	defer func(v bool) { foldAddrs = v }(foldAddrs)
	foldAddrs = false
	e := newEnv(t, Config{})
	k := e.kernel(e.loadSrc("vadd.ptx", `
.version 8.0
.target sm_90
.address_size 64
.visible .entry vadd(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<11>;
	ld.param.u64 %rd1, [pa];
	ld.param.u64 %rd2, [pb];
	ld.param.u64 %rd3, [pc];
	ld.param.u32 %r2, [n];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.s32 %p1, %r1, %r2;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd4, %rd1;
	mul.wide.s32 %rd5, %r1, 4;
	add.s64 %rd6, %rd4, %rd5;
	cvta.to.global.u64 %rd7, %rd2;
	add.s64 %rd8, %rd7, %rd5;
	ld.global.f32 %f1, [%rd8];
	ld.global.f32 %f2, [%rd6];
	add.f32 %f3, %f2, %f1;
	cvta.to.global.u64 %rd9, %rd3;
	add.s64 %rd10, %rd9, %rd5;
	st.global.f32 [%rd10], %f3;
DONE:
	ret;
}
`), "vadd")
	p := e.kernels[k]
	twins := 0
	for pc, src := range p.src {
		if src == nil {
			continue
		}
		op := p.code[pc].op
		_, isTwin := genNames[op]
		isTwin = isTwin && strings.HasSuffix(genNames[op], "(uniform b)")
		switch src.Op {
		case "mad", "mul", "add":
			if want := !hasMod(src, "f32"); isTwin != want {
				t.Errorf("%s at pc %d: op %s, want a uniform-B twin: %v", src.Op, pc, genNames[op], want)
			}
			if isTwin {
				twins++
			}
		}
	}
	if twins != 5 {
		t.Errorf("%d uniform-B twins, want 5", twins)
	}
	const n = 300
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i)*0.5, float32(i*i)
	}
	pa, pb, pc := e.buf(x), e.buf(y), e.buf(make([]float32, n+32))
	e.launch(k, rt.D1(3), rt.D1(128), 0, pa, pb, pc, uint32(n))
	got := make([]float32, n+32)
	e.get(pc, got)
	for i, g := range got {
		w := float32(0)
		if i < n {
			w = x[i] + y[i]
		}
		if g != w {
			t.Fatalf("c[%d] = %v, want %v", i, g, w)
		}
	}
}
