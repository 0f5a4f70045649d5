package exec

import (
	"fmt"
	"testing"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
)

// aliasPTX mixes registers that become the program slot they copy (one
// unguarded definition before any other mention) with ones that must stay
// registers: written twice, defined under a guard, mentioned before their
// definition (a rotated loop's shape). %r8 goes to a call through .param.
const aliasPTX = `
.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) twice(.param .b32 x)
{
	.reg .b32 %t<2>;
	ld.param.b32 %t0, [x];
	add.u32 %t1, %t0, %t0;
	st.param.b32 [r], %t1;
	ret;
}
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r3, 7;
	setp.lt.u32 %p1, %r2, %r1;
	@%p1 add.u32 %r3, %r3, %r2;
	@%p1 mov.u32 %r4, 100;
	@!%p1 mov.u32 %r4, 200;
	bra L2;
L1:
	add.u32 %r6, %r5, %r3;
	bra L3;
L2:
	mov.u32 %r5, 1000;
	bra L1;
L3:
	add.u32 %r7, %r6, %r4;
	mov.u32 %r8, 3;
	{
		.param .b32 a;
		.param .b32 b;
		st.param.b32 [a], %r8;
		call (b), twice, (a);
		ld.param.b32 %r9, [b];
	}
	add.u32 %r7, %r7, %r9;
	shl.b32 %r10, %r2, 2;
	add.u32 %r11, %r10, %r1;
	setp.ne.u32 %p2, %r2, 0;
	@%p2 add.u32 %r7, %r7, %r11;
	mov.u32 %r12, %ctaid.x;
	mul.lo.u32 %r13, %r12, 10000;
	add.u32 %r7, %r7, %r13;
	mov.u32 %r14, %ntid.x;
	mad.lo.u32 %r15, %r12, %r14, %r2;
	mul.wide.u32 %rd3, %r15, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r7;
	ret;
}
`

// TestSpecialise: the copies of program slots become nops, so do the
// comparisons newCTA hoists, the other movs and ops stay, and the kernel computes what
// the PTX says on a partial warp and several CTAs.
func TestSpecialise(t *testing.T) {
	for _, cfg := range []Config{{}, {RaceCheck: RaceOn}, {ShuffleSeed: 3}} {
		specialise(t, cfg)
	}
}

func specialise(t *testing.T, cfg Config) {
	e := newEnv(t, cfg)
	k := e.kernel(e.loadSrc("alias.ptx", aliasPTX), "k")
	p := e.kernels[k]
	want := map[string]opcode{ // "op first-operand second-operand" → decoded op
		"ld %rd1 [out]": opNop, "ld %r1 [n]": opNop, "mov %r2 %tid": opNop, "cvta %rd2 %rd1": opNop,
		"mov %r3 7": opMov, "mov %r4 100": opMov, "mov %r4 200": opMov, "mov %r5 1000": opMov, "mov %r8 3": opNop,
		"mov %r12 %ctaid": opNop, "mov %r14 %ntid": opNop,
		// Hoisted into newCTA: a comparison of %tid, and integer ops of
		// fixed slots (one of them reads the other's result); ops of
		// %ctaid, which changes from CTA to CTA, stay (reading their
		// uniform second operand, 10000 or %ntid, from lane 0).
		"setp %p2 %r2": opNop, "shl %r10 %r2": opNop, "add %r11 %r10": opNop,
		"mul %r13 %r12": aluUniformB[genOps["mul.lo.u32"].op], "mad %r15 %r12": aluUniformB[genOps["mad.lo.u32"].op],
	}
	seen := 0
	for pc, src := range p.src {
		if src == nil || len(src.Operands) < 2 {
			continue
		}
		key := src.Op + " " + operandString(src.Operands[0]) + " " + operandString(src.Operands[1])
		w, ok := want[key]
		if !ok {
			continue
		}
		seen++
		if got := p.code[pc].op; got != w {
			t.Errorf("%s decodes to op %d, want %d", key, got, w)
		}
	}
	if seen != len(want) {
		t.Fatalf("found %d of the %d instructions", seen, len(want))
	}
	const n, threads, ctas = 20, 40, 3
	out := e.buf(make([]uint32, threads*ctas))
	e.launch(k, rt.D1(ctas), rt.D1(threads), 0, out, uint32(n))
	got := make([]uint32, threads*ctas)
	e.get(out, got)
	for i, g := range got {
		tid, cta := uint32(i%threads), uint32(i/threads)
		w := uint32(7 + 200 + 1000 + 6)
		if tid < n {
			w = 7 + tid + 100 + 1000 + 6
		}
		if tid != 0 {
			w += tid*4 + n
		}
		w += cta * 10000
		if g != w {
			t.Errorf("%+v: CTA %d thread %d: got %d, want %d", cfg, cta, tid, g, w)
		}
	}
}

