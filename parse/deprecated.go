package parse

import "github.com/cugen/cugen/parse/fatbin"

// Names parse had before the sniffer and its Format moved to parse/fatbin
// (50b415f), kept for the code that spells them parse.X.

// Format is the kind of input a Module was read from.
//
// Deprecated: use fatbin.Format (Module.Format is one).
type Format = fatbin.Format

const (
	// Deprecated: use fatbin.FormatPTX.
	FormatPTX = fatbin.FormatPTX
	// Deprecated: use fatbin.FormatCubin.
	FormatCubin = fatbin.FormatCubin
	// Deprecated: use fatbin.FormatFatbin.
	FormatFatbin = fatbin.FormatFatbin
	// Deprecated: use fatbin.FormatHostELF.
	FormatHostELF = fatbin.FormatHostELF
)

// Sniff tells what data is by its first bytes, as Read does.
//
// Deprecated: use fatbin.Sniff, which this calls. Its verdict for data
// that is none of the four is fatbin.FormatUnknown, which is 0, as
// parse.Sniff's was.
func Sniff(data []byte) Format { return fatbin.Sniff(data) }
