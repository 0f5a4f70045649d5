// Package cuerr lets the packages rt imports (rt/tex, rt/tensormap) fail with rt's
// errors. They cannot import rt, which imports them, so rt installs its
// constructor here in its init, which runs before any code of a program
// that links rt: their errors are then *rt.Error values, as if rt had made
// them. A program that links one of them without rt gets a plain error
// with the same text.
package cuerr

import "fmt"

// The codes these packages fail with: CUDA_ERROR_INVALID_VALUE
// (rt.ErrInvalidValue) and CUDA_ERROR_NOT_SUPPORTED (rt.ErrNotSupported).
const (
	InvalidValue = 1
	NotSupported = 801
)

// New builds the error of a failed op; rt replaces it.
var New = func(op string, code int32, detail string) error {
	return fmt.Errorf("%s: CUresult %d: %s", op, code, detail)
}

// Invalid is New with InvalidValue and a formatted detail.
func Invalid(op, format string, args ...any) error {
	return New(op, InvalidValue, fmt.Sprintf(format, args...))
}
