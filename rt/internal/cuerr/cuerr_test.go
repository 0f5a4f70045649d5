package cuerr

import "testing"

// TestFallback: without rt linked (this test binary has none), errors are
// plain ones that still say what failed.
func TestFallback(t *testing.T) {
	err := Invalid("cuArray3DCreate", "width %d", 0)
	if err == nil || err.Error() != "cuArray3DCreate: CUresult 1: width 0" {
		t.Errorf("%v", err)
	}
}
