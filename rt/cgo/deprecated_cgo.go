//go:build cgo

package cgo

import "github.com/cugen/cugen/rt"

// KernelParamSpecs is KernelParamInfo, its name before 1a78ce7.
//
// Deprecated: use KernelParamInfo (rt.ParamInfoer).
func (d *Driver) KernelParamSpecs(h rt.KernelHandle) ([]rt.ParamSpec, error) {
	return d.KernelParamInfo(h)
}
