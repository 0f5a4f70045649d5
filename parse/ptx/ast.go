// Package ptx parses PTX assembly text (what nvcc 12–13 and LLVM/clang emit)
// into a complete syntax tree: module directives, module-scope variables,
// entries and device functions with their parameter lists and performance
// directives, and every body statement with its source position.
//
// The tree mirrors the PTX ISA: it is a faithful record of the text, not an
// interpretation of it. The format-neutral kernel model is built from it by
// package parse; rt/soft decodes the statements into its executable form.
// The one interpretation both need to agree on lives here: what a literal
// means as a value of a type (IntBits, FloatBits) and the bytes a variable's
// initializer lays out (Var.InitData).
package ptx

import (
	"fmt"
	goscanner "go/scanner"
	gotoken "go/token"
)

// Pos is a position in PTX source: file name, byte offset, and line and
// column counted from 1 (the column in bytes). It prints as file:line:col.
// It is go/token's Position, as in parse/csrc: cugen's two hand-written
// parsers report places one way.
type Pos = gotoken.Position

// Error is a syntax error at a position; it reads "file:line:col: message".
// It is go/scanner's Error, as in parse/csrc.
type Error = goscanner.Error

// Space is a PTX state space.
type Space uint8

const (
	SpaceNone Space = iota
	SpaceReg
	SpaceSReg
	SpaceConst
	SpaceGlobal
	SpaceLocal
	SpaceParam
	SpaceShared
	SpaceTex
	SpaceGeneric // .ptr without a state space: a generic address
)

var spaceNames = [...]string{"", "reg", "sreg", "const", "global", "local", "param", "shared", "tex", "generic"}

func (s Space) String() string {
	if int(s) < len(spaceNames) {
		return spaceNames[s]
	}
	return fmt.Sprintf("Space(%d)", s)
}

// Linkage is a variable's or function's linking directive.
type Linkage uint8

const (
	LinkNone Linkage = iota
	LinkVisible
	LinkExtern
	LinkWeak
	LinkCommon
)

var linkNames = [...]string{"", "visible", "extern", "weak", "common"}

func (l Linkage) String() string {
	if int(l) < len(linkNames) {
		return linkNames[l]
	}
	return fmt.Sprintf("Linkage(%d)", l)
}

// Type is a PTX fundamental type.
type Type uint8

const (
	TypeNone Type = iota
	B8
	B16
	B32
	B64
	B128
	U8
	U16
	U32
	U64
	S8
	S16
	S32
	S64
	F16
	F16x2
	BF16
	BF16x2
	TF32
	F32
	F64
	Pred
	Texref
	Samplerref
	Surfref
)

var typeNames = [...]string{"", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64",
	"s8", "s16", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64", "pred",
	"texref", "samplerref", "surfref"}

var typeSizes = [...]int{0, 1, 2, 4, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 2, 4, 4, 4, 8, 0, 8, 8, 8}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", t)
}

// Size is the type's width in bytes (0 for .pred and TypeNone).
func (t Type) Size() int {
	if int(t) < len(typeSizes) {
		return typeSizes[t]
	}
	return 0
}

// IsFloat reports whether t is a floating-point type (incl. packed halves).
func (t Type) IsFloat() bool {
	switch t {
	case F16, F16x2, BF16, BF16x2, TF32, F32, F64:
		return true
	}
	return false
}

// IsSigned reports whether t is a signed integer type.
func (t Type) IsSigned() bool { return t >= S8 && t <= S64 }

// IsUnsigned reports whether t is an unsigned integer type.
func (t Type) IsUnsigned() bool { return t >= U8 && t <= U64 }

// IsBits reports whether t is an untyped bit type.
func (t Type) IsBits() bool { return t >= B8 && t <= B128 }

// LookupType maps a type name without its dot ("u32") to its Type.
func LookupType(name string) (Type, bool) {
	for i, n := range typeNames {
		if i > 0 && n == name {
			return Type(i), true
		}
	}
	return TypeNone, false
}

// Module is one PTX translation unit.
type Module struct {
	File        string
	Version     Version
	Target      []string // e.g. ["sm_90a"], ["sm_90", "debug"], ["sm_75", "texmode_independent"]
	AddressSize int      // 32 or 64; 0 when the directive is absent (PTX default: 32)
	Vars        []*Var   // module-scope variables, in source order
	Funcs       []*Func  // .entry and .func, definitions and prototypes, in source order
	Pragmas     []string // module-scope .pragma strings, unquoted
	// Sections lists the names of the .section blocks (DWARF: ".debug_info",
	// ".debug_abbrev", ...), whose contents the parser skips.
	Sections []string
	// Files is the .file table of the line information: file names by
	// number (nil without line information; see SrcPos).
	Files map[int]string

	src string // the text parsed, without trailing NULs: ParseBody reads bodies from it
}

