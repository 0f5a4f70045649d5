package exec

import (
	"math/rand/v2"
	"testing"

	"github.com/cugen/cugen/rt"
)

// exitedSrc: each thread writes its input to shared memory and meets the
// others at a barrier; a quarter of them (by input) then branch to the
// kernel's ret, and the rest run integer, conversion, fma and compare ops
// as warps with exited lanes, a divergent branch whose skipped lanes keep
// their values, and a second barrier that only they reach, then read a
// neighbour's shared word, which it wrote before it left.
const exitedSrc = ptxHeader + `
.visible .entry k(.param .u64 out, .param .u64 in)
{
	.reg .b32 %t, %v, %w, %x, %n, %g, %y;
	.reg .b64 %o, %i, %q, %z;
	.reg .f32 %f, %h;
	.reg .pred %p, %e;
	.shared .align 4 .b32 sh[128];
	ld.param.u64 %o, [out];
	ld.param.u64 %i, [in];
	mov.u32 %t, %tid.x;
	mov.u32 %g, %ctaid.x;
	mov.u32 %n, %ntid.x;
	mad.lo.u32 %g, %g, %n, %t;
	mul.wide.u32 %q, %g, 4;
	add.s64 %i, %i, %q;
	ld.global.u32 %v, [%i];
	mul.wide.u32 %q, %g, 8;
	add.s64 %o, %o, %q;
	mov.u32 %x, sh;
	shl.b32 %y, %t, 2;
	add.u32 %x, %x, %y;
	st.shared.u32 [%x], %v;
	bar.sync 0;
	and.b32 %y, %v, 3;
	setp.eq.u32 %p, %y, 0;
	@%p bra DONE;
	mad.lo.u32 %w, %v, -1640531535, %t;
	cvt.u64.u32 %z, %w;
	shr.u64 %z, %z, 3;
	cvt.u32.u64 %w, %z;
	cvt.rn.f32.u32 %f, %w;
	fma.rn.f32 %h, %f, 0f3F000001, %f;
	setp.lt.f32 %e, %h, 0f4E800000;
	selp.u32 %n, 1, 2, %e;
	and.b32 %y, %v, 4;
	setp.ne.u32 %p, %y, 0;
	@%p bra SKIP;
	xor.b32 %w, %w, 1431655765;
	add.u32 %n, %n, 4;
SKIP:
	bar.sync 0;
	xor.b32 %y, %t, 1;
	shl.b32 %y, %y, 2;
	mov.u32 %x, sh;
	add.u32 %x, %x, %y;
	ld.shared.u32 %y, [%x];
	mov.b32 %x, %h;
	xor.b32 %x, %x, %y;
	shl.b32 %n, %n, 28;
	xor.b32 %x, %x, %n;
	st.global.u32 [%o], %w;
	st.global.u32 [%o+4], %x;
DONE:
	ret;
}
`

// TestExitedLanes: a warp whose other lanes have exited runs its lane-pure
// ops as a full warp (exitedAsFull), and lanes that branch to the kernel's
// ret exit at the branch (exitAtRet); each leaves every result, the
// untouched outputs of the lanes that left, and the thread-instruction
// count as they are with both off, in blocks with a partial last warp, a
// block of one warp and with racecheck; the integer results are checked
// against Go.
func TestExitedLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	run := func(full, atRet bool, cfg Config, block rt.Dim3, in []uint32) ([]uint32, uint64) {
		defer func(a, b bool) { exitedAsFull, exitAtRet = a, b }(exitedAsFull, exitAtRet)
		exitedAsFull, exitAtRet = full, atRet
		e := newEnv(t, cfg)
		k := e.kernel(e.loadSrc("exited.ptx", exitedSrc), "k")
		init := make([]uint32, 2*len(in))
		for i := range init {
			init[i] = 0xdeadbeef
		}
		out, pin := e.buf(init), e.buf(in)
		l, err := e.run(k, rt.D1(len(in)/int(block.X)), block, 0, out, pin)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, 2*len(in))
		e.get(out, got)
		return got, l.Executed()
	}
	for _, cfg := range []Config{{Workers: 1}, {Workers: 2}, {Workers: 1, RaceCheck: RaceOn}} {
		for _, block := range []rt.Dim3{rt.D1(80), rt.D1(128), rt.D1(32), rt.D1(7)} {
			in := make([]uint32, 3*int(block.X))
			for i := range in {
				in[i] = r.Uint32()
			}
			want, nWant := run(false, false, cfg, block, in)
			for _, mode := range [][2]bool{{true, false}, {false, true}, {true, true}} {
				got, n := run(mode[0], mode[1], cfg, block, in)
				if n != nWant {
					t.Errorf("exitedAsFull %v exitAtRet %v block %v: %d thread-instructions, %d with both off", mode[0], mode[1], block, n, nWant)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("exitedAsFull %v exitAtRet %v block %v race %v: word %d is %#x, %#x with both off",
							mode[0], mode[1], block, cfg.RaceCheck, i, got[i], want[i])
					}
				}
			}
			left := 0
			for g, v := range in {
				tid := uint32(g % int(block.X))
				if v&3 == 0 {
					left++
					if want[2*g] != 0xdeadbeef || want[2*g+1] != 0xdeadbeef {
						t.Fatalf("block %v: thread %d left, yet wrote %#x %#x", block, g, want[2*g], want[2*g+1])
					}
					continue
				}
				w := uint32(uint64(v*0x9e3779b1+tid) >> 3)
				if v&4 == 0 {
					w ^= 0x55555555
				}
				if want[2*g] != w {
					t.Fatalf("block %v: thread %d wrote %#x, want %#x", block, g, want[2*g], w)
				}
				if tid^1 >= block.X {
					continue // its neighbour is past the block: shared word never written
				}
				nb := in[g-int(tid)+int(tid^1)]
				if x := want[2*g+1] ^ nb; x>>28 != 1 && x>>28 != 2 && x>>28 != 5 && x>>28 != 6 {
					t.Fatalf("block %v: thread %d: selp field %#x", block, g, x>>28)
				}
			}
			if left == 0 || left == len(in) {
				t.Fatalf("block %v: %d of %d threads left", block, left, len(in))
			}
		}
	}
}
