//go:build cgo

package nccl

// SetCurrent is setCurrent, for the binding tests in package nccl_test.
var SetCurrent = setCurrent
