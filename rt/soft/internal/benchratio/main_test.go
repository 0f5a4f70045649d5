package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestNeedRate(t *testing.T) {
	// 100 ms of soft at 1 Gi/s is 1e8 thread-instructions; 10× a 1 ms Go
	// loop is 10 ms, so they would need 10 Gi/s.
	if got := needRate(1, 100e6, 1e6, 10); math.Abs(got-10) > 1e-9 {
		t.Errorf("needRate = %v, want 10", got)
	}
	if got := needRate(1, 100e6, 0, 10); got != 0 {
		t.Errorf("needRate with no Go time = %v, want 0", got)
	}
}

func TestParseGoals(t *testing.T) {
	g, err := parseGoals("matmul256=3,*=10")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := g.of("matmul256"); !ok || v != 3 {
		t.Errorf("matmul256 goal %v %v, want 3", v, ok)
	}
	if v, ok := g.of("vadd1M"); !ok || v != 10 {
		t.Errorf("vadd1M goal %v %v, want the default 10", v, ok)
	}
	for _, bad := range []string{"matmul256", "x=0", "=3", "x=y"} {
		if _, err := parseGoals(bad); err == nil {
			t.Errorf("parseGoals(%q): no error", bad)
		}
	}
	if g, err := parseGoals(""); err != nil || g != nil {
		t.Errorf("parseGoals(\"\") = %v, %v; want no goals", g, err)
	}
}

func TestRead(t *testing.T) {
	f := filepath.Join(t.TempDir(), "b.txt")
	out := "BenchmarkClass/vadd1M/soft-2 \t 3 \t 9596856 ns/op \t 1.278 Gthread-instr/cpu-s \t 18051550 cpu-ns/op\n" +
		"BenchmarkClass/vadd1M/go-2 \t 3 \t 392699 ns/op \t 394750 cpu-ns/op\n" +
		"BenchmarkOther 1 2 ns/op\n"
	if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	s, names, err := read(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != "vadd1M" {
		t.Fatalf("classes %v, want [vadd1M]", names)
	}
	c := s["vadd1M"]
	if c["soft"][0] != 18051550 || c["go"][0] != 394750 || c["rate"][0] != 1.278 {
		t.Errorf("read %v", c)
	}
}
