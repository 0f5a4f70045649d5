package parse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	"github.com/cugen/cugen/parse/cubin"
	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/ptx"
)

// Options control how an input becomes a Module.
type Options struct {
	// Arches keeps only these fatbin entries ("sm_90", "compute_90"); empty keeps all.
	Arches []string
	// NoImage skips building Module.Image (a listing needs only the model;
	// for a large library the standalone fatbin is a copy of most of it).
	NoImage bool
	// Budget bounds the memory that decompressing fatbin entries and
	// compressed ELF sections holds at once (nil: a budget of
	// fatbin.DefaultBudget for this Read).
	Budget *fatbin.Budget
	// Workers is how many fatbin entries are decoded at once (0:
	// GOMAXPROCS for Read, at most 4 for ReadFrom, which is for bounded
	// memory).
	Workers int
}

// NoDeviceCode is the warning of a host ELF file without CUDA device code,
// which Read models as a module of no kernels, no globals and no Image.
const NoDeviceCode = "no CUDA device code: the ELF file has no " + fatbin.SectionFatbin + " or " + fatbin.SectionRelFatbin + " section"

// Read parses one input file of any supported format into a Module. name is
// used in errors and as the Module's Source.
func Read(name string, data []byte, opts Options) (*Module, error) {
	mod, err := read(name, data, opts)
	if err != nil {
		return nil, err
	}
	checkParamBlocks(mod)
	return mod, nil
}

// ReadFrom is Read for an input of size bytes read in pieces from r: a
// host ELF file's fatbin entries are read one at a time as they are
// decoded (fatbin.FromELFAt), so that memory holds the entries being
// decoded, not the file, and its Image is not built (NoImage is implied).
// Other inputs are read whole. r must stay readable, and unchanged, until
// ReadFrom returns.
func ReadFrom(name string, r io.ReaderAt, size int64, opts Options) (*Module, error) {
	head := make([]byte, min(size, 64))
	if _, err := r.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if fatbin.Sniff(head) != fatbin.FormatHostELF {
		data := make([]byte, size)
		if _, err := r.ReadAt(data, 0); err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return Read(name, data, opts)
	}
	opts.NoImage = true
	if opts.Workers == 0 {
		opts.Workers = min(runtime.GOMAXPROCS(0), 4)
	}
	if opts.Budget == nil {
		opts.Budget = fatbin.NewBudget(fatbin.DefaultBudget)
	}
	mod, err := fromHostELF(name, func() ([]fatbin.Section, error) { return fatbin.FromELFAt(r, size, opts.Budget) }, opts)
	if err != nil {
		return nil, err
	}
	checkParamBlocks(mod)
	return mod, nil
}

func read(name string, data []byte, opts Options) (*Module, error) {
	if opts.Budget == nil {
		opts.Budget = fatbin.NewBudget(fatbin.DefaultBudget)
	}
	switch fatbin.Sniff(data) {
	case fatbin.FormatPTX:
		// The model needs the headers only; ParseChecked still reports
		// every error Parse would, without keeping a tree of the bodies.
		m, err := ptx.ParseChecked(filepath.Base(name), data)
		if err != nil {
			return nil, err
		}
		mod, err := FromPTX(m, data)
		if err != nil {
			return nil, err
		}
		mod.Source = name
		return mod, nil
	case fatbin.FormatCubin:
		f, err := cubin.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		arch := fmt.Sprintf("sm_%d", f.SM)
		if f.ArchSpecific {
			arch += "a"
		}
		mod, err := FromCubin(f, arch, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		mod.Source = name
		return mod, nil
	case fatbin.FormatFatbin:
		fb, err := fatbin.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return FromFatbins(name, []*fatbin.Fatbin{fb}, opts)
	case fatbin.FormatHostELF:
		return fromHostELF(name, func() ([]fatbin.Section, error) { return fatbin.FromELF(memReader(data), opts.Budget) }, opts)
	}
	return nil, fmt.Errorf("%s: unrecognized input: not PTX text, a fatbin, a cubin or an ELF file", name)
}

// memReader is an input in memory as a fatbin.Slicer: FromELF's sections
// alias it.
type memReader []byte

func (m memReader) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(m).ReadAt(p, off)
}

func (m memReader) Slice(off, n int64) ([]byte, bool) {
	if off < 0 || n < 0 || off > int64(len(m)) || n > int64(len(m))-off {
		return nil, false
	}
	return m[off : off+n : off+n], true
}

// fromHostELF models a host ELF file's fatbins, which sections reads.
func fromHostELF(name string, sections func() ([]fatbin.Section, error), opts Options) (*Module, error) {
	secs, err := sections()
	if errors.Is(err, fatbin.ErrNoFatbin) {
		// A host library without device code (libcudart, libnvrtc):
		// nothing to list, and nothing to embed (Image stays nil).
		return &Module{Source: name, Format: fatbin.FormatHostELF, Arches: []string{}, Kernels: []*Kernel{}, Globals: []*Global{},
			Warnings: []string{NoDeviceCode}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// Prefer device-linked code: an -rdc executable holds both the
	// relocatable objects (__nv_relfatbin) and their linked form.
	var fbs []*fatbin.Fatbin
	rel := false
	for _, s := range secs {
		if s.Name == fatbin.SectionFatbin {
			fbs = append(fbs, s.Fatbins...)
		}
	}
	if len(fbs) == 0 {
		for _, s := range secs {
			fbs = append(fbs, s.Fatbins...)
		}
		rel = true
	}
	mod, err := FromFatbins(name, fbs, opts)
	if err != nil {
		return nil, err
	}
	mod.Format = fatbin.FormatHostELF
	if rel {
		mod.Warnings = append(mod.Warnings, "the fatbins are relocatable (-rdc): their cubins need device linking (rt's JIT linker) before they load")
	}
	return mod, nil
}
