//go:build !cgo

package cgo

import (
	"errors"

	"github.com/cugen/cugen/rt"
)

// errNoCgo is what New returns in a build without cgo.
var errNoCgo = errors.New("rt/cgo: built with CGO_ENABLED=0; the CUDA backend needs cgo (rebuild with CGO_ENABLED=1, or use rt/soft)")

// Driver is the CUDA driver backend. In a build without cgo it cannot be
// created: New always fails.
type Driver struct{ rt.Driver }

func init() {
	rt.Register("cuda", 0, func() (rt.Driver, error) { return nil, errNoCgo })
}

// New always fails without cgo.
func New() (*Driver, error) { return nil, errNoCgo }
