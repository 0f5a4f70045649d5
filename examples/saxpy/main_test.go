package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestSaxpy(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "saxpy<float>:  y[2999] = 5999") || !strings.Contains(out.String(), "saxpy<double>: y[2999] = 2000.3333333333333") {
		t.Errorf("output:\n%s", out.String())
	}
}
