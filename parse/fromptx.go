package parse

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/ptx"
)

// FromPTX builds the model of a parsed PTX module. image is the PTX text the
// generated package embeds (and where references to variables are found).
func FromPTX(m *ptx.Module, image []byte) (*Module, error) {
	mod, err := modelPTX(m, image, image)
	if err != nil {
		return nil, err
	}
	typeKernels(mod)
	return mod, nil
}

// modelPTX is FromPTX without the C++ types, which a fatbin's model gets
// once, after its entries are merged. text is the module's source, in
// which references to its variables are counted (unknown when nil).
func modelPTX(m *ptx.Module, text, image []byte) (*Module, error) {
	mod := &Module{Source: m.File, Format: fatbin.FormatPTX, Image: image}
	arch := "compute_"
	for _, t := range m.Target {
		if strings.HasPrefix(t, "sm_") {
			arch += strings.TrimPrefix(t, "sm_")
			break
		}
	}
	if arch != "compute_" {
		mod.Arches = []string{arch}
	}
	for _, f := range m.Funcs {
		if !f.Entry || f.Body == nil {
			continue
		}
		k, err := kernelFromPTX(f)
		if err != nil {
			return nil, err
		}
		mod.Kernels = append(mod.Kernels, k)
	}
	for _, v := range m.Vars {
		g, err := globalFromPTX(v)
		if err != nil {
			return nil, err
		}
		if g != nil {
			mod.Globals = append(mod.Globals, g)
		}
	}
	if text != nil && len(mod.Globals) > 0 {
		countRefs(text, mod.Globals)
	}
	if err := checkPTXLimits(m, text, mod.Kernels); err != nil {
		return nil, err
	}
	sortModule(mod)
	return mod, nil
}

// countRefs sets each variable's Refs from the PTX text: a name that occurs
// beyond its own declaration is referred to (by an instruction, or by
// another variable's initializer). Comments and strings are skipped.
func countRefs(text []byte, globals []*Global) {
	count := make(map[string]int, len(globals))
	for _, g := range globals {
		count[g.Name] = 0
	}
	identStart := func(c byte) bool {
		return c == '_' || c == '$' || c == '%' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '/' && i+1 < len(text) && text[i+1] == '/':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := bytes.Index(text[i+2:], []byte("*/"))
			if end < 0 {
				return
			}
			i += end + 4
		case c == '"':
			i++
			for i < len(text) && text[i] != '"' && text[i] != '\n' {
				i++
			}
			i++
		case identStart(c):
			j := i + 1
			for j < len(text) && (identStart(text[j]) || '0' <= text[j] && text[j] <= '9') {
				j++
			}
			if n, ok := count[string(text[i:j])]; ok {
				count[string(text[i:j])] = n + 1
			}
			i = j
		case '0' <= c && c <= '9':
			for i < len(text) && (identStart(text[i]) || '0' <= text[i] && text[i] <= '9') {
				i++ // a number, 0f3f800000 included
			}
		default:
			i++
		}
	}
	for _, g := range globals {
		g.Refs = RefsNone
		if count[g.Name] > 1 {
			g.Refs = RefsSome
		}
	}
}

func sortModule(m *Module) {
	sort.Slice(m.Kernels, func(i, j int) bool { return m.Kernels[i].Name < m.Kernels[j].Name })
	sort.Slice(m.Globals, func(i, j int) bool { return m.Globals[i].Name < m.Globals[j].Name })
}

func kernelFromPTX(f *ptx.Func) (*Kernel, error) {
	k := &Kernel{
		Name:              strings.Clone(f.Name), // not the whole source's string
		MinBlocksPerSM:    f.MinNCTAPerSM,
		MaxRegs:           f.MaxNReg,
		ExplicitCluster:   f.ExplicitCluster,
		MaxClusterRank:    f.MaxClusterRank,
		BlocksAreClusters: f.BlocksAreClusters,
		Pos:               fmt.Sprintf("%s:%d", f.Pos.Filename, f.Pos.Line),
	}
	k.MaxThreads = dims3(f.MaxNTID)
	k.ReqThreads = dims3(f.ReqNTID)
	k.ClusterDims = dims3(f.ReqNCTAPerCluster)
	off := 0
	for i, p := range f.Params {
		if p.ArrayLen < 0 {
			return nil, fmt.Errorf("%s: kernel %s: parameter %s has no size", p.Pos, f.Name, p.Name)
		}
		elem := p.Type.Size()
		if p.Vector > 0 {
			elem *= p.Vector
		}
		size := elem
		if p.ArrayLen > 0 {
			size *= p.ArrayLen
		}
		if size == 0 {
			return nil, fmt.Errorf("%s: kernel %s: parameter %s of type .%s has no size", p.Pos, f.Name, p.Name, p.Type)
		}
		align := p.Align
		if align == 0 {
			align = elem
		}
		off = alignUp(off, align)
		q := &Param{Ordinal: i, Name: strings.Clone(p.Name), Offset: off, Size: size, Align: align,
			PTXType: p.Type.String(), ArrayLen: p.ArrayLen}
		if p.Ptr != nil {
			q.PtrSpace = p.Ptr.Space.String()
		}
		k.Params = append(k.Params, q)
		off += size
	}
	k.ParamSize = off
	return k, nil
}

func dims3(v []int) [3]int {
	var d [3]int
	for i := 0; i < len(v) && i < 3; i++ {
		d[i] = v[i]
	}
	if len(v) > 0 {
		for i := len(v); i < 3; i++ {
			d[i] = 1
		}
	}
	return d
}

// globalFromPTX returns nil for variables the host cannot address: shared
// memory and compiler-internal names ($str, __local_depot). An extern
// declaration is kept, marked Extern.
func globalFromPTX(v *ptx.Var) (*Global, error) {
	var space Space
	switch v.Space {
	case ptx.SpaceGlobal:
		space = SpaceGlobal
	case ptx.SpaceConst:
		space = SpaceConst
	default:
		return nil, nil
	}
	if strings.HasPrefix(v.Name, "$") || strings.HasPrefix(v.Name, "__local_depot") {
		return nil, nil
	}
	lanes := max(v.Vector, 1) // a .v4 element holds four of v.Type
	elem := v.Type.Size() * lanes
	n := v.Elems() / lanes
	if n < 0 {
		n = 0 // an unsized extern array: its size lives in the defining module
	}
	g := &Global{
		Name: strings.Clone(v.Name), Space: space, Managed: v.Managed, PTXType: v.Type.String(),
		ElemSize: elem, Count: n, Size: elem * n, Align: v.Align,
		Extern: v.Linkage == ptx.LinkExtern, Visible: v.Linkage == ptx.LinkVisible,
	}
	if g.Align == 0 {
		g.Align = elem
	}
	d, err := v.InitData()
	if err != nil {
		return nil, err
	}
	if d != nil {
		g.Init = initBytes(d)
	}
	return g, nil
}

// initBytes is the model's view of an initial value: the bytes up to the
// last nonzero one or address (NVVM omits trailing zeros too), with the
// addresses zero, as only the loader knows them.
func initBytes(d *ptx.InitData) []byte {
	end := len(d.Bytes)
	for end > 0 && d.Bytes[end-1] == 0 {
		end--
	}
	for _, a := range d.Addrs {
		end = max(end, a.Offset+a.Size)
	}
	return d.Bytes[:end:end]
}
