package exec

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/ptx"
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
// Unlike a load, Check holds the statements of one kernel at a time (and
// the device functions', which kernels call): it parses the module's
// headers, then each body, decodes each kernel and drops it, so that its
// memory is that of the largest kernel, not of the module.
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
	cfg := &Config{ComputeCapability: 1 << 20}
	switch fatbin.Sniff(image) {
	case fatbin.FormatPTX:
		return checkPTX(cfg, name, image)
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
			err = checkPTX(cfg, fmt.Sprintf("%s[%s]", name, e.Target()), text)
			release()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// checkPTX does what LibraryLoad does to PTX text, but a function at a time:
// the module's declarations, every device function's body (kept, as kernels
// call them), the functions whose address a kernel takes (each kernel's
// body read and dropped), then each kernel's body parsed, contracted and
// decoded, and dropped with its program. The error is the load's detail,
// which starts with the position.
func checkPTX(cfg *Config, name string, text []byte) error {
	mod, err := ptx.ParseHeaders(name, bytes.TrimRight(text, "\x00"))
	if err != nil {
		return invalidPTX(err)
	}
	lib, err := newModule(name, mod, cfg.ComputeCapability)
	if err != nil {
		return loadError(err)
	}
	devFuncs := false
	for _, f := range mod.Funcs {
		if !f.Entry && f.Body != nil {
			if f.Body, err = mod.ParseBody(f); err != nil {
				return invalidPTX(err)
			}
			Contract(&ptx.Module{Target: mod.Target, Funcs: []*ptx.Func{f}})
			devFuncs = true
		}
	}
	lib.indexFuncs() // the device functions' addresses taken there and by initializers
	if devFuncs {
		// A kernel's indirect call may reach a function whose address
		// another kernel takes: every kernel's body is read for those first.
		taken := map[string]bool{}
		for _, f := range lib.taken {
			taken[f.Name] = true
		}
		for _, f := range mod.Entries() {
			b, err := mod.ParseBody(f)
			if err != nil {
				return invalidPTX(err)
			}
			lib.markTaken(b, taken)
		}
		lib.setTaken(taken)
	}
	for _, f := range mod.Entries() {
		skipped := f.Body
		if f.Body, err = mod.ParseBody(f); err != nil {
			return invalidPTX(err)
		}
		Contract(&ptx.Module{Target: mod.Target, Funcs: []*ptx.Func{f}})
		_, err = decodeKernel(lib, f)
		f.Body = skipped // the statements and the program go
		if err != nil {
			return invalidPTX(err)
		}
	}
	return loadError(lib.checkInits())
}

// invalidPTX is what a load reports for err, as Check reports it.
func invalidPTX(err error) error {
	return loadError(rt.Errorf("cuLibraryLoadData", rt.ErrInvalidPTX, "%v", err))
}

// loadError shows a load's *rt.Error by its detail alone: the position and
// what is wrong, without the driver call and CUresult a load reports.
func loadError(err error) error {
	var re *rt.Error
	if errors.As(err, &re) && re.Detail != "" {
		return &checkError{re}
	}
	return err
}

// checkError is a load's *rt.Error shown by its detail alone.
type checkError struct{ err *rt.Error }

func (e *checkError) Error() string { return e.err.Detail }
func (e *checkError) Unwrap() error { return e.err }
