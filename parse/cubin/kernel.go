package cubin

import (
	"debug/elf"
	"slices"
	"strings"
)

// Kernel is a launchable __global__ function: an STT_FUNC symbol with
// STOCUDAEntry in st_other, with what its .nv.info.<name> section and the
// global .nv.info section say about it.
type Kernel struct {
	Name string // symbol name, mangled for C++ kernels
	// Symbol is the kernel's index in .symtab, as .nv.info records use it.
	Symbol  int
	Binding elf.SymBind // GLOBAL, or WEAK for template instances with -rdc
	Section string      // code section, .text.<name>
	// CodeSize is the size of the kernel's code (the symbol size).
	CodeSize uint64

	// Params is the parameter layout, sorted by ordinal. The cubin records
	// no types: only offsets, sizes and a pointee alignment hint.
	Params []Param
	// ParamBase is where the parameter block starts in constant bank 0
	// (0x210 on sm_90/sm_100 with CUDA 13), from EIATTR_PARAM_CBANK.
	ParamBase uint32
	// ParamSize is the size of the parameter block in bytes, from
	// EIATTR_CBANK_PARAM_SIZE (or EIATTR_PARAM_CBANK without it).
	ParamSize uint32

	MaxThreads      Dim3   // EIATTR_MAX_THREADS: .maxntid / __launch_bounds__
	ReqNTID         Dim3   // EIATTR_REQNTID: .reqntid
	ClusterDim      Dim3   // EIATTR_CTA_PER_CLUSTER: __cluster_dims__
	ExplicitCluster bool   // EIATTR_EXPLICIT_CLUSTER
	MaxClusterRank  uint32 // EIATTR_MAX_CLUSTER_RANK
	// MaxRegCount is the EIATTR_MAXREG_COUNT register cap (0xff when the
	// source sets none; __launch_bounds__ minimum blocks are folded in).
	MaxRegCount    uint32
	CUDAAPIVersion uint32 // EIATTR_CUDA_API_VERSION: 130 for CUDA 13.0

	// From the global .nv.info section.
	RegCount     uint32 // EIATTR_REGCOUNT
	FrameSize    uint32 // EIATTR_FRAME_SIZE
	MinStackSize uint32 // EIATTR_MIN_STACK_SIZE
	MaxStackSize uint32 // EIATTR_MAX_STACK_SIZE

	// SharedSize is the size of .nv.shared.<name>: the static shared
	// memory, including the 1 KiB the system reserves on sm_90+. Dynamic
	// shared memory (extern __shared__) is not included.
	SharedSize uint64
	// Externs are the names of the undefined symbols the kernel references
	// (EIATTR_EXTERNS, -rdc cubins).
	Externs []string
	// Attrs are all records of .nv.info.<name> in file order, including
	// those this package does not decode.
	Attrs []Attr
}

// Param is one kernel parameter as recorded by EIATTR_KPARAM_INFO or
// EIATTR_KPARAM_INFO_V2.
type Param struct {
	Ordinal int    // position in the parameter list
	Offset  uint32 // byte offset in the parameter block
	Size    uint32 // bytes
	// LogAlign is the log2 alignment of the pointee for pointer
	// parameters, when the compiler knew it.
	LogAlign uint8
	// Space is the pointee state-space hint: 0 normally; nvcc 13 sets 5 on
	// pointer parameters of sm_100 code whose PTX had .ptr. Unreliable.
	Space uint8
	CBank uint8 // constant bank number (0x1f), v1 records only
	// SMEM marks a pre-Fermi shared-memory parameter, v1 records only.
	SMEM bool
	// V2 reports that the record was EIATTR_KPARAM_INFO_V2, which nvcc 13
	// uses for kernels whose parameter block exceeds 4 KiB.
	V2    bool
	Index uint32 // the record's leading index field (0 in every cubin seen)
}

// kparam decodes one 12-byte KPARAM_INFO or KPARAM_INFO_V2 record:
// u32 index, u16 ordinal, u16 offset, then v1: a u32 bitfield (bits 0-7
// logAlign, 8-11 space, 12-16 cbank, 17 SMEM, 18-31 size) or v2: u16 size,
// u16 attrs (bits 0-7 logAlign, 8-11 space).
func kparam(b []byte, v2 bool) Param {
	p := Param{
		Index:   le.Uint32(b),
		Ordinal: int(le.Uint16(b[4:])),
		Offset:  uint32(le.Uint16(b[6:])),
		V2:      v2,
	}
	if v2 {
		p.Size = uint32(le.Uint16(b[8:]))
		a := le.Uint16(b[10:])
		p.LogAlign = uint8(a)
		p.Space = uint8(a >> 8 & 0xf)
		return p
	}
	w := le.Uint32(b[8:])
	p.LogAlign = uint8(w)
	p.Space = uint8(w >> 8 & 0xf)
	p.CBank = uint8(w >> 12 & 0x1f)
	p.SMEM = w>>17&1 != 0
	p.Size = w >> 18
	return p
}