// Version is the .version directive.
type Version struct {
	Major, Minor int
	Pos          Pos
}

// Var is a variable declaration: module scope (.global, .const, .shared),
// or inside a body (.reg, .local, .shared, .param). A declaration naming
// several variables is split into one Var per name.
type Var struct {
	Pos     Pos
	Linkage Linkage
	Space   Space
	Managed bool     // .attribute(.managed)
	Unified []uint64 // .attribute(.unified(u1,u2)), nil if absent
	Align   int      // explicit .align, 0 if absent
	Vector  int      // 0, 2, 4 or 8 for .v2/.v4/.v8
	Type    Type
	Name    string
	Range   int   // N for a parameterized register name %r<N> (names %r0..%r{N-1}); 0 otherwise
	Dims    []int // array dimensions, outermost first; -1 for an unsized dimension ([])
	Init    *Init // nil when there is no initializer
}

// InitKind says what an initializer node is.
type InitKind uint8

const (
	InitInt    InitKind = iota // Int holds the value (negative values in two's complement)
	InitFloat                  // Float holds the value; Bits holds exact bits for 0f/0d literals
	InitSymbol                 // address of Sym (+Offset), optionally generic() and masked
	InitList                   // { List... }
)

// Init is an initializer: a scalar, an address expression or a brace list.
// A list keeps its text rather than its elements, which Elems parses again:
// an initializer of millions of elements costs the parser its text, not a
// node per element.
type Init struct {
	Pos     Pos
	Kind    InitKind
	Int     uint64
	Float   float64
	Bits    uint64 // exact bit pattern of a 0f (32-bit) or 0d (64-bit) literal
	BitsLen int    // 32 or 64 when Bits is set from a hex float literal, else 0
	Sym     string
	Generic bool   // generic(Sym)
	Offset  int64  // Sym+Offset
	Mask    uint64 // 0xFF00(sym) mask operator; 0 when absent
	// list is, for an InitList, the scanner just after its '{'.
	list *scanner
}

// Param is one parameter of an .entry or .func (or a .func return value).
type Param struct {
	Pos      Pos
	Space    Space // SpaceParam, or SpaceReg for .func register parameters
	Align    int   // explicit .align, 0 if absent
	Vector   int   // 0, 2, 4
	Type     Type
	Ptr      *PtrAttr // .ptr attribute, nil if absent
	Name     string
	ArrayLen int // N for name[N]; 0 for a scalar; -1 for name[] (unsized)
}

// PtrAttr is the .ptr attribute of a kernel parameter.
type PtrAttr struct {
	Space Space // SpaceGeneric when no state space was given
	Align int   // 0 if absent (PTX default 4)
}

// Func is an .entry (kernel) or .func (device function).
type Func struct {
	Pos     Pos
	Linkage Linkage
	Entry   bool // .entry; false for .func
	Name    string
	Returns []*Param // .func return parameters
	Params  []*Param

	// Performance-tuning directives, in the order PTX allows them between ')' and '{'.
	MaxNTID           []int // 1 to 3 values; nil if absent
	ReqNTID           []int
	MinNCTAPerSM      int
	MaxNCTAPerSM      int
	MaxNReg           int
	ExplicitCluster   bool
	ReqNCTAPerCluster []int
	MaxClusterRank    int
	BlocksAreClusters bool
	NoReturn          bool
	Pragmas           []string // .pragma strings, unquoted
	ABIPreserve       int
	ABIPreserveCtl    int

	Body *Block // nil for a prototype (declaration ending in ';')
}

// Block is a brace-delimited list of statements; bodies nest blocks for
// call sequences and scoped declarations.
type Block struct {
	Pos   Pos // the '{'
	End   Pos // the '}'
	Stmts []Stmt
}

// Stmt is one body statement: *Var (a declaration), *Label, *Instr, *Block,
// *Pragma, *CallProto or *Targets.
type Stmt interface{ stmt() }

// Label is "name:".
type Label struct {
	Pos  Pos
	Name string
}

// Pragma is a .pragma directive inside a body.
type Pragma struct {
	Pos  Pos
	Text string
}

