package fatbin

import (
	"bytes"
	"encoding/binary"
)

// Format is the kind of a CUDA input file, as told by Sniff. It lives here,
// beside the container, because a fatbin holds every other kind: its entries
// are PTX and cubins, and host ELF files carry fatbins.
type Format uint8

// Input formats.
const (
	FormatUnknown Format = iota
	FormatPTX            // PTX assembly text
	FormatCubin          // CUDA device ELF (e_machine EM_CUDA)
	FormatFatbin         // standalone fatbin container
	FormatHostELF        // any other ELF: host object, shared library, executable
)

// String is the format's name as cugen prints it (-list, -list -json):
// "ptx", "cubin", "fatbin", "host-elf", or "unknown".
func (f Format) String() string {
	switch f {
	case FormatPTX:
		return "ptx"
	case FormatCubin:
		return "cubin"
	case FormatFatbin:
		return "fatbin"
	case FormatHostELF:
		return "host-elf"
	}
	return "unknown"
}

// emCUDA is elf.EM_CUDA, spelled out so Sniff needs no ELF parsing.
const emCUDA = 190

// Sniff tells the input formats apart from their first bytes. It only
// looks, it does not validate: any verdict but FormatUnknown can still fail
// to parse.
func Sniff(data []byte) Format {
	switch {
	case len(data) >= 4 && binary.LittleEndian.Uint32(data) == Magic:
		return FormatFatbin
	case len(data) >= 4 && string(data[:4]) == "\x7fELF":
		if len(data) < 20 {
			return FormatUnknown
		}
		var m uint16
		switch data[5] { // EI_DATA
		case 1:
			m = binary.LittleEndian.Uint16(data[18:])
		case 2:
			m = binary.BigEndian.Uint16(data[18:])
		default:
			return FormatUnknown
		}
		if m == emCUDA {
			return FormatCubin
		}
		return FormatHostELF
	case isPTX(data):
		return FormatPTX
	}
	return FormatUnknown
}

// ptxStarts are the directives PTX text can begin with once comments are
// skipped: .version normally, .target when nvFatbin dropped the version, and
// any module-scope declaration in a fragment without a header (a sniffer
// says what a file is; the parser and the loader say what is missing).
var ptxStarts = [][]byte{
	[]byte(".version"), []byte(".target"), []byte(".address_size"),
	[]byte(".visible"), []byte(".extern"), []byte(".weak"), []byte(".common"),
	[]byte(".entry"), []byte(".func"), []byte(".global"), []byte(".const"),
	[]byte(".shared"), []byte(".attribute"), []byte(".file"), []byte(".section"),
	[]byte(".pragma"),
}

// isPTX skips a byte order mark, white space and comments and looks for a
// module-scope directive; binary data (a NUL before the trailing NULs of a
// fatbin entry) is never PTX.
func isPTX(b []byte) bool {
	if i := bytes.IndexByte(b, 0); i >= 0 && len(bytes.TrimRight(b[i:], "\x00")) > 0 {
		return false
	}
	b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	for {
		b = bytes.TrimLeft(b, " \t\r\n\f\v")
		switch {
		case bytes.HasPrefix(b, []byte("//")):
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				return false
			}
			b = b[i+1:]
		case bytes.HasPrefix(b, []byte("/*")):
			i := bytes.Index(b[2:], []byte("*/"))
			if i < 0 {
				return false
			}
			b = b[2+i+2:]
		default:
			for _, p := range ptxStarts {
				if bytes.HasPrefix(b, p) && (len(b) == len(p) || !isWordChar(b[len(p)])) {
					return true
				}
			}
			return false
		}
	}
}

// isWordChar reports whether c continues a directive name (".versionx" is
// not ".version"; ".attribute(" and ".version 9.0" are).
func isWordChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
