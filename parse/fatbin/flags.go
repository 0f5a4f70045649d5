package fatbin

import (
	"fmt"
	"strings"
)

// Kind is the kind of device image an entry holds.
type Kind uint16

// Entry kinds. NVIDIA's old fatbinary.h also lists 4 (OLDCUBIN), which no
// current toolkit writes.
const (
	KindPTX   Kind = 1 // PTX text
	KindELF   Kind = 2 // cubin (CUDA ELF)
	KindLTOIR Kind = 8 // obfuscated NVVM bitcode for link-time optimization
)

// String returns "PTX", "ELF", "LTO-IR" or "Kind(n)".
func (k Kind) String() string {
	switch k {
	case KindPTX:
		return "PTX"
	case KindELF:
		return "ELF"
	case KindLTOIR:
		return "LTO-IR"
	}
	return fmt.Sprintf("Kind(%d)", uint16(k))
}

// Flags is the 64-bit entry flag word. Bit meanings come from copies of
// NVIDIA's fatbinary.h and from nvcc 13.0 output; the a/f target bits and
// FlagCompat were only observed, not documented anywhere.
type Flags uint64

// Entry flag bits.
const (
	Flag64Bit          Flags = 0x1       // 64-bit device code (compile size)
	FlagDebug          Flags = 0x2       // built with -G
	FlagProducerCUDA   Flags = 0x4       // producer CUDA (nvcc 13 leaves it clear)
	FlagProducerOpenCL Flags = 0x8       // producer OpenCL
	FlagHostLinux      Flags = 0x10      // host OS Linux
	FlagHostMac        Flags = 0x20      // host OS macOS
	FlagHostWindows    Flags = 0x40      // host OS Windows
	FlagHostMask       Flags = 0xF0      // host OS field
	FlagOptMask        Flags = 0xF00     // optimization level field (0 in all nvcc 13.0 output seen)
	FlagCompressOld    Flags = 0x1000    // compressed, pre-LZ4 marker (never observed)
	FlagLZ4            Flags = 0x2000    // payload is one raw LZ4 block
	FlagZstd           Flags = 0x8000    // payload is a zstd frame
	FlagObfuscated     Flags = 0x10000   // payload is obfuscated (LTO-IR)
	FlagArchSpecific   Flags = 0x100000  // arch-specific target, sm_90a / compute_90a
	FlagFamily         Flags = 0x200000  // family-specific target, sm_100f
	FlagCompat         Flags = 0x1000000 // set on sm_100+ ELF entries carrying a .nv.compat copy
)

// Is64Bit reports whether the image is 64-bit device code.
func (f Flags) Is64Bit() bool { return f&Flag64Bit != 0 }

// Debug reports whether the image was built with -G.
func (f Flags) Debug() bool { return f&FlagDebug != 0 }

// LZ4 reports whether the payload is an LZ4 block.
func (f Flags) LZ4() bool { return f&FlagLZ4 != 0 }

// Zstd reports whether the payload is a zstd frame.
func (f Flags) Zstd() bool { return f&FlagZstd != 0 }

// Obfuscated reports whether the payload is obfuscated (cuobjdump cannot
// show it without a key).
func (f Flags) Obfuscated() bool { return f&FlagObfuscated != 0 }

// ArchSpecific reports an arch-specific target (the "a" in sm_90a).
func (f Flags) ArchSpecific() bool { return f&FlagArchSpecific != 0 }

// FamilySpecific reports a family-specific target (the "f" in sm_100f).
func (f Flags) FamilySpecific() bool { return f&FlagFamily != 0 }

// HostOS returns "linux", "mac", "windows", "" when unset, or "unknown".
func (f Flags) HostOS() string {
	switch f & FlagHostMask {
	case 0:
		return ""
	case FlagHostLinux:
		return "linux"
	case FlagHostMac:
		return "mac"
	case FlagHostWindows:
		return "windows"
	}
	return "unknown"
}

var flagNames = []struct {
	f    Flags
	name string
}{
	{Flag64Bit, "64bit"}, {FlagDebug, "debug"}, {FlagProducerCUDA, "cuda"},
	{FlagProducerOpenCL, "opencl"}, {FlagHostLinux, "linux"}, {FlagHostMac, "mac"},
	{FlagHostWindows, "windows"}, {FlagCompressOld, "compress"}, {FlagLZ4, "lz4"},
	{FlagZstd, "zstd"}, {FlagObfuscated, "obfuscated"}, {FlagArchSpecific, "arch-specific"},
	{FlagFamily, "family"}, {FlagCompat, "compat"},
}

// String lists the set flags by name, e.g. "64bit|linux|zstd", with any
// unnamed bits in hex.
func (f Flags) String() string {
	var parts []string
	rest := f
	for _, n := range flagNames {
		if f&n.f != 0 {
			parts = append(parts, n.name)
			rest &^= n.f
		}
	}
	if rest != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint64(rest)))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

// Compression is how an entry's payload is stored.
type Compression int

// Compression methods.
const (
	CompressNone Compression = iota // stored raw
	CompressLZ4                     // one raw LZ4 block (no frame)
	CompressZstd                    // a zstd frame
)

// String returns "none", "lz4" or "zstd".
func (c Compression) String() string {
	switch c {
	case CompressNone:
		return "none"
	case CompressLZ4:
		return "lz4"
	case CompressZstd:
		return "zstd"
	}
	return fmt.Sprintf("Compression(%d)", int(c))
}

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Compression returns how the payload is stored. The flag bits decide; an
// entry without them that still records an uncompressed size (as the
// unexplained 0x1000 flag or future toolkits might) is sniffed: a zstd
// frame magic means zstd, anything else an LZ4 block.
func (e *Entry) Compression() Compression {
	switch {
	case e.Flags.Zstd():
		return CompressZstd
	case e.Flags.LZ4():
		return CompressLZ4
	case e.UncompressedSize != 0 && e.CompressedSize != 0:
		if p := e.Payload(); len(p) >= 4 && string(p[:4]) == string(zstdMagic) {
			return CompressZstd
		}
		return CompressLZ4
	}
	return CompressNone
}

// OptLevel returns the optimization-level field (bits 8..11).
//
// Deprecated: use int(f&FlagOptMask) >> 8, which this is; the field was 0
// in all nvcc 13.0 output seen.
func (f Flags) OptLevel() int { return int(f&FlagOptMask) >> 8 }
