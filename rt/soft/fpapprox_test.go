package soft

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

// div.approx/div.full .f32 and the f64 .approx forms against the H100
// (testdata/fpapprox: gpu/fpapprox.cu made the recording, NOTES.md has what
// it printed). The GPU ran structured sweeps (gen below, the same as the
// .cu's) and hashed its results per 2^20 cases; testdata/fpapprox/h100.txt.gz
// holds those hashes (the f64 ones summed per 2^24 high words) and a few
// thousand raw results. The test recomputes the hashes from soft's
// functions, by default for a few chunks per sweep, with
// CUGEN_FPAPPROX_EXHAUSTIVE=1 for all of them (768 M divisions, 3·2^32 f64
// high words), and replays the raw results through PTX kernels.
var fpapproxPack = flag.String("fpapprox.pack", "", "pack the raw output of gpu/fpapprox.cu in this directory into testdata/fpapprox/h100.txt.gz")

func sm64(x uint64) uint64 {
	z := x + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

var (
	divA8   = [8]uint32{0x3f800000, 0x3fc00000, 0x3fffffff, 0x3f800001, 0x40490fdb, 0x3f3504f3, 0xc0a00000, 0x3faaaaab}
	divB8   = [8]uint32{0x3f800000, 0x3fc00000, 0x3fffffff, 0x3f800001, 0x40490fdb, 0x3f3504f3, 0x40400000, 0x3faaaaab}
	divM8   = [8]uint32{0, 1, 0x7fffff, 0x400000, 0x2aaaab, 0x555555, 0x000fff, 0x7ff000}
	divG4   = [4]uint32{0, 1, 253, 254}
	divLens = [5]uint64{8 << 23, 8 << 23, 1 << 24, 1 << 24, 4 << 23}
	divOps  = [4]string{"div.approx.f32", "div.approx.ftz.f32", "div.full.f32", "div.full.ftz.f32"}
	f64Ops  = [3]string{"rcp.approx.ftz.f64", "rsqrt.approx.ftz.f64", "rsqrt.approx.f64"}
)

// divGen is case i of sweep s: 0, all divisors in [1,2) against 8
// dividends; 1, all dividends in [1,2) against 8 divisors; 2, random bit
// pairs; 3, 4096×4096 pairs of every exponent (zero, subnormal, inf/NaN
// included) with 8 mantissas and both signs; 4, divisors of exponent 0, 1,
// 253 and 254 with every mantissa against random dividends.
func divGen(s int, i uint64) (a, b uint32) {
	edge := func(k uint32) uint32 { return (k>>11&1)<<31 | (k&255)<<23 | divM8[k>>8&7] }
	switch s {
	case 0:
		return divA8[i>>23], 0x3f800000 | uint32(i&0x7fffff)
	case 1:
		return 0x3f800000 | uint32(i&0x7fffff), divB8[i>>23]
	case 2:
		m := sm64(i + 2<<40)
		return uint32(m), uint32(m >> 32)
	case 3:
		return edge(uint32(i & 4095)), edge(uint32(i >> 12))
	}
	m := sm64(i + 4<<40)
	return uint32(m), uint32(m>>63)<<31 | divG4[i>>23]<<23 | uint32(i&0x7fffff)
}

// divSoft is what the generated ops compute (ops_gen.go: DivApproxF32,
// DivFullF32 and their .ftz forms).
func divSoft(op int, a, b uint32) uint32 {
	x, y := gpumath.B32F(a), gpumath.B32F(b)
	switch op {
	case 0:
		return uint32(gpumath.R32(gpumath.DivApprox(x, y)))
	case 1:
		return uint32(gpumath.R32(gpumath.Ftz32(gpumath.DivApproxFtz(gpumath.Ftz32(x), gpumath.Ftz32(y)))))
	case 2:
		return uint32(gpumath.R32(gpumath.DivFull(x, y)))
	}
	return uint32(gpumath.R32(gpumath.Ftz32(gpumath.DivFullFtz(gpumath.Ftz32(x), gpumath.Ftz32(y)))))
}

func f64Lo(op int, hi uint32) uint64 {
	if op == 2 {
		return uint64(uint32(sm64(uint64(hi))))
	}
	return 0
}

func f64Soft(op int, x uint64) uint64 {
	switch op {
	case 0:
		return gpumath.RcpApproxFtz64(x)
	case 1:
		return gpumath.RsqrtApproxFtz64(x)
	}
	return gpumath.RsqrtApprox64(x)
}

func divSample(s, k int) uint64 { return uint64(k)*(divLens[s]/1024) + uint64(k%7) }

// fpapproxData is the recording: hashes per (op, sweep) chunk of 2^20 for
// div, per 2^24 high words for f64; raw results of the first samples.
type fpapproxData struct {
	divHash [4][5][]uint64
	f64Hash [3][256]uint64
	divSamp [4][5][]uint32 // results for k = 0, 4, 8, … (divSample)
	f64Samp [3][]uint64    // results for x = sm64(k + 7<<40), k = 0, 1, …
}

const (
	divSampStep = 4
	f64SampN    = 1024
)

func readFpapprox(t *testing.T) *fpapproxData {
	b, err := readTestdata("fpapprox/h100.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	d := &fpapproxData{}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0][0] == '#' {
			continue
		}
		var v []uint64
		for _, x := range f[3:] {
			u, err := strconv.ParseUint(x, 16, 64)
			if err != nil {
				t.Fatalf("h100.txt.gz: %v", err)
			}
			v = append(v, u)
		}
		op, _ := strconv.Atoi(f[1])
		sw, _ := strconv.Atoi(f[2])
		switch f[0] {
		case "divhash":
			d.divHash[op][sw] = v
		case "divsamp":
			for _, x := range v {
				d.divSamp[op][sw] = append(d.divSamp[op][sw], uint32(x))
			}
		case "f64hash":
			copy(d.f64Hash[op][:], v)
		case "f64samp":
			d.f64Samp[op] = v
		}
	}
	return d
}

