package soft

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestRacecheckSoftmax: the softmax that reuses s[0] for the maximum and
// then the sum with no barrier between is reported, naming both accesses,
// whatever order the warps run in; with the barrier it is not, and its
// output is right.
func TestRacecheckSoftmax(t *testing.T) {
	const rows, n, block = 3, 1000, 256
	r := rand.New(rand.NewPCG(3, 4))
	x := randF32(r, rows*n, -4, 4)
	// The lines of the two accesses in softmax.ptx: the read of the
	// maximum, and the store of warp 0's partial sum into s[0].
	src, err := readTestdata("race/softmax.ptx")
	if err != nil {
		t.Fatal(err)
	}
	readLine, writeLine := ptxLine(t, src, "softmaxRacy", "ld.shared.f32 \t%f6,"), ptxLine(t, src, "softmaxRacy", "st.shared.f32 \t[%rd3], %f10;")
	for _, seed := range []uint64{0, 1, 2, 3, 4, 5} {
		t.Run(fmt.Sprintf("shuffle %d", seed), func(t *testing.T) {
			e := newEnv(t, Options{RaceCheck: RaceOn, ShuffleSeed: seed})
			lib := e.load("race/softmax.ptx")
			px, py := e.buf(x), e.buf(make([]float32, rows*n))
			err := e.launchErr(e.kernel(lib, "softmaxRacy"), rt.D1(rows), rt.D1(block), 0, px, py, n)
			ee := wantErr(t, err, rt.ErrLaunchFailed, `racecheck: (Read-After-Write|Write-After-Read) hazard on __shared__ address 0x400:`,
				`kernel softmaxRacy, block \(\d,0,0\), thread \(\d+,0,0\)`)
			// Both accesses are named: their threads and PTX lines.
			lines := regexp.MustCompile(`softmax\.ptx:(\d+):\d+ \((ld|st)\.shared\.f32\)`).FindAllStringSubmatch(ee.Detail, -1)
			got := map[string]bool{}
			for _, l := range lines {
				got[l[1]] = true
			}
			if len(lines) != 2 || !got[fmt.Sprint(readLine)] || !got[fmt.Sprint(writeLine)] {
				t.Errorf("the report does not name the read (line %d) and the write (line %d): %s", readLine, writeLine, ee.Detail)
			}
			if strings.Count(ee.Detail, "thread (") != 3 { // the where, and both threads
				t.Errorf("the report does not name both threads: %s", ee.Detail)
			}
			t.Log(ee.Detail)

			e.reset()
			px, py = e.buf(x), e.buf(make([]float32, rows*n))
			e.launch(e.kernel(lib, "softmaxFixed"), rt.D1(rows), rt.D1(block), 0, px, py, n)
			y := make([]float32, rows*n)
			e.get(py, y)
			for row := 0; row < rows; row++ {
				var sum float64
				m := math.Inf(-1)
				for _, v := range x[row*n : (row+1)*n] {
					m = math.Max(m, float64(v))
				}
				for _, v := range x[row*n : (row+1)*n] {
					sum += math.Exp(float64(v) - m)
				}
				for i := row * n; i < (row+1)*n; i++ {
					if want := math.Exp(float64(x[i])-m) / sum; math.Abs(float64(y[i])-want) > 1e-5*want+1e-9 {
						t.Fatalf("softmaxFixed: y[%d] = %v, want %v", i, y[i], want)
					}
				}
			}
		})
	}
	// Without racecheck the racy kernel runs to the end and its output is
	// wrong, silently: the warps after the first read warp 0's partial sum
	// as the maximum. (Each row still sums to 1: every thread divides what
	// it added to the sum.)
	t.Setenv("CUGEN_SOFT_RACECHECK", "")
	t.Setenv("CUGEN_SOFT_SHUFFLE", "")
	e := newEnv(t, Options{})
	lib := e.load("race/softmax.ptx")
	run := func(k string) []float32 {
		px, py := e.buf(x), e.buf(make([]float32, rows*n))
		e.launch(e.kernel(lib, k), rt.D1(rows), rt.D1(block), 0, px, py, n)
		y := make([]float32, rows*n)
		e.get(py, y)
		return y
	}
	racy, fixed := run("softmaxRacy"), run("softmaxFixed")
	worst := 0.0
	for i := range racy {
		worst = math.Max(worst, math.Abs(float64(racy[i]-fixed[i]))/float64(fixed[i]))
	}
	if worst < 1e-3 {
		t.Errorf("without racecheck softmaxRacy gave the right output (worst relative error %g): the test no longer shows the race's effect", worst)
	}
	t.Logf("without racecheck, softmaxRacy's worst relative error: %g", worst)
}

