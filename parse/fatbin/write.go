package fatbin

import (
	"fmt"
	"slices"
)

// An Image is one device image to put in a fatbin with NewEntry: what
// nvFatbinAddPTX and nvFatbinAddCubin take.
type Image struct {
	Kind Kind // KindPTX or KindELF
	// Arch is the SM number: 90 for compute_90 PTX or an sm_90 cubin.
	Arch uint32
	// ArchSpecific and FamilySpecific mark sm_90a / compute_90a and
	// sm_100f targets.
	ArchSpecific, FamilySpecific bool
	// Major and Minor are the PTX ISA version of PTX (9.0: 9, 0) and the
	// code version of a cubin (1 and the cubin's EI_ABIVERSION, as nvcc 13
	// writes them).
	Major, Minor uint16
	// Data is the PTX text (a NUL is appended if it has none) or the cubin.
	Data []byte
}

// NewEntry returns img as a fatbin entry laid out as nvcc 13 lays out an
// uncompressed one: a 64-byte header (80 for PTX, whose options pair is
// empty), then the payload padded to 8 bytes; Build writes it. The flags
// say 64-bit code for Linux, as nvcc's do.
func NewEntry(img Image) (*Entry, error) {
	switch img.Kind {
	case KindPTX, KindELF:
	default:
		return nil, fmt.Errorf("fatbin: NewEntry: kind %v: want PTX or ELF", img.Kind)
	}
	if img.ArchSpecific && img.FamilySpecific {
		return nil, fmt.Errorf("fatbin: NewEntry: a target is arch-specific or family-specific, not both")
	}
	payload := img.Data
	if img.Kind == KindPTX && (len(payload) == 0 || payload[len(payload)-1] != 0) {
		payload = append(slices.Clip(payload), 0)
	}
	if len(payload) == 0 {
		return nil, fmt.Errorf("fatbin: NewEntry: empty %v image", img.Kind)
	}
	padded := (len(payload) + 7) &^ 7
	hdr := EntryHeaderSize
	var ext uint32
	if img.Kind == KindPTX {
		ext = EntryHeaderSize // an empty options pair, then 8 bytes of padding
		hdr += 16
	}
	flags := Flag64Bit | FlagHostLinux
	switch {
	case img.ArchSpecific:
		flags |= FlagArchSpecific
	case img.FamilySpecific:
		flags |= FlagFamily
	}
	raw := make([]byte, hdr+padded)
	le.PutUint16(raw[0x00:], uint16(img.Kind))
	le.PutUint16(raw[0x02:], 0x0101)
	le.PutUint32(raw[0x04:], uint32(hdr))
	le.PutUint64(raw[0x08:], uint64(padded))
	le.PutUint32(raw[0x14:], ext)
	le.PutUint16(raw[0x18:], img.Minor)
	le.PutUint16(raw[0x1a:], img.Major)
	le.PutUint32(raw[0x1c:], img.Arch)
	le.PutUint64(raw[0x28:], uint64(flags))
	if ext != 0 {
		le.PutUint32(raw[ext:], ext+8) // {offset, length 0}
	}
	copy(raw[hdr:], payload)
	// Parse it back: the entry is then exactly what a reader of the fatbin
	// Build writes will see.
	e, _, err := parseEntry(inMemory(raw), 0, len(raw), 0)
	if err != nil {
		return nil, fmt.Errorf("fatbin: NewEntry: %w", err)
	}
	return e, nil
}

// Select is the entry the CUDA driver loads from entries on a device of
// compute capability cc (major*10+minor: 90 for sm_90, 100 for sm_100),
// nil if none can run there. The driver prefers binary code: a cubin for
// the device's major architecture compiled for its minor version or an
// earlier one (sm_80 runs on sm_86; the highest such), where an
// arch-specific cubin (sm_90a) runs only on exactly its architecture and a
// family-specific one (sm_100f) on its family (sm_100 on sm_103). Else it
// JIT-compiles the newest PTX the device can take: compute_XX for XX ≤ cc
// (compute_XXa only on exactly XX). The CUDA Programming Guide's
// "Application Compatibility" states the rule. One exception is measured
// and not modelled: given an sm_90 cubin compiled from compute_75 beside
// compute_80 PTX, the H200's driver (580, CUDA 13.0) JIT-compiles the PTX
// (rt/cgo's TestImageChoiceGPU); Select says the cubin.
func Select(entries []*Entry, cc int) *Entry {
	var best *Entry
	for _, e := range entries {
		if e.Kind == KindELF && cubinRuns(e, cc) && (best == nil || e.Arch > best.Arch) {
			best = e
		}
	}
	if best != nil {
		return best
	}
	return SelectPTX(entries, cc)
}

// SelectPTX is the PTX entry the driver would JIT-compile on a device of
// compute capability cc were there no cubin for it (see Select): the newest
// PTX for compute_cc or an earlier target, nil if none. rt/soft, which
// executes PTX only, loads this one.
func SelectPTX(entries []*Entry, cc int) *Entry {
	var best *Entry
	for _, e := range entries {
		if e.Kind != KindPTX || int(e.Arch) > cc || e.Flags.ArchSpecific() && int(e.Arch) != cc {
			continue
		}
		if best == nil || e.Arch > best.Arch || e.Arch == best.Arch && !best.Flags.ArchSpecific() && e.Flags.ArchSpecific() {
			best = e
		}
	}
	return best
}

// cubinRuns says whether a cubin entry runs on a device of compute
// capability cc.
func cubinRuns(e *Entry, cc int) bool {
	arch := int(e.Arch)
	if e.Flags.ArchSpecific() {
		return arch == cc
	}
	return arch/10 == cc/10 && arch <= cc // family-specific ones too
}
