package kernels_test

import (
	"testing"

	"github.com/cugen/cugen/examples/quickstart/internal/twoctx"
	"github.com/cugen/cugen/examples/quickstart/kernels"
	_ "github.com/cugen/cugen/rt/cgo"
	_ "github.com/cugen/cugen/rt/soft"
)

// TestOneLoadTwoContexts runs on the default backend: the GPU where rt/cgo
// finds one, rt/soft otherwise.
func TestOneLoadTwoContexts(t *testing.T) {
	twoctx.Run(t, twoctx.Kernels{VecAdd: kernels.VecAdd, Scale: kernels.ScaleFloat32, Launches: kernels.Launches, Total: kernels.Total})
}
