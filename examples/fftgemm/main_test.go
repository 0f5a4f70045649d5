package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/examples/fftgemm/mathlib/nvidia"
	"github.com/cugen/cugen/examples/fftgemm/mathlib/standin"
	"github.com/cugen/cugen/rt"
)

// TestStandIn runs the pipeline with the Go stand-in for cuRAND, cuBLAS and cuFFT
// on the default backend (rt/soft in CI, the GPU under
// CUGEN_BACKEND=cuda): the generated kernels, the stand-in's stream-ordered
// work and the events between the streams against the host reference.
func TestStandIn(t *testing.T) {
	d, err := rt.Default()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := solve(&out, d, standin.New(d), newProblem(16, 64, 9, 8, 1))
	os.Stdout.Write(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	nonzero := 0
	for _, v := range res.y {
		if v != 0 {
			nonzero++
		}
	}
	if nonzero < len(res.y)/4 {
		t.Errorf("only %d of %d outputs are not zero: a check of almost nothing", nonzero, len(res.y))
	}
}

// TestNVIDIA runs the pipeline with cuRAND, cuBLAS and cuFFT on the GPU, the
// sizes main runs, and prints what it checked: the noise's moments (solve
// checks them) and the result against the host reference, which adds the
// noise read back, so cuRAND must have run in the stream's order. It skips, saying why, without a
// GPU backend or the libraries.
func TestNVIDIA(t *testing.T) {
	d, err := rt.Default()
	if err != nil {
		t.Fatal(err)
	}
	if d.Name() != "cuda" {
		t.Skipf("the default backend is %s: cuBLAS and cuFFT need the GPU (CUGEN_BACKEND=cuda)", d.Name())
	}
	libs, err := nvidia.Open()
	if err != nil {
		t.Skipf("%v", err)
	}
	var out bytes.Buffer
	_, err = solve(&out, d, libs, newProblem(64, 256, 20, 32, 1))
	os.Stdout.Write(out.Bytes()) // the closing note quotes it
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoise checks the thermal noise: solve checks its moments; the same
// seed gives the same samples, another seed others; cuRAND's rule that a
// normal batch is even holds for the stand-in too. With cuRAND when the
// GPU and library are there (CUGEN_BACKEND=cuda), else the stand-in.
func TestNoise(t *testing.T) {
	d, err := rt.Default()
	if err != nil {
		t.Fatal(err)
	}
	libs, err := libsFor(d)
	if err != nil {
		t.Fatal(err)
	}
	printed := false
	run := func(seed uint64) []float32 {
		t.Helper()
		var out bytes.Buffer
		res, err := solve(&out, d, libs, newProblem(8, 64, 9, 4, seed))
		if err != nil {
			t.Fatalf("%v\n%s", err, out.Bytes())
		}
		if !printed {
			os.Stdout.Write(out.Bytes())
			printed = true
		}
		return res.noise
	}
	a, b, c := run(7), run(7), run(8)
	if len(a) != 2*8*64 {
		t.Fatalf("%d noise samples, want %d", len(a), 2*8*64)
	}
	if !slices.Equal(a, b) {
		t.Errorf("seed 7 gave different samples in two runs")
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 gave the same samples")
	}
	for _, m := range []struct {
		mean, variance float64
		ok             bool
	}{{0.001, 1.01, true}, {0.3, 1, false}, {0, 0.5, false}, {0, 0, false}} {
		if err := checkMoments(m.mean, m.variance, 1024); (err == nil) != m.ok {
			t.Errorf("checkMoments(%v, %v, 1024): %v", m.mean, m.variance, err)
		}
	}
	if _, ok := libs.(*standin.Libs); ok {
		devs, err := rt.DevicesOf(d)
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := devs[0].Primary()
		if err != nil {
			t.Fatal(err)
		}
		defer ctx.Release()
		s, _ := ctx.NewStream()
		defer s.Destroy()
		g, err := libs.NewRNG(1, s.Handle())
		if err != nil {
			t.Fatal(err)
		}
		defer g.Destroy()
		buf, _ := rt.Alloc[float32](ctx, 3)
		defer buf.Free()
		if err := g.Normal(buf.Ptr.Addr(), 3, 0, 1); err == nil || !strings.Contains(err.Error(), "CURAND_STATUS_LENGTH_NOT_MULTIPLE") {
			t.Errorf("3 normal samples: %v, want cuRAND's LENGTH_NOT_MULTIPLE", err)
		}
	}
}
