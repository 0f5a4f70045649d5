package parse

import (
	"bytes"
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
}

// Read parses one input file of any supported format into a Module. name is
// used in errors and as the Module's Source.
func Read(name string, data []byte, opts Options) (*Module, error) {
	switch Sniff(data) {
	case FormatPTX:
		m, err := ptx.Parse(filepath.Base(name), data)
		if err != nil {
			return nil, err
		}
		mod, err := FromPTX(m, data)
		if err != nil {
			return nil, err
		}
		mod.Source = name
		return mod, nil
	case FormatCubin:
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
	case FormatFatbin:
		fb, err := fatbin.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return FromFatbins(name, []*fatbin.Fatbin{fb}, opts)
	case FormatHostELF:
		secs, err := fatbin.FromELF(bytes.NewReader(data))
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
		mod.Format = FormatHostELF
		if rel {
			mod.Warnings = append(mod.Warnings, "the fatbins are relocatable (-rdc): their cubins need device linking (rt's JIT linker) before they load")
		}
		return mod, nil
	}
	return nil, fmt.Errorf("%s: unrecognized input: not PTX text, a fatbin, a cubin or an ELF file", name)
}

// Sniff tells the input formats apart by their first bytes.
func Sniff(data []byte) Format {
	switch {
	case len(data) >= 4 && bytes.Equal(data[:4], []byte{0x50, 0xed, 0x55, 0xba}):
		return FormatFatbin
	case len(data) >= 20 && bytes.Equal(data[:4], []byte("\x7fELF")):
		if data[18] == 190 && data[19] == 0 { // e_machine EM_CUDA, little-endian
			return FormatCubin
		}
		return FormatHostELF
	case looksLikePTX(data):
		return FormatPTX
	}
	return 0
}

// looksLikePTX accepts text whose first directive is a PTX module directive.
func looksLikePTX(data []byte) bool {
	for _, kw := range [][]byte{[]byte(".version"), []byte(".target"), []byte(".entry"), []byte(".visible")} {
		if i := bytes.Index(data, kw); i >= 0 && i < 4096 && bytes.IndexByte(data[:i], 0) < 0 {
			return true
		}
	}
	return false
}
