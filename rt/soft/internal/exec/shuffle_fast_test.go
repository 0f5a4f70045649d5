package exec

import (
	"math/rand/v2"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestShflFullMatchesLanes: the full-warp shfl fast path gives the per-lane
// loop's destination and predicate for every mode, lane operand and clamp
// (segment bits set or not: the fast path declines those).
func TestShflFullMatchesLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var vals [32]uint64
	for i := range vals {
		vals[i] = r.Uint64()
	}
	fast := 0
	for _, mode := range []uint16{shflUp, shflDown, shflBfly, shflIdx} {
		for bv := uint64(0); bv < 40; bv++ {
			for _, cv := range []uint64{0, 1, 7, 15, 16, 30, 31, 0x1f | 0x18<<8, 0x1c00, 32} {
				var b, c [32]uint64
				for i := range b {
					b[i], c[i] = bv, cv
				}
				var want, got [32]uint64
				wantP := shflLanes(mode, &vals, &b, &c, &want, fullMask)
				gotP := ^uint32(0) - 5
				known := bv%2 == 0 // b and c are uniform either way: say so half the time
				if !shflFull(mode, known, &vals, &b, &c, &got, &gotP) {
					continue
				}
				fast++
				if got != want || gotP != wantP {
					t.Fatalf("mode %d b=%d c=%#x: fast path gives %v pred %#x, lanes give %v pred %#x", mode, bv, cv, got, gotP, want, wantP)
				}
			}
		}
	}
	if fast < 4*40*6 {
		t.Errorf("the fast path took only %d of the width-32 cases", fast)
	}
}

// TestShflFullInPlace: the fast path reads no source it has overwritten when
// the destination is the value register (shfl.sync.down.b32 %r1, %r1, ...),
// for every mode, lane operand and clamp it takes.
func TestShflFullInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var vals [32]uint64
	for i := range vals {
		vals[i] = r.Uint64()
	}
	fast := 0
	for _, mode := range []uint16{shflUp, shflDown, shflBfly, shflIdx} {
		for bv := uint64(0); bv < 40; bv++ {
			for _, cv := range []uint64{0, 1, 7, 15, 16, 30, 31} {
				var b, c [32]uint64
				for i := range b {
					b[i], c[i] = bv, cv
				}
				var want [32]uint64
				wantP := shflLanes(mode, &vals, &b, &c, &want, fullMask)
				got := vals
				var gotP uint32
				if !shflFull(mode, bv%2 == 0, &got, &b, &c, &got, &gotP) {
					continue
				}
				fast++
				if got != want || gotP != wantP {
					t.Fatalf("mode %d b=%d c=%#x in place: fast path gives %v pred %#x, lanes give %v pred %#x", mode, bv, cv, got, gotP, want, wantP)
				}
			}
		}
	}
	if fast != 3*40*7+40 { // bfly takes clamp 31 alone

		t.Errorf("the fast path took only %d of the width-32 cases", fast)
	}
}

// TestShflAliased runs the shfl op on a warp whose destination is its value
// or lane register, full and partial, and compares with the per-lane loop on
// copies.
func TestShflAliased(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const sa, sb, sc = 32, 64, 96 // slots (offsets slot*32)
	for _, mode := range []uint16{shflUp, shflDown, shflBfly, shflIdx} {
		for _, m := range []uint32{fullMask, 0x0000ffff, 0x80000001, 0x7fffffff} {
			for _, dst := range []uint32{sa, sb} {
				for _, uniform := range []bool{true, false} {
					w := &warp{r: make([]uint64, 4*32), pr: make([]uint32, 2)}
					for l := 0; l < 32; l++ {
						w.r[sa+l] = r.Uint64()
						w.r[sb+l] = uint64(r.IntN(32))
						w.r[sc+l] = 31
						if uniform {
							w.r[sb+l] = 3
						}
					}
					a, b, cc := *lanes(w.r, sa), *lanes(w.r, sb), *lanes(w.r, sc)
					want := *lanes(w.r, dst)
					wantP := shflLanes(mode, &a, &b, &cc, &want, m)
					in := &inst{op: opShfl, fl: mode, d: dst, a: sa, b: sb, c: sc, aux: 1}
					if uniform {
						in.fl |= shflUniform
					}
					var c cta
					c.shfl(w, in, m)
					if got := *lanes(w.r, dst); got != want || w.pr[1] != wantP&m {
						t.Fatalf("mode %d mask %#x dst %d uniform %v: got %v pred %#x, want %v pred %#x", mode, m, dst, uniform, got, w.pr[1], want, wantP&m)
					}
				}
			}
		}
	}
}

// TestShflUniformDecode: a shfl whose lane and clamp operands are
// immediates is marked shflUniform, one with a register operand is not,
// and both compute what the per-lane meaning gives.
func TestShflUniformDecode(t *testing.T) {
	src := ptxHeader + `
.visible .entry k(.param .u64 out)
{
	.reg .b32 %t, %v, %x, %y, %n;
	.reg .b64 %o, %q;
	mov.u32 %t, %tid.x;
	mul.lo.u32 %v, %t, 3;
	shfl.sync.down.b32 %x, %v, 5, 31, -1;
	and.b32 %n, %t, 7;
	shfl.sync.down.b32 %y, %v, %n, 31, -1;
	add.u32 %x, %x, %y;
	ld.param.u64 %o, [out];
	mul.wide.u32 %q, %t, 4;
	add.s64 %o, %o, %q;
	st.global.u32 [%o], %x;
	ret;
}
`
	e := newEnv(t, Config{})
	k := e.kernel(e.loadSrc("shfl.ptx", src), "k")
	var marks []bool
	for _, in := range e.kernels[k].code {
		if in.op == opShfl {
			marks = append(marks, in.fl&shflUniform != 0)
		}
	}
	if len(marks) != 2 || !marks[0] || marks[1] {
		t.Fatalf("shfl instructions marked uniform: %v, want [true false]", marks)
	}
	out := e.buf(make([]uint32, 32))
	e.launch(k, rt.D1(1), rt.D1(32), 0, out)
	got := make([]uint32, 32)
	e.get(out, got)
	for l, v := range got {
		x, y := l, l
		if l+5 <= 31 {
			x = l + 5
		}
		if l+l&7 <= 31 {
			y = l + l&7
		}
		if want := uint32(3*x + 3*y); v != want {
			t.Fatalf("lane %d: %d, want %d", l, v, want)
		}
	}
}
