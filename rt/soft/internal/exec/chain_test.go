package exec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// chainForm says how chainSrc writes its run of ld-ld-fma triples.
type chainForm struct {
	steps int
	swap  bool   // fma d, x, y, s (the first load's value first) rather than d, y, x, s
	keep  bool   // store a loaded value (triple 1's first) and an intermediate sum (triple 2's) too
	label int    // a label before this triple (0: none)
	guard int    // this triple's first load is predicated (0: none)
	bar   int    // a bar.sync before this triple (0: none)
	extra string // instructions after the run
	// row16: the sA operand is one row per half-warp, [sA+64(t/16)+4j], as
	// in a 16×16 tile (chainRows), rather than one per 4 threads.
	row16    bool
	rowFirst bool // the sA load comes first in each triple
	// rowAll: the sA operand is one address for all threads; colHalf: the
	// sB operand is one per half-warp, [sB+4(t/16)+64j].
	rowAll, colHalf bool
}

// chainSrc is a kernel that copies 256 floats of in to sA and the next 256
// to sB, then runs a run of triples per thread t, on [sB+4(t%16)+64j] and
// [sA+32(t/4)+4j] like a 16×16 tiled matmul, from the addend in[512+t];
// thread bad's sB base is badbase instead. It stores the sum to out[t] (and
// the kept registers to out[64+t], out[128+t]).
func chainSrc(f chainForm) string {
	var b strings.Builder
	b.WriteString(`
	.reg .pred %p<4>;
	.reg .f32 %f<200>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<10>;
	.shared .align 4 .b8 sA[1024];
	.shared .align 4 .b8 sB[1024];
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r10, [bad];
	ld.param.u32 %r11, [badbase];
	mov.u32 %r1, %tid.x;
	mov.u32 %r13, %ntid.x;
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd6, %rd2;
	mov.u32 %r3, sA;
	mov.u32 %r12, sB;
	mov.u32 %r2, %r1;
$Lcopy:
	setp.ge.u32 %p2, %r2, 256;
	@%p2 bra $Ldone;
	mul.wide.u32 %rd4, %r2, 4;
	add.s64 %rd5, %rd3, %rd4;
	ld.global.f32 %f190, [%rd5];
	ld.global.f32 %f191, [%rd5+1024];
	shl.b32 %r4, %r2, 2;
	add.s32 %r5, %r3, %r4;
	st.shared.f32 [%r5], %f190;
	add.s32 %r6, %r12, %r4;
	st.shared.f32 [%r6], %f191;
	add.u32 %r2, %r2, %r13;
	bra $Lcopy;
$Ldone:
	bar.sync 0;
	mul.wide.u32 %rd7, %r1, 4;
	add.s64 %rd8, %rd3, %rd7;
	ld.global.f32 %f0, [%rd8+2048];
	shr.u32 %r14, %r1, ROWSHIFT;
	shl.b32 %r15, %r14, ROWBYTES;
	add.s32 %r7, %r3, %r15;
	COLOP %r16, %r1, COLARG;
	shl.b32 %r17, %r16, 2;
	add.s32 %r8, %r12, %r17;
	setp.eq.u32 %p1, %r1, %r10;
	selp.b32 %r8, %r11, %r8, %p1;
	setp.lt.u32 %p3, %r1, 7;
`)
	prologue := b.String()
	b.Reset()
	rows := []string{"ROWSHIFT", "2", "ROWBYTES", "5"}
	switch {
	case f.rowAll:
		rows = []string{"ROWSHIFT", "6", "ROWBYTES", "6"}
	case f.row16:
		rows = []string{"ROWSHIFT", "4", "ROWBYTES", "6"}
	}
	cols := []string{"COLOP", "and.b32", "COLARG", "15"}
	if f.colHalf {
		cols = []string{"COLOP", "shr.u32", "COLARG", "4"}
	}
	b.WriteString(strings.NewReplacer(append(rows, cols...)...).Replace(prologue))
	s := 0
	for j := range f.steps {
		if j == f.label && j > 0 {
			fmt.Fprintf(&b, "$Lmid:\n")
		}
		if j == f.bar && j > 0 {
			b.WriteString("\tbar.sync 0;\n")
		}
		g := ""
		if j == f.guard && j > 0 {
			g = "@%p3 "
		}
		x, y, d := 3*j+1, 3*j+2, 3*j+3
		if f.rowFirst {
			fmt.Fprintf(&b, "\t%sld.shared.f32 %%f%d, [%%r7+%d];\n\tld.shared.f32 %%f%d, [%%r8+%d];\n", g, y, 4*j, x, 64*j)
		} else {
			fmt.Fprintf(&b, "\t%sld.shared.f32 %%f%d, [%%r8+%d];\n\tld.shared.f32 %%f%d, [%%r7+%d];\n", g, x, 64*j, y, 4*j)
		}
		if f.swap {
			fmt.Fprintf(&b, "\tfma.rn.f32 %%f%d, %%f%d, %%f%d, %%f%d;\n", d, x, y, s)
		} else {
			fmt.Fprintf(&b, "\tfma.rn.f32 %%f%d, %%f%d, %%f%d, %%f%d;\n", d, y, x, s)
		}
		s = d
	}
	fmt.Fprintf(&b, "\tst.global.f32 [%%rd8+0], %%f%d;\n", s)
	b.WriteString(strings.ReplaceAll(`
	add.s64 %rd8, %rd6, %rd7;
	st.global.f32 [%rd8], %fS;
`, "%fS", fmt.Sprintf("%%f%d", s)))
	if f.keep {
		b.WriteString("\tst.global.f32 [%rd8+256], %f4;\n\tst.global.f32 [%rd8+512], %f9;\n")
	}
	b.WriteString(f.extra)
	return kernelSrc(".param .u64 in, .param .u64 out, .param .u32 bad, .param .u32 badbase", b.String())
}

