package clang

import (
	"flag"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cugen/cugen/cmd/cugen/internal/clang/mathgen"
	"github.com/cugen/cugen/rt"
)

var (
	mathN    = flag.Int("math.n", 1500, "inputs per function in TestClangMath")
	mathSeed = flag.Uint64("math.seed", 1, "seed of TestClangMath's inputs")
)

// TestClangMath compiles one kernel per CUDA math function with cugen's
// clang route, runs each on rt/soft over random and special inputs, and
// holds every result to CUDA's documented maximum ulp error against the
// correctly rounded value (mathgen's high-precision reference). rt/soft is
// bit-exact with the GPU for the IEEE operations these use, so the errors
// are the GPU's; the README's table has the same measure over millions of
// inputs on an H100.
func TestClangMath(t *testing.T) {
	t.Parallel()
	cases := mathgen.Cases
	ptx := compileClang(t, "math.cu", mathgen.KernelSource(cases), "sm_70")
	ctx := softCtx(t)
	lib := rt.NewLibrary("math.ptx", ptx)
	type res struct {
		name    string
		bound   float64
		max     float64
		worst   string
		checked int
	}
	results := make([]res, len(cases))
	var mu sync.Mutex
	for ci, c := range cases {
		inputs := c.Inputs(*mathSeed, *mathN)
		got := runCase(t, ctx, lib, c, inputs)
		r := res{name: c.Name, bound: c.Bound}
		for i, a := range inputs {
			want := c.Ref(c.Prec(), a)
			e := mathgen.UlpError(c.Single, got[i], want)
			if c.Within != nil && !c.Within(a) {
				continue
			}
			r.checked++
			if e > r.max {
				r.max = e
				var w string
				if want.NaN {
					w = "NaN"
				} else {
					wf, _ := want.V.Float64()
					w = fmt.Sprint(wf)
				}
				r.worst = fmt.Sprintf("%s(%s) = %v, want %s", c.Name, fmtArgs(a), got[i], w)
			}
		}
		mu.Lock()
		results[ci] = r
		mu.Unlock()
		if r.max > c.Bound {
			t.Errorf("%s: %.0f ulp > CUDA's %g: %s", c.Name, r.max, c.Bound, r.worst)
		}
	}
	sort.Slice(results, func(i, j int) bool { return results[i].name < results[j].name })
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "%-12s max %2.0f ulp (bound %g) over %d\n", r.name, r.max, r.bound, r.checked)
	}
	t.Logf("max ulp errors:\n%s", b.String())
}

func fmtArgs(a []float64) string {
	var s []string
	for _, v := range a {
		s = append(s, fmt.Sprintf("%v [%s]", v, hexf(v)))
	}
	return strings.Join(s, ", ")
}

// runCase evaluates c's kernel over inputs on ctx and returns the results
// as float64s.
func runCase(t testing.TB, ctx *rt.Context, lib *rt.Library, c mathgen.Case, inputs [][]float64) []float64 {
	t.Helper()
	n := len(inputs)
	grid := (n + 127) / 128
	out := make([]float64, n)
	if c.Single {
		x := make([]float32, 0, n*c.Args)
		for _, a := range inputs {
			for _, v := range a {
				x = append(x, float32(v))
			}
		}
		xb, yb := devBuf(t, ctx, x), devZero[float32](t, ctx, n)
		launch(t, ctx, lib, c.Kernel(), grid, 128, new(kernelArgs).ptr(xb.Ptr.Addr()).ptr(yb.Ptr.Addr()).i32(int32(n)))
		for i, v := range toHost(t, yb) {
			out[i] = float64(v)
		}
		return out
	}
	x := make([]float64, 0, n*c.Args)
	for _, a := range inputs {
		x = append(x, a...)
	}
	xb, yb := devBuf(t, ctx, x), devZero[float64](t, ctx, n)
	launch(t, ctx, lib, c.Kernel(), grid, 128, new(kernelArgs).ptr(xb.Ptr.Addr()).ptr(yb.Ptr.Addr()).i32(int32(n)))
	copy(out, toHost(t, yb))
	return out
}

var _ = math.NaN