func operandString(o ptx.Operand) string {
	switch o := o.(type) {
	case *ptx.Reg:
		return o.Name
	case *ptx.Imm:
		return fmt.Sprint(o.Val)
	case *ptx.Addr:
		return "[" + operandString(o.Base) + "]"
	case *ptx.Sym:
		return o.Name
	}
	return ""
}

// hoistPTX derives values from the kernel parameter n and %tid as a
// compiler's address arithmetic does (a sign extension, n*n, its shift, a
// chain of three), all of which newCTA hoists, beside the same arithmetic on
// %ctaid, which it must not.
const hoistPTX = `
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	add.s32 %r4, %r1, -1;
	cvt.s64.s32 %rd3, %r4;
	mul.wide.s32 %rd4, %r1, %r1;
	shl.b64 %rd5, %rd4, 3;
	sub.s64 %rd6, %rd5, %rd3;
	cvt.u64.u32 %rd7, %r2;
	mad.lo.s64 %rd8, %rd7, %rd6, %rd3;
	mul.wide.u32 %rd9, %r3, 40;
	add.s64 %rd10, %rd9, %rd7;
	shl.b64 %rd10, %rd10, 3;
	add.s64 %rd11, %rd2, %rd10;
	st.global.u64 [%rd11], %rd8;
	ret;
}
`

// TestHoistALU: the integer ops of fixed slots become nops whose values
// newCTA computes, those of %ctaid stay, and the kernel stores what the PTX
// says (a negative n, a partial warp, several CTAs).
func TestHoistALU(t *testing.T) {
	for _, cfg := range []Config{{}, {RaceCheck: RaceOn}, {ShuffleSeed: 5}} {
		e := newEnv(t, cfg)
		k := e.kernel(e.loadSrc("hoist.ptx", hoistPTX), "k")
		p := e.kernels[k]
		want := map[string]bool{ // "op first-operand" → hoisted
			"add %r4": true, "cvt %rd3": true, "mul %rd4": true, "shl %rd5": true, "sub %rd6": true,
			"cvt %rd7": true, "mad %rd8": true, "mul %rd9": false, "add %rd10": false,
		}
		for pc, src := range p.src {
			if src == nil || len(src.Operands) == 0 {
				continue
			}
			key := src.Op + " " + operandString(src.Operands[0])
			if h, ok := want[key]; ok && (p.code[pc].op == opNop) != h {
				t.Errorf("%s: op %d, want hoisted %v", key, p.code[pc].op, h)
			}
		}
		const threads, ctas = 40, 3
		for _, n := range []int32{7, -3} {
			out := e.buf(make([]uint64, threads*ctas))
			e.launch(k, rt.D1(ctas), rt.D1(threads), 0, out, uint32(n))
			got := make([]uint64, threads*ctas)
			e.get(out, got)
			for i, g := range got {
				tid := uint64(i % threads)
				m1 := uint64(int64(n - 1))
				w := tid*(uint64(int64(n)*int64(n))<<3-m1) + m1
				if g != w {
					t.Errorf("%+v n=%d: thread %d: got %#x, want %#x", cfg, n, i, g, w)
				}
			}
		}
	}
}
