package soft

import (
	"math/bits"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// b128Src: thread i packs in[2i], in[2i+1] into a .b128 register and sends
// it through every place a .b128 value can go: global, shared and local
// memory (each by its own and by the generic address), a copy, a device
// function's .b128 parameter and return value (which swaps its halves
// through four .b32 values), then unpacks it. out[4i..]
// gets lo, hi of the global store read back as two .b64 halves, then hi,
// lo of the round trip; kp[i] gets the kernel's .b128 parameter's halves
// swapped, xored with i.
const b128Src = ptxHeader + `
.func (.param .b128 r) swap(.param .b128 a)
{
	.reg .b128 %x;
	.reg .b32 %q<4>;
	ld.param.b128 %x, [a];
	// the halves swapped through four .b32 values: {q0, q1} is the low
	// half, {q2, q3} the high one
	mov.b128 {%q0, %q1, %q2, %q3}, %x;
	mov.b128 %x, {%q2, %q3, %q0, %q1};
	st.param.b128 [r], %x;
	ret;
}

.visible .entry k(.param .b128 kp, .param .u64 pin, .param .u64 pout, .param .u64 pkp)
{
	.reg .b128 %w, %v, %u;
	.reg .b64 %in, %out, %kp, %o, %lo, %hi, %s, %g, %t;
	.reg .b32 %i;
	.shared .align 16 .b8 sh[2048];
	.local .align 16 .b8 loc[32];
	mov.u32 %i, %tid.x;
	ld.param.u64 %in, [pin];
	ld.param.u64 %out, [pout];
	ld.param.u64 %kp, [pkp];
	mul.wide.u32 %o, %i, 16;
	add.s64 %in, %in, %o;
	ld.global.b64 %lo, [%in];
	ld.global.b64 %hi, [%in+8];
	mov.b128 %w, {%lo, %hi};
	// global: store, then read back as halves and as a whole
	mul.wide.u32 %o, %i, 32;
	add.s64 %out, %out, %o;
	st.global.b128 [%out], %w;
	ld.global.b128 %v, [%out];
	// shared, by its own address and by the generic one
	mov.u64 %s, sh;
	mul.wide.u32 %o, %i, 16;
	add.s64 %s, %s, %o;
	st.shared.b128 [%s], %v;
	cvta.shared.u64 %g, %s;
	ld.b128 %u, [%g];
	// local, likewise
	st.local.b128 [loc+16], %u;
	mov.u64 %t, loc;
	cvta.local.u64 %g, %t;
	ld.b128 %v, [%g+16];
	// a copy, then a call
	mov.b128 %u, %v;
	{
	.param .b128 pa;
	.param .b128 pr;
	st.param.b128 [pa], %u;
	call.uni (pr), swap, (pa);
	ld.param.b128 %w, [pr];
	}
	st.global.b128 [%out+16], %w;
	// the kernel parameter
	ld.param.b128 %w, [kp];
	mov.b128 {%lo, %hi}, %w;
	cvt.u64.u32 %o, %i;
	xor.b64 %lo, %lo, %o;
	xor.b64 %hi, %hi, %o;
	mov.b128 %w, {%hi, %lo};
	mul.wide.u32 %o, %i, 16;
	add.s64 %kp, %kp, %o;
	st.global.b128 [%kp], %w;
	ret;
}
`

func TestB128MovLdSt(t *testing.T) {
	e := newEnv(t, Options{})
	k := e.kernel(e.loadSrc("b128.ptx", b128Src), "k")
	const n = 64
	in := make([]uint64, 2*n)
	for i := range in {
		in[i] = 0x0123456789abcdef*uint64(i+1) ^ uint64(i)<<56
	}
	pin, pout, pkp := e.buf(in), e.buf(make([]uint64, 4*n)), e.buf(make([]uint64, 2*n))
	const klo, khi = 0x1111222233334444, 0x5555666677778888
	e.launch(k, rt.D1(1), rt.D1(n), 0, uint64(klo), uint64(khi), pin, pout, pkp)
	out, kp := make([]uint64, 4*n), make([]uint64, 2*n)
	e.get(pout, out)
	e.get(pkp, kp)
	for i := 0; i < n; i++ {
		lo, hi := in[2*i], in[2*i+1]
		if g := out[4*i : 4*i+4]; g[0] != lo || g[1] != hi || g[2] != hi || g[3] != lo {
			t.Errorf("thread %d: got %#x, want [%#x %#x %#x %#x]", i, g, lo, hi, hi, lo)
		}
		if g := kp[2*i : 2*i+2]; g[0] != khi^uint64(i) || g[1] != klo^uint64(i) {
			t.Errorf("thread %d: kernel parameter: got %#x", i, g)
		}
	}
}

// b128AtomSrc: every thread adds 1 to the 128-bit counter at [p] (global)
// and to its block's shared one (copied from [p] first) with CAS loops,
// then swaps its own index into [p+16] with atom.exch.b128, writing what it
// got to q[i]. Block 0's shared counter lands at [p+32].
const b128AtomSrc = ptxHeader + `
.visible .entry k(.param .u64 pp, .param .u64 pq)
{
	.reg .b128 %old, %new, %got;
	.reg .b64 %p, %q, %lo, %hi, %o, %s;
	.reg .b32 %i, %c, %nt;
	.reg .pred %ne, %z;
	.shared .align 16 .b8 ctr[16];
	mov.u32 %i, %tid.x;
	ld.param.u64 %p, [pp];
	ld.param.u64 %q, [pq];
	mov.u64 %s, ctr;
	setp.eq.u32 %z, %i, 0;
	mov.u32 %c, %ctaid.x;
	mov.u32 %nt, %ntid.x;
	mad.lo.u32 %i, %c, %nt, %i;
	@%z ld.relaxed.gpu.global.b128 %old, [%p];
	@%z st.shared.b128 [%s], %old;
	bar.sync 0;
	ld.relaxed.gpu.global.b128 %old, [%p];
G:
	mov.b128 {%lo, %hi}, %old;
	add.cc.u64 %lo, %lo, 1;
	addc.u64 %hi, %hi, 0;
	mov.b128 %new, {%lo, %hi};
	atom.global.cas.b128 %got, [%p], %old, %new;
	mov.b128 {%lo, %o}, %got;
	mov.b128 {%hi, %s}, %old;
	mov.b128 %old, %got;
	setp.ne.u64 %ne, %lo, %hi;
	@%ne bra G;
	setp.ne.u64 %ne, %o, %s;
	@%ne bra G;
	mov.u64 %s, ctr;
	ld.shared.b128 %old, [%s];
S:
	mov.b128 {%lo, %hi}, %old;
	add.cc.u64 %lo, %lo, 1;
	addc.u64 %hi, %hi, 0;
	mov.b128 %new, {%lo, %hi};
	atom.shared.cas.b128 %got, [%s], %old, %new;
	mov.b128 {%lo, %o}, %got;
	mov.b128 {%hi, %q}, %old;
	mov.b128 %old, %got;
	setp.ne.u64 %ne, %lo, %hi;
	@%ne bra S;
	setp.ne.u64 %ne, %o, %q;
	@%ne bra S;
	bar.sync 0;
	setp.eq.and.u32 %z, %c, 0, %z;
	@%z ld.shared.b128 %old, [%s];
	@%z st.global.b128 [%p+32], %old;
	cvt.u64.u32 %lo, %i;
	not.b64 %hi, %lo;
	mov.b128 %new, {%lo, %hi};
	atom.exch.b128 %got, [%p+16], %new;
	ld.param.u64 %q, [pq];
	mul.wide.u32 %o, %i, 16;
	add.s64 %q, %q, %o;
	st.global.b128 [%q], %got;
	ret;
}
`

func TestB128Atom(t *testing.T) {
	e := newEnv(t, Options{})
	k := e.kernel(e.loadSrc("b128atom.ptx", b128AtomSrc), "k")
	const blocks, block = 8, 96
	const n = blocks * block
	start := [2]uint64{^uint64(0) - 40, 7} // the low half carries
	p := e.buf([]uint64{start[0], start[1], 0xdead, 0xbeef, 0, 0})
	q := e.buf(make([]uint64, 2*n))
	e.launch(k, rt.D1(blocks), rt.D1(block), 0, p, q)
	mem, got := make([]uint64, 6), make([]uint64, 2*n)
	e.get(p, mem)
	e.get(q, got)
	lo, c := bits.Add64(start[0], n, 0)
	if mem[0] != lo || mem[1] != start[1]+c {
		t.Errorf("global counter: got %#x %#x, want %#x %#x", mem[1], mem[0], start[1]+c, lo)
	}
	// A block's shared counter starts from the global one as the block
	// finds it (blocks run in any order) and ends block higher.
	d, borrow := bits.Sub64(mem[4], start[0], 0)
	if mem[5]-start[1]-borrow != 0 || d < block || d > n {
		t.Errorf("shared counter: got %#x %#x, want %#x more than the start plus up to %d", mem[5], mem[4], block, n-block)
	}
	// The exchanges form one chain: each thread got the initial value or
	// another's (whole, both halves), each value once, and the last stayed.
	seen := map[uint64]bool{}
	for i := 0; i < n; i++ {
		g := got[2*i : 2*i+2]
		if g[0] == 0xdead && g[1] == 0xbeef {
			g = []uint64{n, ^uint64(n)} // the initial value, as if thread n had put it
		}
		if g[1] != ^g[0] || g[0] > n || seen[g[0]] {
			t.Fatalf("thread %d got %#x from atom.exch.b128", i, got[2*i:2*i+2])
		}
		seen[g[0]] = true
	}
	if mem[3] != ^mem[2] || mem[2] >= n || seen[mem[2]] {
		t.Errorf("after the exchanges: %#x %#x", mem[3], mem[2])
	}
}

func TestB128Misaligned(t *testing.T) {
	for _, c := range []struct{ name, instr, op string }{
		{"ld", "ld.global.b128 %w, [%p+8];", `ld\.global\.b128`},
		{"st", "st.global.b128 [%p+8], %w;", `st\.global\.b128`},
		{"ldshared", "ld.shared.b128 %w, [sh+8];", `ld\.shared\.b128`},
		{"cas", "atom.global.cas.b128 %w, [%p+8], %w, %w;", `atom\.global\.cas\.b128`},
		{"exch", "atom.exch.b128 %w, [%p+24], %w;", `atom\.exch\.b128`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			lib := e.loadSrc("mis.ptx", kernelSrc(".param .u64 pp", `
	.reg .b128 %w;
	.reg .b64 %p;
	.shared .align 16 .b8 sh[64];
	ld.param.u64 %p, [pp];
	mov.b128 %w, {%p, %p};
	`+c.instr+`
	ret;`))
			err := e.launchErr(e.kernel(lib, "k"), rt.D1(1), rt.D1(1), 0, e.buf(make([]uint64, 8)))
			wantErr(t, err, rt.ErrMisalignedAddress, `mis\.ptx:\d+:\d+ \(`+c.op+`\)`, `not aligned to the access size of 16 bytes`)
		})
	}
}

