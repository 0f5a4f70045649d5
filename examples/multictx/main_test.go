package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestMultiContext(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 2 {
		t.Fatalf("%d contexts reported, want at least 2", len(lines))
	}
	addrs := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(l[strings.Index(l, " base at "):])
		addrs[f[2]] = true
	}
	if len(addrs) != len(lines) {
		t.Errorf("contexts share a __device__ address: %v", addrs)
	}
}
