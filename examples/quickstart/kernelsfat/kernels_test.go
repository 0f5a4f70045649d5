package kernelsfat_test

import (
	"testing"

	"github.com/cugen/cugen/examples/quickstart/internal/twoctx"
	"github.com/cugen/cugen/examples/quickstart/kernelsfat"
	_ "github.com/cugen/cugen/rt/cgo"
	_ "github.com/cugen/cugen/rt/soft"
)

// TestOneLoadTwoContexts runs on the default backend: the GPU where rt/cgo
// finds one, rt/soft otherwise.
func TestOneLoadTwoContexts(t *testing.T) {
	twoctx.Run(t, twoctx.Kernels{VecAdd: kernelsfat.VecAdd, Scale: kernelsfat.ScaleFloat32, Launches: kernelsfat.Launches, Total: kernelsfat.Total})
}
