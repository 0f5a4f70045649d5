package soft

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

const brxPTX = `
.version 8.0
.target sm_90
.address_size 64

// sw: a five-way switch through brx.idx over a permuted list; the last
// lane of each warp skips the branch. Each thread writes {its value, the
// active mask in its case, the active mask after __syncwarp at the join,
// the next lane's value}.
.visible .entry sw(.param .u64 out)
{
	.reg .pred %p1;
	.reg .b32 %r<9>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 16;
	add.s64 %rd1, %rd1, %rd2;
	rem.u32 %r2, %r1, 5;
	and.b32 %r8, %r1, 31;
	ts: .branchtargets C2, C0, C4, C1, C3;
	setp.ne.u32 %p1, %r8, 31;
	@%p1 brx.idx %r2, ts;
	mov.u32 %r3, 1000;
	activemask.b32 %r4;
	bra J;
C0:
	mul.lo.u32 %r3, %r1, 10;
	activemask.b32 %r4;
	bra J;
C1:
	add.u32 %r3, %r1, 100;
	activemask.b32 %r4;
	bra J;
C2:
	mul.lo.u32 %r3, %r1, %r1;
	activemask.b32 %r4;
	bra J;
C3:
	activemask.b32 %r4;
	sub.u32 %r3, 7, %r1;
	bra J;
C4:
	activemask.b32 %r4;
	add.u32 %r3, %r1, 1;
J:
	bar.warp.sync -1;
	activemask.b32 %r5;
	add.u32 %r6, %r8, 1;
	and.b32 %r6, %r6, 31;
	shfl.sync.idx.b32 %r7, %r3, %r6, 0x1f, -1;
	st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r7};
	ret;
}

// collatz counts the steps from n to 1 in a loop that brx.idx closes: two
// of its three targets lie behind it. Its second brx.idx reuses the list.
.func (.param .b32 r) collatz(.param .b32 n)
{
	.reg .pred %p;
	.reg .b32 %n, %s, %i;
	ld.param.b32 %n, [n];
	mov.u32 %s, 0;
	tc: .branchtargets E, O, X;
	and.b32 %i, %n, 1;
	brx.idx %i, tc;
E:
	shr.u32 %n, %n, 1;
	add.u32 %s, %s, 1;
	bra D;
O:
	mad.lo.u32 %n, %n, 3, 1;
	add.u32 %s, %s, 1;
D:
	and.b32 %i, %n, 1;
	setp.eq.u32 %p, %n, 1;
	@%p mov.u32 %i, 2;
	brx.idx %i, tc;
X:
	st.param.b32 [r], %s;
	ret;
}

// loop writes {collatz(tid*7+2), the active mask after __syncwarp, the
// next lane's count (shfl.down), 0}.
.visible .entry loop(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 16;
	add.s64 %rd1, %rd1, %rd2;
	mad.lo.u32 %r2, %r1, 7, 2;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r2;
	.param .b32 retval0;
	call (retval0), collatz, (param0);
	ld.param.b32 %r3, [retval0+0];
	}
	bar.warp.sync -1;
	activemask.b32 %r4;
	shfl.sync.down.b32 %r5, %r3, 1, 0x1f, -1;
	st.global.v4.u32 [%rd1], {%r3, %r4, %r5, 0};
	ret;
}

// oob: thread k indexes past its two-label list.
.visible .entry oob(.param .u64 out, .param .u32 k)
{
	.reg .pred %p1;
	.reg .b32 %r<5>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r4, [k];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd1, %rd1, %rd2;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p1, %r1, %r4;
	@%p1 mov.u32 %r2, 7;
	two: .branchtargets A, B;
	brx.idx %r2, two;
A:
	mov.u32 %r3, 5;
	bra J;
B:
	mov.u32 %r3, 9;
J:
	st.global.u32 [%rd1], %r3;
	ret;
}
`

// TestBrxSwitch: the lanes of a warp take five targets of one brx.idx
// (and one lane none), each case runs with exactly the lanes that chose
// it, and all meet again at the join, where __syncwarp and shfl.sync see
// the whole warp. Also under the race checker and the shuffled scheduler,
// whose executor loop differs.
func TestBrxSwitch(t *testing.T) {
	for _, opt := range []Options{{}, {RaceCheck: RaceOn}, {ShuffleSeed: 7}} {
		t.Run(fmt.Sprintf("race%d-shuffle%d", opt.RaceCheck, opt.ShuffleSeed), func(t *testing.T) {
			e := newEnv(t, opt)
			k := e.kernel(e.loadSrc("brx.ptx", brxPTX), "sw")
			const n = 64
			out := e.buf(make([]uint32, 4*n))
			e.launch(k, rt.D1(1), rt.D1(n), 0, out)
			got := make([]uint32, 4*n)
			e.get(out, got)
			val := func(tid uint32) uint32 {
				if tid%32 == 31 {
					return 1000
				}
				switch tid % 5 { // the list is C2, C0, C4, C1, C3
				case 0:
					return tid * tid
				case 1:
					return tid * 10
				case 2:
					return tid + 1
				case 3:
					return tid + 100
				}
				return 7 - tid
			}
			caseMask := func(tid uint32) uint32 {
				if tid%32 == 31 {
					return 1 << 31
				}
				var m uint32
				base := tid &^ 31
				for l := uint32(0); l < 31; l++ {
					if (base+l)%5 == tid%5 {
						m |= 1 << l
					}
				}
				return m
			}
			for tid := uint32(0); tid < n; tid++ {
				next := tid&^31 | (tid+1)&31
				want := []uint32{val(tid), caseMask(tid), 0xffffffff, val(next)}
				if g := got[4*tid : 4*tid+4]; fmt.Sprint(g) != fmt.Sprint(want) {
					t.Errorf("thread %d: {value, case mask, join mask, next value} = %#x, want %#x", tid, g, want)
				}
			}
		})
	}
}

