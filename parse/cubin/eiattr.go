package cubin

import "fmt"

// AttrFormat is the EIFMT_* format byte of an .nv.info record, which says
// how the record's u16 field is to be read.
type AttrFormat uint8

// Record formats.
const (
	FormatNVAL AttrFormat = 1 // no value (a flag); the u16 is 0
	FormatBVAL AttrFormat = 2 // byte value in the u16
	FormatHVAL AttrFormat = 3 // half-word value in the u16
	FormatSVAL AttrFormat = 4 // the u16 is the length of a payload that follows
)

// String returns the cuobjdump name, e.g. "EIFMT_SVAL".
func (f AttrFormat) String() string {
	switch f {
	case FormatNVAL:
		return "EIFMT_NVAL"
	case FormatBVAL:
		return "EIFMT_BVAL"
	case FormatHVAL:
		return "EIFMT_HVAL"
	case FormatSVAL:
		return "EIFMT_SVAL"
	}
	return fmt.Sprintf("EIFMT(%d)", uint8(f))
}

// AttrID is an EIATTR_* attribute id of an .nv.info record.
type AttrID uint8

// The attribute ids cugen decodes. All others are kept raw in Attrs.
const (
	AttrMaxThreads      AttrID = 0x05 // SVAL {x, y, z u32}: .maxntid / __launch_bounds__
	AttrParamCBank      AttrID = 0x0a // SVAL {symidx u32, base u16, size u16}
	AttrExterns         AttrID = 0x0f // SVAL u32 symbol indices of undefined externals
	AttrReqNTID         AttrID = 0x10 // SVAL {x, y, z u32}: .reqntid
	AttrFrameSize       AttrID = 0x11 // SVAL {symidx, value u32} in .nv.info
	AttrMinStackSize    AttrID = 0x12 // SVAL {symidx, value u32} in .nv.info
	AttrKParamInfo      AttrID = 0x17 // SVAL 12 bytes per parameter (v1 bitfields)
	AttrCBankParamSize  AttrID = 0x19 // HVAL parameter block size
	AttrMaxRegCount     AttrID = 0x1b // HVAL register limit (0xff: none)
	AttrMaxStackSize    AttrID = 0x23 // SVAL {symidx, value u32} in .nv.info
	AttrRegCount        AttrID = 0x2f // SVAL {symidx, value u32} in .nv.info
	AttrCUDAAPIVersion  AttrID = 0x37 // SVAL u32: 130 for CUDA 13.0
	AttrCTAPerCluster   AttrID = 0x3d // SVAL {x, y, z u32}: __cluster_dims__
	AttrExplicitCluster AttrID = 0x3e // NVAL
	AttrMaxClusterRank  AttrID = 0x3f // .maxclusterrank
	AttrKParamInfoV2    AttrID = 0x45 // SVAL 12 bytes per parameter (plain fields)
)

