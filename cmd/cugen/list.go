package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/cugen/cugen/gen/pipeline"
	"github.com/cugen/cugen/parse"
)

// The -list -json schema. Field names are stable; README.md documents them.
type jsonModule struct {
	Source   string       `json:"source"`
	Format   string       `json:"format"`
	Arches   []string     `json:"arches"`
	Kernels  []jsonKernel `json:"kernels"`
	Globals  []jsonGlobal `json:"globals"`
	Warnings []string     `json:"warnings,omitempty"`
}

type jsonKernel struct {
	Name           string         `json:"name"`
	Demangled      string         `json:"demangled"`
	ParamSize      int            `json:"paramSize"`
	Params         []jsonParam    `json:"params"`
	MaxThreads     *[3]int        `json:"maxThreads,omitempty"`
	ReqThreads     *[3]int        `json:"reqThreads,omitempty"`
	MinBlocksPerSM int            `json:"minBlocksPerSM,omitempty"`
	MaxRegs        int            `json:"maxRegs,omitempty"`
	ClusterDims    *[3]int        `json:"clusterDims,omitempty"`
	Regs           map[string]int `json:"regs,omitempty"`
	Arches         []string       `json:"arches,omitempty"`
	Layouts        []jsonLayout   `json:"layouts,omitempty"`
	Untyped        string         `json:"untyped,omitempty"`
}

type jsonLayout struct {
	Arches    []string `json:"arches"`
	Offsets   []int    `json:"offsets"`
	ParamSize int      `json:"paramSize"`
}

type jsonParam struct {
	Ordinal int    `json:"ordinal"`
	Offset  int    `json:"offset"`
	Size    int    `json:"size"`
	Align   int    `json:"align"`
	PTXType string `json:"ptxType,omitempty"`
	CType   string `json:"ctype,omitempty"`
	// OverAligned marks a parameter aligned above 8 bytes; compiled code
	// may place it elsewhere than offset (see layouts).
	OverAligned bool `json:"overAligned,omitempty"`
}

type jsonGlobal struct {
	Name        string `json:"name"`
	Space       string `json:"space"`
	Managed     bool   `json:"managed"`
	Size        int    `json:"size"`
	Align       int    `json:"align"`
	PTXType     string `json:"ptxType,omitempty"`
	Initialized bool   `json:"initialized"`
	Extern      bool   `json:"extern,omitempty"`
	// Internal marks the compiler's own variables, which generated code
	// does not wrap by default; Refs is "none" or "some" where the PTX says.
	Internal bool   `json:"internal,omitempty"`
	Refs     string `json:"refs,omitempty"`
	CType    string `json:"ctype,omitempty"` // the element type -src declares
	Dims     []int  `json:"dims,omitempty"`
}

func dimsPtr(d [3]int) *[3]int {
	if d[0] == 0 {
		return nil
	}
	return &d
}

func kernelJSON(k *parse.Kernel) jsonKernel {
	jk := jsonKernel{Name: k.Name, Demangled: k.Pretty(), ParamSize: k.ParamSize, Params: []jsonParam{},
		MaxThreads: dimsPtr(k.MaxThreads), ReqThreads: dimsPtr(k.ReqThreads), MinBlocksPerSM: k.MinBlocksPerSM,
		MaxRegs: k.MaxRegs, ClusterDims: dimsPtr(k.ClusterDims), Regs: k.Regs, Arches: k.Arches, Untyped: k.Untyped}
	for _, l := range k.Layouts {
		jk.Layouts = append(jk.Layouts, jsonLayout{Arches: l.Arches, Offsets: l.Offsets, ParamSize: l.ParamSize})
	}
	for _, p := range k.Params {
		jp := jsonParam{Ordinal: p.Ordinal, Offset: p.Offset, Size: p.Size, Align: p.Align, PTXType: p.PTXType, OverAligned: p.OverAligned()}
		if p.CType != nil {
			jp.CType = p.CType.Spelling
		}
		jk.Params = append(jk.Params, jp)
	}
	return jk
}

func globalJSON(g *parse.Global) jsonGlobal {
	jg := jsonGlobal{Name: g.Name, Space: string(g.Space), Managed: g.Managed,
		Size: g.Size, Align: g.Align, PTXType: g.PTXType, Initialized: len(g.Init) > 0, Extern: g.Extern,
		Internal: g.Internal(), Refs: refsString(g.Refs), Dims: g.Dims}
	if g.CType != nil {
		jg.CType = g.CType.Spelling
	}
	return jg
}

