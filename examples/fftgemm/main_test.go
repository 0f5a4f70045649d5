package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/cugen/cugen/examples/fftgemm/mathlib/nvidia"
	"github.com/cugen/cugen/examples/fftgemm/mathlib/standin"
	"github.com/cugen/cugen/rt"
)

// TestStandIn runs the pipeline with the Go stand-in for cuBLAS and cuFFT
// on the default backend (rt/soft in CI, the GPU under
// CUGEN_BACKEND=cuda): the generated kernels, the stand-in's stream-ordered
// work and the events between the streams against the host reference.
func TestStandIn(t *testing.T) {
	d, err := rt.Default()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := solve(&out, d, standin.New(d), newProblem(16, 64, 9, 8))
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

// TestNVIDIA runs the pipeline with cuBLAS and cuFFT on the GPU, the sizes
// main runs, and prints what it checked. It skips, saying why, without a
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
	_, err = solve(&out, d, libs, newProblem(64, 256, 20, 32))
	os.Stdout.Write(out.Bytes()) // the closing note quotes it
	if err != nil {
		t.Fatal(err)
	}
}
