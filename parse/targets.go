package parse

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cugen/cugen/parse/cubin"
	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/ptx"
)

// A Part is one file of a code set compiled for several targets (see
// Combine): its name, its bytes, and its model as Read made it.
type Part struct {
	Name   string
	Data   []byte
	Module *Module
}

// Combine reads parts, one set of kernels compiled for several targets
// (per-target PTX files as a code base ships them, cubins, fatbins, host
// objects), into one model, whose Image is one fatbin of every part's
// images: the fatbin nvcc builds from a -gencode list, from which the CUDA
// driver loads, on each device, a cubin for its architecture, else the
// newest PTX it can compile (fatbin.Select). name is the fatbin's, for
// errors. The parts must have the same kernels, with parameters of the
// same sizes, and the same variables, of the same sizes: an error names
// the first kernel or variable that differs and the parts. Two parts with
// code for one target are an error too. opts applies as in Read (-arch
// keeps some of the targets).
func Combine(name string, parts []Part, opts Options) (*Module, error) {
	if len(parts) < 2 {
		return nil, fmt.Errorf("%s: Combine needs two parts or more, not %d", name, len(parts))
	}
	if err := sameCode(parts); err != nil {
		return nil, err
	}
	var entries []*fatbin.Entry
	from := map[string]string{} // target → the part that has it
	for _, p := range parts {
		es, err := partEntries(p, opts)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if other, ok := from[e.Target()]; ok {
				return nil, fmt.Errorf("%s: %s and %s both hold code for %s: a code set has one image per target", name, other, p.Name, e.Target())
			}
			from[e.Target()] = p.Name
			entries = append(entries, e)
		}
	}
	// nvcc's order: cubins, then PTX, each by target.
	slices.SortStableFunc(entries, func(a, b *fatbin.Entry) int {
		if a.Kind != b.Kind {
			return int(b.Kind) - int(a.Kind) // ELF (2) before PTX (1)
		}
		return strings.Compare(a.Target(), b.Target())
	})
	return Read(name, fatbin.Build(entries), opts)
}

// partEntries are a part's images as fatbin entries.
func partEntries(p Part, opts Options) ([]*fatbin.Entry, error) {
	switch fatbin.Sniff(p.Data) {
	case fatbin.FormatPTX:
		m, err := ptx.ParseHeaders(p.Name, p.Data)
		if err != nil {
			return nil, err
		}
		arch, specific, ok := ptxTarget(m.Target)
		if !ok {
			return nil, fmt.Errorf("%s: no .target sm_NN: its PTX names no target to put it in a fatbin for", p.Name)
		}
		e, err := fatbin.NewEntry(fatbin.Image{Kind: fatbin.KindPTX, Arch: uint32(arch), ArchSpecific: specific,
			Major: uint16(m.Version.Major), Minor: uint16(m.Version.Minor), Data: bytes.TrimRight(p.Data, "\x00")})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		return []*fatbin.Entry{e}, nil
	case fatbin.FormatCubin:
		f, err := cubin.Parse(p.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		e, err := fatbin.NewEntry(fatbin.Image{Kind: fatbin.KindELF, Arch: uint32(f.SM), ArchSpecific: f.ArchSpecific,
			Major: 1, Minor: uint16(f.ABIVersion), Data: p.Data})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		return []*fatbin.Entry{e}, nil
	case fatbin.FormatFatbin, fatbin.FormatHostELF:
		img := p.Module.Image
		if img == nil { // read for a listing: build the image now
			m, err := Read(p.Name, p.Data, Options{Budget: opts.Budget})
			if err != nil {
				return nil, err
			}
			img = m.Image
		}
		fb, err := fatbin.Parse(img)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		return fb.Entries, nil
	}
	return nil, fmt.Errorf("%s: not PTX, a cubin, a fatbin or a host object", p.Name)
}

var smTarget = regexp.MustCompile(`^sm_([0-9]+)(a?)$`)

// ptxTarget is the architecture a PTX module's .target names.
func ptxTarget(targets []string) (arch int, specific, ok bool) {
	for _, t := range targets {
		if m := smTarget.FindStringSubmatch(t); m != nil {
			n, err := strconv.Atoi(m[1])
			return n, m[2] == "a", err == nil
		}
	}
	return 0, false, false
}

// sameCode says how the parts' kernels or variables differ, naming the
// first that does and the parts; nil if they agree.
func sameCode(parts []Part) error {
	first := parts[0]
	differ := func(format string, args ...any) error {
		return fmt.Errorf("%s and %s are not one kernel file compiled for several targets: %s", first.Name, joinNames(parts[1:]), fmt.Sprintf(format, args...))
	}
	for _, p := range parts[1:] {
		a, b := first.Module, p.Module
		for _, k := range a.Kernels {
			o := b.Kernel(k.Name)
			if o == nil {
				return differ("kernel %s is in %s, not in %s", ShortName(k.Name), first.Name, p.Name)
			}
			if len(o.Params) != len(k.Params) {
				return differ("kernel %s has %s in %s, %d in %s", ShortName(k.Name), plural(len(k.Params), "parameter"), first.Name, len(o.Params), p.Name)
			}
			for i, q := range k.Params {
				if o.Params[i].Size != q.Size {
					return differ("kernel %s: parameter %d is %s in %s, %d in %s", ShortName(k.Name), i, plural(q.Size, "byte"), first.Name, o.Params[i].Size, p.Name)
				}
			}
		}
		for _, k := range b.Kernels {
			if a.Kernel(k.Name) == nil {
				return differ("kernel %s is in %s, not in %s", ShortName(k.Name), p.Name, first.Name)
			}
		}
		for _, g := range a.Globals {
			if g.Internal() {
				continue // the compiler's: a cubin need not keep what the PTX has
			}
			o := b.Global(g.Name)
			if o == nil {
				return differ("variable %s is in %s, not in %s", ShortName(g.Name), first.Name, p.Name)
			}
			if o.Size != g.Size {
				return differ("variable %s is %s in %s, %d in %s", ShortName(g.Name), plural(int(g.Size), "byte"), first.Name, o.Size, p.Name)
			}
		}
		for _, g := range b.Globals {
			if !g.Internal() && a.Global(g.Name) == nil {
				return differ("variable %s is in %s, not in %s", ShortName(g.Name), p.Name, first.Name)
			}
		}
	}
	return nil
}

func joinNames(parts []Part) string {
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}