// chainInput is the kernel's 512+64 floats: random bits, and the values
// that take fmaRN32's slow path (NaNs, infinities, denormals, overflow,
// and, two times in three, a product and sum whose float64 sum is a
// float32 rounding midpoint in every other triple).
func chainInput(r *rand.Rand) []uint32 {
	special := []uint32{0, 0x80000000, 0x3f800000, 0x39800000, 0xb9800000, 0x3f800001, 0x33800000, 0x1, 0x807fffff,
		0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00001, 0xffc00123, 0x7f7fffff, 0xff7fffff, 0x00800000, 0x0c000000, 0x5f000000}
	in := make([]uint32, 512+64)
	for i := range in {
		switch r.IntN(3) {
		case 0:
			in[i] = special[r.IntN(len(special))]
		case 1:
			in[i] = r.Uint32()
		default:
			in[i] = math.Float32bits(float32(r.NormFloat64()))
		}
	}
	if par := r.IntN(3); par < 2 {
		// x·y = 64 - 2^-40 on 2^30+128 is just below the midpoint 2^30+192,
		// which the float64 sum rounds to: rounding that again gives
		// 2^30+256, not 2^30+128. Triple j reads sA[8(t/4)+j]: the odd
		// triples or the even ones hit the midpoint, the others add 8 and
		// round back to 2^30+128.
		for i := range 512 {
			in[i] = 0x41000001
			if i < 256 {
				in[i] = 0x3f800000
				if i%2 == par {
					in[i] = 0x40fffffe
				}
			}
		}
		for i := 512; i < len(in); i += 2 {
			in[i] = 0x4e800001
		}
	}
	return in
}

// unfuse makes p run every instruction by itself.
func unfuse(p *Program) {
	for i := range p.code {
		if op := p.code[i].op; op == opLdChain || op == opLdLdFma {
			p.code[i].op = opLdS32
		}
	}
}

