// Package loadcheck tells whether rt/soft can run a CUDA image, without
// running it and without the driver: cugen's check at generate time, so
// that code rt/soft cannot run fails there and not at the first launch.
package loadcheck

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

// Check reports whether rt/soft can run image, without running it: whether
// the PTX parses and every kernel decodes (instructions, types, directives,
// initializers), as a load does. The error names the PTX position,
// name:line:col, name being the image's file name (for a fatbin, each PTX
// entry is checked, named name[compute_NN]). An image with no PTX (a cubin,
// or a fatbin of cubins only) has nothing rt/soft could run, and nothing to
// check: Check returns nil. Any target is accepted: the emulated device's
// compute capability is a run-time choice (soft.Options.ComputeCapability).
//
// Unlike a load, Check holds the statements of one kernel at a time (and
// the device functions', which kernels call): it parses the module's
// headers, then each body, decodes each kernel and drops it, so that its
// memory is that of the largest kernel, not of the module.
//
// A kernel whose PTX is larger than MaxCheckedBody is not checked (its
// check would hold some 40 bytes per byte of it): Check checks the others
// and returns a *CheckSkipped naming it, which cugen reports as a warning.
func Check(name string, image []byte) error {
	return CheckBudget(name, image, nil)
}

// CheckBudget is Check decompressing a fatbin's compressed PTX entries
// within b, one at a time, as one of the decompressions of a run that b
// bounds (nil: fatbin.MaxDataSize per entry).
func CheckBudget(name string, image []byte, b *fatbin.Budget) error {
	if b == nil {
		b = fatbin.NewBudget(fatbin.MaxDataSize)
	}
	switch fatbin.Sniff(image) {
	case fatbin.FormatPTX:
		return checkPTX(name, image)
	case fatbin.FormatFatbin:
		var skipped *CheckSkipped
		fb, err := fatbin.Parse(image)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		for _, e := range fb.Entries {
			if e.Kind != fatbin.KindPTX {
				continue
			}
			text, release, err := e.DataBudget(b)
			if err != nil {
				return fmt.Errorf("%s: entry %s at offset %#x: %w", name, e.Target(), e.Offset, err)
			}
			err = checkPTX(fmt.Sprintf("%s[%s]", name, e.Target()), text)
			release()
			var sk *CheckSkipped
			switch {
			case errors.As(err, &sk):
				if skipped == nil {
					skipped = sk // the other entries are still checked
				}
			case err != nil:
				return err
			}
		}
		if skipped != nil {
			return skipped
		}
	}
	return nil
}

// checkPTX checks one module's PTX text.
func checkPTX(name string, text []byte) error {
	sk, err := exec.CheckPTX(name, text)
	if err != nil {
		return err
	}
	if sk != nil {
		return &CheckSkipped{Image: name, Funcs: sk.Funcs, Device: sk.Device, Bytes: sk.Bytes}
	}
	return nil
}

// MaxCheckedBody is the most PTX text of one kernel (or of all device
// functions together) that Check checks: 16 MiB, whose check peaks near
// 700 MB.
const MaxCheckedBody = exec.MaxCheckedBody

// CheckSkipped is Check's answer for an image with kernels too large to
// check within bounded memory (see MaxCheckedBody): everything else was
// checked and passed; Funcs were not. A caller may go on without the
// check, as cugen does with a warning.
type CheckSkipped struct {
	Image  string
	Funcs  []string // the kernels not checked, or the largest device function
	Device bool     // the device functions together were too large: nothing was checked
	Bytes  int      // the largest one's PTX (or the device functions' together)
}

func (e *CheckSkipped) Error() string {
	var what string
	switch {
	case e.Device:
		what = fmt.Sprintf("any kernel: its device functions (the largest: %s) hold %d bytes of PTX", e.Funcs[0], e.Bytes)
	case len(e.Funcs) == 1:
		what = fmt.Sprintf("kernel %s: its PTX is %d bytes", e.Funcs[0], e.Bytes)
	default:
		list := e.Funcs
		if len(list) > 4 {
			list = append(list[:4:4], "…")
		}
		what = fmt.Sprintf("%d kernels (%s): the largest's PTX is %d bytes", len(e.Funcs), strings.Join(list, ", "), e.Bytes)
	}
	return fmt.Sprintf("rt/soft did not check %s, more than the %d MiB it checks in bounded memory: rt/soft may fail to load it (generate with -gpu-only if the image is meant for the GPU only)",
		what, MaxCheckedBody>>20)
}

// CheckSkippedOnly marks the error as a skipped check rather than a failed
// one (gen/pipeline reports it as a warning).
func (e *CheckSkipped) CheckSkippedOnly() {}