// packFpapprox writes h100.txt.gz from the files gpu/fpapprox.cu wrote.
func packFpapprox(t *testing.T, dir string) {
	rd := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dh, ds, fh, fs := rd("div_hash.bin"), rd("div_samples.bin"), rd("f64_hash.bin"), rd("f64_samples.bin")
	var buf bytes.Buffer
	buf.WriteString("# H100 results of gpu/fpapprox.cu (see fpapprox_test.go): kind op sweep values (hex)\n")
	line := func(kind string, op, sw int, v []uint64) {
		fmt.Fprintf(&buf, "%s %d %d", kind, op, sw)
		for _, x := range v {
			fmt.Fprintf(&buf, " %x", x)
		}
		buf.WriteByte('\n')
	}
	h, smp := 0, 0
	for op := range 4 {
		for sw := range 5 {
			var v []uint64
			for range divLens[sw] >> 20 {
				v = append(v, binary.LittleEndian.Uint64(dh[8*h:]))
				h++
			}
			line("divhash", op, sw, v)
			v = nil
			for k := 0; k < 1024; k++ {
				if k%divSampStep == 0 {
					v = append(v, uint64(binary.LittleEndian.Uint32(ds[4*(smp+k):])))
				}
			}
			smp += 1024
			line("divsamp", op, sw, v)
		}
	}
	for op := range 3 {
		v := make([]uint64, 256)
		for c := range 4096 {
			v[c>>4] += binary.LittleEndian.Uint64(fh[8*(op*4096+c):])
		}
		line("f64hash", op, 0, v)
		v = nil
		for k := range f64SampN {
			v = append(v, binary.LittleEndian.Uint64(fs[8*(op*4096+k):]))
		}
		line("f64samp", op, 0, v)
	}
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	zw.Write(buf.Bytes())
	zw.Close()
	if err := os.WriteFile(filepath.Join("testdata", "fpapprox", "h100.txt.gz"), z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// parallel runs f(0..n-1) on all CPUs.
func parallel(n int, f func(int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

func TestFpApproxH100(t *testing.T) {
	if *fpapproxPack != "" {
		packFpapprox(t, *fpapproxPack)
	}
	d := readFpapprox(t)
	all := os.Getenv("CUGEN_FPAPPROX_EXHAUSTIVE") != ""
	t.Run("div", func(t *testing.T) {
		type job struct{ op, sw, c int }
		var jobs []job
		for op := range 4 {
			for sw := range 5 {
				n := int(divLens[sw] >> 20)
				if len(d.divHash[op][sw]) != n {
					t.Fatalf("%s sweep %d: %d hashes recorded, want %d", divOps[op], sw, len(d.divHash[op][sw]), n)
				}
				for c := range n {
					// By default: the first and last chunk of each sweep.
					if all || c == 0 || c == n-1 {
						jobs = append(jobs, job{op, sw, c})
					}
				}
			}
		}
		// Under -race, a few of the chunks (each is 2^20 divisions of pure
		// arithmetic); all of them in the ordinary go test.
		jobs = softtest.Strided(jobs, softtest.Sample(16))
		bad := make([]bool, len(jobs))
		parallel(len(jobs), func(j int) {
			jb := jobs[j]
			var h uint64
			for i := uint64(jb.c) << 20; i < uint64(jb.c+1)<<20; i++ {
				a, b := divGen(jb.sw, i)
				h += sm64(uint64(divSoft(jb.op, a, b)) ^ sm64(i))
			}
			bad[j] = h != d.divHash[jb.op][jb.sw][jb.c]
		})
		nbad := 0
		for j, b := range bad {
			if b {
				nbad++
				t.Errorf("%s sweep %d cases %#x..: hash differs from the H100's", divOps[jobs[j].op], jobs[j].sw, jobs[j].c<<20)
			}
		}
		t.Logf("%d chunks of 2^20 divisions checked against the H100's hashes, %d differ", len(jobs), nbad)
	})
	t.Run("f64", func(t *testing.T) {
		type job struct{ op, c int }
		var jobs []job
		for op := range 3 {
			for c := range 256 {
				// By default: zero and subnormals, [1,4), inf/NaN, negatives.
				if all || c == 0 || c == 0x3f || c == 0x40 || c == 0x7f || c == 0xbf {
					jobs = append(jobs, job{op, c})
				}
			}
		}
		// Under -race, one chunk (2^24 evaluations); all in go test.
		jobs = softtest.Strided(jobs, softtest.Sample(16))
		bad := make([]bool, len(jobs))
		parallel(len(jobs), func(j int) {
			jb := jobs[j]
			var h uint64
			for hi := uint64(jb.c) << 24; hi < uint64(jb.c+1)<<24; hi++ {
				x := hi<<32 | f64Lo(jb.op, uint32(hi))
				h += sm64(f64Soft(jb.op, x) ^ sm64(hi))
			}
			bad[j] = h != d.f64Hash[jb.op][jb.c]
		})
		nbad := 0
		for j, b := range bad {
			if b {
				nbad++
				t.Errorf("%s high words %#x..: hash differs from the H100's", f64Ops[jobs[j].op], jobs[j].c<<24)
			}
		}
		t.Logf("%d chunks of 2^24 high words checked against the H100's hashes, %d differ", len(jobs), nbad)
	})
	t.Run("samples", func(t *testing.T) {
		// End to end: the recorded results through PTX kernels.
		dr := New(Options{Deterministic: true})
		ctx, err := dr.PrimaryCtxRetain(0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for op := range 4 {
			o := nanOp{divOps[op][:strings.LastIndex(divOps[op], ".")] + ".f32 %d0, %a0, %a1;", []string{"f32", "f32"}, "f32"}
			var rows [][]uint64
			var want []uint32
			for sw := range 5 {
				for j, w := range d.divSamp[op][sw] {
					a, b := divGen(sw, divSample(sw, j*divSampStep))
					rows = append(rows, []uint64{uint64(a), uint64(b)})
					want = append(want, w)
				}
			}
			got, err := runRows(dr, ctx, o, rows)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				n++
				if uint32(got[i]) != want[i] {
					t.Errorf("%s %#x: soft %#x, H100 %#x", o.ptx, rows[i], got[i], want[i])
				}
			}
		}
		for op := range 3 {
			o := nanOp{f64Ops[op] + " %d0, %a0;", []string{"f64"}, "f64"}
			var rows [][]uint64
			for k := range d.f64Samp[op] {
				rows = append(rows, []uint64{sm64(uint64(k) + 7<<40)})
			}
			got, err := runRows(dr, ctx, o, rows)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				n++
				if got[i] != d.f64Samp[op][i] {
					t.Errorf("%s %#x: soft %#x, H100 %#x", o.ptx, rows[i][0], got[i], d.f64Samp[op][i])
				}
			}
		}
		if n < 8000 {
			t.Errorf("only %d samples", n)
		}
	})
}