// chainRun launches the chain kernel of src over one CTA of threads and
// returns out, the fault's text and the thread-instructions executed.
func chainRun(t *testing.T, cfg Config, src string, fused bool, in []uint32, threads, bad int, badbase uint32) ([]uint32, string, uint64, *Program) {
	t.Helper()
	e := newEnv(t, cfg)
	k := e.kernel(e.loadSrc("chain.ptx", src), "k")
	p := e.kernels[k]
	if !fused {
		unfuse(p)
	}
	dIn := e.buf(in)
	out := make([]uint32, 192)
	for i := range out {
		out[i] = 0xdeadbeef
	}
	dOut := e.buf(out)
	b := params(dIn, dOut, uint32(bad), badbase)
	pbuf := make([]uint64, len(b)/8+1)
	pb := unsafe.Slice((*byte)(unsafe.Pointer(&pbuf[0])), len(b))
	copy(pb, b)
	l := &Launch{Program: p, Host: e.host, Mem: e.mem, Config: &e.cfg, Grid: rt.D1(1).Norm(), Block: rt.D1(threads).Norm(), Params: pb}
	msg := ""
	if err := l.Run(); err != nil {
		msg = err.Error()
	}
	e.get(dOut, out)
	return out, msg, l.Executed(), p
}

// chainsOf lists the lengths (in triples) of p's chains and whether each
// writes registers besides its sum.
func chainsOf(p *Program) []string {
	var s []string
	for pc := range p.code {
		if p.code[pc].op == opLdChain {
			ch := &p.chains[p.code[pc].aux]
			s = append(s, fmt.Sprintf("%d keep=%v", ch.n/3, ch.keep != nil))
		}
	}
	return s
}

// TestLdChainMatchesUnfused: a chain gives bit for bit the memory, the
// fault and the instruction count that its instructions give one by one,
// for full and partial warps, either operand order, registers kept or not,
// and runs cut by a label, a guard or a barrier.
func TestLdChainMatchesUnfused(t *testing.T) {
	forms := []struct {
		f    chainForm
		want []string
	}{
		{chainForm{steps: 8}, []string{"8 keep=false"}},
		{chainForm{steps: 8, swap: true}, []string{"8 keep=false"}},
		{chainForm{steps: 16, keep: true}, []string{"16 keep=true"}},
		{chainForm{steps: 8, label: 3}, []string{"3 keep=false", "5 keep=false"}},
		{chainForm{steps: 8, guard: 4}, []string{"4 keep=false", "3 keep=false"}},
		{chainForm{steps: 8, bar: 6}, []string{"6 keep=false", "2 keep=false"}},
		{chainForm{steps: 2}, []string{"2 keep=false"}},
		{chainForm{steps: 1}, nil},
		{chainForm{steps: 16, row16: true}, []string{"16 keep=false"}},
		{chainForm{steps: 16, row16: true, swap: true}, []string{"16 keep=false"}},
		{chainForm{steps: 8, row16: true, rowFirst: true}, []string{"8 keep=false"}},
		{chainForm{steps: 8, row16: true, rowFirst: true, swap: true, label: 3}, []string{"3 keep=false", "5 keep=false"}},
		{chainForm{steps: 7, row16: true}, []string{"7 keep=false"}},
		{chainForm{steps: 8, rowAll: true, colHalf: true, rowFirst: true}, []string{"8 keep=false"}},
		{chainForm{steps: 8, rowAll: true, colHalf: true}, []string{"8 keep=false"}},
		{chainForm{steps: 7, row16: true, keep: true}, []string{"7 keep=true"}},
	}
	r := rand.New(rand.NewPCG(7, 27))
	const window = ReservedShared + 2048
	for _, fm := range forms {
		src := chainSrc(fm.f)
		for _, threads := range []int{64, 48, 20} {
			for _, fault := range []struct {
				bad  int
				base uint32
			}{
				{-1, 0},
				{13, window - 4*64},      // in the window for triples 0-3, out from triple 4 on (a mid-run fault)
				{31, window - 4},         // the first triple's last address
				{40, ReservedShared + 2}, // misaligned
				{3, 0},                   // the reserved KB: no fault
				{5, window - 64*uint32(fm.f.steps-1) - 4 + 64}, // the last triple alone goes out
			} {
				in := chainInput(r)
				got, gotErr, gotN, p := chainRun(t, Config{}, src, true, in, threads, fault.bad, fault.base)
				want, wantErr, wantN, _ := chainRun(t, Config{}, src, false, in, threads, fault.bad, fault.base)
				name := fmt.Sprintf("%+v threads %d bad %d base %d", fm.f, threads, fault.bad, fault.base)
				if c := chainsOf(p); fmt.Sprint(c) != fmt.Sprint(fm.want) {
					t.Fatalf("%s: chains %v, want %v", name, c, fm.want)
				}
				if gotErr != wantErr {
					t.Fatalf("%s: fault %q, one by one %q", name, gotErr, wantErr)
				}
				if gotN != wantN {
					t.Errorf("%s: executed %d thread-instructions, one by one %d", name, gotN, wantN)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s: out[%d] = %#x, one by one %#x", name, i, got[i], want[i])
					}
				}
				if fault.bad == 13 && threads > 13 && fm.f.steps > 4 && gotErr == "" {
					t.Errorf("%s: no fault", name)
				}
				for l := 0; fault.bad < 0 && fm.f.keep && l < threads; l++ {
					if w := in[256+16+l%16]; got[64+l] != w {
						t.Fatalf("%s: thread %d's kept load is %#x, want %#x", name, l, got[64+l], w)
					}
				}
			}
		}
	}
}

