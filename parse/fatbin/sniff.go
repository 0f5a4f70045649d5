package fatbin

import (
	"bytes"
	"encoding/binary"
)

// Format is the kind of CUDA input file, as told by Sniff.
type Format int

// Input formats.
const (
	FormatUnknown Format = iota
	FormatPTX            // PTX assembly text
	FormatFatbin         // standalone fatbin container
	FormatCubin          // CUDA device ELF (e_machine EM_CUDA)
	FormatHostELF        // any other ELF: host object, shared library, executable
)

// String names the format for messages.
func (f Format) String() string {
	switch f {
	case FormatPTX:
		return "PTX"
	case FormatFatbin:
		return "fatbin"
	case FormatCubin:
		return "cubin"
	case FormatHostELF:
		return "host ELF"
	}
	return "unknown"
}

// emCUDA is elf.EM_CUDA, spelled out so Sniff needs no ELF parsing.
const emCUDA = 190

// Sniff tells the input formats apart from their first bytes. It only
// looks, it does not validate: a FormatFatbin or FormatCubin verdict can
// still fail to parse.
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

// ptxStarts are the directives a PTX module can begin with once comments
// are skipped: .version normally, but nvFatbin can drop it, leaving .target.
var ptxStarts = [][]byte{
	[]byte(".version"), []byte(".target"), []byte(".address_size"),
}

// isPTX skips whitespace and comments and looks for a module-header
// directive; binary data (a NUL before the end) is never PTX.
func isPTX(b []byte) bool {
	if i := bytes.IndexByte(b, 0); i >= 0 && len(bytes.TrimRight(b[i:], "\x00")) > 0 {
		return false
	}
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
				if bytes.HasPrefix(b, p) && (len(b) == len(p) || isSpace(b[len(p)])) {
					return true
				}
			}
			return false
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
