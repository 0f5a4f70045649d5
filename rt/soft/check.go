package soft

import (
	"errors"
	"fmt"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/rt"
)

// Check reports whether rt/soft can run image, without running it: whether
// the PTX parses and every kernel decodes (instructions, types, directives,
// initializers), as a load does. The error names the PTX position,
// name:line:col, name being the image's file name (for a fatbin, each PTX
// entry is checked, named name[compute_NN]). An image with no PTX (a cubin,
// or a fatbin of cubins only) has nothing rt/soft could run, and nothing to
// check: Check returns nil. Any target is accepted: the emulated device's
// compute capability is a run-time choice (Options.ComputeCapability).
//
// cugen calls it at generate time (as CheckBudget), so that code rt/soft
// cannot run fails there and not at the first launch.
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
	d := New(Options{ComputeCapability: 1 << 20})
	switch fatbin.Sniff(image) {
	case fatbin.FormatPTX:
		return checkPTX(d, name, image)
	case fatbin.FormatFatbin:
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
			err = checkPTX(d, fmt.Sprintf("%s[%s]", name, e.Target()), text)
			release()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// checkPTX loads PTX text into d and unloads it; the error is the load's
// detail, which starts with the position.
func checkPTX(d *Driver, name string, text []byte) error {
	h, err := d.LibraryLoad(text, rt.LoadOptions{Name: name})
	if err != nil {
		var re *rt.Error
		if errors.As(err, &re) && re.Detail != "" {
			return &checkError{re}
		}
		return err
	}
	return d.LibraryUnload(h)
}

// checkError is a load's *rt.Error shown by its detail alone: the position
// and what is wrong, without the driver call and CUresult a load reports.
type checkError struct{ err *rt.Error }

func (e *checkError) Error() string { return e.err.Detail }
func (e *checkError) Unwrap() error { return e.err }