// Forms that PTX does not have for .b128 are refused at load, with the
// instruction's position.
func TestB128Refused(t *testing.T) {
	for _, c := range []struct{ instr, why string }{
		{"add.u64 %r, %w, 1;", "is a .b128 register"},
		{"mov.b64 %r, %w;", "is a .b128 register"},
		{"st.global.b64 [%r], %w;", "is a .b128 register"},
		{"ld.global.b128 %w, [%w];", "not a 32- or 64-bit data register"},
		{"ld.global.b128 %r, [%r];", "not a .b128 register"},
		{"mov.b128 %w, {%r, %r, %r, %r};", "four .b32 values, not .b64"},
		{"mov.b128 %w, {%r, %r, %r};", "two .b64 or four .b32 values, not 3"},
		{"mov.b128 %w, {%r, %h};", "not .b32"},
		{"mov.b128 %w, %r;", "not a .b128 register"},
		{"ld.global.v2.b128 {%w, %w}, [%r];", "vectors of .b128"},
		{"atom.global.add.b128 %w, [%r], %w;", "atom.cas and atom.exch only"},
		{"red.global.exch.b128 [%r], %w;", "atom.cas and atom.exch only"},
		{"atom.global.cas.b128 %w, [%r], %w, %r;", "not a .b128 register"},
	} {
		e := newEnv(t, Options{})
		_, err := e.loadNamed([]byte(kernelSrc("", `
	.reg .b128 %w;
	.reg .b64 %r;
	.reg .b32 %h;
	`+c.instr+`
	ret;`)), "ref.ptx")
		if err == nil || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "ref.ptx:") {
			t.Errorf("%s: %v, want a refusal with %q", c.instr, err, c.why)
		}
	}
}
