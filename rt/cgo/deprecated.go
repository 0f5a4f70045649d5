package cgo

import "github.com/cugen/cugen/rt"

// Names rt/cgo had before they were renamed, kept for the code that
// spells them so.

// linkJIT is a link's JIT options: opts.JIT, with LinkOptions' deprecated
// fields where JIT leaves its own zero.
func linkJIT(opts rt.LinkOptions) rt.JITOptions {
	j := opts.JIT
	if j.MaxRegisters == 0 {
		j.MaxRegisters = opts.MaxRegisters
	}
	if j.OptLevel == 0 {
		j.OptLevel = opts.OptLevel
	}
	j.LineInfo = j.LineInfo || opts.LineInfo
	j.Debug = j.Debug || opts.Debug
	j.Verbose = j.Verbose || opts.Verbose
	return j
}
