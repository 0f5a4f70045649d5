package exec

import (
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// atomSharedSrc has every thread add 1 to a shared bin chosen by its tid
// (several lanes of a warp on one bin), keep the old value, and store old
// values and bins. OP is the atomic: add.u32 1 takes the shared fast path,
// inc.u32 0xffffffff (the same arithmetic) the general one. BAD, when set,
// makes one lane's address misaligned or out of the CTA's window.
const atomSharedSrc = ptxHeader + `
.visible .entry k(.param .u64 out)
{
	.shared .align 4 .b32 bins[16];
	.reg .b32 %t, %b, %a, %old, %g, %i;
	.reg .b64 %o, %q;
	.reg .pred %p;
	mov.u32 %t, %tid.x;
	setp.lt.u32 %p, %t, 16;
	shl.b32 %i, %t, 2;
	mov.u32 %a, bins;
	add.u32 %i, %a, %i;
	@%p st.shared.u32 [%i], 0;
	bar.sync 0;
	mul.lo.u32 %b, %t, 7;
	shr.u32 %b, %b, 2;
	and.b32 %b, %b, 15;
	shl.b32 %b, %b, 2;
	add.u32 %a, %a, %b;
	BAD
	OP
	bar.sync 0;
	@%p ld.shared.u32 %g, [%i];
	@!%p mov.u32 %g, 0;
	add.u32 %old, %old, %g;
	ld.param.u64 %o, [out];
	mov.u32 %g, %ctaid.x;
	mad.lo.u32 %g, %g, 80, %t;
	mul.wide.u32 %q, %g, 4;
	add.s64 %o, %o, %q;
	st.global.u32 [%o], %old;
	ret;
}
`

// TestAtomSharedAddFastPath: the shared 32-bit add's fast path gives the
// general path's old values (lane order within a warp, warps in turn) and
// final bins on a CTA with a partial warp, and, where a lane's address is
// bad, the same fault: lane, pc and message.
func TestAtomSharedAddFastPath(t *testing.T) {
	const fast, general = "atom.shared.add.u32 %old, [%a], 1;", "atom.shared.inc.u32 %old, [%a], 0xffffffff;"
	run := func(op, bad string) ([]uint32, error) {
		e := newEnv(t, Config{Workers: 2})
		src := strings.Replace(strings.Replace(atomSharedSrc, "OP", op, 1), "BAD", bad, 1)
		k := e.kernel(e.loadSrc("atom.ptx", src), "k")
		out := e.buf(make([]uint32, 80*3))
		err := e.launchErr(k, rt.D1(3), rt.D1(80), 0, out)
		got := make([]uint32, 80*3)
		e.get(out, got)
		return got, err
	}
	want, err := run(general, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := run(fast, "")
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[uint32]bool{}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("thread %d of CTA %d: fast path %d, general %d", i%80, i/80, got[i], want[i])
		}
		distinct[want[i]] = true
	}
	if len(distinct) < 8 {
		t.Fatalf("only %d distinct results: the test shares too few bins", len(distinct))
	}
	for _, bad := range []string{
		"setp.eq.u32 %p, %t, 37;\n\t@%p add.u32 %a, %a, 2;\n\tsetp.lt.u32 %p, %t, 16;",      // misaligned, lane 5 of warp 1
		"setp.eq.u32 %p, %t, 70;\n\t@%p add.u32 %a, %a, 65536;\n\tsetp.lt.u32 %p, %t, 16;",  // outside the window, partial warp
		"setp.eq.u32 %p, %t, 31;\n\t@%p mov.u32 %a, 0xfffffffc;\n\tsetp.lt.u32 %p, %t, 16;", // far outside, the last lane of warp 0
	} {
		_, errG := run(general, bad)
		_, errF := run(fast, bad)
		if errG == nil || errF == nil {
			t.Fatalf("bad address %q: errors %v (general) and %v (fast)", bad, errG, errF)
		}
		g := strings.ReplaceAll(errG.Error(), "atom.shared.inc.u32", "atom.shared.add.u32")
		t.Logf("%v", errF)
		if errF.Error() != g {
			t.Errorf("bad address %q:\nfast path: %v\ngeneral:   %v", bad, errF, errG)
		}
	}
}

