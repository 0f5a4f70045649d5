package exec

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

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
// A kernel whose PTX is larger than MaxCheckedBody is not checked (its
// check would hold some 40 bytes per byte of it): Check checks the others
// and returns a *CheckSkipped naming it, which cugen reports as a warning.
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
			err = checkPTX(cfg, fmt.Sprintf("%s[%s]", name, e.Target()), text)
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
	// Device functions are held together, as every kernel may call them:
	// too many of their bytes and nothing is checked.
	var devBytes int
	var devBig *ptx.Func
	for _, f := range mod.Funcs {
		if !f.Entry && f.Body != nil {
			devBytes += bodyBytes(f)
			if devBig == nil || bodyBytes(f) > bodyBytes(devBig) {
				devBig = f
			}
		}
	}
	if devBytes > MaxCheckedBody {
		return &CheckSkipped{Image: name, Funcs: []string{devBig.Name}, Device: true, Bytes: devBytes}
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
	var big *CheckSkipped
	for _, f := range mod.Entries() {
		if n := bodyBytes(f); n > MaxCheckedBody {
			if big == nil {
				big = &CheckSkipped{Image: name}
			}
			big.Funcs, big.Bytes = append(big.Funcs, f.Name), max(big.Bytes, n)
			continue
		}
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
	if err := lib.checkInits(); err != nil {
		return loadError(err)
	}
	if big != nil {
		return big
	}
	return nil
}

// MaxCheckedBody is the most PTX text of one kernel (or of all device
// functions together) that Check checks: 16 MiB, whose check peaks near
// 700 MB.
const MaxCheckedBody = 16 << 20

func bodyBytes(f *ptx.Func) int {
	if f.Body == nil {
		return 0
	}
	return f.Body.End.Offset - f.Body.Pos.Offset
}

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