// TestLdChainMatmul: the typical matmul kernel's inner loop is one chain of
// 16 that writes nothing but its sum, and racecheck sees none.
func TestLdChainMatmul(t *testing.T) {
	for _, cfg := range []Config{{}, {RaceCheck: RaceOn}} {
		e := newEnv(t, cfg)
		src, err := os.ReadFile("../../testdata/typical_sm90.ptx") // rt/soft's
		if err != nil {
			t.Fatal(err)
		}
		p := e.kernels[e.kernel(e.loadSrc("typical_sm90.ptx", string(src)), "_Z2mmPKfS0_Pfi")]
		c := chainsOf(p)
		want := []string{"16 keep=false"}
		if cfg.RaceCheck != RaceOff {
			want = nil
		}
		if fmt.Sprint(c) != fmt.Sprint(want) {
			t.Errorf("%+v: chains %v, want %v", cfg, c, want)
		}
	}
}

// TestLdChainRacecheck: under racecheck a chain's loads are recorded one by
// one: a store racing with the run's last load is reported as without the
// chain.
func TestLdChainRacecheck(t *testing.T) {
	// Thread 0 overwrites the word thread 1's last triple reads, with no
	// barrier between.
	src := chainSrc(chainForm{steps: 4, extra: `
	setp.ne.u32 %p2, %r1, 0;
	@%p2 bra $Lend;
	st.shared.f32 [sB+196], %f0;
$Lend:
	ret;
`})
	in := chainInput(rand.New(rand.NewPCG(1, 1)))
	_, gotErr, _, _ := chainRun(t, Config{RaceCheck: RaceOn}, src, true, in, 64, -1, 0)
	_, wantErr, _, _ := chainRun(t, Config{RaceCheck: RaceOn}, src, false, in, 64, -1, 0)
	if gotErr == "" || gotErr != wantErr {
		t.Fatalf("racecheck reports %q, one by one %q", gotErr, wantErr)
	}
}

