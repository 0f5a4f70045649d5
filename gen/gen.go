// Package gen writes the Go package for a parse.Module: one typed launch
// function per kernel, one typed accessor per module-scope variable, and the
// device image embedded with //go:embed. It plans every name and Go type from
// the model first (plan.go, by the rules in names.go and types.go), then
// emits the file with jennifer (emit.go); the output is gofmt'd and
// byte-for-byte deterministic.
//
// Generate takes a finished model. gen/pipeline finishes one from files and
// cugen's options and calls Generate: that is what cmd/cugen runs.
package gen

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/cugen/cugen/parse"
)

// Options control the generated package.
type Options struct {
	Package   string         // Go package name
	ImageFile string         // the embedded file, relative to the output's directory
	Source    string         // the input named in the header comment
	Kernels   *regexp.Regexp // when set, only matching kernels (mangled or demangled name) are wrapped
	Types     []TypeMapping  // C++ types passed as Go types (-type), loaded by LoadTypeMappings
}

// Generate returns the Go source of the package for m. Its errors are
// *OptionError and *KernelError, and plain errors for missing Options.
func Generate(m *parse.Module, opts Options) ([]byte, error) {
	if opts.Package == "" {
		return nil, fmt.Errorf("gen: no package name")
	}
	if opts.ImageFile == "" {
		return nil, fmt.Errorf("gen: no image file name")
	}
	p, err := newPlan(m, opts)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := p.emit().Render(&buf); err != nil {
		return nil, fmt.Errorf("gen: rendering: %v", err)
	}
	return buf.Bytes(), nil
}
