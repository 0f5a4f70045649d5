package soft

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// voteMaskKernel: each lane loads its membermask, predicate and value
// (in[3*tid..]) and runs vote.sync.{ballot,any,all,uni} and
// shfl.sync.{bfly 1, idx 0} with its own mask, as the H100 probe vote.cu
// does; out[6*tid..] gets ballot, any, all, uni, bfly1, idx0.
var voteMaskKernel = kernelSrc(".param .u64 out, .param .u64 in", `
	.reg .b64 %a<4>;
	.reg .b32 %t, %m, %p, %v, %b, %y, %l, %u, %sh, %sx;
	.reg .pred %q, %r;
	mov.u32 %t, %tid.x;
	ld.param.u64 %a1, [in];
	mul.wide.u32 %a2, %t, 12;
	add.s64 %a1, %a1, %a2;
	ld.global.u32 %m, [%a1];
	ld.global.u32 %p, [%a1+4];
	ld.global.u32 %v, [%a1+8];
	setp.ne.s32 %q, %p, 0;
	vote.sync.ballot.b32 %b, %q, %m;
	vote.sync.any.pred %r, %q, %m;
	selp.u32 %y, 1, 0, %r;
	vote.sync.all.pred %r, %q, %m;
	selp.u32 %l, 1, 0, %r;
	vote.sync.uni.pred %r, %q, %m;
	selp.u32 %u, 1, 0, %r;
	shfl.sync.bfly.b32 %sh, %v, 1, 31, %m;
	shfl.sync.idx.b32 %sx, %v, 0, 31, %m;
	ld.param.u64 %a1, [out];
	mul.wide.u32 %a2, %t, 24;
	add.s64 %a1, %a1, %a2;
	st.global.u32 [%a1], %b;
	st.global.u32 [%a1+4], %y;
	st.global.u32 [%a1+8], %l;
	st.global.u32 [%a1+12], %u;
	st.global.u32 [%a1+16], %sh;
	st.global.u32 [%a1+20], %sx;
	ret;`)

type voteCase struct {
	groups, seed int
	in           [32 * 3]uint32 // mask, p, v per lane
	want         [32 * 6]uint32 // ballot, any, all, uni, bfly1, idx0 per lane
}

// readVoteMasks parses testdata/vote_masks.txt (see its NOTE) and checks
// that each case's masks, predicates and values are the ones vote.cu's
// formulas give, so the inputs the test replays are the H100's.
func readVoteMasks(t *testing.T) []*voteCase {
	f, err := os.Open("testdata/vote_masks.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []*voteCase
	var c *voteCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		if _, err := fmt.Sscanf(line, "case %d %d", new(int), new(int)); err == nil {
			c = &voteCase{}
			fmt.Sscanf(line, "case %d %d", &c.groups, &c.seed)
			cases = append(cases, c)
			continue
		}
		fs := strings.Fields(line)
		if c == nil || len(fs) != 9 {
			t.Fatalf("vote_masks.txt:%d: bad line %q", n, line)
		}
		var v [9]uint32
		for i, s := range fs {
			base := 10
			if i == 1 || i == 3 {
				base = 16
			}
			x, err := strconv.ParseUint(s, base, 32)
			if err != nil {
				t.Fatalf("vote_masks.txt:%d: %v", n, err)
			}
			v[i] = uint32(x)
		}
		l := v[0]
		if l > 31 {
			t.Fatalf("vote_masks.txt:%d: lane %d", n, l)
		}
		var mask uint32
		g := (l*7 + uint32(c.seed)) % uint32(c.groups)
		for k := uint32(0); k < 32; k++ {
			if (k*7+uint32(c.seed))%uint32(c.groups) == g {
				mask |= 1 << k
			}
		}
		p := (l*2654435761 + uint32(c.seed)) >> 7 & 1
		if v[1] != mask || v[2] != p {
			t.Fatalf("vote_masks.txt:%d: mask %#x p %d, vote.cu's formulas give %#x %d", n, v[1], v[2], mask, p)
		}
		copy(c.in[l*3:], []uint32{mask, p, l*100 + uint32(c.seed)})
		copy(c.want[l*6:], v[3:])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestVoteMembermasksH100 replays the H100's vote.sync and shfl.sync
// results for 15 layouts of per-lane membermasks (cg::labeled_partition
// style: one converged warp, each lane passing its group's mask). Each
// lane's vote is over its own mask; a shfl.sync whose source lane lies
// outside the mask (bfly 1 and idx 0 in most layouts here) still reads
// that lane's value on the H100, the warp being converged.
func TestVoteMembermasksH100(t *testing.T) {
	cases := readVoteMasks(t)
	if len(cases) != 15 {
		t.Fatalf("%d cases in vote_masks.txt, want 15", len(cases))
	}
	e := newEnv(t, Options{Deterministic: true})
	k := e.kernel(e.loadSrc("votemask.ptx", voteMaskKernel), "k")
	names := [6]string{"ballot", "any", "all", "uni", "bfly1", "idx0"}
	for _, c := range cases {
		in := e.buf(c.in[:])
		out := e.buf(make([]uint32, 32*6))
		e.launch(k, rt.D1(1), rt.D1(32), 0, out, in)
		var got [32 * 6]uint32
		e.get(out, got[:])
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("groups %d seed %d lane %d (mask %#x): %s %#x, the H100 gave %#x",
					c.groups, c.seed, i/6, c.in[i/6*3], names[i%6], got[i], c.want[i])
			}
		}
	}
}

// TestVoteMembermasksAllUni: the H100 data has any=1, all=0, uni=0
// everywhere, so here the predicate is constant within some groups
// (all and uni true there) and mixed in others, each group deciding
// for itself.
func TestVoteMembermasksAllUni(t *testing.T) {
	e := newEnv(t, Options{Deterministic: true})
	k := e.kernel(e.loadSrc("votemask2.ptx", voteMaskKernel), "k")
	// four groups by lane%4: group 0 all true, 1 all false, 2 and 3 mixed
	var in [32 * 3]uint32
	for l := uint32(0); l < 32; l++ {
		var p uint32
		switch l % 4 {
		case 0:
			p = 1
		case 2:
			p = l / 4 & 1
		case 3:
			p = l & 8 >> 3 & (l >> 4)
		}
		in[l*3], in[l*3+1], in[l*3+2] = 0x11111111<<(l%4), p, l
	}
	out := e.buf(make([]uint32, 32*6))
	e.launch(k, rt.D1(1), rt.D1(32), 0, out, e.buf(in[:]))
	var got [32 * 6]uint32
	e.get(out, got[:])
	for l := uint32(0); l < 32; l++ {
		mask := in[l*3]
		var ballot uint32
		for k := uint32(0); k < 32; k++ {
			if mask>>k&1 != 0 && in[k*3+1] != 0 {
				ballot |= 1 << k
			}
		}
		b2u := func(b bool) uint32 {
			if b {
				return 1
			}
			return 0
		}
		want := [4]uint32{ballot, b2u(ballot != 0), b2u(ballot == mask), b2u(ballot == 0 || ballot == mask)}
		if [4]uint32(got[l*6:l*6+4]) != want {
			t.Errorf("lane %d (mask %#x): ballot/any/all/uni %v, want %v", l, mask, got[l*6:l*6+4], want)
		}
	}
}
