package soft

import "github.com/cugen/cugen/rt"

// Names rt/soft's Driver had before a9f2e6d, kept for the code that calls
// them.

// LoadNamed is LibraryLoad with opts.Name set to name.
//
// Deprecated: use LibraryLoad with rt.LoadOptions.Name.
func (d *Driver) LoadNamed(image []byte, name string, opts rt.LoadOptions) (rt.LibHandle, error) {
	opts.Name = name
	return d.LibraryLoad(image, opts)
}

// InstrCount is the number of thread-instructions all of d's launches
// have executed (a lane executing one instruction counts one).
//
// Deprecated: a measure for rt/soft's own benchmarks, which read it
// directly; it stays for the code that calls it.
func (d *Driver) InstrCount() uint64 { return d.instrCount.Load() }
