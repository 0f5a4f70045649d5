package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestStructs(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if !strings.Contains(out.String(), "out[7] = 4327.75") || !strings.Contains(out.String(), "= [321 4506 38]") ||
		!strings.Contains(out.String(), "weigh(Particle{mass 5.5, tags [100 -200 300], ...}) = 333") {
		t.Errorf("output:\n%s", out.String())
	}
}