// atomGlobalSrc is atomSharedSrc's kernel on a global buffer of 16 bins
// (the bins param), which the test zeroes.
const atomGlobalSrc = ptxHeader + `
.visible .entry k(.param .u64 out, .param .u64 bins)
{
	.reg .b32 %t, %b, %old, %g;
	.reg .b64 %o, %q, %a, %x;
	.reg .pred %p;
	mov.u32 %t, %tid.x;
	ld.param.u64 %a, [bins];
	mul.lo.u32 %b, %t, 7;
	shr.u32 %b, %b, 2;
	and.b32 %b, %b, 15;
	mul.wide.u32 %x, %b, 4;
	add.s64 %a, %a, %x;
	BAD
	OP
	ld.param.u64 %o, [out];
	mov.u32 %g, %ctaid.x;
	mad.lo.u32 %g, %g, 80, %t;
	mul.wide.u32 %q, %g, 4;
	add.s64 %o, %o, %q;
	st.global.u32 [%o], %old;
	ret;
}
`

// TestAtomGlobalAddFastPath: the global 32-bit add's path through the
// instruction's cached allocation gives the general path's old values and
// final bins (one worker: CTAs in turn), on CTAs with a partial warp, and,
// where a lane's address is bad (misaligned, past the buffer, null), the
// same fault.
func TestAtomGlobalAddFastPath(t *testing.T) {
	const fast, general = "atom.global.add.u32 %old, [%a], 1;", "atom.global.inc.u32 %old, [%a], 0xffffffff;"
	run := func(op, bad string) ([]uint32, []uint32, error) {
		e := newEnv(t, Config{Workers: 1})
		src := strings.Replace(strings.Replace(atomGlobalSrc, "OP", op, 1), "BAD", bad, 1)
		k := e.kernel(e.loadSrc("atomg.ptx", src), "k")
		out, bins := e.buf(make([]uint32, 80*3)), e.buf(make([]uint32, 16))
		err := e.launchErr(k, rt.D1(3), rt.D1(80), 0, out, bins)
		got, gotBins := make([]uint32, 80*3), make([]uint32, 16)
		e.get(out, got)
		e.get(bins, gotBins)
		return got, gotBins, err
	}
	want, wantBins, err := run(general, "")
	if err != nil {
		t.Fatal(err)
	}
	got, gotBins, err := run(fast, "")
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[uint32]bool{}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("thread %d of CTA %d: fast path %d, general %d", i%80, i/80, got[i], want[i])
		}
		distinct[want[i]] = true
	}
	for i := range wantBins {
		if gotBins[i] != wantBins[i] {
			t.Fatalf("bin %d: fast path %d, general %d", i, gotBins[i], wantBins[i])
		}
	}
	if len(distinct) < 8 {
		t.Fatalf("only %d distinct results: the test shares too few bins", len(distinct))
	}
	for _, bad := range []string{
		"setp.eq.u32 %p, %t, 37;\n\t@%p add.s64 %a, %a, 2;",    // misaligned, lane 5 of warp 1
		"setp.eq.u32 %p, %t, 70;\n\t@%p add.s64 %a, %a, 4096;", // past the buffer, partial warp
		"setp.eq.u32 %p, %t, 31;\n\t@%p mov.u64 %a, 0;",        // null, the last lane of warp 0
	} {
		_, _, errG := run(general, bad)
		_, _, errF := run(fast, bad)
		if errG == nil || errF == nil {
			t.Fatalf("bad address %q: errors %v (general) and %v (fast)", bad, errG, errF)
		}
		g := strings.ReplaceAll(errG.Error(), "atom.global.inc.u32", "atom.global.add.u32")
		t.Logf("%v", errF)
		if errF.Error() != g {
			t.Errorf("bad address %q:\nfast path: %v\ngeneral:   %v", bad, errF, errG)
		}
	}
}