// TestChainRowsOperands: chainRows's paired path (a row operand per
// half-warp, both half-warps reading one column) gives what fma.rn.f32
// triple by triple gives, bit for bit, on operands chosen to defeat
// chainRow4x2's short rounding test: tiny and subnormal values, zeros,
// Infs and NaNs, among ordinary ones. One lane meets a sum that float64
// rounds onto a subnormal float32 midpoint: 641·6700417 = 2^32+1, so
// 1.5·2^-127 + 641·2^-82 · 6700417·2^-100 is 2^-182 above one, and so is
// 1.5·2^-127 + 641·2^-70 · 6700417·2^-112.
func TestChainRowsOperands(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const k = 16
	pick := func() uint32 {
		switch r.IntN(12) {
		case 0:
			return uint32(127-66-r.IntN(40))<<23 | r.Uint32()&0x807fffff // tiny
		case 1:
			return r.Uint32() & 0x807fffff // subnormal or zero
		case 2:
			return [...]uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f7fffff}[r.IntN(7)]
		case 3:
			return uint32(127+60+r.IntN(8))<<23 | r.Uint32()&0x807fffff // huge: sums overflow
		case 4:
			return uint32(127-7-r.IntN(59))<<23 | r.Uint32()&0x807fffff // small: wide but not strong
		}
		return math.Float32bits(float32(r.NormFloat64()))
	}
	for trial := range 400 {
		mem := make([]uint32, 1024) // rows at 0 and 64 (words), columns from 256
		for i := range mem {
			mem[i] = pick()
			if trial%2 == 0 && r.IntN(4) != 0 || trial%4 == 1 && i < 256 {
				mem[i] = math.Float32bits(float32(r.NormFloat64()))
			}
		}
		var acc, want [32]float32
		for l := range acc {
			acc[l] = math.Float32frombits(pick())
			if trial%4 == 1 && l%2 == 0 {
				// Strong rows (chainRow4x2s), tiny or subnormal columns and
				// sums: the sums stay in or near the subnormal range.
				acc[l] = math.Float32frombits(r.Uint32() & 0x807fffff)
				for j := range k {
					if r.IntN(2) == 0 {
						mem[256+l%16+16*j] = r.Uint32() & 0x807fffff
					}
				}
			}
		}
		if trial == 0 {
			// Lane 3 meets the midpoint through a tiny row value and a
			// tiny column value, lane 21 through a tiny row value alone;
			// the rows' zeros after it keep the sums as they are.
			for j := 1; j < k; j++ {
				mem[j], mem[64+j] = 0, 0
			}
			mem[0], mem[256+3], acc[3] = math.Float32bits(6700417*0x1p-100), math.Float32bits(641*0x1p-82), 0x1.8p-127
			mem[64], mem[256+5], acc[21] = math.Float32bits(6700417*0x1p-112), math.Float32bits(641*0x1p-70), 0x1.8p-127
		}
		if trial == 2 {
			// Lane 7 meets it through a row value below 2^-6 (not strong,
			// so its subnormal column value is tested) and the subnormal
			// column value 641·2^-149.
			for j := 1; j < k; j++ {
				mem[j], mem[64+j] = 0, 0
			}
			mem[0], mem[64], mem[256+7], acc[7] = math.Float32bits(6700417*0x1p-33), 0x3f800000, 641, 0x1.8p-127
		}
		var a, b [32]uint64
		for l := range 32 {
			a[l] = uint64(l/16) * 256
			b[l] = 1024 + uint64(l%16)*4
		}
		for _, swap := range []bool{false, true} {
			ch := &ldChain{o1: 0, o2: 0, s1: 4, s2: 64, swap: swap}
			sh := unsafe.Pointer(&mem[0])
			for l := range 32 {
				s := math.Float32bits(acc[l])
				for j := range k {
					x, y := mem[(a[l]+uint64(4*j))/4], mem[(b[l]+uint64(64*j))/4]
					if swap {
						s = fmaRN32Slow(x, y, s)
					} else {
						s = fmaRN32Slow(y, x, s)
					}
				}
				want[l] = math.Float32frombits(s)
			}
			for _, form := range chainRowForms() {
				chainStrongRows, chainFMA = form.strong, form.fma
				got := acc
				chainRows(sh, ch, &a, &b, true, true, k, &got)
				chainStrongRows, chainFMA = true, hasSIMD
				for l := range 32 {
					if math.Float32bits(got[l]) != math.Float32bits(want[l]) {
						t.Fatalf("trial %d swap %v %s lane %d: %#x, want %#x", trial, swap, form.name, l, math.Float32bits(got[l]), math.Float32bits(want[l]))
					}
				}
			}
		}
	}
}

// chainRowForms are chainRows's forms of the paired rows: the Go ones
// (strong rows or not) and, where the CPU has FMA3, fmaRow4x2.
func chainRowForms() []struct {
	name        string
	strong, fma bool
} {
	forms := []struct {
		name        string
		strong, fma bool
	}{{"strong", true, false}, {"wide", false, false}}
	if hasSIMD {
		forms = append(forms, struct {
			name        string
			strong, fma bool
		}{"fma3", true, true})
	}
	return forms
}