// ptxLine is the line of the first instruction of kernel fn in src that
// starts with text.
func ptxLine(t *testing.T, src []byte, fn, text string) int {
	t.Helper()
	in := false
	for i, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, ".entry "+fn+"(") {
			in = true
		}
		if in && strings.HasPrefix(strings.TrimSpace(line), text) {
			return i + 1
		}
	}
	t.Fatalf("no %q in %s", text, fn)
	return 0
}

// raceKernel is a one-kernel module k(u64 out) with 64 threads' worth of
// shared memory, s.
func raceKernel(body string) string {
	return kernelSrc(".param .u64 out", `
	.shared .align 8 .b8 s[1024];
	.reg .pred %p<8>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 31;     // lane
	shr.u32 %r3, %r1, 5;      // warp
	mov.u32 %r4, s;
	shl.b32 %r5, %r1, 2;
	add.u32 %r6, %r4, %r5;    // &s[tid]
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2; // &out[tid]
`+body+`
	ret;`)
}

// TestRacecheckKinds: what racecheck reports, and what it must not, kernel
// by kernel, in RaceOn and RaceStrict modes.
func TestRacecheckKinds(t *testing.T) {
	cases := []struct {
		name       string
		threads    int
		body       string
		on, strict string // "" for no report; else a pattern of the detail
	}{
		{"barrier between write and read", 64, `
	st.shared.u32 [%r6], %r1;
	bar.sync 0;
	ld.shared.u32 %r7, [%r4+4];
	st.global.u32 [%rd3], %r7;`, "", ""},
		{"no barrier between warps", 64, `
	setp.eq.u32 %p1, %r1, 40;
	@%p1 st.shared.u32 [%r4], %r1;
	ld.shared.u32 %r7, [%r4];
	st.global.u32 [%rd3], %r7;`, `Write-After-Read hazard on __shared__ address 0x400: thread \(40,0,0\) writes it here, and thread \(\d+,0,0\) read it`, `hazard`},
		{"one instruction, many values", 32, `
	st.shared.u32 [%r4], %r1;`, `Write-After-Write .* one instruction's lanes are unordered`, `Write-After-Write`},
		{"every thread stores one value", 64, `
	mov.u32 %r7, 7;
	st.shared.u32 [%r4], %r7;
	bar.sync 0;
	ld.shared.u32 %r8, [%r4];
	st.global.u32 [%rd3], %r8;`, "", ""},
		{"diverged lanes", 32, `
	setp.lt.u32 %p1, %r2, 16;
	@%p1 bra A;
	mov.u32 %r7, 2;
	st.shared.u32 [%r4], %r7;
	bra.uni B;
A:
	mov.u32 %r7, 1;
	st.shared.u32 [%r4], %r7;
B:`, `Write-After-Write .* diverged paths`, `Write-After-Write`},
		// NVIDIA's compute-sanitizer-samples Racecheck/warp_error.cu, in
		// PTX: a warp's lanes write, lane 0 reads them all, no __syncwarp.
		{"warp-synchronous without __syncwarp", 32, `
	st.shared.u32 [%r6], %r1;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra D;
	mov.u32 %r7, 0;
	mov.u32 %r8, 0;
L:
	shl.b32 %r9, %r8, 2;
	add.u32 %r9, %r9, %r4;
	ld.shared.u32 %r10, [%r9];
	add.u32 %r7, %r7, %r10;
	add.u32 %r8, %r8, 1;
	setp.lt.u32 %p2, %r8, 32;
	@%p2 bra L;
	st.global.u32 [%rd1], %r7;
D:`, "", `Read-After-Write hazard .* \(0,0,0\) reads it here, and thread \(1,0,0\) wrote it .* lockstep execution does not count`},
		{"warp-synchronous with __syncwarp", 32, `
	st.shared.u32 [%r6], %r1;
	bar.warp.sync -1;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra D;
	ld.shared.u32 %r10, [%r4+124];
	st.global.u32 [%rd1], %r10;
D:`, "", ""},
		{"atomics", 64, `
	atom.shared.add.u32 %r7, [%r4], 1;
	red.shared.add.u32 [%r4+4], %r1;
	atom.global.add.u32 %r8, [%rd1], 1;
	bar.sync 0;
	ld.shared.u32 %r9, [%r4];
	st.global.u32 [%rd3+4], %r9;`, "", ""},
		{"a flag handed over with volatile accesses", 64, `
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra W;
	mov.u32 %r7, 42;
	st.shared.u32 [%r4+8], %r7;
	membar.cta;
	mov.u32 %r7, 1;
	st.volatile.shared.u32 [%r4], %r7;
W:
	setp.lt.u32 %p2, %r1, 32;
	@%p2 bra D;
S:
	ld.volatile.shared.u32 %r8, [%r4];
	setp.eq.u32 %p3, %r8, 0;
	@%p3 bra S;
	ld.shared.u32 %r9, [%r4+8];
	st.global.u32 [%rd3], %r9;
D:`, "", ""},
		{"named barrier: producers arrive, consumers wait", 128, `
	setp.ge.u32 %p1, %r3, 2;
	@%p1 bra C;
	st.shared.u32 [%r6], %r1;
	bar.arrive 1, 128;
	bra.uni D;
C:
	bar.sync 1, 128;
	ld.shared.u32 %r7, [%r6+-256];
	st.global.u32 [%rd3], %r7;
D:`, "", ""},
		{"named barrier: a producer writes after arriving", 128, `
	setp.ge.u32 %p1, %r3, 2;
	@%p1 bra C;
	bar.arrive 1, 128;
	st.shared.u32 [%r6], %r1;
	bra.uni D;
C:
	bar.sync 1, 128;
	ld.shared.u32 %r7, [%r6+-256];
	st.global.u32 [%rd3], %r7;
D:`, `Read-After-Write hazard on __shared__`, `hazard`},
		{"global: every thread writes out[0]", 64, `
	st.global.u32 [%rd1], %r1;`, `Write-After-Write hazard on __global__ address 0x7`, `Write-After-Write hazard on __global__`},
		{"global: each thread its own word", 64, `
	ld.global.u32 %r7, [%rd3];
	add.u32 %r7, %r7, %r1;
	st.global.u32 [%rd3], %r7;`, "", ""},
		{"global: a neighbour's word, no barrier", 64, `
	st.global.u32 [%rd3], %r1;
	ld.global.u32 %r7, [%rd3+4];
	st.global.u32 [%rd3+256], %r7;`, `hazard on __global__`, `hazard on __global__`},
		{"bytes of one word", 64, `
	mov.u32 %r7, s;
	add.u32 %r7, %r7, %r1;
	st.shared.u8 [%r7], %r1;
	ld.shared.u8 %r8, [%r7];
	st.global.u32 [%rd3], %r8;`, "", ""},
	}
	for _, c := range cases {
		for _, mode := range []RaceMode{RaceOn, RaceStrict} {
			want := c.on
			if mode == RaceStrict {
				want = c.strict
			}
			t.Run(fmt.Sprintf("%s/%d", c.name, mode), func(t *testing.T) {
				e := newEnv(t, Options{RaceCheck: mode, Deterministic: true})
				k := e.kernel(e.loadSrc("race.ptx", raceKernel(c.body)), "k")
				out := e.buf(make([]uint32, 128))
				err := e.launchErr(k, rt.D1(2), rt.D1(c.threads), 0, out)
				if want == "" {
					if err != nil {
						t.Fatalf("reported: %v", err)
					}
					return
				}
				ee := wantErr(t, err, rt.ErrLaunchFailed, want)
				if !strings.Contains(ee.Detail, "race.ptx:") {
					t.Errorf("no PTX position: %s", ee.Detail)
				}
				t.Log(ee.Detail)
			})
		}
	}
}