// attrNames are the EIATTR names as cuobjdump prints them, from the tables
// of redplait/denvdis (up to 0x55) and nvopen-tools (CUDA 13 additions).
// The two disagree about 0x56..0x5a; 0x56 is left unnamed.
var attrNames = [...]string{
	0x00: "ERROR", 0x01: "PAD", 0x02: "IMAGE_SLOT", 0x03: "JUMPTABLE_RELOCS",
	0x04: "CTAIDZ_USED", 0x05: "MAX_THREADS", 0x06: "IMAGE_OFFSET", 0x07: "IMAGE_SIZE",
	0x08: "TEXTURE_NORMALIZED", 0x09: "SAMPLER_INIT", 0x0a: "PARAM_CBANK",
	0x0b: "SMEM_PARAM_OFFSETS", 0x0c: "CBANK_PARAM_OFFSETS", 0x0d: "SYNC_STACK",
	0x0e: "TEXID_SAMPID_MAP", 0x0f: "EXTERNS", 0x10: "REQNTID", 0x11: "FRAME_SIZE",
	0x12: "MIN_STACK_SIZE", 0x13: "SAMPLER_FORCE_UNNORMALIZED", 0x14: "BINDLESS_IMAGE_OFFSETS",
	0x15: "BINDLESS_TEXTURE_BANK", 0x16: "BINDLESS_SURFACE_BANK", 0x17: "KPARAM_INFO",
	0x18: "SMEM_PARAM_SIZE", 0x19: "CBANK_PARAM_SIZE", 0x1a: "QUERY_NUMATTRIB",
	0x1b: "MAXREG_COUNT", 0x1c: "EXIT_INSTR_OFFSETS", 0x1d: "S2RCTAID_INSTR_OFFSETS",
	0x1e: "CRS_STACK_SIZE", 0x1f: "NEED_CNP_WRAPPER", 0x20: "NEED_CNP_PATCH",
	0x21: "EXPLICIT_CACHING", 0x22: "ISTYPEP_USED", 0x23: "MAX_STACK_SIZE", 0x24: "SUQ_USED",
	0x25: "LD_CACHEMOD_INSTR_OFFSETS", 0x26: "LOAD_CACHE_REQUEST", 0x27: "ATOM_SYS_INSTR_OFFSETS",
	0x28: "COOP_GROUP_INSTR_OFFSETS", 0x29: "COOP_GROUP_MASK_REGIDS", 0x2a: "SW1850030_WAR",
	0x2b: "WMMA_USED", 0x2c: "HAS_PRE_V10_OBJECT", 0x2d: "ATOMF16_EMUL_INSTR_OFFSETS",
	0x2e: "ATOM16_EMUL_INSTR_REG_MAP", 0x2f: "REGCOUNT", 0x30: "SW2393858_WAR",
	0x31: "INT_WARP_WIDE_INSTR_OFFSETS", 0x32: "SHARED_SCRATCH", 0x33: "STATISTICS",
	0x34: "INDIRECT_BRANCH_TARGETS", 0x35: "SW2861232_WAR", 0x36: "SW_WAR",
	0x37: "CUDA_API_VERSION", 0x38: "NUM_MBARRIERS", 0x39: "MBARRIER_INSTR_OFFSETS",
	0x3a: "COROUTINE_RESUME_ID_OFFSETS", 0x3b: "SAM_REGION_STACK_SIZE",
	0x3c: "PER_REG_TARGET_PERF_STATS", 0x3d: "CTA_PER_CLUSTER", 0x3e: "EXPLICIT_CLUSTER",
	0x3f: "MAX_CLUSTER_RANK", 0x40: "INSTR_REG_MAP", 0x41: "RESERVED_SMEM_USED",
	0x42: "RESERVED_SMEM_0_SIZE", 0x43: "UCODE_SECTION_DATA", 0x44: "UNUSED_LOAD_BYTE_OFFSET",
	0x45: "KPARAM_INFO_V2", 0x46: "SYSCALL_OFFSETS", 0x47: "SW_WAR_MEMBAR_SYS_INSTR_OFFSETS",
	0x48: "GRAPHICS_GLOBAL_CBANK", 0x49: "SHADER_TYPE", 0x4a: "VRC_CTA_INIT_COUNT",
	0x4b: "TOOLS_PATCH_FUNC", 0x4c: "NUM_BARRIERS", 0x4d: "TEXMODE_INDEPENDENT",
	0x4e: "PERF_STATISTICS", 0x4f: "AT_ENTRY_FRAGMENTS", 0x50: "SPARSE_MMA_MASK",
	0x51: "TCGEN05_1CTA_USED", 0x52: "TCGEN05_2CTA_USED", 0x53: "GEN_ERRBAR_AT_EXIT",
	0x54: "REG_RECONFIG", 0x55: "ANNOTATIONS", 0x57: "STACK_CANARY_TRAP_OFFSETS",
	0x58: "STUB_FUNCTION_KIND", 0x59: "LOCAL_CTA_ASYNC_STORE_OFFSETS",
	0x5a: "MERCURY_FINALIZER_OPTIONS", 0x5b: "BLOCKS_ARE_CLUSTERS", 0x5c: "SANITIZE",
	0x5d: "SYSCALLS_FALLBACK", 0x5e: "CUDA_REQ", 0x5f: "MERCURY_ISA_VERSION",
}

