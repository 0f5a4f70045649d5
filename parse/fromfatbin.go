package parse

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cugen/cugen/parse/cubin"
	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/ptx"
)

// FromFatbins builds one model from the entries of fatbins: the PTX gives
// types and directives, every cubin is cross-checked against it, and kernels
// missing from some targets say which ones they exist for. image is what the
// generated package embeds (a standalone fatbin of the kept entries).
func FromFatbins(name string, fbs []*fatbin.Fatbin, opts Options) (*Module, error) {
	entries, err := keptEntries(name, fbs, opts.Arches)
	if err != nil {
		return nil, err
	}
	if err := checkInflation(name, fbs, entries); err != nil {
		return nil, err
	}
	mod := &Module{Source: name, Format: fatbin.FormatFatbin}
	m := newMerger(mod)
	useful := map[int]bool{} // fatbins whose entries define kernels or variables
	err = collectParts(mod, entries, opts, func(pt part) {
		if len(pt.mod.Kernels)+len(pt.mod.Globals) > 0 {
			useful[pt.fb] = true
		}
		m.add(pt)
	})
	if err != nil {
		return nil, err
	}
	m.finish()
	typeKernels(mod)
	if !opts.NoImage {
		mod.Image = fatbinImage(mod, fbs, entries, useful)
	}
	mod.Arches = uniqueSorted(mod.Arches)
	return mod, nil
}

// keptEntry is a fatbin entry that -arch keeps, with the index of its fatbin.
type keptEntry struct {
	*fatbin.Entry
	fb int
}

