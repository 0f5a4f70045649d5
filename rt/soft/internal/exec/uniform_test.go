package exec

import (
	"os"

	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// uniformSrc has warp-uniform candidates of every kind uniDef meets: a
// loop counter halved from %ntid (%s), values computed from it afresh
// each iteration (%u) or carried over (%x), a comparison of it closing the
// loop (%d), a definition only some lanes run (after a branch on the
// lane), a lane that exits first (lane 9 of CTA 0, 10 of CTA 1), a
// barrier, a partial last warp and registers read before the CTA defined
// them (%w, %z: whatever the last CTA left, lane by lane; the lane that
// exited there holds another %z than the rest).
const uniformSrc = ptxHeader + `
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .b32 %t, %l, %s, %v, %w, %u, %x, %n, %g, %y, %z, %c;
	.reg .b64 %o, %q;
	.reg .pred %p, %d, %e;
	ld.param.u32 %n, [n];
	mov.u32 %t, %tid.x;
	and.b32 %l, %t, 31;
	mov.u32 %v, %t;
	mov.u32 %s, %ntid.x;
	mov.u32 %x, 5;
	add.u32 %z, %z, 1;
	add.u32 %v, %v, %z;
	mov.u32 %c, %ctaid.x;
	add.u32 %c, %c, 9;
	setp.eq.u32 %e, %l, %c;
	@%e exit;
LOOP:
	shr.u32 %s, %s, 1;
	mul.lo.u32 %u, %s, 3;
	add.u32 %u, %u, %n;
	mad.lo.u32 %x, %x, %u, %s;
	add.u32 %z, %u, %s;
	setp.lt.u32 %p, %l, %s;
	@%p bra SKIP;
	add.u32 %x, %x, 1;
	xor.b32 %w, %u, %x;
SKIP:
	add.u32 %v, %v, %u;
	add.u32 %v, %v, %w;
	mul.lo.u32 %y, %x, 7;
	add.u32 %v, %v, %y;
	bar.sync 0;
	setp.ne.u32 %d, %s, 0;
	@%d bra LOOP;
OUT:
	ld.param.u64 %o, [out];
	mov.u32 %g, %ctaid.x;
	mad.lo.u32 %g, %g, 80, %t;
	mul.wide.u32 %q, %g, 4;
	add.s64 %o, %o, %q;
	st.global.u32 [%o], %v;
	ret;
}
`

// uniformRun launches kernel name of src (grid × block threads, params
// out and n) with uniformScalar as given and returns the program, the
// stores and the thread-instructions executed.
func uniformRun(t *testing.T, scalar bool, cfg Config, src, name string, grid, block int, n uint32) (*Program, []uint32, uint64) {
	t.Helper()
	defer func(v bool) { uniformScalar = v }(uniformScalar)
	uniformScalar = scalar
	cfg.Workers = 1
	e := newEnv(t, cfg)
	k := e.kernel(e.loadSrc("uniform.ptx", src), name)
	out := e.buf(make([]uint32, grid*block))
	p := e.kernels[k]
	b := params(out, n)
	pbuf := make([]uint64, len(b)/8+1)
	pb := unsafe.Slice((*byte)(unsafe.Pointer(&pbuf[0])), len(b))
	copy(pb, b)
	l := &Launch{Program: p, Host: e.host, Mem: e.mem, Config: &e.cfg, Grid: rt.D1(grid).Norm(), Block: rt.D1(block).Norm(), Params: pb,
		DynShared: uint32(block * 4)}
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, grid*block)
	e.get(out, got)
	return p, got, l.Executed()
}

// TestUniformDefs: computing a uniform candidate once for the warp stores
// what computing it lane by lane stores, with the same instruction count,
// with and without racecheck.
func TestUniformDefs(t *testing.T) {
	for _, cfg := range []Config{{}, {RaceCheck: RaceOn}} {
		p, want, nW := uniformRun(t, false, cfg, uniformSrc, "k", 3, 80, 11)
		_, got, nG := uniformRun(t, true, cfg, uniformSrc, "k", 3, 80, 11)
		// Every definition of %s, %u, %x (3), %w, %y, %d, %z and %c (2 each
		// but %w, %y and %d).
		if len(p.unis) != 14 {
			t.Fatalf("%d definitions of uniform candidates, want 14", len(p.unis))
		}
		if nG != nW {
			t.Errorf("executed %d thread-instructions once per warp, %d lane by lane", nG, nW)
		}
		distinct := map[uint32]bool{}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("race %v: thread %d of CTA %d: %#x once per warp, %#x lane by lane", cfg.RaceCheck, i%80, i/80, got[i], want[i])
			}
			distinct[want[i]] = true
		}
		if len(distinct) < 100 {
			t.Fatalf("only %d distinct results", len(distinct))
		}
	}
}

// TestUniformTreeReduce: the shared-memory tree reduction's loop counter
// is a candidate, and the sums do not change.
func TestUniformTreeReduce(t *testing.T) {
	src, err := os.ReadFile("../../testdata/typical_sm90.ptx")
	if err != nil {
		t.Fatal(err)
	}
	// 1000 values over four blocks of 256, the last one partly empty.
	s := string(src)
	const name = "_Z6reducePKfPfi"
	run := func(scalar bool) ([]uint32, uint64, int) {
		defer func(v bool) { uniformScalar = v }(uniformScalar)
		uniformScalar = scalar
		e := newEnv(t, Config{Workers: 1})
		k := e.kernel(e.loadSrc("typical.ptx", s), name)
		in := make([]float32, 1000)
		for i := range in {
			in[i] = float32(i%97) * 0.37
		}
		pin, pout := e.buf(in), e.buf(make([]uint32, 4))
		p := e.kernels[k]
		b := params(pin, pout, uint32(len(in)))
		pbuf := make([]uint64, len(b)/8+1)
		pb := unsafe.Slice((*byte)(unsafe.Pointer(&pbuf[0])), len(b))
		copy(pb, b)
		l := &Launch{Program: p, Host: e.host, Mem: e.mem, Config: &e.cfg, Grid: rt.D1(4).Norm(), Block: rt.D1(256).Norm(), Params: pb,
			DynShared: 256 * 4}
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, 4)
		e.get(pout, got)
		return got, l.Executed(), len(p.unis)
	}
	want, nW, _ := run(false)
	got, nG, unis := run(true)
	if unis < 4 {
		t.Fatalf("%d uniform definitions in the tree reduction, want its counter's shifts and tests", unis)
	}
	if nG != nW {
		t.Errorf("executed %d thread-instructions once per warp, %d lane by lane", nG, nW)
	}
	for i := range want {
		if got[i] != want[i] || want[i] == 0 {
			t.Errorf("block %d: %#x once per warp, %#x lane by lane", i, got[i], want[i])
		}
	}
}