// Instr is one instruction: an optional guard, the opcode with its dotted
// modifiers, and the operands.
type Instr struct {
	Pos Pos
	// Src is where in the source the instruction came from, when the PTX
	// carries line information (.loc; nvcc -lineinfo, clang
	// -gline-tables-only): nil otherwise, and for code of no source line.
	// Instructions after one .loc share its SrcPos.
	Src      *SrcPos
	Guard    string // guard predicate register ("%p1"), "" when unguarded
	GuardNeg bool   // @!%p
	Op       string // base opcode, e.g. "ld"
	Mods     []string
	// Mods are the dotted modifiers in source order, without dots:
	// ld.global.nc.v4.f32 → Op "ld", Mods ["global", "nc", "v4", "f32"].
	// Modifiers with their own dots inside (".L1::evict_last", ".sync.aligned")
	// are split at every dot that is not inside "::".
	Operands []Operand
}

func (*Var) stmt()    {}
func (*Label) stmt()  {}
func (*Instr) stmt()  {}
func (*Block) stmt()  {}
func (*Pragma) stmt() {}

// Operand is one instruction operand.
type Operand interface{ operand() }

// Reg is a register or special register, optionally with a component
// selector (%tid.x → Name "%tid", Comp "x") and a logical negation (!%p).
// The sink "_" is a Reg named "_".
type Reg struct {
	Pos  Pos
	Name string
	Comp string
	Not  bool
	// Neg marks a register negated with a leading '-', which the parser
	// takes only in vmad's operands ("vmad ... d, -a, b, -c").
	Neg bool
}

// Imm is an integer immediate. Val holds the value as written; negative
// literals are stored in two's complement.
type Imm struct {
	Pos Pos
	Val uint64
}

// FImm is a floating-point immediate: 0fXXXXXXXX (Bits 32), 0dXXXXXXXXXXXXXXXX
// (Bits 64), or a decimal literal (Bits 0, value in Val).
type FImm struct {
	Pos     Pos
	Val     float64
	Bits    uint64
	BitsLen int
}

// Sym names a variable, function or label.
type Sym struct {
	Pos  Pos
	Name string
}

// Addr is a memory operand: [base], [base+off], [base-off], [imm]. Base is a
// *Reg or *Sym, or nil for an absolute address.
type Addr struct {
	Pos    Pos
	Base   Operand
	Offset int64
}

// Vec is a vector operand {a, b, c, d}; elements are *Reg (possibly "_"),
// immediates or nested operands.
type Vec struct {
	Pos   Pos
	Elems []Operand
}

// List is a parenthesized operand list in a call: call (ret), f, (a, b).
type List struct {
	Pos   Pos
	Elems []Operand
}

// Str is a string literal operand (rare; kept for completeness).
type Str struct {
	Pos   Pos
	Value string
}

func (*Reg) operand()  {}
func (*Imm) operand()  {}
func (*FImm) operand() {}
func (*Sym) operand()  {}
func (*Addr) operand() {}
func (*Vec) operand()  {}
func (*List) operand() {}
func (*Str) operand()  {}

// Entries returns the module's kernels (.entry definitions), in source order.
func (m *Module) Entries() []*Func {
	var out []*Func
	for _, f := range m.Funcs {
		if f.Entry && f.Body != nil {
			out = append(out, f)
		}
	}
	return out
}

// The declarations below extend the original contract for syntax that nvcc
// and clang emit but the first draft had no node for.

// Pair is a two-destination operand "a|b": shfl.sync and setp write a value
// (or predicate) and a second predicate.
type Pair struct {
	Pos           Pos
	First, Second Operand
}

// Tuple is a bracketed operand list "[a, b, {c, d}]", as texture, surface
// and tensor-map instructions address their operands.
type Tuple struct {
	Pos   Pos
	Elems []Operand
}

func (*Pair) operand()  {}
func (*Tuple) operand() {}

// CallProto is "name: .callprototype (rets) _ (params);", the signature an
// indirect call names as its last operand (clang emits these).
type CallProto struct {
	Pos      Pos
	Name     string
	Returns  []*Param
	Params   []*Param
	NoReturn bool
}

// Targets is "name: .branchtargets L1, L2;" or ".calltargets f, g;", the
// target list of brx.idx or an indirect call.
type Targets struct {
	Pos     Pos
	Name    string
	Kind    string // "branchtargets" or "calltargets"
	Targets []string
}

func (*CallProto) stmt() {}
func (*Targets) stmt()   {}