// keptEntries lists the entries whose target is in arches (all when arches
// is empty), in file order.
func keptEntries(name string, fbs []*fatbin.Fatbin, arches []string) ([]keptEntry, error) {
	var kept []keptEntry
	var all []string
	for i, fb := range fbs {
		for _, e := range fb.Entries {
			all = append(all, e.Target())
			if len(arches) == 0 || slices.Contains(arches, e.Target()) {
				kept = append(kept, keptEntry{e, i})
			}
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("%s: -arch %s keeps none of the entries (%s)", name, strings.Join(arches, ","), strings.Join(all, " "))
	}
	return kept, nil
}

type decodedEntry struct {
	arch string
	mod  *Module
	err  error
}

// decodeAll decodes the entries in parallel (decompression and parsing
// dominate on large libraries) within one memory budget, so that memory
// does not grow with the number of cores, and hands each to use, from the
// calling goroutine, in the order given (indices into entries), so that
// the merge does not depend on scheduling; an entry is let go once used,
// and at most twice as many as there are workers are decoded ahead of the
// next one to use, so that memory holds a few entries' models, not all.
// Once use says an entry fails the input, the entries after it are left
// undecoded and not used.
func decodeAll(name string, entries []keptEntry, order []int, b *fatbin.Budget, workers int, use func(i int, d decodedEntry) (fail bool)) {
	if b == nil {
		b = fatbin.NewBudget(fatbin.DefaultBudget)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type result struct {
		at int // position in order
		d  decodedEntry
	}
	var failed atomic.Bool
	work, results := make(chan int), make(chan result)
	ahead := make(chan struct{}, 2*workers) // a token per entry decoded and not yet used
	go func() {
		defer close(work)
		for at := range order {
			ahead <- struct{}{}
			if failed.Load() {
				return
			}
			work <- at
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for at := range work {
				var d decodedEntry
				if !failed.Load() {
					d = decodeEntry(name, entries[order[at]].Entry, b)
				}
				results <- result{at, d}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	pending := map[int]decodedEntry{}
	next := 0
	for r := range results {
		if failed.Load() {
			<-ahead
			continue
		}
		pending[r.at] = r.d
		for d, ok := pending[next]; ok; d, ok = pending[next] {
			delete(pending, next)
			<-ahead
			if use(order[next], d) {
				failed.Store(true)
				for range pending {
					<-ahead
				}
				clear(pending)
				break
			}
			next++
		}
	}
}

// decodeEntry builds the model of one fatbin entry. PTX is read for its
// headers only: the model needs signatures and variables, not statements.
func decodeEntry(name string, e *fatbin.Entry, b *fatbin.Budget) decodedEntry {
	d := decodedEntry{arch: e.Target()}
	switch e.Kind {
	case fatbin.KindPTX:
		text, release, err := e.DataBudget(b)
		defer release()
		if err != nil {
			d.err = fmt.Errorf("%s: entry %s at offset %#x: %w", name, d.arch, e.Offset, err)
			return d
		}
		pm, err := ptx.ParseHeaders(fmt.Sprintf("%s[%s]", name, d.arch), text)
		if err == nil {
			d.mod, err = modelPTX(pm, text, nil)
		}
		d.err = err
	case fatbin.KindELF:
		data, release, err := e.DataBudget(b)
		defer release()
		if err != nil {
			d.err = fmt.Errorf("%s: entry %s at offset %#x: %w", name, d.arch, e.Offset, err)
			return d
		}
		cf, err := cubin.Parse(data)
		if err != nil {
			d.err = fmt.Errorf("%s: entry %s at offset %#x: %w", name, d.arch, e.Offset, err)
			return d
		}
		if d.mod, err = modelCubin(cf, d.arch, nil); err != nil {
			d.err = fmt.Errorf("%s: %w", name, err)
		}
	}
	return d
}

// part is the model of one decoded entry.
type part struct {
	arch string
	mod  *Module
	fb   int // index of the entry's fatbin
}

// collectParts decodes the kept entries, records every one's target in
// mod.Arches and hands the models to merge to add, PTX first (it carries
// the types), then the cubins, each in file order. A PTX entry that fails
// to decode beside cubins is skipped with a warning, as the cubins still
// describe the kernels; LTO-IR (obfuscated bitcode) has no model. The
// first other failure, in that order, fails the input.
func collectParts(mod *Module, entries []keptEntry, opts Options, add func(part)) error {
	hasELF := slices.ContainsFunc(entries, func(e keptEntry) bool { return e.Kind == fatbin.KindELF })
	var order []int
	for _, ptx := range []bool{true, false} {
		for i, e := range entries {
			if (e.Kind == fatbin.KindPTX) == ptx {
				order = append(order, i)
			}
		}
	}
	for _, e := range entries {
		mod.Arches = append(mod.Arches, e.Target())
	}
	var err error
	ptxParts := 0
	decodeAll(mod.Source, entries, order, opts.Budget, opts.Workers, func(i int, d decodedEntry) bool {
		e := entries[i]
		switch {
		case d.err != nil && e.Kind == fatbin.KindPTX && hasELF:
			mod.Warnings = append(mod.Warnings, fmt.Sprintf("PTX entry %s at offset %#x skipped: %v", d.arch, e.Offset, d.err))
			return false
		case d.err != nil:
			err = d.err
			return true
		case d.mod == nil:
			return false
		}
		if e.Kind == fatbin.KindPTX {
			ptxParts++
		}
		add(part{d.arch, d.mod, e.fb})
		return false
	})
	if err == nil && ptxParts == 0 {
		mod.Warnings = append(mod.Warnings, noPTXWarning) // before the merger's (add adds none)
	}
	return err
}

// A merger unites the parts' kernels and globals in mod, a part at a time
// (add, so that a part's model is let go once merged), then settles them
// (finish). A kernel must
// have the same parameters, by number and size, in every part; one that
// does not is dropped with a warning, and the other kernels are kept. Where
// the parts place the parameters is collected per target, and the kernel
// gets the canonical layout (settleLayout): the PTX's alignments where a PTX
// part has the kernel, else the largest any cubin shows. Registers are
// collected per target, and a kernel missing from some parts lists the
// targets it exists for. The first part to define a global (PTX, with
// types) describes it.
type merger struct {
	mod     *Module
	kernels map[string]*merged
	names   []string
	parts   int
}

type merged struct {
	k       *Kernel
	seen    []observedLayout
	fromPTX bool   // the first part, whose alignments count, is PTX
	bad     string // how the parts disagree; "" while they agree
}

func newMerger(mod *Module) *merger { return &merger{mod: mod, kernels: map[string]*merged{}} }

// add merges one part, which is not used after.
func (mg *merger) add(pt part) {
	mg.parts++
	isPTX := strings.HasPrefix(pt.arch, "compute_")
	for _, k := range pt.mod.Kernels {
		m, ok := mg.kernels[k.Name]
		if !ok {
			c := *k
			c.Regs, c.Params = nil, nil
			for _, p := range k.Params {
				q := *p
				c.Params = append(c.Params, &q)
			}
			m = &merged{k: &c, fromPTX: isPTX}
			mg.kernels[k.Name] = m
			mg.names = append(mg.names, k.Name)
		} else if m.bad == "" {
			m.bad = sameParams(m.k, m.seen[0].arch, k, pt.arch)
			if m.bad == "" && !m.fromPTX && !isPTX {
				for i, p := range k.Params {
					m.k.Params[i].Align = max(m.k.Params[i].Align, p.Align)
				}
			}
		}
		m.seen = append(m.seen, observe(k, pt.arch))
		m.k.SharedBytes = max(m.k.SharedBytes, k.SharedBytes)
		m.k.DynamicShared = m.k.DynamicShared || k.DynamicShared
		for a, r := range k.Regs {
			if m.k.Regs == nil {
				m.k.Regs = map[string]int{}
			}
			m.k.Regs[a] = r
		}
	}
	for _, g := range pt.mod.Globals {
		if mg.mod.Global(g.Name) == nil {
			mg.mod.Globals = append(mg.mod.Globals, g)
		}
	}
}

// finish settles the merged kernels' layouts and puts them in the module.
func (mg *merger) finish() {
	mod := mg.mod
	sort.Strings(mg.names)
	for _, n := range mg.names {
		m := mg.kernels[n]
		if m.bad != "" {
			mod.Warnings = append(mod.Warnings, fmt.Sprintf("kernel %s dropped: %s", ShortName(n), m.bad))
			continue
		}
		settleLayout(m.k, m.seen)
		if len(m.seen) < mg.parts {
			for _, o := range m.seen {
				m.k.Arches = append(m.k.Arches, o.arch)
			}
			sort.Strings(m.k.Arches)
		}
		mod.Kernels = append(mod.Kernels, m.k)
	}
	sortModule(mod)
}

// sameParams reports how two targets' code of one kernel disagrees on its
// parameters, by number or by size: no launch function fits both. Where
// they are is free to differ (see Kernel).
func sameParams(a *Kernel, aArch string, b *Kernel, bArch string) string {
	if len(a.Params) != len(b.Params) {
		return fmt.Sprintf("%s in %s, %d in %s", plural(len(b.Params), "parameter"), bArch, len(a.Params), aArch)
	}
	for i := range a.Params {
		if pa, pb := a.Params[i], b.Params[i]; pa.Size != pb.Size {
			return fmt.Sprintf("parameter %d is %s in %s, %d in %s", i, plural(pb.Size, "byte"), bArch, pa.Size, aArch)
		}
	}
	return ""
}

// fatbinImage is what the generated package embeds: the input fatbin itself
// when nothing was dropped, else a standalone fatbin of the kept entries of
// the fatbins that define something (a shared library's device-link stub
// defines nothing, and a duplicate target in one fatbin would hide the real
// one from the loader).
func fatbinImage(mod *Module, fbs []*fatbin.Fatbin, entries []keptEntry, useful map[int]bool) []byte {
	if len(fbs) == 1 && len(entries) == len(fbs[0].Entries) {
		return fbs[0].Raw
	}
	var img []*fatbin.Entry
	seen := map[string]bool{}
	dup := false
	for _, e := range entries {
		if useful[e.fb] {
			img = append(img, e.Entry)
			dup = dup || seen[e.Target()]
			seen[e.Target()] = true
		}
	}
	if dup {
		mod.Warnings = append(mod.Warnings, "several fatbins define code for the same target; the loader uses the first matching entry")
	}
	return fatbin.Build(img)
}

func uniqueSorted(s []string) []string {
	sort.Strings(s)
	return slices.Compact(s)
}
