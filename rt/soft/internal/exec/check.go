package exec

import (
	"bytes"
	"errors"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
)

// CheckPTX is rt/soft/loadcheck's check of one module's PTX text, named
// name: what LibraryLoad does to it, but a function at a time: the
// module's declarations, every device function's body (kept, as kernels
// call them), the functions whose address a kernel takes (each kernel's
// body read and dropped), then each kernel's body parsed, contracted and
// decoded, and dropped with its program. The error is the load's detail,
// which starts with the position; Skipped lists what was too large to
// check (MaxCheckedBody), everything else having passed.
func CheckPTX(name string, text []byte) (*Skipped, error) {
	cfg := &Config{ComputeCapability: 1 << 20} // any target: the device's is a run-time choice
	mod, err := ptx.ParseHeaders(name, bytes.TrimRight(text, "\x00"))
	if err != nil {
		return nil, invalidPTX(err)
	}
	lib, err := newModule(name, mod, cfg.ComputeCapability)
	if err != nil {
		return nil, loadError(err)
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
		return &Skipped{Funcs: []string{devBig.Name}, Device: true, Bytes: devBytes}, nil
	}
	devFuncs := false
	for _, f := range mod.Funcs {
		if !f.Entry && f.Body != nil {
			if f.Body, err = mod.ParseBody(f); err != nil {
				return nil, invalidPTX(err)
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
				return nil, invalidPTX(err)
			}
			lib.markTaken(b, taken)
		}
		lib.setTaken(taken)
	}
	var big *Skipped
	for _, f := range mod.Entries() {
		if n := bodyBytes(f); n > MaxCheckedBody {
			if big == nil {
				big = &Skipped{}
			}
			big.Funcs, big.Bytes = append(big.Funcs, f.Name), max(big.Bytes, n)
			continue
		}
		skipped := f.Body
		if f.Body, err = mod.ParseBody(f); err != nil {
			return nil, invalidPTX(err)
		}
		Contract(&ptx.Module{Target: mod.Target, Funcs: []*ptx.Func{f}})
		_, err = decodeKernel(lib, f)
		f.Body = skipped // the statements and the program go
		if err != nil {
			return nil, invalidPTX(err)
		}
	}
	if err := lib.checkInits(); err != nil {
		return nil, loadError(err)
	}
	return big, nil
}

// Skipped is what CheckPTX did not check, too large to check in bounded
// memory: Funcs, or (Device) the device functions together, the largest
// of which Funcs names; Bytes is the largest one's PTX (or the device
// functions' together).
type Skipped struct {
	Funcs  []string
	Device bool
	Bytes  int
}

// MaxCheckedBody is the most PTX text of one kernel (or of all device
// functions together) that CheckPTX checks: 16 MiB, whose check peaks near
// 700 MB.
const MaxCheckedBody = 16 << 20

func bodyBytes(f *ptx.Func) int {
	if f.Body == nil {
		return 0
	}
	return f.Body.End.Offset - f.Body.Pos.Offset
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
