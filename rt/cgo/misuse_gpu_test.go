//go:build cgo

package cgo

import (
	"testing"

	"github.com/cugen/cugen/rt/rttest"
)

// TestMisuse runs rttest's misuse cases on the GPU: rt's answers to nil,
// zero, released, destroyed and foreign arguments, overflowing sizes, CUDA
// calls from host functions and destroyed captures, as on rt/soft. It
// prints "MISUSE cuda: N cases, M failed" and, for the two cases whose
// code CUDA does not document, "MISUSE-CAPTURE cuda: …" with CUDA's
// answer.
func TestMisuse(t *testing.T) {
	d := gpu(t)
	rttest.TestMisuse(t, d, rttest.Options{PerContextModules: !d.ContextIndependent()})
}
