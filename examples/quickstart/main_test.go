package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestQuickstart runs the example on the default backend: rt/soft in CI, the
// GPU where rt/cgo finds one (CUGEN_BACKEND=cuda forces it).
func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	for _, want := range []string{"c[1] = 1.5", "c[999] = 1498.5", "managed total = 499500", "launches in this context = 1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}
