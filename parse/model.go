// Package parse turns CUDA device-code files (PTX text, cubins, fatbins, and
// the fatbins inside host objects, shared libraries and executables) into one
// format-neutral model: the kernels with their parameter layouts and launch
// directives, and the module-scope variables. The format packages below it
// (parse/ptx, parse/fatbin, parse/cubin) mirror their specs, and fatbin.Sniff
// tells the inputs apart; this package interprets them. parse/csrc, above
// it, adds what CUDA source declares (parameter names, extern "C" types,
// class definitions, the variables' types).
package parse

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cugen/cugen/parse/fatbin"
)

// Module is everything cugen knows about one input.
type Module struct {
	Source  string        // the input's file name
	Format  fatbin.Format // what the input is (fatbin.Sniff's verdict)
	Kernels []*Kernel     // sorted by mangled name
	Globals []*Global     // sorted by name
	Arches  []string      // code present: "sm_90", "compute_90"; at most one for a PTX or cubin input
	// Image is what a generated package embeds: the PTX text, the cubin, or a
	// standalone fatbin (extracted from a host ELF file, possibly filtered).
	Image []byte
	// Warnings are non-fatal findings (e.g. no PTX entry for the soft backend).
	Warnings []string
}

// Kernel is one __global__ function.
//
// Its Params are in one canonical layout, the same whatever targets the
// input holds: the natural C layout of the parameters' sizes and alignments
// (each parameter at the next offset aligned to its Align). That is exactly
// the PTX's .param layout, which rt/soft executes; without PTX the
// alignments are inferred from the cubins (see Param.Align). The
// compiled code of a target may place a parameter elsewhere: a parameter
// aligned above 16 bytes (struct alignas(64), CUtensorMap's .align 128) sits
// where its address in the constant bank is aligned, and the bank's
// parameter area starts at a different address per architecture (0x160 on
// sm_80, 0x210 on sm_90). Layouts lists the targets whose offsets differ,
// and a PTX image JIT-compiled by the driver may differ too (the H100 puts
// bigParam's 64-byte parameter at 48, the PTX at 0): a launcher must place
// the bytes at the offsets the loaded kernel reports (cuKernelGetParamInfo),
// or pass one pointer per parameter (kernelParams).
type Kernel struct {
	Name      string     // the symbol name: mangled for C++, plain for extern "C"
	Signature *Signature // from demangling; nil for extern "C" kernels and names that do not demangle
	// Untyped says why a mangled kernel's C++ parameter types are unknown
	// (a name too deep to demangle, a parameter count the code disagrees
	// with); its parameters are typed by their binary widths. "" otherwise.
	Untyped   string
	Params    []*Param
	ParamSize int // bytes of the parameter block in the canonical layout

	// Layouts are the parameter layouts of the targets whose compiled code
	// places some parameter elsewhere than Params' offsets, or whose
	// parameter block has another size; targets not listed use Params'.
	// Empty for most kernels: only over-aligned parameters move.
	Layouts []*TargetLayout

	// Launch directives (zero when absent).
	MaxThreads        [3]int // .maxntid / __launch_bounds__
	ReqThreads        [3]int // .reqntid
	MinBlocksPerSM    int    // .minnctapersm
	MaxRegs           int    // .maxnreg / __maxnreg__
	ClusterDims       [3]int // .reqnctapercluster / __cluster_dims__
	ExplicitCluster   bool
	MaxClusterRank    int
	BlocksAreClusters bool

	// Arches lists the targets the kernel exists for; empty means every target
	// in the module.
	Arches []string
	// Regs is the register count per cubin target (from cubins only).
	Regs map[string]int
	// SharedBytes is the static shared memory the kernel declares (its
	// __shared__ arrays and its callees', each once), and DynamicShared says
	// it uses an extern __shared__ array, sized per launch
	// (rt.Config.SharedMem): from PTX; 0 and false without it.
	SharedBytes   int
	DynamicShared bool
	// Pos is where the kernel is defined, "file:line" for PTX, "" otherwise.
	Pos string
}

// TargetLayout is where one or more targets' compiled code expects a
// kernel's parameters.
type TargetLayout struct {
	Arches    []string // the targets ("sm_80"), sorted
	Offsets   []int    // one per parameter, by ordinal
	ParamSize int      // bytes of the parameter block (EIATTR_CBANK_PARAM_SIZE)
}

// Layout returns the offsets and block size the code for arch expects.
func (k *Kernel) Layout(arch string) (offsets []int, paramSize int) {
	for _, l := range k.Layouts {
		if slices.Contains(l.Arches, arch) {
			return l.Offsets, l.ParamSize
		}
	}
	offsets = make([]int, len(k.Params))
	for i, p := range k.Params {
		offsets[i] = p.Offset
	}
	return offsets, k.ParamSize
}

