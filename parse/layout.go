package parse

import (
	"slices"
	"sort"
)

// observedLayout is where one target's code puts a kernel's parameters.
type observedLayout struct {
	arch    string
	offsets []int
	size    int
}

func observe(k *Kernel, arch string) observedLayout {
	o := observedLayout{arch: arch, offsets: make([]int, len(k.Params)), size: k.ParamSize}
	for i, p := range k.Params {
		o.offsets[i] = p.Offset
	}
	return o
}

// settleLayout gives k's Params the canonical layout, the natural C layout
// of their sizes and alignments (the PTX's own), and lists in k.Layouts the
// observed layouts that differ from it, one entry per distinct layout.
func settleLayout(k *Kernel, seen []observedLayout) {
	off := 0
	for _, p := range k.Params {
		off = alignUp(off, p.Align)
		p.Offset = off
		off += p.Size
	}
	k.ParamSize = off
	k.Layouts = nil
	for _, o := range seen {
		if o.size == k.ParamSize && slices.EqualFunc(o.offsets, k.Params, func(off int, p *Param) bool { return off == p.Offset }) {
			continue
		}
		i := slices.IndexFunc(k.Layouts, func(l *TargetLayout) bool {
			return l.ParamSize == o.size && slices.Equal(l.Offsets, o.offsets)
		})
		if i < 0 {
			k.Layouts = append(k.Layouts, &TargetLayout{Offsets: o.offsets, ParamSize: o.size})
			i = len(k.Layouts) - 1
		}
		k.Layouts[i].Arches = append(k.Layouts[i].Arches, o.arch)
	}
	for _, l := range k.Layouts {
		sort.Strings(l.Arches)
	}
	sort.Slice(k.Layouts, func(i, j int) bool { return k.Layouts[i].Arches[0] < k.Layouts[j].Arches[0] })
}
