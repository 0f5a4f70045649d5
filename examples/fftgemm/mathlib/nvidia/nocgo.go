//go:build !cgo

package nvidia

import (
	"errors"

	"github.com/cugen/cugen/examples/fftgemm/mathlib"
)

// Libs is cuBLAS, cuFFT and cuRAND; without cgo there is no binding.
type Libs struct{ mathlib.Libs }

// Open fails: the binding needs cgo.
func Open() (*Libs, error) {
	return nil, errors.New("nvidia: built without cgo (CGO_ENABLED=0): no binding to cuBLAS, cuFFT and cuRAND")
}
