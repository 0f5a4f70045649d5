// Package cubin reads CUDA device ELF files (cubins, e_machine EM_CUDA)
// into the kernel and global-variable model cugen generates Go code from:
// each kernel's name, parameter layout (ordinal, offset, size of every
// parameter and the size of the parameter block), launch bounds, cluster
// shape and resource use, and each __device__ / __constant__ / __managed__
// variable with its size and initial bytes.
//
// Cubins are ELF files, but NVIDIA's extensions (the .nv.info attribute
// records, st_other bits, SHT_CUDA_* section types, a non-standard
// e_version) are undocumented; the layouts in this package's comments were
// reverse-engineered by others (cuda-gdb, CuAssembler, cudaparsers,
// denvdis) and cross-checked against cuobjdump -elf on nvcc 13.0 output. The ELF container
// itself is read with debug/elf through a reader that hides the e_version
// quirk. Malformed input yields a *FormatError with the byte offset of the
// problem, never a panic; nothing is allocated beyond what the input holds.
package cubin

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cugen/cugen/parse/internal/elfcheck"
)

var le = binary.LittleEndian

// ELF symbol and section values NVIDIA defines outside debug/elf.
const (
	// STTCUDAObject is the symbol type of variables in -rdc cubins.
	STTCUDAObject elf.SymType = 13
	// STOCUDAManaged marks __managed__ variables in st_other.
	STOCUDAManaged = 0x04
	// STOCUDAEntry marks kernels (launchable __global__ functions) in st_other.
	STOCUDAEntry = 0x10

	shtCUDAInfo   elf.SectionType = 0x70000000 // .nv.info and .nv.info.<kernel>
	shtCUDAGlobal elf.SectionType = 0x70000007 // .nv.global in ET_REL: sized, but no file bytes
	noteCUInfo                    = 1000       // type of the .note.nv.cuinfo note
)

// File is the model of one cubin.
type File struct {
	// Type is ET_EXEC for whole-program and device-linked cubins, ET_REL
	// for relocatable (-rdc) ones.
	Type       elf.Type
	OSABI      elf.OSABI // 0x41 with nvcc 13 (ABI v8), 0x33 for ABI v7
	ABIVersion uint8     // EI_ABIVERSION: 7 or 8, selects the e_flags layout
	// Version is e_version as stored: 1 for nvcc 13, a toolkit number
	// (0x80, 129) for nvJitLink output.
	Version uint32
	Flags   uint32 // e_flags
	// SM is the target architecture number (90 for sm_90): the virtual SM
	// of .note.nv.cuinfo when present, FlagsSM otherwise. The note is
	// preferred because the e_flags layout changed between ABI versions.
	SM int
	// FlagsSM is the SM decoded from e_flags: bits 0..7 for ABI v7,
	// bits 8..15 for ABI v8.
	FlagsSM int
	// VirtualSM is the virtual architecture from .note.nv.cuinfo, 0 when
	// the note is absent.
	VirtualSM int
	// ToolkitVersion is the CUDA version from .note.nv.cuinfo as
	// major*10+minor (130 for 13.0), 0 when absent.
	ToolkitVersion int
	// ArchSpecific reports an arch-specific (sm_90a) cubin: the
	// .nv.compat accelerator-target attribute when present, the e_flags
	// accelerator bit otherwise.
	ArchSpecific bool

	Kernels []*Kernel // in symbol-table order
	Globals []*Global // in symbol-table order
	// Info holds the records of the global .nv.info section (per-function
	// register counts, frame and stack sizes).
	Info []Attr
	// Compat holds the records of .nv.compat (EICOMPAT ids).
	Compat []Attr
}

// Toolkit returns ToolkitVersion as major, minor (13, 0).
func (f *File) Toolkit() (major, minor int) { return f.ToolkitVersion / 10, f.ToolkitVersion % 10 }