// TestRacecheckEnv: CUGEN_SOFT_RACECHECK and CUGEN_SOFT_SHUFFLE turn the
// modes on where Options leave them off.
func TestRacecheckEnv(t *testing.T) {
	for _, c := range []struct {
		race, shuffle string
		mode          RaceMode
		seed          uint64
	}{
		{"", "", RaceOff, 0},
		{"1", "", RaceOn, 0},
		{"strict", "17", RaceStrict, 17},
		{"0", "0x10", RaceOff, 16},
		{"", "nonsense", RaceOff, 0},
	} {
		if c.shuffle == "nonsense" {
			continue // (it only prints a warning)
		}
		t.Setenv("CUGEN_SOFT_RACECHECK", c.race)
		t.Setenv("CUGEN_SOFT_SHUFFLE", c.shuffle)
		if d := New(Options{}); d.opt.RaceCheck != c.mode || d.opt.ShuffleSeed != c.seed {
			t.Errorf("RACECHECK=%q SHUFFLE=%q: mode %d, seed %d; want %d, %d", c.race, c.shuffle, d.opt.RaceCheck, d.opt.ShuffleSeed, c.mode, c.seed)
		}
	}
	t.Setenv("CUGEN_SOFT_RACECHECK", "1")
	if d := New(Options{RaceCheck: RaceStrict}); d.opt.RaceCheck != RaceStrict {
		t.Errorf("the environment overrode Options.RaceCheck")
	}
	t.Setenv("CUGEN_SOFT_SHUFFLE", "random")
	if d := New(Options{}); d.opt.ShuffleSeed == 0 {
		t.Errorf("CUGEN_SOFT_SHUFFLE=random gave no seed")
	}
}

