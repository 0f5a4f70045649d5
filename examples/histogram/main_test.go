package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestHistogram(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	for _, want := range []string{"10000 bytes histogrammed, bins ok, seen (per context) = 10000", "5000 bytes histogrammed, bins ok, seen (per context) = 5000", "managed total (all contexts) = 15000"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}
