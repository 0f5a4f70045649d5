// Command ulptable measures cugen's CUDA math library on a GPU: it runs the
// kernels of mathgen.KernelSource compiled by cugen's clang route (-clang)
// and by nvcc with the toolkit's libdevice (-nvcc) over the same inputs,
// and prints, per function, CUDA's documented bound and the maximum ulp
// error of each against the correctly rounded result, and of cugen against
// libdevice.
//
//	ulptable -clang clang_math.ptx -nvcc nvcc_math.ptx -backend cuda -out dir
//
// Float functions get -nf inputs each; the correctly rounded reference is
// Go's float64 math rounded to float where that is within a double ulp, and
// mathgen's high-precision functions elsewhere, computed by every core for
// at most -budget per function (the rows say over how many inputs). Double
// functions get -nd inputs; their reference is always the high-precision
// one, under the same budget. The comparison with libdevice covers every
// input. One function failing (a kernel missing, a launch error) is reported
// in its row and does not stop the table.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cugen/cugen/cmd/cugen/internal/clang/mathgen"
	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/cgo"
	_ "github.com/cugen/cugen/rt/soft"
)

func main() {
	clangPTX := flag.String("clang", "", "PTX of mathgen.KernelSource from cugen's clang route")
	nvccPTX := flag.String("nvcc", "", "PTX of the same source from nvcc (optional)")
	backend := flag.String("backend", "cuda", "rt backend: cuda or soft")
	nf := flag.Int("nf", 1<<24, "inputs per float function")
	nd := flag.Int("nd", 1<<20, "inputs per double function")
	budget := flag.Duration("budget", 2*time.Second, "wall time per function for the high-precision reference")
	only := flag.String("cases", "", "regexp: only these functions")
	out := flag.String("out", "", "directory for table.md and table.tsv (default: stdout only)")
	src := flag.String("src", "", "write the kernels' CUDA source to this file and exit")
	seed := flag.Uint64("seed", 1, "seed of the inputs")
	deadline := flag.Duration("deadline", 0, "after this long, skip the remaining high-precision references (0: none)")
	softN := flag.Int("softcheck", 0, "also run the first N inputs of each function on rt/soft and count results that differ from the backend's")
	flag.Parse()

	cases := append(append([]mathgen.Case{}, mathgen.Cases...), mathgen.IntrinsicCases...)
	if *src != "" {
		if err := os.WriteFile(*src, []byte(mathgen.KernelSource(cases)), 0o644); err != nil {
			fail(err)
		}
		return
	}
	drv, err := rt.Open(*backend)
	if err != nil {
		fail(err)
	}
	ctx, err := primary(drv)
	if err != nil {
		fail(err)
	}
	name, _ := ctx.Device().Name()
	libs := map[string]*rt.Library{}
	for tag, path := range map[string]string{"cugen": *clangPTX, "libdevice": *nvccPTX} {
		if path == "" {
			continue
		}
		img, err := os.ReadFile(path)
		if err != nil {
			fail(err)
		}
		libs[tag] = rt.NewLibrary(filepath.Base(path), img)
	}
	if libs["cugen"] == nil {
		fail(fmt.Errorf("-clang is required"))
	}
	var softCtx *rt.Context
	if *softN > 0 {
		sd, err := rt.Open("soft")
		if err != nil {
			fail(err)
		}
		if softCtx, err = primary(sd); err != nil {
			fail(err)
		}
		img, _ := os.ReadFile(*clangPTX)
		libs["soft"] = rt.NewLibrary(filepath.Base(*clangPTX), img)
	}
	var re *regexp.Regexp
	if *only != "" {
		re = regexp.MustCompile(*only)
	}

	// Rows are written as they are measured, so that a run cut short
	// still leaves the table so far.
	md, tsv := io.Writer(io.Discard), io.Writer(io.Discard)
	if *out != "" {
		os.MkdirAll(*out, 0o755)
		fm, err1 := os.Create(filepath.Join(*out, "table.md"))
		ft, err2 := os.Create(filepath.Join(*out, "table.tsv"))
		if err1 != nil || err2 != nil {
			fail(fmt.Errorf("%v %v", err1, err2))
		}
		defer fm.Close()
		defer ft.Close()
		md, tsv = fm, ft
	}
	md = io.MultiWriter(md, os.Stdout)
	fmt.Fprintf(md, "Measured on %s (%s backend); float functions over %d inputs, double over %d.\n\n", name, *backend, *nf, *nd)
	fmt.Fprint(md, "| function | CUDA's bound (ulp) | cugen vs correctly rounded | libdevice vs correctly rounded | cugen vs libdevice |\n")
	fmt.Fprint(md, "|---|---|---|---|---|\n")
	fmt.Fprint(tsv, "function\tbound\tcugen_cr\tlibdevice_cr\tcr_inputs\tcugen_libdevice\tinputs\tdiffering\tworst\tsoft_differ\n")
	start := time.Now()
	for _, c := range cases {
		if re != nil && !re.MatchString(c.Name) {
			continue
		}
		b := *budget
		if *deadline > 0 && time.Since(start) > *deadline {
			b = 0
		}
		row := measure(ctx, libs, c, *nf, *nd, b, *seed)
		row.softDiffer = "–"
		if softCtx != nil {
			row.softDiffer = softCheck(ctx, softCtx, libs, c, *softN, *seed)
		}
		bound := fmt.Sprint(c.Bound)
		if c.BoundText != "" {
			bound = c.BoundText
		}
		if c.Note != "" {
			bound += " (" + c.Note + ")"
		}
		fmt.Fprintf(md, "| `%s` | %s | %s | %s | %s |\n", c.Name, bound, row.cugenCR, row.libCR, row.vsLib)
		fmt.Fprintf(tsv, "%s\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%s\t%s\n", c.Name, bound, row.cugenCR, row.libCR, row.crN, row.vsLib, row.n, row.differ, row.worst, row.softDiffer)
		fmt.Fprintf(os.Stderr, "%-14s cugen %-8s libdevice %-8s vs-lib %-8s (%d/%d inputs, %d differ) soft≠ %s %s [%v]\n",
			c.Name, row.cugenCR, row.libCR, row.vsLib, row.crN, row.n, row.differ, row.softDiffer, row.worst, time.Since(start).Round(time.Second))
	}
}

