// Package elfcheck looks at an ELF file's section headers before debug/elf
// does. elf.NewFile reads the section-name table whole, and when that table
// is SHF_COMPRESSED it decompresses it to whatever size its compression
// header claims: gigabytes from a few kilobytes. The parsers of hostile
// files ask CompressedNames first and refuse such files.
package elfcheck

import (
	"debug/elf"
	"encoding/binary"
	"io"
)

// CompressedNames reports whether the section-name table of the ELF file in
// r is SHF_COMPRESSED, and where its section header is. A file it cannot
// read that far is reported as not compressed: elf.NewFile says what is
// wrong with it.
func CompressedNames(r io.ReaderAt) (shdrOff int64, compressed bool) {
	var ident [elf.EI_NIDENT]byte
	if _, err := r.ReadAt(ident[:], 0); err != nil || string(ident[:4]) != elf.ELFMAG {
		return 0, false
	}
	var bo binary.ByteOrder
	switch elf.Data(ident[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		bo = binary.LittleEndian
	case elf.ELFDATA2MSB:
		bo = binary.BigEndian
	default:
		return 0, false
	}
	var shoff, shentsize, shstrndx uint64
	var flagsOff, flagsLen, linkOff int64
	switch elf.Class(ident[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		var h [64]byte
		if _, err := r.ReadAt(h[:], 0); err != nil {
			return 0, false
		}
		shoff, shentsize, shstrndx = bo.Uint64(h[0x28:]), uint64(bo.Uint16(h[0x3a:])), uint64(bo.Uint16(h[0x3e:]))
		flagsOff, flagsLen, linkOff = 8, 8, 40
	case elf.ELFCLASS32:
		var h [52]byte
		if _, err := r.ReadAt(h[:], 0); err != nil {
			return 0, false
		}
		shoff, shentsize, shstrndx = uint64(bo.Uint32(h[0x20:])), uint64(bo.Uint16(h[0x2e:])), uint64(bo.Uint16(h[0x32:]))
		flagsOff, flagsLen, linkOff = 8, 4, 24
	default:
		return 0, false
	}
	if shoff == 0 || shentsize < uint64(linkOff+4) || shoff > 1<<62 {
		return 0, false
	}
	if shstrndx == uint64(elf.SHN_XINDEX) {
		// Extended numbering: the index is section 0's sh_link.
		var l [4]byte
		if _, err := r.ReadAt(l[:], int64(shoff)+linkOff); err != nil {
			return 0, false
		}
		shstrndx = uint64(bo.Uint32(l[:]))
	}
	if shstrndx == 0 || shstrndx > 1<<32 {
		return 0, false
	}
	at := shoff + shstrndx*shentsize
	if at > 1<<62 {
		return 0, false
	}
	var f [8]byte
	if _, err := r.ReadAt(f[:flagsLen], int64(at)+flagsOff); err != nil {
		return 0, false
	}
	flags := uint64(bo.Uint32(f[:]))
	if flagsLen == 8 {
		flags = bo.Uint64(f[:])
	}
	return int64(at), flags&uint64(elf.SHF_COMPRESSED) != 0
}
