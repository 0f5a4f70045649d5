package parse

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"

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
		secs, err := fatbin.FromELF(bytes.NewReader(data), opts.Budget)
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
	return nil, fmt.Errorf("%s: unrecognized input: not PTX text, a fatbin, a cubin or an ELF file", name)
}
