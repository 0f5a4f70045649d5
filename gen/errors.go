package gen

// The errors gen and gen/pipeline return, by what the user has to fix. Each
// says what is wrong and where; errors.As tells them apart.

// An OptionError is an option that cannot be honoured: a package name that
// is not a Go identifier, an -arch that names no target, a -kernels pattern
// that matches no kernel, a -src file that does not parse or disagrees with
// the binary, a -type mapping whose Go type cannot be loaded or has another
// layout. Option is spelled as cmd/cugen's flag.
type OptionError struct {
	Option string // "-pkg", "-arch", "-kernels", "-src", "-type"
	Value  string // the value at fault; "" when it is the option as a whole
	Err    error
}

func (e *OptionError) Error() string {
	if e.Value == "" {
		return e.Option + ": " + e.Err.Error()
	}
	return e.Option + " " + e.Value + ": " + e.Err.Error()
}

func (e *OptionError) Unwrap() error { return e.Err }

// A KernelError is a kernel that cannot be given a Go signature: a parameter
// whose Go type disagrees with the size or alignment the binary passes. Err
// names the parameter; it wraps an *OptionError when a -type mapping is at
// fault.
type KernelError struct {
	Kernel string // the kernel's symbol (mangled) name
	pretty string // as the message shows it: demangled, or its prototype
	Err    error
}

func (e *KernelError) Error() string { return "kernel " + e.pretty + ": " + e.Err.Error() }
func (e *KernelError) Unwrap() error { return e.Err }
