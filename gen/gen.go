// Package gen writes the Go file for parse.Modules: for each, an rt.Library
// with its device image embedded by //go:embed, one typed launch function per
// kernel and one typed accessor per module-scope variable. It plans every
// name and Go type from the models first (plan.go, by the rules in names.go
// and types.go), then emits the file with jennifer (emit.go); the output is
// gofmt'd and byte-for-byte deterministic.
//
// GenerateFile takes finished models. gen/pipeline finishes them from files
// and cugen's options and calls it: that is what cmd/cugen runs.
package gen

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cugen/cugen/parse"
)

// Options control the generated file.
type Options struct {
	Package string         // Go package name
	Kernels *regexp.Regexp // when set, only matching kernels (mangled or demangled name) are wrapped
	// Globals, when set, chooses the variables wrapped (by mangled or
	// demangled name); by default every variable is but the compiler's
	// internals and those no code refers to and no -src declares. A
	// pattern that matches none of the variables is an error (a typo, most
	// likely): NoGlobals says that none is wanted.
	Globals *regexp.Regexp
	// NoGlobals wraps no variable (cugen -globals none).
	NoGlobals bool
	Types     []TypeMapping // C++ types passed as Go types (-type), loaded by LoadTypeMappings
	// Command is the command line the header records, "cugen -o k_cugen.go
	// k.ptx"; without it the header names the inputs.
	Command string
	// Taken are the package-level identifiers the package's other files
	// declare, each mapped to the file that declares it: the generated file
	// declares none of them (their owners keep their names; the file's own
	// identifiers move to their next candidates, names.go).
	Taken map[string]string
	// NoPackageDoc leaves the package's doc comment to another of its files.
	NoPackageDoc bool
	// Made is what the file is made from: its inputs, the sources read and
	// what they include, the images it embeds, each with its SHA-256. The
	// header records them (//cugen:input lines), so that gen/fresh can tell
	// a file is stale without compiling anything.
	Made []MadeFrom
	// NamedLibraries names a file's library after its input even when the
	// file has one (AttentionLibrary, not Library): the package has other
	// cugen runs, and which of them took the plain name would depend on
	// the order they ran in.
	NamedLibraries bool
	// Style spells the identifiers for a package of hand-written code
	// (-prefix, -unexported).
	Style Style

	// ImageFile and Source are Generate's one input: the embedded file,
	// relative to the output's directory, and the input the comments name.
	ImageFile, Source string
}

// A Library is one input of a generated file: its model, and the image the
// file embeds for it. A file of one input names its library variable
// Library; a file of several names each after its input: AttentionLibrary
// for attention.cu.
type Library struct {
	Module    *parse.Module
	ImageFile string // the embedded file, relative to the output's directory
	Source    string // the input as the comments name it, "attention.cu"
	// Name is what the library's identifiers are named after, when it is
	// not Source's stem: a target set's name, "lltorque2" for
	// lltorque2_50.ptx and lltorque2_90.ptx.
	Name string
}

// name is what l's identifiers are named after.
func (l *Library) name() string {
	if l.Name != "" {
		return l.Name
	}
	return stem(l.Source)
}

// MadeFrom is one file a generated file is made from: its path relative to
// the generated file's directory (slash-separated) and its contents' SHA-256
// in hex.
type MadeFrom struct {
	Path, SHA256 string
}

// InputDirective starts each header line that records a MadeFrom:
// "//cugen:input vecadd.cu 2c26b46b68ffc68ff99b453c1d304134...". gen/fresh
// reads them.
const InputDirective = "//cugen:input "

// A File is a generated Go file.
type File struct {
	Source []byte
	// Notes are the name collisions and how they were resolved, one per
	// renamed kernel, type or variable, as the file's comment lists them.
	Notes []string
}

// GenerateFile returns the Go file for libs, one rt.Library each. Its errors
// are *OptionError and *KernelError, and plain errors for missing Options.
func GenerateFile(libs []Library, opts Options) (*File, error) {
	if opts.Package == "" {
		return nil, fmt.Errorf("gen: no package name")
	}
	if len(libs) == 0 {
		return nil, fmt.Errorf("gen: no input")
	}
	seen := map[string]string{}
	for _, l := range libs {
		if l.ImageFile == "" {
			return nil, fmt.Errorf("gen: no image file name for %s", l.Source)
		}
		if other, ok := seen[l.ImageFile]; ok {
			return nil, fmt.Errorf("gen: %s and %s would both be embedded as %s", other, l.Source, l.ImageFile)
		}
		seen[l.ImageFile] = l.Source
	}
	p, err := newPlan(libs, opts)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := p.emit().Render(&buf); err != nil {
		return nil, renderError(err)
	}
	return &File{Source: buf.Bytes(), Notes: p.notes}, nil
}

// Generate returns the Go source for one model, whose image and input
// opts.ImageFile and opts.Source name.
func Generate(m *parse.Module, opts Options) ([]byte, error) {
	source := opts.Source
	if source == "" {
		source = opts.ImageFile
	}
	f, err := GenerateFile([]Library{{Module: m, ImageFile: opts.ImageFile, Source: source}}, opts)
	if err != nil {
		return nil, err
	}
	return f.Source, nil
}

// renderError is a failure to format the generated source: a bug of gen's
// (the plan's checks are to rule every cause out). jennifer's error holds
// the whole source after its first line; the error keeps that line and the
// source lines around the position it names, not the hundreds of others.
func renderError(err error) error {
	msg, src, found := strings.Cut(err.Error(), " while formatting source:\n")
	if !found {
		return fmt.Errorf("gen: internal error rendering the Go file (please report it): %v", err)
	}
	var line int
	if i := strings.Index(msg, "Error "); i >= 0 {
		fmt.Sscanf(msg[i+len("Error "):], "%d:", &line)
	}
	lines := strings.Split(src, "\n")
	var ctx strings.Builder
	for i := max(line-3, 0); i < min(line+2, len(lines)); i++ {
		q := strconv.QuoteToGraphic(lines[i]) // invalid UTF-8 shown escaped
		fmt.Fprintf(&ctx, "\n\t%4d  %s", i+1, q[1:len(q)-1])
	}
	return fmt.Errorf("gen: internal error rendering the Go file (please report it): %s; the source there:%s", msg, ctx.String())
}