func (p *parser) kernels() error {
	// Per-kernel info sections are found by name, or failing that through
	// sh_info, which names the kernel's code section.
	infoByName := map[string]*elf.Section{}
	infoByText := map[uint32]*elf.Section{}
	shared := map[string]*elf.Section{}
	for _, s := range p.ef.Sections {
		switch {
		case s.Type == shtCUDAInfo && strings.HasPrefix(s.Name, ".nv.info."):
			infoByName[s.Name] = s
			infoByText[s.Info] = s
		case strings.HasPrefix(s.Name, ".nv.shared."):
			shared[s.Name] = s
		}
	}
	bySym := map[uint32]*Kernel{}
	for i := range p.syms {
		s := &p.syms[i]
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Other&STOCUDAEntry == 0 {
			continue
		}
		text, ok := p.section(s.Section)
		if !ok {
			continue // an undefined entry: declared here, defined elsewhere
		}
		k := &Kernel{
			Name:     s.Name,
			Symbol:   i + 1,
			Binding:  elf.ST_BIND(s.Info),
			Section:  text.Name,
			CodeSize: s.Size,
		}
		if sh := shared[".nv.shared."+s.Name]; sh != nil {
			k.SharedSize = sh.Size
		}
		info := infoByName[".nv.info."+s.Name]
		if info == nil {
			info = infoByText[uint32(s.Section)]
		}
		if info != nil {
			attrs, err := parseAttrs(p.bytes(info), int64(info.Offset), info.Name)
			if err != nil {
				return err
			}
			k.Attrs = attrs
			if err := p.kernelAttrs(k); err != nil {
				return err
			}
		}
		p.f.Kernels = append(p.f.Kernels, k)
		bySym[uint32(k.Symbol)] = k
	}
	// The global .nv.info holds {u32 symidx, u32 value} records for every
	// function, kernels and device functions alike.
	for i := range p.f.Info {
		a := &p.f.Info[i]
		var dst func(*Kernel) *uint32
		switch a.ID {
		case AttrRegCount:
			dst = func(k *Kernel) *uint32 { return &k.RegCount }
		case AttrFrameSize:
			dst = func(k *Kernel) *uint32 { return &k.FrameSize }
		case AttrMinStackSize:
			dst = func(k *Kernel) *uint32 { return &k.MinStackSize }
		case AttrMaxStackSize:
			dst = func(k *Kernel) *uint32 { return &k.MaxStackSize }
		default:
			continue
		}
		b, err := a.sval(8)
		if err != nil {
			return err
		}
		for ; len(b) >= 8; b = b[8:] {
			if k := bySym[le.Uint32(b)]; k != nil {
				*dst(k) = le.Uint32(b[4:])
			}
		}
	}
	return nil
}

// kernelAttrs decodes the records of a kernel's .nv.info.<name> section.
func (p *parser) kernelAttrs(k *Kernel) error {
	var err error
	for i := range k.Attrs {
		a := &k.Attrs[i]
		switch a.ID {
		case AttrKParamInfo, AttrKParamInfoV2:
			var b []byte
			if b, err = a.sval(12); err != nil {
				return err
			}
			for ; len(b) >= 12; b = b[12:] {
				k.Params = append(k.Params, kparam(b, a.ID == AttrKParamInfoV2))
			}
		case AttrParamCBank:
			var b []byte
			if b, err = a.sval(8); err != nil {
				return err
			}
			k.ParamBase = uint32(le.Uint16(b[4:]))
			if k.ParamSize == 0 {
				k.ParamSize = uint32(le.Uint16(b[6:]))
			}
		case AttrCBankParamSize:
			if k.ParamSize, err = a.scalar(); err != nil {
				return err
			}
		case AttrMaxThreads:
			k.MaxThreads, err = dim3(a)
		case AttrReqNTID:
			k.ReqNTID, err = dim3(a)
		case AttrCTAPerCluster:
			k.ClusterDim, err = dim3(a)
		case AttrExplicitCluster:
			k.ExplicitCluster = true
		case AttrMaxClusterRank:
			k.MaxClusterRank, err = a.scalar()
		case AttrMaxRegCount:
			k.MaxRegCount, err = a.scalar()
		case AttrCUDAAPIVersion:
			k.CUDAAPIVersion, err = a.scalar()
		case AttrExterns:
			var b []byte
			if b, err = a.sval(4); err != nil {
				return err
			}
			for ; len(b) >= 4; b = b[4:] {
				x := le.Uint32(b)
				s, ok := p.symbol(x)
				if !ok {
					return errorf(a.Off, "%v: symbol index %d out of range (%d symbols)", a.ID, x, len(p.syms))
				}
				k.Externs = append(k.Externs, s.Name)
			}
		}
		if err != nil {
			return err
		}
	}
	// Records come in descending ordinal order.
	slices.SortStableFunc(k.Params, func(a, b Param) int { return a.Ordinal - b.Ordinal })
	return nil
}
