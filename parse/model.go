// Package parse turns CUDA device-code files (PTX text, cubins, fatbins, and
// the fatbins inside host objects, shared libraries and executables) into one
// format-neutral model: the kernels with their parameter layouts and launch
// directives, and the module-scope variables. The format packages below it
// (parse/ptx, parse/fatbin, parse/cubin) mirror their specs, and fatbin.Sniff
// tells the inputs apart; this package interprets them. parse/csrc, above
// it, adds what CUDA source declares (parameter names, extern "C" types).
package parse

import (
	"fmt"
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
type Kernel struct {
	Name      string     // the symbol name: mangled for C++, plain for extern "C"
	Signature *Signature // from demangling; nil for extern "C" kernels
	Params    []*Param
	ParamSize int // bytes of the packed parameter buffer

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
	// Pos is where the kernel is defined, "file:line" for PTX, "" otherwise.
	Pos string
}

// Param is one kernel parameter.
type Param struct {
	Ordinal  int
	Name     string // the PTX parameter name ("k1_param_0"); "" from a cubin
	Offset   int
	Size     int
	Align    int
	PTXType  string // "u64", "f32", "b8" ...; "" from a cubin
	ArrayLen int    // N for .b8 name[N]; 0 for a scalar
	PtrSpace string // the .ptr attribute's space ("global", "generic"); "" when absent
	CType    *CType // the C++ type from the mangled name; nil for extern "C" kernels
}

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

// Pretty is the kernel's C++ signature, or an extern "C" rendering of its PTX types.
func (k *Kernel) Pretty() string {
	if k.Signature != nil {
		return k.Signature.Pretty
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
