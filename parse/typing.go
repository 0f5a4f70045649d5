package parse

import (
	"errors"
	"fmt"
)

// typeKernels attaches to each kernel the C++ parameter types its mangled
// name gives. A kernel it cannot type keeps its binary widths, with a
// warning naming it: one odd name never costs the other kernels.
func typeKernels(m *Module) {
	for _, k := range m.Kernels {
		if w := typeKernel(k); w != "" {
			m.Warnings = append(m.Warnings, w)
		}
	}
}

// typeKernel types one kernel and returns a warning when it cannot.
func typeKernel(k *Kernel) (warning string) {
	k.Signature, k.Untyped = nil, ""
	sig, err := Demangle(k.Name)
	switch {
	case err == ErrNotMangled:
		return ""
	case err != nil:
		var de *DemangleError
		if errors.As(err, &de) {
			err = de.Err
		}
		k.Untyped = "its name does not demangle: " + err.Error()
	case len(sig.Params) != len(k.Params):
		// Keep what names the kernel (its base name and template arguments)
		// but none of the parameters, which would be misplaced.
		k.Untyped = fmt.Sprintf("its mangled name has %s, the code %d", plural(len(sig.Params), "parameter"), len(k.Params))
		sig.Params, sig.PackSizes = nil, nil
		k.Signature = sig
	default:
		k.Signature = sig
		for i, p := range k.Params {
			p.CType = sig.Params[i]
		}
		return ""
	}
	where := ""
	if k.Pos != "" {
		where = " (" + k.Pos + ")"
	}
	return fmt.Sprintf("kernel %s%s: parameters typed by their binary widths: %s", ShortName(k.Name), where, k.Untyped)
}

func plural(n int, s string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, s)
	}
	return fmt.Sprintf("%d %ss", n, s)
}
