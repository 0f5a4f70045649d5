package main

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/cgo"
	"github.com/cugen/cugen/rt/soft"
)

var testConfig = Config{Rows: 64, Features: 8, Steps: 40, LR: 0.5, Seed: 7}

// check asserts what data-parallel training promises: the loss falls, the
// replicas end bit-identical, and the weights found are the data's.
func check(t *testing.T, res *Result) {
	t.Helper()
	first, last := res.Losses[0], res.Losses[len(res.Losses)-1]
	t.Logf("%s: loss %.6g -> %.6g over %d steps", res.Engine, first, last, len(res.Losses)-1)
	if !(last < first/100) {
		t.Errorf("the loss went from %g to %g: it did not fall a hundredfold", first, last)
	}
	for r, w := range res.Weights[1:] {
		if !slices.Equal(w, res.Weights[0]) { // float ==: bit-identical but for ±0
			t.Errorf("replica %d's weights %v differ from replica 0's %v", r+1, w, res.Weights[0])
		}
	}
	for j, w := range res.Weights[0] {
		if math.Abs(float64(w-res.Truth[j])) > 0.02 {
			t.Errorf("weight %d is %g, the data's %g", j, w, res.Truth[j])
		}
	}
}

func softContexts(t *testing.T, n int) []*rt.Context {
	devs, err := rt.DevicesOf(soft.New(soft.Options{Devices: n}))
	if err != nil {
		t.Fatal(err)
	}
	var ctxs []*rt.Context
	for _, d := range devs {
		c, err := d.Primary()
		if err != nil {
			t.Fatal(err)
		}
		ctxs = append(ctxs, c)
	}
	return ctxs
}

// Four soft devices, as CI runs it; eagerly and as graphs, which must
// agree bit for bit (the kernels and the rank-order reduction are
// deterministic).
func TestDDPSoft(t *testing.T) {
	eager, err := Train(softContexts(t, 4), testConfig)
	if err != nil {
		t.Fatal(err)
	}
	check(t, eager)
	cfg := testConfig
	cfg.Graph = true
	graph, err := Train(softContexts(t, 4), cfg)
	if err != nil {
		t.Fatal(err)
	}
	check(t, graph)
	if !slices.Equal(graph.Losses, eager.Losses) || !slices.Equal(graph.Weights[0], eager.Weights[0]) {
		t.Errorf("graphs and eager steps differ:\n%v\n%v", graph.Losses, eager.Losses)
	}
}

// Every GPU present (skipped without one, or without NCCL).
func TestDDPGPU(t *testing.T) {
	d, err := cgo.New()
	if err != nil {
		t.Skipf("skipped: no GPU: %v", err)
	}
	devs, err := rt.DevicesOf(d)
	if err != nil {
		t.Skipf("skipped: no GPU: %v", err)
	}
	var ctxs []*rt.Context
	for _, dv := range devs {
		c, err := dv.Primary()
		if err != nil {
			t.Fatal(err)
		}
		ctxs = append(ctxs, c)
	}
	for _, graph := range []bool{false, true} {
		cfg := testConfig
		cfg.Graph = graph
		res, err := Train(ctxs, cfg)
		if err != nil && strings.Contains(err.Error(), "no usable libnccl.so.2") {
			t.Skipf("skipped: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d GPUs, graph %v", len(ctxs), graph)
		check(t, res)
	}
}

func TestRun(t *testing.T) {
	t.Setenv(rt.EnvBackend, "soft")
	t.Setenv("CUGEN_SOFT_DEVICES", "2")
	var out bytes.Buffer
	cfg := testConfig
	cfg.Steps = 10
	if err := run(&out, cfg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "2 devices, collectives by soft") {
		t.Errorf("output:\n%s", out.String())
	}
}