// TestShuffle: a kernel whose output is the order its warps ran in gives
// the same output for the same seed, and other orders for other seeds.
func TestShuffle(t *testing.T) {
	src := kernelSrc(".param .u64 order, .param .u64 count", `
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [order];
	ld.param.u64 %rd2, [count];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 31;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra D;
	atom.global.add.u32 %r3, [%rd2], 1;
	shr.u32 %r4, %r1, 5;
	mul.wide.u32 %rd3, %r3, 4;
	add.s64 %rd4, %rd1, %rd3;
	st.global.u32 [%rd4], %r4;
D:
	ret;`)
	t.Setenv("CUGEN_SOFT_SHUFFLE", "")
	order := func(seed uint64) string {
		e := newEnv(t, Options{ShuffleSeed: seed, Deterministic: true})
		k := e.kernel(e.loadSrc("order.ptx", src), "k")
		po, pc := e.buf(make([]uint32, 8)), e.buf(make([]uint32, 1))
		e.launch(k, rt.D1(1), rt.D1(256), 0, po, pc)
		got := make([]uint32, 8)
		e.get(po, got)
		return fmt.Sprint(got)
	}
	plain := order(0)
	if plain != "[0 1 2 3 4 5 6 7]" {
		t.Fatalf("without shuffling the warps ran in order %s", plain)
	}
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		a, b := order(seed), order(seed)
		if a != b {
			t.Errorf("seed %d: orders %s and %s", seed, a, b)
		}
		seen[a] = true
	}
	if len(seen) < 4 || seen[plain] && len(seen) == 1 {
		t.Errorf("8 seeds gave only the orders %v", seen)
	}
}