// Param is one kernel parameter.
type Param struct {
	Ordinal int
	Name    string // the PTX parameter name ("k1_param_0"); "" from a cubin
	Offset  int    // in the canonical layout (see Kernel)
	Size    int
	// Align is the parameter's alignment: the PTX's .align (or its type's
	// size), else inferred from the cubins: where one pads before the
	// parameter, the smallest alignment that explains the padding (the
	// largest any cubin needs), else the largest power of two up to 16 that
	// its address allows.
	Align    int
	PTXType  string // "u64", "f32", "b8" ...; "" from a cubin
	ArrayLen int    // N for .b8 name[N]; 0 for a scalar
	PtrSpace string // the .ptr attribute's space ("global", "generic"); "" when absent
	CType    *CType // the C++ type from the mangled name; nil for extern "C" kernels
}

// OverAligned reports a parameter aligned above 8 bytes (a pointer's).
// Those above 16 are the ones compiled code places per target (see Kernel).
func (p *Param) OverAligned() bool { return p.Align > 8 }

// Space is a variable's state space.
type Space string

const (
	SpaceGlobal Space = "global" // __device__ and __managed__
	SpaceConst  Space = "const"  // __constant__
)

// Global is a module-scope variable a program can address from the host.
type Global struct {
	Name     string
	Space    Space
	Managed  bool
	PTXType  string // element type ("u32", "f32", "b8"); "" from a cubin
	ElemSize int
	Count    int // elements
	Size     int // bytes
	Align    int
	Extern   bool // declared .extern: defined in another translation unit
	Visible  bool
	// Init is the initial value (from PTX, ptx.Var.InitData's bytes): shorter
	// than Size when the rest is zero, empty or nil when all of it is. An
	// element that holds an address is zero here; the loader writes it.
	Init []byte
	// Refs says whether any function of the code refers to the variable:
	// known from PTX, unknown from a cubin.
	Refs Refs

	// What a CUDA source declares (cugen -src): the element type and the
	// array extents (float t[4][8]: float, [4 8]), and where. CType is nil
	// when no source declares the variable.
	CType *CType
	Dims  []int
	Decl  string
}

// Refs says what is known of the references to a variable.
type Refs uint8

const (
	RefsUnknown Refs = iota // the code does not say (a cubin)
	RefsNone                // no function refers to it
	RefsSome
)

// Internal reports a variable the compiler made for itself, whose name
// changes from build to build and which no program addresses: nvcc's
// _INTERNAL_ and __unnamed_ families (file-local objects, assert strings)
// and $str; clang's names holding "_$_", its spelling of the '.' of LLVM's
// private names (the printf and assert strings _$_str, _$_str1, ..., and
// __PRETTY_FUNCTION___$__Z1kPii, __func___$_k); and objects of libcu++ and
// the standard library (namespaces cuda and std: customization-point
// objects, tags).
func (g *Global) Internal() bool {
	n := g.Name
	if strings.Contains(n, "_INTERNAL_") || strings.HasPrefix(n, "__unnamed_") || strings.HasPrefix(n, "$") || strings.Contains(n, "_$_") {
		return true
	}
	q := DemangleName(n)
	return strings.HasPrefix(q, "cuda::") || strings.HasPrefix(q, "std::") || strings.HasPrefix(q, "__cxxabiv1::")
}

// Kernel looks a kernel up by name.
func (m *Module) Kernel(name string) *Kernel {
	for _, k := range m.Kernels {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// Global looks a variable up by name.
func (m *Module) Global(name string) *Global {
	for _, g := range m.Globals {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// HasPTX reports whether the module carries PTX (required by rt/soft).
func (m *Module) HasPTX() bool {
	for _, a := range m.Arches {
		if strings.HasPrefix(a, "compute_") {
			return true
		}
	}
	return false
}

// Pretty is the kernel's C++ signature, or an extern "C" rendering of its
// PTX types; a mangled name that does not demangle is shown abbreviated.
func (k *Kernel) Pretty() string {
	if k.Signature != nil {
		return k.Signature.Pretty
	}
	if k.Untyped != "" {
		return ShortName(k.Name)
	}
	var ps []string
	for _, p := range k.Params {
		t := p.PTXType
		if p.ArrayLen > 0 {
			t = fmt.Sprintf(".%s[%d]", t, p.ArrayLen)
		} else if t != "" {
			t = "." + t
		} else {
			t = fmt.Sprintf("%d bytes", p.Size)
		}
		ps = append(ps, t)
	}
	return fmt.Sprintf("extern \"C\" %s(%s)", k.Name, strings.Join(ps, ", "))
}

// alignUp rounds n up to a multiple of a (a power of two, or 0/1).
func alignUp(n, a int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) &^ (a - 1)
}
