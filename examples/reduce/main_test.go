package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestReduce(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, 100_000); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "sum of 100000 floats") {
		t.Errorf("output: %s", out.String())
	}
	t.Log(out.String())
}
