package ptx

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// corpus lists every PTX file under testdata: nvcc 13 outputs at the top,
// clang-16 outputs in clang/, hand-written syntax coverage in hand/.
func corpus(t testing.TB) []string {
	t.Helper()
	a, _ := filepath.Glob("testdata/*.ptx")
	b, _ := filepath.Glob("testdata/*/*.ptx")
	files := append(a, b...)
	if len(files) < 12 {
		t.Fatalf("only %d PTX files under testdata", len(files))
	}
	return files
}

func parseFile(t testing.TB, path string) (*Module, []byte) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(filepath.Base(path), src)
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	return m, src
}

func findFunc(t *testing.T, m *Module, name string) *Func {
	t.Helper()
	for _, f := range m.Funcs {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("%s: no function %q", m.File, name)
	return nil
}

func findVar(t *testing.T, m *Module, name string) *Var {
	t.Helper()
	for _, v := range m.Vars {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("%s: no variable %q", m.File, name)
	return nil
}

// walk calls fn for every statement, descending into nested blocks.
func walk(b *Block, fn func(Stmt)) {
	for _, s := range b.Stmts {
		fn(s)
		if nb, ok := s.(*Block); ok {
			walk(nb, fn)
		}
	}
}

// render prints an operand in canonical PTX form, so assertions can be
// written as the text one expects to see.
func render(o Operand) string {
	switch o := o.(type) {
	case *Reg:
		s := o.Name
		if o.Comp != "" {
			s += "." + o.Comp
		}
		if o.Not {
			s = "!" + s
		}
		return s
	case *Imm:
		return fmt.Sprint(int64(o.Val))
	case *FImm:
		switch o.BitsLen {
		case 32:
			return fmt.Sprintf("0f%08X", o.Bits)
		case 64:
			return fmt.Sprintf("0d%016X", o.Bits)
		}
		return fmt.Sprint(o.Val)
	case *Sym:
		return o.Name
	case *Str:
		return fmt.Sprintf("%q", o.Value)
	case *Addr:
		s := ""
		if o.Base != nil {
			s = render(o.Base)
			if o.Offset != 0 {
				s += fmt.Sprintf("%+d", o.Offset)
			}
		} else {
			s = fmt.Sprint(o.Offset)
		}
		return "[" + s + "]"
	case *Vec:
		return "{" + renderList(o.Elems) + "}"
	case *List:
		return "(" + renderList(o.Elems) + ")"
	case *Tuple:
		return "[" + renderList(o.Elems) + "]"
	case *Pair:
		return render(o.First) + "|" + render(o.Second)
	}
	return fmt.Sprintf("?%T", o)
}

func renderList(l []Operand) string {
	var s []string
	for _, o := range l {
		s = append(s, render(o))
	}
	return strings.Join(s, ", ")
}

func renderInstr(in *Instr) string {
	s := ""
	if in.Guard != "" {
		s = "@"
		if in.GuardNeg {
			s += "!"
		}
		s += in.Guard + " "
	}
	s += strings.Join(append([]string{in.Op}, in.Mods...), ".")
	if len(in.Operands) > 0 {
		s += " " + renderList(in.Operands)
	}
	return s
}

func instrAt(t *testing.T, stmts []Stmt, i int) *Instr {
	t.Helper()
	if i >= len(stmts) {
		t.Fatalf("statement %d of %d", i, len(stmts))
	}
	in, ok := stmts[i].(*Instr)
	if !ok {
		t.Fatalf("statement %d is %T, want *Instr", i, stmts[i])
	}
	return in
}

func TestCorpusParses(t *testing.T) {
	for _, path := range corpus(t) {
		m, src := parseFile(t, path)
		if len(m.Funcs) == 0 || m.Version.Major == 0 || len(m.Target) == 0 {
			t.Errorf("%s: empty module: %d funcs, version %+v, target %v", path, len(m.Funcs), m.Version, m.Target)
		}
		// Fatbin-embedded PTX is NUL-terminated; the trailing NULs change nothing.
		m2, err := Parse(filepath.Base(path), append(src[:len(src):len(src)], 0, 0, 0))
		if err != nil {
			t.Errorf("%s with trailing NULs: %v", path, err)
		} else if !reflect.DeepEqual(m, m2) {
			t.Errorf("%s: trailing NULs changed the tree", path)
		}
	}
}

func TestModuleK(t *testing.T) {
	m, _ := parseFile(t, "testdata/k.ptx")
	if m.Version.Major != 9 || m.Version.Minor != 0 || m.Version.Pos.Line != 9 {
		t.Errorf("version = %+v", m.Version)
	}
	if !reflect.DeepEqual(m.Target, []string{"sm_90"}) || m.AddressSize != 64 {
		t.Errorf("target %v, address size %d", m.Target, m.AddressSize)
	}
	var names []string
	for _, f := range m.Entries() {
		names = append(names, f.Name)
	}
	wantNames := []string{"k1", "_Z2k2IfLi4EEvPT_", "_Z2k41AcPi", "_Z2k51SPi", "_ZN2ns2k3EcsxPh"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("entries = %v, want %v", names, wantNames)
	}

	k1 := findFunc(t, m, "k1")
	type pw struct {
		name       string
		typ        Type
		align, arr int
	}
	want := []pw{{"k1_param_0", U64, 0, 0}, {"k1_param_1", F32, 0, 0}, {"k1_param_2", B8, 8, 24}, {"k1_param_3", U64, 0, 0}}
	if len(k1.Params) != len(want) {
		t.Fatalf("k1 has %d params, want %d", len(k1.Params), len(want))
	}
	for i, p := range k1.Params {
		got := pw{p.Name, p.Type, p.Align, p.ArrayLen}
		if got != want[i] || p.Space != SpaceParam || p.Ptr != nil || p.Pos.Line != 22+i {
			t.Errorf("k1 param %d = %+v (space %v, line %d), want %+v", i, got, p.Space, p.Pos.Line, want[i])
		}
	}
	if !reflect.DeepEqual(k1.MaxNTID, []int{256, 1, 1}) || k1.MinNCTAPerSM != 2 || k1.MaxNReg != 0 || k1.ExplicitCluster || !k1.Entry || k1.Linkage != LinkVisible {
		t.Errorf("k1 directives: %+v", k1)
	}
	k4 := findFunc(t, m, "_Z2k41AcPi")
	if !k4.ExplicitCluster || !reflect.DeepEqual(k4.ReqNCTAPerCluster, []int{2, 1, 1}) || k4.MaxNTID != nil {
		t.Errorf("k4 directives: explicit %v, reqnctapercluster %v", k4.ExplicitCluster, k4.ReqNCTAPerCluster)
	}
	if p := k4.Params[0]; p.Align != 16 || p.ArrayLen != 16 || p.Type != B8 {
		t.Errorf("k4 param 0 = %+v", p)
	}
	if k5 := findFunc(t, m, "_Z2k51SPi"); k5.MaxNReg != 40 {
		t.Errorf("k5 .maxnreg = %d, want 40", k5.MaxNReg)
	}

	// Module variables.
	var vnames []string
	for _, v := range m.Vars {
		vnames = append(vnames, v.Name)
	}
	if want := []string{"g1", "g2", "c1", "m1", "sg", "sm"}; !reflect.DeepEqual(vnames, want) {
		t.Errorf("vars = %v, want %v", vnames, want)
	}
	g2 := findVar(t, m, "g2")
	if g2.Space != SpaceGlobal || g2.Align != 4 || g2.Type != B8 || !reflect.DeepEqual(g2.Dims, []int{64}) || g2.Elems() != 64 {
		t.Errorf("g2 = %+v", g2)
	}
	if got := initInts(t, g2.Init); !reflect.DeepEqual(got, []uint64{0, 0, 128, 63, 0, 0, 0, 64}) {
		t.Errorf("g2 init = %v", got)
	}
	c1 := findVar(t, m, "c1")
	if c1.Space != SpaceConst || !reflect.DeepEqual(initInts(t, c1.Init), []uint64{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4}) {
		t.Errorf("c1 = %+v", c1)
	}
	if m1 := findVar(t, m, "m1"); !m1.Managed || m1.Type != U32 || m1.Init != nil || m1.Linkage != LinkNone {
		t.Errorf("m1 = %+v", m1)
	}
	sm := findVar(t, m, "sm")
	if sm.Linkage != LinkExtern || sm.Space != SpaceShared || sm.Align != 16 || !reflect.DeepEqual(sm.Dims, []int{-1}) || sm.Elems() != -1 {
		t.Errorf("sm = %+v", sm)
	}

	// k1's body: 4 register declarations and 27 instructions.
	st := k1.Body.Stmts
	if len(st) != 31 {
		t.Fatalf("k1 has %d statements, want 31", len(st))
	}
	if v, ok := st[0].(*Var); !ok || v.Space != SpaceReg || v.Type != F32 || v.Name != "%f" || v.Range != 9 {
		t.Errorf("k1 stmt 0 = %#v", st[0])
	}
	if v, ok := st[3].(*Var); !ok || v.Type != B64 || v.Name != "%rd" || v.Range != 5 {
		t.Errorf("k1 stmt 3 = %#v", st[3])
	}
	checkInstr(t, st, 10, "ld.const.u32 %r2, [c1+4]")
	checkInstr(t, st, 17, "ld.global.nc.f64 %fd1, [%rd4]")
	checkInstr(t, st, 29, "st.global.u32 [%rd3], %r12")
	checkInstr(t, st, 30, "ret")
	a := instrAt(t, st, 10).Operands[1].(*Addr)
	if s, ok := a.Base.(*Sym); !ok || s.Name != "c1" || a.Offset != 4 {
		t.Errorf("[c1+4] = %#v", a)
	}
}

func checkInstr(t *testing.T, st []Stmt, i int, want string) {
	t.Helper()
	if got := renderInstr(instrAt(t, st, i)); got != want {
		t.Errorf("statement %d = %q, want %q", i, got, want)
	}
}

// elems collects a list initializer's elements.
func elems(in *Init) []*Init { return slices.Collect(in.Elems()) }

func initInts(t *testing.T, in *Init) []uint64 {
	t.Helper()
	if in == nil || in.Kind != InitList {
		t.Fatalf("initializer %+v is not a list", in)
	}
	var out []uint64
	for _, e := range elems(in) {
		if e.Kind != InitInt {
			t.Fatalf("list element %+v is not an integer", e)
		}
		out = append(out, e.Int)
	}
	return out
}

func TestBodyVectorAndGuard(t *testing.T) {
	m, _ := parseFile(t, "testdata/more_sm90.ptx")
	f := findFunc(t, m, "_Z2v4PK6float4PS_i")
	st := f.Body.Stmts
	if len(st) != 22 {
		t.Fatalf("v4 has %d statements, want 22", len(st))
	}
	checkInstr(t, st, 7, "mov.u32 %r3, %ctaid.x")
	checkInstr(t, st, 12, "@%p1 bra $L__BB2_2")
	checkInstr(t, st, 18, "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5]")
	checkInstr(t, st, 19, "st.global.v4.f32 [%rd7], {%f4, %f3, %f2, %f1}")
	if l, ok := st[20].(*Label); !ok || l.Name != "$L__BB2_2" || l.Pos.Line != 117 || l.Pos.Column != 1 {
		t.Errorf("stmt 20 = %#v, want label $L__BB2_2 at 117:1", st[20])
	}
	r := instrAt(t, st, 9).Operands[1].(*Reg)
	if r.Name != "%tid" || r.Comp != "x" {
		t.Errorf("%%tid.x = %+v", r)
	}
	v := instrAt(t, st, 18).Operands[0].(*Vec)
	if len(v.Elems) != 4 || v.Pos.Line != 114 || v.Pos.Column != 20 {
		t.Errorf("vector = %+v", v)
	}
	if g := instrAt(t, st, 12); g.Guard != "%p1" || g.GuardNeg || g.Pos.Column != 2 {
		t.Errorf("guard = %+v", g)
	}
}

func TestBodyCall(t *testing.T) {
	m, _ := parseFile(t, "testdata/more_sm90.ptx")
	st := findFunc(t, m, "_Z4callPf").Body.Stmts
	if len(st) != 12 {
		t.Fatalf("call has %d statements, want 12", len(st))
	}
	b, ok := st[9].(*Block)
	if !ok || len(b.Stmts) != 6 || b.Pos.Line != 562 || b.End.Line != 573 {
		t.Fatalf("stmt 9 = %#v, want a 6-statement call block on lines 562-573", st[9])
	}
	if v, ok := b.Stmts[1].(*Var); !ok || v.Space != SpaceParam || v.Type != B32 || v.Name != "param0" {
		t.Errorf("block stmt 1 = %#v", b.Stmts[1])
	}
	checkInstr(t, b.Stmts, 2, "st.param.f32 [param0], %f1")
	checkInstr(t, b.Stmts, 4, "call.uni (retval0), _Z2sqf, (param0)")
	call := instrAt(t, b.Stmts, 4)
	if l, ok := call.Operands[2].(*List); !ok || l.Pos.Line != 569 || len(l.Elems) != 1 {
		t.Errorf("argument list = %#v", call.Operands[2])
	}
	if a := instrAt(t, b.Stmts, 2).Operands[0].(*Addr); a.Offset != 0 || a.Base.(*Sym).Name != "param0" {
		t.Errorf("[param0+0] = %+v", a)
	}

	// vprintf: an .extern prototype, and a call passing two arguments.
	vp := findFunc(t, m, "vprintf")
	if vp.Linkage != LinkExtern || vp.Entry || vp.Body != nil || len(vp.Returns) != 1 || vp.Returns[0].Name != "func_retval0" ||
		vp.Returns[0].Type != B32 || len(vp.Params) != 2 || vp.Params[1].Type != B64 {
		t.Errorf("vprintf = %+v", vp)
	}
	var calls []string
	walk(findFunc(t, m, "_Z2prPi").Body, func(s Stmt) {
		if in, ok := s.(*Instr); ok && in.Op == "call" {
			calls = append(calls, renderInstr(in))
		}
	})
	if want := []string{"call.uni (retval0), vprintf, (param0, param1)"}; !reflect.DeepEqual(calls, want) {
		t.Errorf("pr calls = %q, want %q", calls, want)
	}
}

func TestShflPair(t *testing.T) {
	m, _ := parseFile(t, "testdata/more_sm90.ptx")
	var got []string
	walk(findFunc(t, m, "_Z2wsPi").Body, func(s Stmt) {
		if in, ok := s.(*Instr); ok && in.Op == "shfl" {
			got = append(got, renderInstr(in))
		}
	})
	if len(got) != 1 || got[0] != "shfl.sync.up.b32 %r5|%p1, %r1, %r3, %r2, %r4" {
		t.Errorf("shfl = %q", got)
	}
}

func TestClang(t *testing.T) {
	m, _ := parseFile(t, "testdata/clang/clang_sm80.ptx")
	if m.Version != (Version{7, 5, Pos{Filename: "clang_sm80.ptx", Offset: 43, Line: 5, Column: 1}}) || m.Target[0] != "sm_80" {
		t.Errorf("version %+v target %v", m.Version, m.Target)
	}
	sx := findFunc(t, m, "saxpy")
	if !reflect.DeepEqual(sx.MaxNTID, []int{128, 1, 1}) || sx.MinNCTAPerSM != 4 {
		t.Errorf("saxpy directives %v %d", sx.MaxNTID, sx.MinNCTAPerSM)
	}
	// Pointer bytes inside a packed struct: the mask operator over generic().
	pk := findVar(t, m, "packed")
	if pk.Type != U8 || len(elems(pk.Init)) != 11 {
		t.Fatalf("packed = %+v", pk)
	}
	if e := elems(pk.Init)[0]; e.Kind != InitInt || e.Int != 3 {
		t.Errorf("packed[0] = %+v", e)
	}
	for i := 1; i <= 8; i++ {
		e := elems(pk.Init)[i]
		if e.Kind != InitSymbol || e.Sym != "counter" || !e.Generic || e.Mask != 0xFF<<(8*(i-1)) {
			t.Errorf("packed[%d] = %+v", i, e)
		}
	}
	if e := elems(pk.Init)[9]; e.Int != 254 {
		t.Errorf("packed[9] = %+v", e)
	}
	ops := findVar(t, m, "ops")
	if elems(ops.Init)[0].Sym != "_Z5twicef" || elems(ops.Init)[0].Generic || elems(ops.Init)[1].Sym != "_Z3negf" {
		t.Errorf("ops = %+v %+v", elems(ops.Init)[0], elems(ops.Init)[1])
	}
	if p := elems(findVar(t, m, "ptrs").Init)[1]; p.Sym != "counter" || !p.Generic || p.Mask != 0 {
		t.Errorf("ptrs[1] = %+v", p)
	}

	// Indirect call through a .callprototype.
	var proto *CallProto
	var call *Instr
	walk(findFunc(t, m, "indirect").Body, func(s Stmt) {
		switch s := s.(type) {
		case *CallProto:
			proto = s
		case *Instr:
			if s.Op == "call" {
				call = s
			}
		}
	})
	if proto == nil || proto.Name != "prototype_0" || len(proto.Returns) != 1 || proto.Returns[0].Name != "_" ||
		len(proto.Params) != 1 || proto.Params[0].Type != B32 {
		t.Errorf("callprototype = %+v", proto)
	}
	if call == nil || renderInstr(call) != "call (retval0), %rd6, (param0), prototype_0" {
		t.Errorf("indirect call = %v", call)
	}
}

func TestClangInlineAsm(t *testing.T) {
	m, _ := parseFile(t, "testdata/clang/clang_more_sm86.ptx")
	var blk *Block
	walk(findFunc(t, m, "inl").Body, func(s Stmt) {
		if b, ok := s.(*Block); ok {
			blk = b
		}
	})
	if blk == nil || len(blk.Stmts) != 3 {
		t.Fatalf("inline asm block = %+v", blk)
	}
	checkInstr(t, blk.Stmts, 1, "setp.ne.b32 p, %r2, 0")
	// p was declared ".reg .pred p;" inside the asm block, so it is a register.
	if r, ok := instrAt(t, blk.Stmts, 2).Operands[3].(*Reg); !ok || r.Name != "p" {
		t.Errorf("selp predicate = %#v", instrAt(t, blk.Stmts, 2).Operands[3])
	}
}

func TestHandSyntax(t *testing.T) {
	m, _ := parseFile(t, "testdata/hand/syntax.ptx")
	if m.Version.Major != 8 || m.Version.Minor != 10 {
		t.Errorf("version %+v, want 8.10", m.Version)
	}
	if !reflect.DeepEqual(m.Target, []string{"sm_100f", "texmode_independent", "map_f64_to_f32"}) {
		t.Errorf("target %v", m.Target)
	}
	if !reflect.DeepEqual(m.Pragmas, []string{"nounroll"}) {
		t.Errorf("module pragmas %q", m.Pragmas)
	}
	if v := findVar(t, m, "cm"); v.Linkage != LinkCommon || v.Type != U64 || v.Align != 8 {
		t.Errorf("cm = %+v", v)
	}
	wv := findVar(t, m, "wv")
	if wv.Linkage != LinkWeak || wv.Vector != 2 || wv.Elems() != 2 {
		t.Errorf("wv = %+v", wv)
	}
	if e := elems(wv.Init)[0]; e.Kind != InitFloat || e.Float != 1 || e.Bits != 0x3F800000 || e.BitsLen != 32 {
		t.Errorf("wv[0] = %+v", e)
	}
	if e := elems(wv.Init)[1]; e.Kind != InitFloat || e.Float != -1.5 || e.BitsLen != 0 {
		t.Errorf("wv[1] = %+v", e)
	}
	if v := findVar(t, m, "uf"); !reflect.DeepEqual(v.Unified, []uint64{19, 95}) || v.Managed {
		t.Errorf("uf = %+v", v)
	}
	if got := initInts(t, findVar(t, m, "neg").Init); !reflect.DeepEqual(got, []uint64{math.MaxUint64, 0x7fffffff, 15}) {
		t.Errorf("neg init = %v", got)
	}
	grid := findVar(t, m, "grid")
	if !reflect.DeepEqual(grid.Dims, []int{2, 3}) || grid.Elems() != 6 || len(elems(grid.Init)) != 2 ||
		!reflect.DeepEqual(initInts(t, elems(grid.Init)[1]), []uint64{4, 5, 6}) {
		t.Errorf("grid = %+v", grid)
	}
	if e := findVar(t, m, "dd").Init; e.Bits != 0x3FF0000000000000 || e.BitsLen != 64 || e.Float != 1 {
		t.Errorf("dd = %+v", e)
	}
	ad := elems(findVar(t, m, "addrs").Init)
	if e := ad[0]; e.Sym != "uf" || !e.Generic || e.Offset != 4 || e.Mask != 0 {
		t.Errorf("addrs[0] = %+v", e)
	}
	if e := ad[1]; e.Sym != "neg" || e.Generic || e.Offset != 8 {
		t.Errorf("addrs[1] = %+v", e)
	}
	if e := ad[2]; e.Sym != "cm" || !e.Generic || e.Mask != 0xFF00 {
		t.Errorf("addrs[2] = %+v", e)
	}
	s2 := findVar(t, m, "s2")
	if s2.Space != SpaceShared || s2.Align != 16 || !reflect.DeepEqual(s2.Dims, []int{128}) || s2.Pos.Line != 18 {
		t.Errorf("s2 = %+v", s2)
	}
	if e := findVar(t, m, "e1").Init; e.Float != 125 {
		t.Errorf("e1 = %+v", e)
	}
	if v := findVar(t, m, "oldtex"); v.Space != SpaceTex {
		t.Errorf("oldtex = %+v", v)
	}

	h := findFunc(t, m, "helper")
	if !h.NoReturn || h.ABIPreserve != 4 || h.ABIPreserveCtl != 2 || h.Returns[0].Space != SpaceReg || h.Params[1].Type != Pred {
		t.Errorf("helper = %+v", h)
	}
	// Registers declared without '%' are registers, not symbols.
	checkInstr(t, h.Body.Stmts, 1, "@!q add.s32 rv, a, t")
	if _, ok := instrAt(t, h.Body.Stmts, 1).Operands[2].(*Reg); !ok {
		t.Errorf("t is not a *Reg")
	}

	k := findFunc(t, m, "k")
	wantPtr := []*PtrAttr{{SpaceGlobal, 16}, {SpaceShared, 0}, {SpaceGeneric, 0}, nil, nil}
	for i, p := range k.Params {
		if !reflect.DeepEqual(p.Ptr, wantPtr[i]) {
			t.Errorf("k param %d .ptr = %+v, want %+v", i, p.Ptr, wantPtr[i])
		}
	}
	if p := k.Params[3]; p.ArrayLen != -1 || p.Align != 4 {
		t.Errorf("k_arr = %+v", p)
	}
	if p := k.Params[4]; p.Vector != 2 || p.Type != U32 {
		t.Errorf("k_v = %+v", p)
	}
	if !reflect.DeepEqual(k.ReqNTID, []int{32, 4}) || k.MaxNCTAPerSM != 1 || k.MaxClusterRank != 8 || !k.BlocksAreClusters ||
		!reflect.DeepEqual(k.Pragmas, []string{"nounroll"}) {
		t.Errorf("k directives = %+v", k)
	}

	st := k.Body.Stmts
	var got []string
	for _, s := range st {
		switch s := s.(type) {
		case *Var:
			got = append(got, fmt.Sprintf("var %v %v %s<%d>%v", s.Space, s.Type, s.Name, s.Range, s.Dims))
		case *Instr:
			got = append(got, renderInstr(s))
		case *Label:
			got = append(got, s.Name+":")
		case *Pragma:
			got = append(got, "pragma "+s.Text)
		case *Targets:
			got = append(got, fmt.Sprintf("%s: .%s %v", s.Name, s.Kind, s.Targets))
		case *CallProto:
			got = append(got, fmt.Sprintf("%s: proto %d %d %d", s.Name, len(s.Returns), len(s.Params), s.Params[1].ArrayLen))
		case *Block:
			got = append(got, fmt.Sprintf("block %d", len(s.Stmts)))
		}
	}
	want := []string{
		"var reg pred %p<3>[]",
		"var reg b32 %r<9>[]",
		"var reg b64 %rd<4>[]",
		"var reg f32 %f<5>[]",
		"var shared b32 fs<0>[8]",
		"pragma used_bytes_mask 0xff",
		"$L_brx_0: .branchtargets [$L__BB0_1 $L__BB0_2]",
		"brx.idx %r1, $L_brx_0",
		"$L__BB0_1:",
		"@!%p1 bra.uni $L__BB0_2",
		"setp.lt.s32 %p1|%p2, %r1, -5",
		"mov.b32 %r2, 11",
		"mov.b32 %r3, 16",
		"mov.f32 %f1, 0fBF800000",
		"mov.f32 %f2, 2.5",
		"ld.global.L1::evict_last.v2.f32 {%f3, _}, [%rd1-4]",
		"st.shared::cta.b32 [fs+8], %r3",
		"ld.local.u32 %r4, [%rd2-12]",
		"ld.const.u32 %r5, [64]",
		"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd3, {%f1, %f2}]",
		"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%r1, %r2}], [%rd3]",
		"mov.u32 %r6, %envreg3",
		"selp.b32 %r7, 1, 0, !%p2",
		"prototype_9: proto 0 2 32",
		"call %rd3, (%rd1, %rd2), prototype_9",
		"call.uni helper, ()",
		"$L__BB0_2:",
		"block 2",
		"ret",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("k body:\n got %q\nwant %q", got, want)
	}
	ld := instrAt(t, st, 15)
	if !reflect.DeepEqual(ld.Mods, []string{"global", "L1::evict_last", "v2", "f32"}) {
		t.Errorf("mods = %q", ld.Mods)
	}
	if r := ld.Operands[0].(*Vec).Elems[1].(*Reg); r.Name != "_" {
		t.Errorf("sink = %+v", r)
	}
	if a := ld.Operands[1].(*Addr); a.Offset != -4 {
		t.Errorf("[%%rd1+-4] offset = %d", a.Offset)
	}
	if f := instrAt(t, st, 13).Operands[1].(*FImm); f.Val != -1 {
		t.Errorf("-0f3F800000 = %+v", f)
	}
	if in := instrAt(t, st, 10).Operands[2].(*Imm); int64(in.Val) != -5 {
		t.Errorf("-5 = %+v", in)
	}
	if r := instrAt(t, st, 22).Operands[3].(*Reg); !r.Not || r.Name != "%p2" {
		t.Errorf("!%%p2 = %+v", r)
	}
	inner := st[27].(*Block)
	checkInstr(t, inner.Stmts, 1, "mov.u32 inner, %nctaid.z")
}

// TestPositions checks every statement's and operand's position against the
// source text: an instruction's line:col starts with its guard or opcode.
func TestPositions(t *testing.T) {
	for _, path := range corpus(t) {
		m, src := parseFile(t, path)
		lines := strings.Split(string(src), "\n")
		at := func(p Pos) string {
			if p.Line < 1 || p.Line > len(lines) || p.Column < 1 || p.Column > len(lines[p.Line-1]) {
				t.Fatalf("%s: position %v outside the source", path, p)
			}
			if p.Filename != filepath.Base(path) {
				t.Fatalf("%s: position %v names the wrong file", path, p)
			}
			rest := lines[p.Line-1][p.Column-1:]
			if p.Offset < 0 || p.Offset > len(src) || !strings.HasPrefix(string(src[p.Offset:]), rest) {
				t.Fatalf("%s: position %v: offset %d does not match line and column", path, p, p.Offset)
			}
			return rest
		}
		n := 0
		var checkOp func(o Operand)
		checkOp = func(o Operand) {
			switch o := o.(type) {
			case *Reg:
				if s := at(o.Pos); !strings.HasPrefix(strings.TrimPrefix(s, "!"), o.Name) {
					t.Errorf("%s:%v: register %s at %q", path, o.Pos, o.Name, s)
				}
			case *Sym:
				if s := at(o.Pos); !strings.HasPrefix(s, o.Name) {
					t.Errorf("%s:%v: symbol %s at %q", path, o.Pos, o.Name, s)
				}
			case *Addr:
				if s := at(o.Pos); s[0] != '[' {
					t.Errorf("%s:%v: address at %q", path, o.Pos, s)
				}
				if o.Base != nil {
					checkOp(o.Base)
				}
			case *Vec:
				if s := at(o.Pos); s[0] != '{' {
					t.Errorf("%s:%v: vector at %q", path, o.Pos, s)
				}
				for _, e := range o.Elems {
					checkOp(e)
				}
			case *List:
				if s := at(o.Pos); s[0] != '(' {
					t.Errorf("%s:%v: list at %q", path, o.Pos, s)
				}
				for _, e := range o.Elems {
					checkOp(e)
				}
			}
		}
		for _, f := range m.Funcs {
			if s := at(f.Pos); !strings.HasPrefix(s, ".") {
				t.Errorf("%s:%v: function %s at %q", path, f.Pos, f.Name, s)
			}
			if f.Body == nil {
				continue
			}
			walk(f.Body, func(st Stmt) {
				switch st := st.(type) {
				case *Instr:
					n++
					s := at(st.Pos)
					if st.Guard != "" {
						if !strings.HasPrefix(s, "@") {
							t.Errorf("%s:%v: guarded %s at %q", path, st.Pos, st.Op, s)
						}
						s = strings.TrimLeft(s[1:], "!")
						s = strings.TrimLeft(strings.TrimPrefix(s, st.Guard), " \t")
					}
					// Only indentation (or the '{' of an inline-asm block) may precede it.
					before := lines[st.Pos.Line-1][:st.Pos.Column-1]
					if !strings.HasPrefix(s, st.Op) || strings.Trim(before, " \t{") != "" {
						t.Errorf("%s:%v: line %q does not start with opcode %s", path, st.Pos, lines[st.Pos.Line-1], st.Op)
					}
					for _, o := range st.Operands {
						checkOp(o)
					}
				case *Label:
					if s := at(st.Pos); !strings.HasPrefix(s, st.Name+":") {
						t.Errorf("%s:%v: label %s at %q", path, st.Pos, st.Name, s)
					}
				case *Var:
					if s := at(st.Pos); !strings.HasPrefix(s, ".") {
						t.Errorf("%s:%v: declaration of %s at %q", path, st.Pos, st.Name, s)
					}
				case *Block:
					if at(st.Pos)[0] != '{' || at(st.End)[0] != '}' {
						t.Errorf("%s:%v: block braces at %v and %v", path, st.Pos, st.Pos, st.End)
					}
				}
			})
		}
		if n == 0 {
			t.Errorf("%s: no instructions", path)
		}
	}
}

// errorCases are malformed inputs with the exact error each must produce.
var errorCases = []struct{ src, want string }{
	{".version 9.0\n.target sm_90\n.entry k(.param .u64 a {\n}", "e.ptx:3:24: expected ')' after parameter list, found '{'"},
	{".version 9", "e.ptx:1:10: expected version number major.minor after .version, found '9'"},
	{".version 9.0e1", "e.ptx:1:10: expected version number major.minor after .version, found '9.0e1'"},
	{".target", "e.ptx:1:8: expected target name, found EOF"},
	{".address_size 48", "e.ptx:1:15: address size must be 32 or 64, found 48"},
	{"foo", "e.ptx:1:1: expected directive, found 'foo'"},
	{".visible", "e.ptx:1:9: expected declaration, found EOF"},
	{".global .u32 ;", "e.ptx:1:14: expected variable name, found ';'"},
	{".global x;", "e.ptx:1:9: expected type in variable declaration, found 'x'"},
	{".global .u32 x", "e.ptx:1:15: expected ';' after declaration, found EOF"},
	{".global .u32 x[;", "e.ptx:1:16: expected array dimension, found ';'"},
	{".global .u32 x = ;", "e.ptx:1:18: expected initializer, found ';'"},
	{".global .u32 x = {1, 2;", "e.ptx:1:23: expected '}' after initializer list, found ';'"},
	{".global .f32 x = 0f3F80;", "e.ptx:1:18: malformed hex float literal \"0f3F80\" (want 8 hex digits)"},
	{".global .u32 x = 0x;", "e.ptx:1:18: malformed hex literal: no digits after \"0x\""},
	{".global .u32 x = 99999999999999999999;", "e.ptx:1:18: integer literal overflows 64 bits: 99999999999999999999"},
	{".global .u32 x = 09;", "e.ptx:1:18: invalid digit in integer literal: 09"},
	{".global .u32 x = 12ab;", "e.ptx:1:18: malformed number \"12ab\""},
	{".global .attribute(.foo) .u32 x;", "e.ptx:1:20: expected .managed or .unified in .attribute, found '.foo'"},
	{".entry (.param .u32 r) k() {}", "e.ptx:1:8: expected kernel name after .entry, found '('"},
	{".entry k(.param .u32) {}", "e.ptx:1:21: expected parameter name, found ')'"},
	{".entry k(.param x) {}", "e.ptx:1:17: expected type in parameter, found 'x'"},
	{".entry k(.u32 x) {}", "e.ptx:1:10: expected .param or .reg in parameter list, found '.u32'"},
	{".entry k() .maxntid 1,2,3,4 {}", "e.ptx:1:27: too many values for .maxntid (at most 3)"},
	{".entry k() .maxntid {}", "e.ptx:1:21: expected integer after .maxntid, found '{'"},
	{".entry k() .bogus {}", "e.ptx:1:12: expected function directive, '{' or ';', found '.bogus'"},
	{".entry k()", "e.ptx:1:11: expected '{' or ';' after function header, found EOF"},
	{".entry k() {", "e.ptx:1:13: expected '}' to close block opened at 1:12, found EOF"},
	{".entry k() {\n\tadd.s32 %r1, %r2\n}", "e.ptx:3:1: expected ',' or ';' after operand, found '}'"},
	{".entry k() { add.s32 %r1 %r2; }", "e.ptx:1:26: expected ',' or ';' after operand, found '%r2'"},
	{".entry k() { ld.global.u32 %r1, [%r2+]; }", "e.ptx:1:38: expected integer offset, found ']'"},
	{".entry k() { ld.global.u32 %r1, [%r2; }", "e.ptx:1:37: expected ']' after address, found ';'"},
	{".entry k() { ld.global.u32 %r1, []; }", "e.ptx:1:34: expected register, symbol or integer address after '[', found ']'"},
	{".entry k() { ld.global .u32 %r1, [%r2]; }", "e.ptx:1:24: expected operand, found '.u32'"},
	{".entry k() { mov.u32 %r1, {%r2, %r3; }", "e.ptx:1:36: expected '}' after vector elements, found ';'"},
	{".entry k() { mov.u32 %r1, #; }", "e.ptx:1:27: illegal character U+0023 '#'"},
	{".entry k() { mov.u32 %r1, \"abc; }", "e.ptx:1:27: string literal not terminated"},
	{".entry k() {\n /* x ", "e.ptx:2:2: comment not terminated"},
	{".entry k() { .reg .b32 %r<; }", "e.ptx:1:27: expected register count, found ';'"},
	{".entry k() { .foo; }", "e.ptx:1:14: expected statement, found '.foo'"},
	{".entry k() { %r1: }", "e.ptx:1:14: expected label name, found register '%r1'"},
	{".entry k() { mov.u32 %r1, -%r2; }", "e.ptx:1:28: expected number after '-', found '%r2'"},
	{".entry k() { vmad.u32.u32.u32 %r1, -%r2, -k, %r4; }", "e.ptx:1:43: expected number after '-', found 'k'"},
	{".entry k() { vmad.u32.u32.u32 %r1, %r2, %r3, %r4; mov.u32 %r1, -%r2; }", "e.ptx:1:65: expected number after '-', found '%r2'"},
	{".entry k() { mov.u32 %r1, !5; }", "e.ptx:1:28: expected predicate register after '!', found '5'"},
	{".entry k() { @%p1; }", "e.ptx:1:18: expected opcode, found ';'"},
	{".section .debug_info { .b8 1", "e.ptx:1:29: expected '}' to close section opened at 1:22, found EOF"},
	{".pragma nounroll;", "e.ptx:1:9: expected string after .pragma, found 'nounroll'"},
	{".version 9.0\x00x", "e.ptx:1:13: illegal character U+0000"},
	{"% x", "e.ptx:1:1: expected register name after '%'"},
	{".global .f64 x = 1e999;", "e.ptx:1:18: float literal out of range: 1e999"},
	{"\xEF\xBB\xBF.version 9.0\n.target sm_90\n.entry k() { ret }", "e.ptx:3:18: expected ';' after instruction, found '}'"},
	{". x", "e.ptx:1:1: expected directive or modifier name after '.'"},
}

// vmad's operands may be negated registers ("-%r2"), with a selector; the
// '-' of other instructions' operands still takes only numbers.
func TestVmadNegatedOperands(t *testing.T) {
	m, err := Parse("v.ptx", []byte(".version 8.0\n.target sm_90\n.entry k() { vmad.s32.s32.u32 %r1, -%r2.b1, %r3, -%r4; vmad.s32.u32.u32 %r1, %r2, -%r3.h1, -5; }"))
	if err != nil {
		t.Fatal(err)
	}
	st := findFunc(t, m, "k").Body.Stmts
	want := [][]string{{"", "-%r2.b1", "%r3", "-%r4"}, {"", "%r2", "-%r3.h1", "imm"}}
	for i, w := range want {
		ops := instrAt(t, st, i).Operands
		for j := 1; j < 4; j++ {
			got := "imm"
			if r, ok := ops[j].(*Reg); ok {
				got = map[bool]string{true: "-"}[r.Neg] + r.Name
				if r.Comp != "" {
					got += "." + r.Comp
				}
			}
			if got != w[j] {
				t.Errorf("instr %d operand %d = %s, want %s", i, j, got, w[j])
			}
		}
	}
	if r := instrAt(t, st, 0).Operands[1].(*Reg); r.Pos.Column != 36 {
		t.Errorf("-%%r2.b1 at column %d, want 36 (the '-')", r.Pos.Column)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range errorCases {
		m, err := Parse("e.ptx", []byte(c.src))
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want error %q", c.src, c.want)
			continue
		}
		if m != nil {
			t.Errorf("Parse(%q) returned a module with its error", c.src)
		}
		pe, ok := err.(*Error)
		if !ok {
			t.Errorf("Parse(%q) error is %T, want *Error", c.src, err)
			continue
		}
		if pe.Error() != c.want {
			t.Errorf("Parse(%q)\n got %q\nwant %q", c.src, pe.Error(), c.want)
		}
	}
}

func TestNULOnly(t *testing.T) {
	m, err := Parse("z.ptx", []byte{0, 0, 0})
	if err != nil || m == nil || len(m.Funcs) != 0 {
		t.Errorf("Parse(NULs) = %v, %v", m, err)
	}
}

// FuzzParse checks that no input makes Parse panic, and that every failure
// is an *Error with a real position. Only the test files under 4 KB are
// seeds: the fuzzer minimizes every input that finds new code, and inputs
// grown from the 12-31 KB clang files made it spend its time minimizing.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.ptx")
	more, _ := filepath.Glob("testdata/*/*.ptx")
	for _, path := range append(files, more...) {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(src) < 4<<10 {
			f.Add(src)
		}
	}
	for _, c := range errorCases {
		f.Add([]byte(c.src))
	}
	for _, c := range initCases {
		f.Add([]byte(c.decl))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := Parse("f.ptx", src)
		if err == nil {
			if m == nil {
				t.Fatal("nil module without error")
			}
			// Initializers evaluate to at most the variable's bytes, or to
			// an error naming the variable.
			for _, v := range m.Vars {
				d, err := v.InitData()
				if err != nil {
					if !strings.Contains(err.Error(), "variable "+v.Name) {
						t.Fatalf("initializer error without the variable: %v", err)
					}
					continue
				}
				if n := v.Elems(); d != nil && n >= 0 && n < math.MaxInt/16 && len(d.Bytes) > n*v.Type.Size() {
					t.Fatalf("%s: %d initial bytes for %d elements of .%s", v.Name, len(d.Bytes), n, v.Type)
				}
			}
			return
		}
		pe, ok := err.(*Error)
		if !ok {
			t.Fatalf("error %T %v is not *Error", err, err)
		}
		if m != nil || pe.Pos.Line < 1 || pe.Pos.Column < 1 || pe.Pos.Filename != "f.ptx" || pe.Msg == "" {
			t.Fatalf("bad error %q (module %v)", pe.Error(), m != nil)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	src, err := os.ReadFile("testdata/more_sm90_G.ptx")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("more_sm90_G.ptx", src); err != nil {
			b.Fatal(err)
		}
	}
}

// ParseHeaders gives the same module as Parse, less the statements.
func TestParseHeadersMatchesParse(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.ptx")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		full, err := Parse(f, src)
		if err != nil {
			t.Fatal(err)
		}
		hdr, err := ParseHeaders(f, src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(hdr.Funcs) != len(full.Funcs) || len(hdr.Vars) != len(full.Vars) {
			t.Fatalf("%s: %d funcs %d vars, Parse %d %d", f, len(hdr.Funcs), len(hdr.Vars), len(full.Funcs), len(full.Vars))
		}
		for i, fn := range hdr.Funcs {
			ff := full.Funcs[i]
			if fn.Name != ff.Name || len(fn.Params) != len(ff.Params) || (fn.Body == nil) != (ff.Body == nil) {
				t.Errorf("%s: func %d: %s/%d params vs %s/%d", f, i, fn.Name, len(fn.Params), ff.Name, len(ff.Params))
			}
			if fn.Body != nil && (len(fn.Body.Stmts) != 0 || fn.Body.Pos != ff.Body.Pos || fn.Body.End != ff.Body.End) {
				t.Errorf("%s: %s: body span %v-%v, Parse %v-%v", f, fn.Name, fn.Body.Pos, fn.Body.End, ff.Body.Pos, ff.Body.End)
			}
		}
	}
	if _, err := ParseHeaders("x.ptx", []byte(".version 9.0\n.target sm_90\n.entry k() {\n{ ret;\n}\n")); err == nil || !strings.Contains(err.Error(), "x.ptx:6:1: expected '}' to close block opened at 3:12") {
		t.Errorf("unbalanced: %v", err)
	}
}

func TestSectionsRecorded(t *testing.T) {
	src, err := os.ReadFile("testdata/more_sm90_G.ptx")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse("more_sm90_G.ptx", src)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Sections, " "); !strings.Contains(got, ".debug_info") || !strings.Contains(got, ".debug_abbrev") {
		t.Errorf("sections %q", got)
	}
}