type row struct {
	cugenCR, libCR, vsLib string
	softDiffer            string
	crN, n, differ        int
	worst                 string
}

func measure(ctx *rt.Context, libs map[string]*rt.Library, c mathgen.Case, nf, nd int, budget time.Duration, seed uint64) (r row) {
	defer func() {
		if p := recover(); p != nil {
			r = row{cugenCR: "error", libCR: "error", vsLib: "error", worst: fmt.Sprint(p)}
		}
	}()
	n := nd
	if c.Single {
		n = nf
	}
	inputs := c.Inputs(seed, n)
	r.n = n
	got := map[string][]float64{}
	for _, tag := range []string{"cugen", "libdevice"} {
		lib := libs[tag]
		if lib == nil {
			continue
		}
		res, err := run(ctx, lib, c, inputs)
		if err != nil {
			r.worst += tag + ": " + err.Error() + " "
			continue
		}
		got[tag] = res
	}
	a, b := got["cugen"], got["libdevice"]
	r.vsLib = "–"
	if a != nil && b != nil {
		maxd := 0.0
		for i := range a {
			d := mathgen.UlpErrorF64(c.Single, a[i], b[i])
			if d > 0 {
				r.differ++
			}
			if d > maxd {
				maxd = d
				r.worst = fmt.Sprintf("%s(%v): cugen %v, libdevice %v", c.Name, inputs[i], a[i], b[i])
			}
		}
		r.vsLib = ulps(maxd)
	}
	// The correctly rounded reference, by every core, within the budget.
	var next, done atomic.Int64
	maxA, maxB := make([]float64, runtime.NumCPU()), make([]float64, runtime.NumCPU())
	deadline := time.Now().Add(budget)
	var wg sync.WaitGroup
	for w := range maxA {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || (i%64 == 0 && time.Now().After(deadline) && c.Fast == nil) {
					return
				}
				a0 := inputs[i]
				if c.Within != nil && !c.Within(a0) {
					done.Add(1)
					continue
				}
				if c.Fast != nil && finite(a0) {
					want := c.Fast(a0)
					if a != nil {
						maxA[w] = math.Max(maxA[w], mathgen.UlpErrorF64(c.Single, a[i], want))
					}
					if b != nil {
						maxB[w] = math.Max(maxB[w], mathgen.UlpErrorF64(c.Single, b[i], want))
					}
				} else {
					want := c.Ref(c.Prec(), a0)
					if a != nil {
						maxA[w] = math.Max(maxA[w], mathgen.UlpError(c.Single, a[i], want))
					}
					if b != nil {
						maxB[w] = math.Max(maxB[w], mathgen.UlpError(c.Single, b[i], want))
					}
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	r.crN = int(done.Load())
	mA, mB := 0.0, 0.0
	for w := range maxA {
		mA, mB = math.Max(mA, maxA[w]), math.Max(mB, maxB[w])
	}
	suffix := ""
	if r.crN < n {
		suffix = fmt.Sprintf(" (%s inputs)", count(r.crN))
	}
	r.cugenCR, r.libCR = ulps(mA)+suffix, "–"
	if b != nil {
		r.libCR = ulps(mB)
	}
	if a == nil {
		r.cugenCR = "error"
	}
	return r
}

// softCheck runs the first n inputs of c on rt/soft and on the backend and
// counts results that are not the same bits (NaNs alike).
func softCheck(ctx, softCtx *rt.Context, libs map[string]*rt.Library, c mathgen.Case, n int, seed uint64) (s string) {
	defer func() {
		if p := recover(); p != nil {
			s = fmt.Sprint("error: ", p)
		}
	}()
	in := c.Inputs(seed, n)
	a, err := run(ctx, libs["cugen"], c, in)
	if err != nil {
		return "error: " + err.Error()
	}
	b, err := run(softCtx, libs["soft"], c, in)
	if err != nil {
		return "error: " + err.Error()
	}
	d := 0
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			d++
		}
	}
	return fmt.Sprintf("%d/%d", d, n)
}

