//go:build cgo

package cgo

/*
#include "shim.h"
#include "shim_ext.h"
*/
import "C"

import "unsafe"

// shimEntries are the addresses of the shim functions that the tests' C
// loops (rt/cgo/internal/cbench, linked into the tests only) time from C.
func shimEntries() (launch, launchPlaced, execKernelSet unsafe.Pointer) {
	return unsafe.Pointer(C.cg_launch), unsafe.Pointer(C.cg_launch_placed), unsafe.Pointer(C.cgx_exec_kernel_set)
}