// Kernel returns the kernel with the given (mangled) name, or nil.
func (f *File) Kernel(name string) *Kernel {
	for _, k := range f.Kernels {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// Global returns the variable with the given name, or nil.
func (f *File) Global(name string) *Global {
	for _, g := range f.Globals {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// FormatError reports malformed input: what is wrong and the byte offset in
// the file at which it was found.
type FormatError struct {
	Off int64  // byte offset in the file
	Msg string // what is wrong
	Err error  // underlying cause, or nil
}

// Error formats the message with the offset, e.g. "cubin: not an ELF file at offset 0x0".
func (e *FormatError) Error() string {
	s := fmt.Sprintf("cubin: %s at offset %#x", e.Msg, e.Off)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

func errorf(off int64, format string, args ...any) *FormatError {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...)}
}

// eVersionOff is the offset of e_version in both ELF classes.
const eVersionOff = 0x14

// versionOne is what versionFixer shows debug/elf instead of the stored
// e_version, which debug/elf requires to be 1.
var versionOne = [4]byte{1, 0, 0, 0}

// versionFixer is an io.ReaderAt that reads r but reports e_version as 1:
// CUDA toolkits store a format version there, which makes debug/elf reject
// an otherwise valid file with "mismatched ELF version".
type versionFixer struct{ r io.ReaderAt }

// ReadAt reads from the underlying reader and patches e_version in p.
func (v versionFixer) ReadAt(p []byte, off int64) (int, error) {
	n, err := v.r.ReadAt(p, off)
	for i := int64(eVersionOff); i < eVersionOff+4; i++ {
		if i >= off && i < off+int64(n) {
			p[i-off] = versionOne[i-eVersionOff]
		}
	}
	return n, err
}

// OpenELF opens a cubin with debug/elf, hiding CUDA's non-standard
// e_version. Use it to reach sections this package does not model; Parse
// does more validation.
func OpenELF(r io.ReaderAt) (*elf.File, error) {
	return elf.NewFile(versionFixer{r})
}

// elfHeader is what Parse reads from the ELF header itself, before and
// besides debug/elf, to check the section header table and report offsets.
type elfHeader struct {
	class     elf.Class
	version   uint32
	flags     uint32
	shoff     uint64
	shentsize uint64
}

func readHeader(data []byte) (elfHeader, error) {
	var h elfHeader
	if len(data) < 16 || string(data[:4]) != elf.ELFMAG {
		return h, errorf(0, "not an ELF file")
	}
	h.class = elf.Class(data[elf.EI_CLASS])
	if d := elf.Data(data[elf.EI_DATA]); d != elf.ELFDATA2LSB {
		return h, errorf(elf.EI_DATA, "ELF data encoding %v, CUDA ELF is little-endian", d)
	}
	var need int
	switch h.class {
	case elf.ELFCLASS64:
		need = 64
	case elf.ELFCLASS32:
		need = 52
	default:
		return h, errorf(elf.EI_CLASS, "bad ELF class %d", data[elf.EI_CLASS])
	}
	if len(data) < need {
		return h, errorf(int64(len(data)), "truncated ELF header: %d bytes, need %d", len(data), need)
	}
	if m := elf.Machine(le.Uint16(data[0x12:])); m != elf.EM_CUDA {
		return h, errorf(0x12, "e_machine %v, not EM_CUDA: not a cubin", m)
	}
	h.version = le.Uint32(data[eVersionOff:])
	if h.class == elf.ELFCLASS64 {
		h.flags = le.Uint32(data[0x30:])
		h.shoff = le.Uint64(data[0x28:])
		h.shentsize = uint64(le.Uint16(data[0x3a:]))
	} else {
		h.flags = le.Uint32(data[0x24:])
		h.shoff = uint64(le.Uint32(data[0x20:]))
		h.shentsize = uint64(le.Uint16(data[0x2e:]))
	}
	return h, nil
}

// shdrOff returns the file offset of section header i, for error reports.
func (h *elfHeader) shdrOff(i int) int64 { return int64(h.shoff + uint64(i)*h.shentsize) }

// Parse parses a cubin. The result aliases data (initializer bytes and
// attribute payloads).
func Parse(data []byte) (*File, error) {
	h, err := readHeader(data)
	if err != nil {
		return nil, err
	}
	if off, ok := elfcheck.CompressedNames(bytes.NewReader(data)); ok {
		// debug/elf would decompress it whole, whatever size it claims.
		return nil, errorf(off, "section name table is compressed (SHF_COMPRESSED), which CUDA ELF never is")
	}
	ef, err := OpenELF(bytes.NewReader(data))
	if err != nil {
		return nil, &FormatError{Off: 0, Msg: "invalid ELF", Err: err}
	}
	f := &File{
		Type:       ef.Type,
		OSABI:      ef.OSABI,
		ABIVersion: ef.ABIVersion,
		Version:    h.version,
		Flags:      h.flags,
	}
	p := &parser{data: data, h: h, ef: ef, f: f}
	// Every section whose bytes we might read must lie inside the file;
	// debug/elf does not check this up front. No CUDA toolkit compresses a
	// section, and debug/elf would decompress one (the symbol table, say)
	// to whatever size its header claims.
	for i, s := range ef.Sections {
		if s.Flags&elf.SHF_COMPRESSED != 0 {
			return nil, errorf(h.shdrOff(i), "section %d %q is compressed (SHF_COMPRESSED), which CUDA ELF never is", i, s.Name)
		}
		if s.Type == elf.SHT_NOBITS || s.Type == shtCUDAGlobal {
			continue
		}
		if s.Offset > uint64(len(data)) || s.Size > uint64(len(data))-s.Offset {
			return nil, errorf(h.shdrOff(i), "section %d %q [%#x, +%#x) runs past end of file (%#x bytes)", i, s.Name, s.Offset, s.Size, len(data))
		}
	}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return f, nil
}

type parser struct {
	data []byte
	h    elfHeader
	ef   *elf.File
	f    *File
	syms []elf.Symbol // debug/elf symbols: index x in .nv.info is syms[x-1]
	// symOff is the file offset of the symbol table, for error reports.
	symOff int64
	symEnt int64
}

// bytes returns the file bytes of a section already checked by Parse.
func (p *parser) bytes(s *elf.Section) []byte {
	if s.Type == elf.SHT_NOBITS || s.Type == shtCUDAGlobal {
		return nil
	}
	return p.data[s.Offset : s.Offset+s.Size : s.Offset+s.Size]
}

// symbol resolves a symbol index as used in .nv.info records.
func (p *parser) symbol(x uint32) (*elf.Symbol, bool) {
	if x == 0 || uint64(x) > uint64(len(p.syms)) {
		return nil, false
	}
	return &p.syms[x-1], true
}

func (p *parser) section(i elf.SectionIndex) (*elf.Section, bool) {
	if i == elf.SHN_UNDEF || int(i) >= len(p.ef.Sections) {
		return nil, false
	}
	return p.ef.Sections[i], true
}

func (p *parser) parse() error {
	f := p.f
	if f.ABIVersion >= 8 {
		f.FlagsSM = int(f.Flags >> 8 & 0xff)
		f.ArchSpecific = f.Flags&0x8 != 0
	} else {
		f.FlagsSM = int(f.Flags & 0xff)
		f.ArchSpecific = f.Flags&0x800 != 0
	}
	f.SM = f.FlagsSM
	for _, s := range p.ef.Sections {
		switch {
		case s.Name == ".note.nv.cuinfo" && s.Type == elf.SHT_NOTE:
			if err := p.cuinfo(s); err != nil {
				return err
			}
		case s.Name == ".nv.compat":
			attrs, err := parseAttrs(p.bytes(s), int64(s.Offset), s.Name)
			if err != nil {
				return err
			}
			f.Compat = attrs
			for _, a := range attrs {
				// EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET: 1 for sm_90a.
				if a.ID == 0x09 && a.Format != FormatSVAL {
					f.ArchSpecific = a.Value != 0
				}
			}
		case s.Name == ".nv.info" && s.Type == shtCUDAInfo:
			attrs, err := parseAttrs(p.bytes(s), int64(s.Offset), s.Name)
			if err != nil {
				return err
			}
			f.Info = attrs
		case s.Type == elf.SHT_SYMTAB && p.symOff == 0:
			p.symOff, p.symEnt = int64(s.Offset), int64(s.Entsize)
			if p.symEnt == 0 {
				p.symEnt = 24
			}
		}
	}
	syms, err := p.ef.Symbols()
	switch {
	case errors.Is(err, elf.ErrNoSymbols):
		// A cubin without symbols (a device-link stub) has no kernels.
		return nil
	case err != nil:
		return &FormatError{Off: p.symOff, Msg: "reading symbol table", Err: err}
	}
	p.syms = syms
	if err := p.kernels(); err != nil {
		return err
	}
	return p.globals()
}

// cuinfo decodes the .note.nv.cuinfo note: an ELF note of type 1000 named
// "NVIDIA Corp" whose 8-byte descriptor holds u16 note version, u16
// virtual SM and u32 toolkit version.
func (p *parser) cuinfo(s *elf.Section) error {
	d := p.bytes(s)
	off := int64(s.Offset)
	for i := 0; i < len(d); {
		if len(d)-i < 12 {
			return errorf(off+int64(i), "%s: truncated note header", s.Name)
		}
		namesz, descsz, typ := uint64(le.Uint32(d[i:])), uint64(le.Uint32(d[i+4:])), le.Uint32(d[i+8:])
		descStart := uint64(i+12) + (namesz+3)&^3
		if descStart > uint64(len(d)) || descsz > uint64(len(d))-descStart {
			return errorf(off+int64(i), "%s: note of %d+%d bytes runs past end of section", s.Name, namesz, descsz)
		}
		desc := d[descStart : descStart+descsz]
		if typ == noteCUInfo && len(desc) >= 8 {
			p.f.VirtualSM = int(le.Uint16(desc[2:]))
			p.f.ToolkitVersion = int(le.Uint32(desc[4:]))
			if p.f.VirtualSM != 0 {
				p.f.SM = p.f.VirtualSM
			}
		}
		i = int(min(descStart+(descsz+3)&^3, uint64(len(d))))
	}
	return nil
}

// Dim3 is a thread-block or cluster shape.
type Dim3 struct{ X, Y, Z uint32 }

// IsZero reports whether the attribute was absent.
func (d Dim3) IsZero() bool { return d == Dim3{} }

func dim3(a *Attr) (Dim3, error) {
	b, err := a.sval(12)
	if err != nil {
		return Dim3{}, err
	}
	return Dim3{le.Uint32(b), le.Uint32(b[4:]), le.Uint32(b[8:])}, nil
}

// Space is the state space of a module-scope variable.
type Space uint8

// Variable state spaces.
const (
	SpaceGlobal Space = iota + 1 // __device__ / __managed__: .nv.global, .nv.global.init
	SpaceConst                   // __constant__: .nv.constant<bank>
)

// String returns "global" or "const".
func (s Space) String() string {
	switch s {
	case SpaceGlobal:
		return "global"
	case SpaceConst:
		return "const"
	}
	return fmt.Sprintf("Space(%d)", uint8(s))
}

// Global is a module-scope variable the host can look up by name
// (cuModuleGetGlobal): a __device__, __managed__ or __constant__ variable.
type Global struct {
	Name    string
	Space   Space
	Section string // .nv.global, .nv.global.init, .nv.constant3, ...
	Offset  uint64 // offset in Section (the symbol value)
	Size    uint64
	// Managed marks __managed__ variables (st_other & STOCUDAManaged).
	Managed bool
	Binding elf.SymBind // LOCAL in whole-program cubins, GLOBAL/WEAK with -rdc
	Type    elf.SymType // STT_OBJECT, or STTCUDAObject in -rdc cubins
	Other   uint8       // st_other as stored
	// Init is the initial value from the section bytes; nil for variables
	// in .nv.global, which the loader zero-fills.
	Init []byte
}

// globalSpace classifies a variable section: .nv.global and .nv.global.init
// hold __device__ variables, .nv.constant1 to 9... __constant__ ones.
// .nv.constant0.<kernel> are parameter banks and other banks are
// compiler-owned (they carry only SECTION symbols).
func globalSpace(name string) (Space, bool) {
	switch {
	case name == ".nv.global" || name == ".nv.global.init":
		return SpaceGlobal, true
	case strings.HasPrefix(name, ".nv.constant") && len(name) > len(".nv.constant") &&
		name[len(".nv.constant")] >= '1' && name[len(".nv.constant")] <= '9':
		return SpaceConst, true
	}
	return 0, false
}

func (p *parser) globals() error {
	for i := range p.syms {
		s := &p.syms[i]
		typ := elf.ST_TYPE(s.Info)
		if typ != elf.STT_OBJECT && typ != STTCUDAObject {
			continue
		}
		if strings.HasPrefix(s.Name, ".nv.") || strings.HasPrefix(s.Name, "__nv_reserved") {
			continue
		}
		sec, ok := p.section(s.Section)
		if !ok {
			continue // undefined (extern) or special index
		}
		space, ok := globalSpace(sec.Name)
		if !ok {
			continue
		}
		g := &Global{
			Name:    s.Name,
			Space:   space,
			Section: sec.Name,
			Offset:  s.Value,
			Size:    s.Size,
			Managed: s.Other&STOCUDAManaged != 0,
			Binding: elf.ST_BIND(s.Info),
			Type:    typ,
			Other:   s.Other,
		}
		if d := p.bytes(sec); sec.Name != ".nv.global" && d != nil {
			if s.Value > uint64(len(d)) || s.Size > uint64(len(d))-s.Value {
				return errorf(p.symOff+int64(i+1)*p.symEnt, "variable %q [%#x, +%#x) outside section %s of %#x bytes", s.Name, s.Value, s.Size, sec.Name, len(d))
			}
			g.Init = d[s.Value : s.Value+s.Size : s.Value+s.Size]
		}
		p.f.Globals = append(p.f.Globals, g)
	}
	return nil
}