// writeJSON writes mods as a []jsonModule, byte for byte as json.Encoder
// with SetIndent("", "  ") would, but a kernel and a global at a time: the
// listing of a library of thousands of kernels is megabytes, and encoded
// whole it was held three times (the jsonModules, the encoding, its
// indented copy) on top of the model, cugen -list's peak (issue 27).
func writeJSON(w io.Writer, mods []*parse.Module) error {
	bw := bufio.NewWriter(w)
	// val writes v indented as a value at the given depth.
	val := func(v any, depth int) {
		b, err := json.MarshalIndent(v, strings.Repeat("  ", depth), "  ")
		if err != nil {
			panic(err) // the json* types marshal without error
		}
		bw.Write(b)
	}
	// list writes n values as an array at the given depth.
	list := func(n, depth int, elem func(i int)) {
		if n == 0 {
			bw.WriteString("[]")
			return
		}
		bw.WriteString("[")
		for i := range n {
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n" + strings.Repeat("  ", depth+1))
			elem(i)
		}
		bw.WriteString("\n" + strings.Repeat("  ", depth) + "]")
	}
	list(len(mods), 0, func(i int) {
		m := mods[i]
		arches := m.Arches
		if arches == nil {
			arches = []string{} // as toJSON had it: [] where a module lists none
		}
		bw.WriteString("{\n    \"source\": ")
		val(m.Source, 2)
		bw.WriteString(",\n    \"format\": ")
		val(m.Format.String(), 2)
		bw.WriteString(",\n    \"arches\": ")
		val(arches, 2)
		bw.WriteString(",\n    \"kernels\": ")
		list(len(m.Kernels), 2, func(i int) { val(kernelJSON(m.Kernels[i]), 3) })
		bw.WriteString(",\n    \"globals\": ")
		list(len(m.Globals), 2, func(i int) { val(globalJSON(m.Globals[i]), 3) })
		if len(m.Warnings) > 0 {
			bw.WriteString(",\n    \"warnings\": ")
			val(m.Warnings, 2)
		}
		bw.WriteString("\n  }")
	})
	bw.WriteString("\n")
	return bw.Flush()
}

// list prints the model of each input as pipeline.Run sees it: -arch and
// -src applied.
func list(c *config, w io.Writer) error {
	// A listing's peak memory is what lib64-check.sh holds against
	// cuobjdump's (issue 27), and its live heap is the model, which only
	// grows: collecting at half the default heap growth takes 10-20% off
	// the peak RSS of a library of thousands of kernels, for 40-90% more
	// CPU (under a second more on 10 MB of them). GOGC, where set, decides
	// instead.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(50))
	}
	req, err := request(c)
	if err != nil {
		return err
	}
	defer closeInputs(req)
	mods, err := pipeline.Load(req)
	if err != nil {
		return err
	}
	if c.json {
		return writeJSON(w, mods)
	}
	for i, m := range mods {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeTable(w, m)
	}
	return nil
}

func writeTable(w io.Writer, m *parse.Module) {
	what := m.Format.String()
	if len(m.Arches) > 0 {
		what += ", " + strings.Join(m.Arches, " ")
	}
	fmt.Fprintf(w, "%s: %s; %d kernels, %d globals\n", m.Source, what, len(m.Kernels), len(m.Globals))
	for _, warn := range m.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	for _, k := range m.Kernels {
		fmt.Fprintf(w, "\nkernel %s\n", k.Name)
		if k.Signature != nil {
			fmt.Fprintf(w, "  %s\n", k.Signature.Pretty)
		}
		var info []string
		info = append(info, fmt.Sprintf("params %d bytes", k.ParamSize))
		if k.MaxThreads[0] > 0 {
			info = append(info, fmt.Sprintf("maxntid %v", k.MaxThreads))
		}
		if k.ReqThreads[0] > 0 {
			info = append(info, fmt.Sprintf("reqntid %v", k.ReqThreads))
		}
		if k.MinBlocksPerSM > 0 {
			info = append(info, fmt.Sprintf("minnctapersm %d", k.MinBlocksPerSM))
		}
		if k.MaxRegs > 0 {
			info = append(info, fmt.Sprintf("maxnreg %d", k.MaxRegs))
		}
		if k.ClusterDims[0] > 0 {
			info = append(info, fmt.Sprintf("cluster %v", k.ClusterDims))
		}
		for _, a := range sortedArches(k.Regs) {
			info = append(info, fmt.Sprintf("%s regs %d", a, k.Regs[a]))
		}
		if len(k.Arches) > 0 {
			info = append(info, "only "+strings.Join(k.Arches, ","))
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(info, "; "))
		if k.Untyped != "" {
			fmt.Fprintf(w, "  untyped: %s\n", k.Untyped)
		}
		if len(k.Params) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  #\toffset\tsize\talign\t ptx\t c++\t")
		for _, p := range k.Params {
			ct := ""
			if p.CType != nil {
				ct = p.CType.Spelling
			}
			pt := p.PTXType
			if p.ArrayLen > 0 {
				pt = fmt.Sprintf("%s[%d]", pt, p.ArrayLen)
			}
			align := fmt.Sprint(p.Align)
			if p.OverAligned() {
				align += "*"
			}
			fmt.Fprintf(tw, "  %d\t%d\t%d\t%s\t %s\t %s\t\n", p.Ordinal, p.Offset, p.Size, align, pt, ct)
		}
		tw.Flush()
		for _, l := range k.Layouts {
			fmt.Fprintf(w, "  %s places them at %s (block %d bytes)\n", strings.Join(l.Arches, ","), joinInts(l.Offsets), l.ParamSize)
		}
	}
	if len(m.Globals) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "global\tspace\tsize\talign\ttype\tflags")
		for _, g := range m.Globals {
			var flags []string
			if g.Managed {
				flags = append(flags, "managed")
			}
			if len(g.Init) > 0 {
				flags = append(flags, "initialized")
			}
			if g.Extern {
				flags = append(flags, "extern")
			}
			if g.Internal() {
				flags = append(flags, "internal")
			}
			if g.Refs == parse.RefsNone {
				flags = append(flags, "unreferenced")
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", g.Name, g.Space, g.Size, g.Align, g.PTXType, strings.Join(flags, ","))
		}
		tw.Flush()
	}
}

func refsString(r parse.Refs) string {
	switch r {
	case parse.RefsNone:
		return "none"
	case parse.RefsSome:
		return "some"
	}
	return ""
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

func sortedArches(m map[string]int) []string {
	var out []string
	for a := range m {
		out = append(out, a)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
