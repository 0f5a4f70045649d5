package pipeline

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cugen/cugen/parse"
)

// A unit is what becomes one rt.Library: one input, or a target set, the
// inputs that are one set of kernels compiled for several targets.
type unit struct {
	in  Input // the input; for a target set, one named after the set
	mod *parse.Module
	// key and inputs are a target set's name ("lltorque2") and its
	// inputs, sorted by name; nil for a single input.
	key    string
	inputs []Input
}

// sources is how comments name a target set's inputs: by their base
// names, or as given where those are one (sm_50/k.ptx, sm_90/k.ptx).
func (u *unit) sources() string {
	names := make([]string, len(u.inputs))
	for i, in := range u.inputs {
		names[i] = filepath.Base(in.Name)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(names)))) < len(names) {
		for i, in := range u.inputs {
			names[i] = filepath.ToSlash(in.Name)
		}
	}
	return strings.Join(names, ", ")
}

// targetSuffix is the end of a file name's stem that names a target:
// "_50" (kernel_50.ptx, as code bases that ship one PTX file per target
// name them), ".sm_90", "-compute_90", "_sm90a".
var targetSuffix = regexp.MustCompile(`[._-](?:sm_?|compute_?)?([0-9]{2,3})[af]?$`)

// setKey is the name of the target set an input would belong to: its
// stem, less a target suffix that names one of the input's own targets
// (lltorque2_50.ptx whose PTX targets sm_50 → "lltorque2"; conv_3.ptx stays
// "conv_3").
func setKey(name string, mod *parse.Module) string {
	s := stem(name)
	m := targetSuffix.FindStringSubmatchIndex(s)
	if m == nil {
		return s
	}
	n, _ := strconv.Atoi(s[m[2]:m[3]])
	for _, a := range mod.Arches {
		if archNumber(a) == n {
			return s[:m[0]]
		}
	}
	return s
}

// archNumber is a target's SM number: 90 for sm_90, compute_90, sm_90a.
func archNumber(arch string) int {
	i := strings.LastIndexByte(arch, '_')
	n, err := strconv.Atoi(strings.TrimRight(arch[i+1:], "af"))
	if err != nil {
		return -1
	}
	return n
}

// targetSets groups the inputs into units: inputs whose names are one name
// for several targets (setKey: lltorque2_50.ptx and lltorque2_90.ptx, or
// sm_50/k.ptx and sm_90/k.ptx) and whose images hold code for different
// targets are one target set, combined into one model whose image is a
// fatbin of all of them (parse.Combine): the same functions as one input
// has, and the driver chooses the image per device. Such inputs that
// disagree on their kernels are an error naming the kernel and the files.
// The units are in the order of the inputs, a set's where its first input is.
// With separate, every input is a unit of its own.
func targetSets(inputs []Input, mods []*parse.Module, opts parse.Options, separate bool) ([]*unit, error) {
	keys := make([]string, len(inputs))
	byKey := map[string][]int{}
	for i, in := range inputs {
		keys[i] = setKey(in.Name, mods[i])
		byKey[keys[i]] = append(byKey[keys[i]], i)
	}
	var units []*unit
	done := map[string]bool{}
	for i := range inputs {
		k, idx := keys[i], byKey[keys[i]]
		if separate || len(idx) < 2 || !disjointTargets(mods, idx) {
			units = append(units, &unit{in: inputs[i], mod: mods[i]})
			continue
		}
		if done[k] {
			continue // the set is where its first input is
		}
		done[k] = true
		idx = slices.Clone(idx)
		slices.SortFunc(idx, func(a, b int) int { return strings.Compare(inputs[a].Name, inputs[b].Name) })
		u := &unit{key: k, in: Input{Name: k + ".fatbin", Compiled: true}}
		var parts []parse.Part
		for _, i := range idx {
			u.inputs = append(u.inputs, inputs[i])
			parts = append(parts, parse.Part{Name: inputs[i].Name, Data: inputs[i].Data, Module: mods[i]})
		}
		mod, err := parse.Combine(k+".fatbin", parts, opts)
		if err != nil {
			return nil, &InputError{Input: u.sources(), Err: fmt.Errorf("%w (cugen takes inputs whose names differ only by a target, as %s_NN.ptx, as one kernel file compiled for several targets: generate them with -separate, or rename them, to make a library of each)", err, k)}
		}
		for _, i := range idx {
			for _, w := range mods[i].Warnings {
				mod.Warnings = append(mod.Warnings, filepath.Base(inputs[i].Name)+": "+w)
			}
		}
		u.mod = mod
		units = append(units, u)
	}
	return units, nil
}

// disjointTargets says whether the inputs idx hold code for different
// targets, each for its own: a target set. (Inputs of one name for one
// target are different code, as a/util.ptx and b/util.ptx may be.)
func disjointTargets(mods []*parse.Module, idx []int) bool {
	seen := map[string]bool{}
	for _, i := range idx {
		if len(mods[i].Arches) == 0 {
			return false
		}
		for _, a := range mods[i].Arches {
			if seen[a] {
				return false
			}
			seen[a] = true
		}
	}
	return true
}
