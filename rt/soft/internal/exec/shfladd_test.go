package exec

import (
	"math"
	"testing"

	"github.com/cugen/cugen/rt"
)

// shflAddSrc runs shfl.down-add.f32 steps of each kind exec meets: the
// reduction's (lane offsets 16…1, clamp 31, with the shuffle's predicate),
// offset 0, a clamp below 31, the add's operands the other way round, a
// segmented shuffle (width 8, run one by one) and a branch to the add
// that lanes 32-39 take (warp 1 runs the shuffle without them, one by
// one). Each thread stores every shuffled value, sum and predicate.
const shflAddSrc = ptxHeader + `
.visible .entry k(.param .u64 in, .param .u64 out)
{
	.reg .b32 %t, %v, %s<16>, %a<16>, %q;
	.reg .b64 %i, %o, %x;
	.reg .pred %p<8>, %e;
	ld.param.u64 %i, [in];
	ld.param.u64 %o, [out];
	mov.u32 %t, %tid.x;
	mul.wide.u32 %x, %t, 4;
	add.s64 %i, %i, %x;
	ld.global.b32 %v, [%i];
	mul.wide.u32 %x, %t, 64;
	add.s64 %o, %o, %x;
	shfl.sync.down.b32 %s0|%p0, %v, 16, 31, -1;
	add.f32 %a0, %v, %s0;
	shfl.sync.down.b32 %s1|%p1, %a0, 8, 31, -1;
	add.f32 %a1, %a0, %s1;
	shfl.sync.down.b32 %s2, %a1, 0, 31, -1;
	add.f32 %a2, %s2, %a1;
	shfl.sync.down.b32 %s3|%p2, %a2, 3, 13, -1;
	add.f32 %a3, %a2, %s3;
	shfl.sync.down.b32 %s4|%p3, %a3, 2, 6175, -1;
	add.f32 %a4, %v, %s4;
	and.b32 %q, %t, 0xf8;
	setp.eq.u32 %e, %q, 32;
	@%e bra MID;
	shfl.sync.down.b32 %s5|%p4, %a4, 1, 31, -1;
MID:
	add.f32 %a5, %a4, %s5;
	shfl.sync.down.b32 %s6|%p5, %a5, 30, 31, -1;
	add.f32 %a6, %s6, %v;
	st.global.v4.b32 [%o], {%s0, %a0, %s1, %a1};
	st.global.v4.b32 [%o+16], {%s2, %a2, %s3, %a3};
	st.global.v4.b32 [%o+32], {%s4, %a4, %s5, %a5};
	selp.b32 %q, 1, 0, %p0;
	selp.b32 %s7, 2, 0, %p1;
	or.b32 %q, %q, %s7;
	selp.b32 %s7, 4, 0, %p2;
	or.b32 %q, %q, %s7;
	selp.b32 %s7, 8, 0, %p3;
	or.b32 %q, %q, %s7;
	selp.b32 %s7, 16, 0, %p4;
	or.b32 %q, %q, %s7;
	selp.b32 %s7, 32, 0, %p5;
	or.b32 %q, %q, %s7;
	st.global.v4.b32 [%o+48], {%s6, %a6, %q, %t};
	ret;
}
`

// TestShflAdd: running shfl.down and the add.f32 after it in one pass
// stores what running them one by one stores, every shuffled value, sum
// and predicate, NaNs, infinities, signed zeros and subnormals among the
// inputs, with the same instruction count, in full and partial warps, in
// Go and (where the CPU has AVX2 and FMA3) with the add in assembly.
func TestShflAdd(t *testing.T) {
	run := func(fused, asm bool, block int) (*Program, []uint32, uint64) {
		defer func(v bool) { shflAddFused = v }(shflAddFused)
		defer SetSIMD(SetSIMD(asm))
		shflAddFused = fused
		e := newEnv(t, Config{Workers: 1})
		k := e.kernel(e.loadSrc("shfladd.ptx", shflAddSrc), "k")
		in := make([]uint32, block)
		specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-40, -1e-40, 3.4e38}
		for i := range in {
			f := float32(i%13)*0.7 - 3.1 + float32(i)*1e-3
			if i%5 == 2 {
				f = specials[i/5%len(specials)]
			}
			in[i] = math.Float32bits(f)
		}
		in[3] = 0x7fc00123 // a NaN with a payload
		pin := e.buf(in)
		out := e.buf(make([]uint32, block*16))
		p := e.kernels[k]
		l, err := e.run(k, rt.D1(1), rt.D1(block), 0, pin, out)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, block*16)
		e.get(out, got)
		return p, got, l.Executed()
	}
	for _, c := range []struct {
		block int
		asm   bool // the fused pass (and the reference's add) in assembly
	}{{64, false}, {80, false}, {64, hasSIMD}, {80, hasSIMD}} {
		block := c.block
		p, want, nW := run(false, false, block)
		_, got, nG := run(true, c.asm, block)
		if len(p.shflAdds) != 7 {
			t.Fatalf("%d fused shfl-add steps, want 7", len(p.shflAdds))
		}
		if nG != nW {
			t.Errorf("block %d: executed %d thread-instructions fused, %d one by one", block, nG, nW)
		}
		preds := map[uint32]bool{}
		for i := 14; i < len(want); i += 16 {
			preds[want[i]] = true
		}
		if len(preds) < 4 {
			t.Fatalf("block %d: only %d distinct sets of predicates", block, len(preds))
		}
		nans := 0
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("block %d asm %v: thread %d word %d: %#x fused, %#x one by one", block, c.asm, i/16, i%16, got[i], want[i])
			}
			if want[i]&0x7f800000 == 0x7f800000 && want[i]&0x7fffff != 0 {
				nans++
			}
		}
		if nans == 0 {
			t.Fatal("no NaN among the results")
		}
	}
}