func finite(a []float64) bool {
	for _, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func count(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%dK", n>>10)
	}
	return fmt.Sprint(n)
}

func ulps(e float64) string {
	if math.IsInf(e, 1) {
		return "NaN/inf mismatch"
	}
	return fmt.Sprintf("%.0f", e)
}

// run evaluates c's kernel of lib over the inputs, in chunks.
func run(ctx *rt.Context, lib *rt.Library, c mathgen.Case, inputs [][]float64) ([]float64, error) {
	n := len(inputs)
	k := lib.Kernel(c.Kernel(), rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 8}, rt.ParamSpec{Offset: 16, Size: 4})
	out := make([]float64, n)
	const chunk = 1 << 22
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		m := hi - lo
		var xp, yp rt.DevPtr
		var free []func() error
		if c.Single {
			x := make([]float32, 0, m*c.Args)
			for _, a := range inputs[lo:hi] {
				for _, v := range a {
					x = append(x, float32(v))
				}
			}
			xb, err := rt.AllocFrom(ctx, x)
			if err != nil {
				return nil, err
			}
			yb, err := rt.Alloc[float32](ctx, m)
			if err != nil {
				return nil, err
			}
			xp, yp, free = xb.Ptr.Addr(), yb.Ptr.Addr(), []func() error{xb.Free, yb.Free}
			if err := launch(ctx, k, xp, yp, m); err != nil {
				return nil, err
			}
			y, err := yb.ToHost()
			if err != nil {
				return nil, err
			}
			for i, v := range y {
				out[lo+i] = float64(v)
			}
		} else {
			x := make([]float64, 0, m*c.Args)
			for _, a := range inputs[lo:hi] {
				x = append(x, a...)
			}
			xb, err := rt.AllocFrom(ctx, x)
			if err != nil {
				return nil, err
			}
			yb, err := rt.Alloc[float64](ctx, m)
			if err != nil {
				return nil, err
			}
			xp, yp, free = xb.Ptr.Addr(), yb.Ptr.Addr(), []func() error{xb.Free, yb.Free}
			if err := launch(ctx, k, xp, yp, m); err != nil {
				return nil, err
			}
			y, err := yb.ToHost()
			if err != nil {
				return nil, err
			}
			copy(out[lo:], y)
		}
		for _, f := range free {
			f()
		}
	}
	return out, nil
}

func launch(ctx *rt.Context, k *rt.Kernel, x, y rt.DevPtr, n int) error {
	p := make([]byte, 20)
	put := func(off int, v uint64, size int) {
		for i := 0; i < size; i++ {
			p[off+i] = byte(v >> (8 * i))
		}
	}
	put(0, uint64(x), 8)
	put(8, uint64(y), 8)
	put(16, uint64(n), 4)
	if err := k.Launch(rt.Config{Grid: rt.D1((n + 255) / 256), Block: rt.D1(256), Stream: ctx.NullStream()}, p); err != nil {
		return err
	}
	return ctx.Synchronize()
}

// primary is device 0's primary context in d.
func primary(d rt.Driver) (*rt.Context, error) {
	devs, err := rt.DevicesOf(d)
	if err != nil {
		return nil, err
	}
	return devs[0].Primary()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ulptable:", err)
	os.Exit(1)
}
