package fatbin

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/cugen/cugen/parse/internal/elfcheck"
)

// Host ELF section names holding fatbins: .nv_fatbin for whole-program and
// device-linked code, __nv_relfatbin for relocatable (-rdc) device code.
const (
	SectionFatbin    = ".nv_fatbin"
	SectionRelFatbin = "__nv_relfatbin"
)

// ErrNoFatbin is returned by FromELF for a host ELF without CUDA device code.
var ErrNoFatbin = errors.New("fatbin: no " + SectionFatbin + " or " + SectionRelFatbin + " section in ELF file")

// zlibMaxRatio is deflate's worst-case expansion (a 258-byte match per
// two bits or so), used as zstdMaxRatio is for entries.
const zlibMaxRatio = 1032

// Section is a fatbin-holding section of a host ELF file.
type Section struct {
	Name   string // SectionFatbin or SectionRelFatbin
	Offset int64  // file offset of the section data
	// Compressed reports a SHF_COMPRESSED section: its fatbins were read
	// from its decompressed data, and their offsets and those of their
	// entries count from the start of that data, not of the file.
	Compressed bool
	// Fatbins are the containers in the section, in order. Their offsets,
	// and those of their entries, are file offsets (see Compressed).
	Fatbins []*Fatbin
}

// A Slicer is an io.ReaderAt over memory that can hand out its bytes
// without copying: Slice returns the n bytes at off, or false if they are
// not all there.
type Slicer interface {
	io.ReaderAt
	Slice(off, n int64) ([]byte, bool)
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
//
// Two section headers naming the same bytes are read once; sections whose
// bytes partly overlap are an error. A SHF_COMPRESSED section (zlib or
// zstd) is decompressed within b, which bounds the memory of the whole run
// (nil: a budget of DefaultBudget for this call); the bytes stay reserved
// as long as the sections are in use.
//
// The other sections' bytes are read into memory, unless r is a Slicer,
// whose memory they then alias: a caller with the whole file in memory (or
// mapped) need not hold it twice.
func FromELF(r io.ReaderAt, b *Budget) ([]Section, error) { return fromELF(r, -1, b) }

// FromELFAt is FromELF for a file of size bytes read in pieces: it reads
// the headers of the fatbins and their entries, not the entries, whose
// Data and DataBudget read each payload from r when asked (their Raw,
// Payload and the Fatbins' Raw are nil, so Build cannot copy them). Memory
// then holds the entries being decoded, not the file: how cugen -list
// reads a toolkit library of hundreds of megabytes. A compressed section
// is still decompressed whole, within b. r must stay readable, and
// unchanged, while the entries are used.
func FromELFAt(r io.ReaderAt, size int64, b *Budget) ([]Section, error) { return fromELF(r, size, b) }

// fromELF is FromELF, or FromELFAt for a size ≥ 0.
func fromELF(r io.ReaderAt, size int64, b *Budget) ([]Section, error) {
	if b == nil {
		b = NewBudget(DefaultBudget)
	}
	// debug/elf would decompress a compressed name table whole.
	if off, ok := elfcheck.CompressedNames(r); ok {
		return nil, errorf(off, "section name table is compressed (SHF_COMPRESSED), which no linker writes")
	}
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, &FormatError{Off: 0, Msg: "not a readable ELF file", Err: err}
	}
	if f.Machine == elf.EM_CUDA {
		return nil, errorf(0x12, "ELF file is a CUDA device image (cubin), not a host object")
	}
	secs, err := fatbinSections(f)
	if err != nil {
		return nil, err
	}
	var out []Section
	for _, s := range secs {
		if s.Type == elf.SHT_NOBITS {
			return nil, errorf(int64(s.Offset), "section %s has no data (NOBITS)", s.Name)
		}
		compressed := s.Flags&elf.SHF_COMPRESSED != 0
		var data []byte
		var in *input
		base, prefix := int64(s.Offset), "section "+s.Name+": "
		switch {
		case compressed:
			data, err = decompressSection(r, f, s, b)
			base = 0
			prefix = fmt.Sprintf("decompressed section %s at file offset %#x: ", s.Name, s.Offset)
		case size >= 0:
			if s.Offset > uint64(size) || s.Size > uint64(size)-s.Offset {
				return nil, errorf(int64(s.Offset), "section %s of %d bytes runs past the end of the file", s.Name, s.Size)
			}
			in = &input{r: r, off: int64(s.Offset), n: int(s.Size)}
		default:
			if sl, ok := r.(Slicer); ok {
				var in bool
				if data, in = sl.Slice(int64(s.Offset), int64(s.Size)); !in {
					err = errorf(int64(s.Offset), "section %s of %d bytes runs past the end of the file", s.Name, s.Size)
				}
			} else {
				// Section.Data reads in bounded chunks, so a hostile
				// sh_size cannot allocate more than the file holds.
				data, err = s.Data()
				if err != nil {
					err = &FormatError{Off: int64(s.Offset), Msg: "reading section " + s.Name, Err: err}
				}
			}
		}
		if err != nil {
			return nil, err
		}
		if in == nil {
			in = inMemory(data)
		}
		fbs, err := parseAll(in, base)
		if err != nil {
			var fe *FormatError
			if errors.As(err, &fe) {
				fe.Msg = prefix + fe.Msg
			}
			return nil, err
		}
		out = append(out, Section{Name: s.Name, Offset: int64(s.Offset), Compressed: compressed, Fatbins: fbs})
	}
	if len(out) == 0 {
		return nil, ErrNoFatbin
	}
	return out, nil
}

