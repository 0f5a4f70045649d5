//go:build cgo

package nccl

// SetCurrent is setCurrent, for the binding tests in package nccl_test.
var SetCurrent = setCurrent

// DevCommBytes and DestroyDevCommBytes are devCommBytes and
// destroyDevCommBytes: NCCL 2.28.7+'s one-rank device communicator.
var (
	DevCommBytes        = devCommBytes
	DestroyDevCommBytes = destroyDevCommBytes
)