func collatzSteps(n uint32) uint32 {
	s := uint32(0)
	for n != 1 {
		if n&1 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		s++
	}
	return s
}

// TestBrxLoop: a loop in a device function closed by brx.idx, lanes
// leaving it at different trips; after the call the warp is whole again.
func TestBrxLoop(t *testing.T) {
	e := newEnv(t, Options{})
	k := e.kernel(e.loadSrc("brx.ptx", brxPTX), "loop")
	const n = 96
	out := e.buf(make([]uint32, 4*n))
	e.launch(k, rt.D1(1), rt.D1(n), 0, out)
	got := make([]uint32, 4*n)
	e.get(out, got)
	distinct := map[uint32]bool{}
	for tid := uint32(0); tid < n; tid++ {
		s := collatzSteps(tid*7 + 2)
		distinct[s] = true
		next := tid + 1
		if tid%32 == 31 {
			next = tid
		}
		want := []uint32{s, 0xffffffff, collatzSteps(next*7 + 2), 0}
		if g := got[4*tid : 4*tid+4]; fmt.Sprint(g) != fmt.Sprint(want) {
			t.Errorf("thread %d: {steps, join mask, next steps, 0} = %v, want %v", tid, g, want)
		}
	}
	if len(distinct) < 20 {
		t.Fatalf("only %d distinct trip counts: the lanes hardly diverge", len(distinct))
	}
}

// TestBrxOutOfRange: an index past the end of the list (undefined in PTX)
// is an illegal-instruction fault naming the PTX line, the index and the
// list; with every index in range the kernel runs.
func TestBrxOutOfRange(t *testing.T) {
	e := newEnv(t, Options{})
	k := e.kernel(e.loadSrc("brx.ptx", brxPTX), "oob")
	out := e.buf(make([]uint32, 64))
	e.launch(k, rt.D1(1), rt.D1(64), 0, out, uint32(1000))
	got := make([]uint32, 64)
	e.get(out, got)
	for i, g := range got {
		if want := uint32(5 + 4*(i&1)); g != want {
			t.Errorf("thread %d: %d, want %d", i, g, want)
		}
	}
	line := 0
	for i, l := range strings.Split(brxPTX, "\n") {
		if strings.Contains(l, "brx.idx %r2, two;") {
			line = i + 1
		}
	}
	err := e.launchErr(k, rt.D1(1), rt.D1(64), 0, out, uint32(37))
	e.reset()
	if !errors.Is(err, rt.ErrIllegalInstruction) || !strings.Contains(err.Error(), "brx.idx index 7 is out of range of target list two (2 labels)") ||
		!strings.Contains(err.Error(), fmt.Sprintf("brx.ptx:%d", line)) {
		t.Errorf("index 7 of 2: %v; want an illegal instruction at brx.ptx:%d naming the index and list", err, line)
	}
}

// TestBrxRefusals: malformed target lists and branches are refused at
// load with the PTX file:line.
func TestBrxRefusals(t *testing.T) {
	d := New(Options{})
	for _, c := range []struct{ body, at, why string }{
		{"bra %r1;", "bra %r1", "the target of bra must be a label"},
		{"brx.idx %r1, nolist;", "brx.idx", "nolist is not a .branchtargets list declared earlier"},
		{"brx.idx %r1, tl;\ntl: .branchtargets A;", "brx.idx", "tl is not a .branchtargets list declared earlier"},
		{"tl: .branchtargets A, Q;\nbrx.idx %r1, tl;", "tl:", "branch to unknown label Q"},
		{"tl: .calltargets A;\nbrx.idx %r1, tl;", "brx.idx", "is a .calltargets list"},
		{"tl: .branchtargets A;\ntl: .branchtargets A;\nbrx.idx %r1, tl;", "tl: .branchtargets A;\nbrx", "declared twice"},
		{"tl: .branchtargets A;\nbrx.idx 1, tl;", "brx.idx", "index must be a .u32 register"},
		{"tl: .branchtargets A;\nbrx.idx %r1, %r2;", "brx.idx", "must name a .branchtargets list"},
		{"tl: .branchtargets A;\nbrx.idx %r1;", "brx.idx", "wrong number of operands"},
		{"tl: .branchtargets A;\nbrx.foo %r1, tl;", "brx.foo", "unknown form of brx"},
	} {
		src := ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" +
			"\t.reg .b32 %r<3>;\n\tmov.u32 %r1, 0;\n" + c.body + "\nA:\n\tret;\n}\n"
		line := strings.Count(src[:strings.Index(src, c.at)], "\n") + 1
		_, err := d.LibraryLoad([]byte(src), rt.LoadOptions{Name: "b.ptx"})
		if want := fmt.Sprintf("b.ptx:%d:", line); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%q: got %v, want a refusal at %s saying %q", c.body, err, want, c.why)
		}
	}
}