// fatbinSections returns the fatbin sections of f in file order of their
// headers, each range of file bytes once: a header repeating another's
// range is dropped, one overlapping another's is an error. Without this, a
// small file whose thousands of headers name one fatbin would be read,
// decoded and embedded thousands of times.
func fatbinSections(f *elf.File) ([]*elf.Section, error) {
	var secs []*elf.Section
	for _, s := range f.Sections {
		if s.Name == SectionFatbin || s.Name == SectionRelFatbin {
			secs = append(secs, s)
		}
	}
	byStart := slices.Clone(secs)
	slices.SortStableFunc(byStart, func(a, b *elf.Section) int {
		return cmp.Or(cmp.Compare(a.Offset, b.Offset), cmp.Compare(a.FileSize, b.FileSize))
	})
	drop := map[*elf.Section]bool{}
	var prev *elf.Section // the section with the furthest end so far
	for _, s := range byStart {
		if s.Type == elf.SHT_NOBITS || s.FileSize == 0 {
			continue
		}
		if prev != nil {
			pend := prev.Offset + prev.FileSize
			switch {
			case s.Offset == prev.Offset && s.FileSize == prev.FileSize && s.Flags&elf.SHF_COMPRESSED == prev.Flags&elf.SHF_COMPRESSED:
				drop[s] = true
				continue
			case s.Offset < pend:
				return nil, errorf(int64(s.Offset), "section %s [%#x, %#x) overlaps section %s [%#x, %#x)",
					s.Name, s.Offset, s.Offset+s.FileSize, prev.Name, prev.Offset, pend)
			}
		}
		if prev == nil || s.Offset+s.FileSize > prev.Offset+prev.FileSize {
			prev = s
		}
	}
	return slices.DeleteFunc(secs, func(s *elf.Section) bool { return drop[s] }), nil
}

// decompressSection reads a SHF_COMPRESSED section's compression header
// itself and decompresses its data within b. elf.Section.Data would
// allocate and fill whatever size the header claims.
func decompressSection(r io.ReaderAt, f *elf.File, s *elf.Section, b *Budget) ([]byte, error) {
	off := int64(s.Offset)
	if s.Flags&elf.SHF_ALLOC != 0 {
		return nil, errorf(off, "section %s is SHF_COMPRESSED and SHF_ALLOC, which the ELF format forbids", s.Name)
	}
	// The stored bytes are at most the file: ReadAll grows with what is
	// actually read, not with sh_size.
	raw, err := io.ReadAll(io.NewSectionReader(r, off, int64(s.FileSize)))
	if err != nil {
		return nil, &FormatError{Off: off, Msg: "reading section " + s.Name, Err: err}
	}
	if uint64(len(raw)) != s.FileSize {
		return nil, errorf(off, "section %s of %#x bytes runs past the end of the file", s.Name, s.FileSize)
	}
	var typ elf.CompressionType
	var size uint64
	var hdr int
	switch f.Class {
	case elf.ELFCLASS64:
		hdr = 24 // Elf64_Chdr
		if len(raw) >= hdr {
			typ, size = elf.CompressionType(f.ByteOrder.Uint32(raw)), f.ByteOrder.Uint64(raw[8:])
		}
	default:
		hdr = 12 // Elf32_Chdr
		if len(raw) >= hdr {
			typ, size = elf.CompressionType(f.ByteOrder.Uint32(raw)), uint64(f.ByteOrder.Uint32(raw[4:]))
		}
	}
	if len(raw) < hdr {
		return nil, errorf(off, "compressed section %s of %d bytes has no compression header", s.Name, len(raw))
	}
	payload := raw[hdr:]
	ratio := uint64(zlibMaxRatio)
	switch typ {
	case elf.COMPRESS_ZLIB:
	case elf.COMPRESS_ZSTD:
		ratio = zstdMaxRatio
	default:
		return nil, errorf(off, "section %s: unknown compression type %d", s.Name, uint32(typ))
	}
	if size > uint64(len(payload))*ratio+64 {
		return nil, errorf(off+8, "section %s: decompressed size %#x impossible for %#x bytes of %v", s.Name, size, len(payload), typ)
	}
	if _, err := b.reserve(size, "section "+s.Name, off+8, true); err != nil {
		return nil, err
	}
	var out []byte
	if typ == elf.COMPRESS_ZSTD {
		out, err = unZstd(payload, int(size))
	} else {
		out, err = unZlib(payload, int(size))
	}
	if err != nil {
		return nil, &FormatError{Off: off + int64(hdr), Msg: fmt.Sprintf("decompressing section %s (%v)", s.Name, typ), Err: err}
	}
	return out, nil
}

// unZlib inflates src into exactly size bytes.
func unZlib(src []byte, size int) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	out := make([]byte, size)
	if n, err := io.ReadFull(zr, out); err != nil {
		return nil, fmt.Errorf("decompressed to %d bytes, header says %d: %v", n, size, err)
	}
	var one [1]byte
	if n, _ := zr.Read(one[:]); n != 0 {
		return nil, fmt.Errorf("decompresses to more than the %d bytes the header says", size)
	}
	return out, nil
}