// TestRacecheckFaultsFirst: memcheck's faults come before racecheck's
// reports, with the same error as without racecheck.
func TestRacecheckFaultsFirst(t *testing.T) {
	e := newEnv(t, Options{RaceCheck: RaceStrict})
	lib := e.load("typical_sm90.ptx")
	pa := e.buf(make([]float32, 4))
	err := e.launchErr(e.kernel(lib, "_Z4vaddPKfS0_Pfi"), rt.D1(1), rt.D1(64), 0, pa, pa, pa, 64)
	if !errors.Is(err, rt.ErrIllegalAddress) {
		t.Fatalf("an out-of-bounds vadd under racecheck: %v", err)
	}
}

// TestShuffleSpinWait: under the shuffled scheduler a warp that spins on a
// flag another warp sets gives way, whichever runs first.
func TestShuffleSpinWait(t *testing.T) {
	body := `
	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra W;
	setp.ne.u32 %p4, %r1, 0;
	@%p4 bra D;
	mov.u32 %r7, 1;
	st.volatile.shared.u32 [%r4], %r7;
	bra.uni D;
W:
	ld.volatile.shared.u32 %r8, [%r4];
	setp.eq.u32 %p3, %r8, 0;
	@%p3 bra W;
	st.global.u32 [%rd3], %r8;
D:`
	for seed := uint64(1); seed <= 16; seed++ {
		e := newEnv(t, Options{ShuffleSeed: seed, InstrBudget: 1 << 26, RaceCheck: RaceOn})
		k := e.kernel(e.loadSrc("spin.ptx", raceKernel(body)), "k")
		out := e.buf(make([]uint32, 64))
		e.launch(k, rt.D1(1), rt.D1(64), 0, out)
		got := make([]uint32, 64)
		e.get(out, got)
		if got[63] != 1 {
			t.Fatalf("seed %d: the spinning warp read %d", seed, got[63])
		}
	}
}

// The benchmarks of bench_test.go under racecheck: its cost, as
// Gthread-instr/cpu-s beside theirs.
func benchRace(b *testing.B, mode RaceMode, kernel string, grid, block rt.Dim3, smem uint32, n int) {
	e := newEnv(b, Options{RaceCheck: mode})
	lib := e.load("typical_sm90.ptx")
	r := rand.New(rand.NewPCG(1, 1))
	switch kernel {
	case "_Z4vaddPKfS0_Pfi":
		pa, pb, pc := e.buf(randF32(r, n, 0, 1)), e.buf(randF32(r, n, 0, 1)), e.buf(make([]float32, n))
		benchLaunch(b, e, e.kernel(lib, kernel), grid, block, smem, pa, pb, pc, n)
	case "_Z6reducePKfPfi":
		pin, pout := e.buf(randF32(r, n, 0, 1)), e.buf(make([]float32, n/256))
		benchLaunch(b, e, e.kernel(lib, kernel), grid, block, smem, pin, pout, n)
	default:
		pa, pb, pc := e.buf(randF32(r, n*n, -1, 1)), e.buf(randF32(r, n*n, -1, 1)), e.buf(make([]float32, n*n))
		benchLaunch(b, e, e.kernel(lib, kernel), grid, block, smem, pa, pb, pc, n)
	}
}

func BenchmarkRacecheckVadd1M(b *testing.B) {
	benchRace(b, RaceOn, "_Z4vaddPKfS0_Pfi", rt.D1(1<<20/256), rt.D1(256), 0, 1<<20)
}
func BenchmarkRacecheckReduce(b *testing.B) {
	benchRace(b, RaceOn, "_Z6reducePKfPfi", rt.D1(1<<18/256), rt.D1(256), 256*4, 1<<18)
}
func BenchmarkRacecheckMatmul256(b *testing.B) {
	benchRace(b, RaceOn, "_Z2mmPKfS0_Pfi", rt.D2(16, 16), rt.D2(16, 16), 0, 256)
}
func BenchmarkRacecheckStrictMatmul256(b *testing.B) {
	benchRace(b, RaceStrict, "_Z2mmPKfS0_Pfi", rt.D2(16, 16), rt.D2(16, 16), 0, 256)
}
