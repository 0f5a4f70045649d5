package fatbin

import (
	"debug/elf"
	"errors"
	"io"
)

// Host ELF section names holding fatbins: .nv_fatbin for whole-program and
// device-linked code, __nv_relfatbin for relocatable (-rdc) device code.
const (
	SectionFatbin    = ".nv_fatbin"
	SectionRelFatbin = "__nv_relfatbin"
)

// ErrNoFatbin is returned by FromELF for a host ELF without CUDA device code.
var ErrNoFatbin = errors.New("fatbin: no " + SectionFatbin + " or " + SectionRelFatbin + " section in ELF file")

// Section is a fatbin-holding section of a host ELF file.
type Section struct {
	Name   string // SectionFatbin or SectionRelFatbin
	Offset int64  // file offset of the section data
	// Fatbins are the containers in the section, in order. Their offsets,
	// and those of their entries, are file offsets.
	Fatbins []*Fatbin
}

// Entries returns the entries of all fatbins in the section, in order.
func (s *Section) Entries() []*Entry {
	var es []*Entry
	for _, fb := range s.Fatbins {
		es = append(es, fb.Entries...)
	}
	return es
}

// FromELF finds the fatbins of a host object, shared library or executable
// by scanning its .nv_fatbin and __nv_relfatbin sections with ParseAll. It
// deliberately ignores the .nvFatBinSegment wrappers: their data pointers
// are only meaningful after relocation. An executable built with -rdc has
// both sections. A file without either yields ErrNoFatbin; a CUDA device
// ELF (a cubin) is reported as such.
func FromELF(r io.ReaderAt) ([]Section, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, &FormatError{Off: 0, Msg: "not a readable ELF file", Err: err}
	}
	if f.Machine == elf.EM_CUDA {
		return nil, errorf(0x12, "ELF file is a CUDA device image (cubin), not a host object")
	}
	var out []Section
	for _, s := range f.Sections {
		if s.Name != SectionFatbin && s.Name != SectionRelFatbin {
			continue
		}
		if s.Type == elf.SHT_NOBITS {
			return nil, errorf(int64(s.Offset), "section %s has no data (NOBITS)", s.Name)
		}
		// Section.Data reads in bounded chunks, so a hostile sh_size
		// cannot allocate more than the file holds.
		data, err := s.Data()
		if err != nil {
			return nil, &FormatError{Off: int64(s.Offset), Msg: "reading section " + s.Name, Err: err}
		}
		fbs, err := parseAll(data, int64(s.Offset))
		if err != nil {
			var fe *FormatError
			if errors.As(err, &fe) {
				fe.Msg = "section " + s.Name + ": " + fe.Msg
			}
			return nil, err
		}
		out = append(out, Section{Name: s.Name, Offset: int64(s.Offset), Fatbins: fbs})
	}
	if len(out) == 0 {
		return nil, ErrNoFatbin
	}
	return out, nil
}
