package tensormap

import (
	"fmt"

	"github.com/cugen/cugen/rt/internal/cuerr"
)

// Encoder is the capability of a backend that encodes tensor maps (CUDA
// 12.0+; TMA itself needs sm_90); rt/cgo and rt/soft implement it.
// EncodeTiled and EncodeIm2col validate a description before they pass it
// on; a backend may rely on that, and rt/soft validates again for callers
// that come to it directly.
type Encoder interface {
	EncodeTiled(t *Tiled) (Map, error)   // cuTensorMapEncodeTiled
	EncodeIm2col(t *Im2col) (Map, error) // cuTensorMapEncodeIm2col
}

// Driver is what EncodeTiled and EncodeIm2col take: any rt.Driver, which
// they ask for the Encoder capability. (An interface of its own, so that
// this package needs nothing of rt.)
type Driver interface {
	Name() string
}

// EncodeTiled encodes a tiled tensor map on d (rt.ErrNotSupported if d
// cannot encode one). Its errors name the field that breaks a rule
// cuTensorMapEncodeTiled documents, before the driver is asked.
func EncodeTiled(d Driver, t Tiled) (Map, error) {
	e, err := encoder("tensormap.EncodeTiled", d)
	if err != nil {
		return Map{}, err
	}
	if err := t.Validate(); err != nil {
		return Map{}, err
	}
	return e.EncodeTiled(&t)
}

// EncodeIm2col encodes an im2col tensor map on d, as EncodeTiled does a
// tiled one.
func EncodeIm2col(d Driver, t Im2col) (Map, error) {
	e, err := encoder("tensormap.EncodeIm2col", d)
	if err != nil {
		return Map{}, err
	}
	if err := t.Validate(); err != nil {
		return Map{}, err
	}
	return e.EncodeIm2col(&t)
}

func encoder(op string, d Driver) (Encoder, error) {
	if d == nil {
		return nil, cuerr.Invalid(op, "a nil driver (drivers come from rt.Default, rt.Open or a backend's New)")
	}
	e, ok := d.(Encoder)
	if !ok {
		return nil, cuerr.New(op, cuerr.NotSupported, fmt.Sprintf("backend %s cannot encode tensor maps (tensormap.Encoder)", d.Name()))
	}
	return e, nil
}