// String returns the cuobjdump name, e.g. "EIATTR_KPARAM_INFO", or
// "EIATTR(0x99)" for ids this package does not know.
func (id AttrID) String() string {
	if int(id) < len(attrNames) && attrNames[id] != "" {
		return "EIATTR_" + attrNames[id]
	}
	return fmt.Sprintf("EIATTR(%#x)", uint8(id))
}

// Attr is one .nv.info (or .nv.compat) record, kept raw so that attributes
// this package does not decode stay available.
type Attr struct {
	Format AttrFormat
	// ID is the attribute id: EIATTR_* in .nv.info sections, EICOMPAT_*
	// (a different numbering, which AttrID.String does not name) in
	// .nv.compat.
	ID AttrID
	// Value is the u16 value of NVAL/BVAL/HVAL records and the payload
	// length of SVAL records.
	Value uint16
	// Data is the SVAL payload (aliasing the input), nil otherwise.
	Data []byte
	// Off is the file offset of the record.
	Off int64
}

// parseAttrs walks the TLV records of an .nv.info-style section, d, found at
// file offset off. Each record is a format byte, an id byte, a u16, and for
// SVAL a payload of that many bytes (a multiple of 4 in practice, keeping
// records aligned). Unknown ids are
// fine (their length is known from the format); an unknown format or a
// payload running past the section is an error.
func parseAttrs(d []byte, off int64, section string) ([]Attr, error) {
	var attrs []Attr
	for i := 0; i < len(d); {
		at := off + int64(i)
		if len(d)-i < 4 {
			return nil, errorf(at, "%s: truncated record: %d bytes left, need 4", section, len(d)-i)
		}
		a := Attr{Format: AttrFormat(d[i]), ID: AttrID(d[i+1]), Value: le.Uint16(d[i+2:]), Off: at}
		i += 4
		switch a.Format {
		case FormatNVAL, FormatBVAL, FormatHVAL:
		case FormatSVAL:
			n := int(a.Value)
			if n > len(d)-i {
				return nil, errorf(at, "%s: %v payload of %d bytes runs past end of section (%d bytes left)", section, a.ID, n, len(d)-i)
			}
			a.Data = d[i : i+n : i+n]
			i += n
		default:
			return nil, errorf(at, "%s: record with unknown format %#x (id %#x)", section, uint8(a.Format), uint8(a.ID))
		}
		attrs = append(attrs, a)
	}
	return attrs, nil
}

// scalar returns the value of a record that holds one number, whichever
// format the toolkit chose for it: the u16 of BVAL/HVAL, or a u16/u32 SVAL
// payload.
func (a *Attr) scalar() (uint32, error) {
	switch a.Format {
	case FormatBVAL, FormatHVAL:
		return uint32(a.Value), nil
	case FormatSVAL:
		switch {
		case len(a.Data) >= 4:
			return le.Uint32(a.Data), nil
		case len(a.Data) >= 2:
			return uint32(le.Uint16(a.Data)), nil
		}
	}
	return 0, errorf(a.Off, "%v: %v record with %d-byte payload holds no value", a.ID, a.Format, len(a.Data))
}

// sval returns the SVAL payload of a record that must be n*unit bytes long,
// n >= 1.
func (a *Attr) sval(unit int) ([]byte, error) {
	if a.Format != FormatSVAL {
		return nil, errorf(a.Off, "%v: format %v, want EIFMT_SVAL", a.ID, a.Format)
	}
	if len(a.Data) == 0 || len(a.Data)%unit != 0 {
		return nil, errorf(a.Off, "%v: payload of %d bytes, want a multiple of %d", a.ID, len(a.Data), unit)
	}
	return a.Data, nil
}
