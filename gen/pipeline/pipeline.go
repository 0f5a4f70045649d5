// Package pipeline is cugen's generator as one call: device-code files and
// cugen's options in; the Go source, the device image and the warnings out.
// Run is what cmd/cugen runs and what the golden tests check. It finishes
// the model in one place (parse, then the -src prototypes, in Load) and
// hands it to gen, which plans and emits the Go file.
//
// It is a package of its own, beside gen, because it sits above everything
// that makes the model: gen stays a finished model in, Go out, and
// parse/csrc's tests, which use gen to check the model csrc finishes, keep
// working (gen importing csrc would make an import cycle of them).
package pipeline

import (
	"fmt"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/cugen/cugen/gen"
	"github.com/cugen/cugen/parse"
	"github.com/cugen/cugen/parse/csrc"
	"github.com/cugen/cugen/parse/fatbin"
)

// A Request is one run of the generator: what cmd/cugen's arguments say,
// with the files already read. Run reads nothing from disk but the -type
// packages, and writes nothing.
type Request struct {
	// Inputs are the device code. Run generates a package from exactly one;
	// Load reads any number.
	Inputs []Input
	// Output is the Go file's path (-o); "" is BASE_cugen.go in the current
	// directory, BASE the input's name without its extension. The images go
	// beside it, and its directory is where -type packages are resolved.
	Output string
	// Package is the Go package name (-pkg); "" derives it from the name of
	// Output's directory (lower-cased letters and digits, else "kernels").
	Package string
	// Kernels, when set, wraps only the kernels whose mangled or demangled
	// name it matches (-kernels).
	Kernels *regexp.Regexp
	// Arches keeps only these fatbin entries, "sm_90", "compute_90" (-arch).
	Arches []string
	// Sources are CUDA source files whose prototypes give extern "C" kernels
	// their parameter types and every kernel its parameter names (-src).
	Sources []File
	// Types pass C++ types as Go types of the same layout (-type), as
	// gen.ParseTypeMapping returns them; Run loads them from Output's directory.
	Types []gen.TypeMapping
}

// A File is a file's name and contents. The name is a path as the user gave
// it: errors, warnings and generated comments show it unchanged.
type File struct {
	Name string
	Data []byte
}

// An Input is one file of device code: PTX text, a cubin, a fatbin, or a
// host object, shared library or executable holding fatbins.
type Input struct {
	Name string
	Data []byte
	// Compiled says Data is what a device compiler made of the CUDA source
	// Name, not Name's contents: the image is then named after Name with the
	// extension of Data's format ("kernels.cu" → "kernels.ptx").
	Compiled bool
}

// A Result is what a run produced; nothing is written yet.
type Result struct {
	Go       File   // the generated Go source, named by the Output path
	Images   []File // the device images it embeds, beside it: one per input
	Warnings []Warning
}

// A Warning is a finding that does not stop generation, such as a fatbin
// with no PTX for rt/soft, or an extern "C" kernel -src has no prototype for.
type Warning struct {
	Input   string // the input it concerns, as the Request named it
	Message string
}

func (w Warning) String() string { return w.Input + ": " + w.Message }

// Run is the generator, the one path from device code to a Go package that
// cmd/cugen and the golden tests take. It checks the options, reads the input
// into its finished model (Load), names the image, loads the -type mappings,
// and generates the Go file (gen.Generate). Its errors are *InputError,
// *gen.OptionError and *gen.KernelError.
func Run(req *Request) (*Result, error) {
	if len(req.Inputs) != 1 {
		return nil, fmt.Errorf("pipeline: a package is generated from one input, got %d", len(req.Inputs))
	}
	in := req.Inputs[0]
	out := req.Output
	if out == "" {
		out = stem(in.Name) + "_cugen.go"
	}
	dir := filepath.Dir(out)
	pkg, err := packageName(req.Package, dir)
	if err != nil {
		return nil, err
	}
	mods, err := load(req, true)
	if err != nil {
		return nil, err
	}
	mod := mods[0]
	types, err := gen.LoadTypeMappings(dir, req.Types)
	if err != nil {
		return nil, err
	}
	image := imageName(in, mod.Format, req.Arches)
	src, err := gen.Generate(mod, gen.Options{Package: pkg, ImageFile: image, Source: filepath.Base(in.Name), Kernels: req.Kernels, Types: types})
	if err != nil {
		return nil, err
	}
	r := &Result{Go: File{Name: out, Data: src}, Images: []File{{Name: filepath.Join(dir, image), Data: mod.Image}}}
	for _, w := range mod.Warnings {
		r.Warnings = append(r.Warnings, Warning{Input: in.Name, Message: w})
	}
	return r, nil
}

// Load reads each input into the model Run generates from: parsed with only
// the -arch entries kept, then given the -src prototypes (their findings
// become the model's Warnings). It is for callers that inspect models, as
// cugen -list does: an image that would have to be built (a cut-down or
// extracted fatbin) is not, so Module.Image may be nil. Only Inputs, Arches
// and Sources of req are used.
func Load(req *Request) ([]*parse.Module, error) {
	return load(req, false)
}

// target is a fatbin entry's name, as -arch takes it.
var target = regexp.MustCompile(`^(sm|compute|lto)_[0-9]+[af]?$`)

func load(req *Request, image bool) ([]*parse.Module, error) {
	for _, a := range req.Arches {
		if !target.MatchString(a) {
			return nil, &gen.OptionError{Option: "-arch", Value: a, Err: fmt.Errorf("not a target; want sm_NN, sm_NNa, sm_NNf, compute_NN or lto_NN")}
		}
	}
	var sources []*csrc.File
	for _, s := range req.Sources {
		f, err := csrc.Parse(s.Name, s.Data)
		if err != nil {
			return nil, &gen.OptionError{Option: "-src", Err: err}
		}
		sources = append(sources, f)
	}
	var mods []*parse.Module
	for _, in := range req.Inputs {
		mod, err := parse.Read(in.Name, in.Data, parse.Options{Arches: req.Arches, NoImage: !image})
		if err != nil {
			return nil, &InputError{Input: in.Name, Err: err}
		}
		warnings, err := csrc.Apply(mod, sources)
		if err != nil {
			return nil, &gen.OptionError{Option: "-src", Err: err}
		}
		mod.Warnings = append(mod.Warnings, warnings...)
		mods = append(mods, mod)
	}
	return mods, nil
}

// An InputError is an input that cannot be read as device code. Err is
// parse's error, which names the file and the position: line:column in PTX,
// a byte offset in a binary.
type InputError struct {
	Input string // the input's name, as the Request gave it
	Err   error
}

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// packageName is the package clause's name: the one asked for, checked, or
// one derived from the output directory's name.
func packageName(asked, dir string) (string, error) {
	if asked != "" {
		if !token.IsIdentifier(asked) {
			return "", &gen.OptionError{Option: "-pkg", Value: asked, Err: fmt.Errorf("not a Go identifier")}
		}
		return asked, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, r := range strings.ToLower(filepath.Base(abs)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || unicode.IsDigit(rune(s[0])) || token.IsKeyword(s) {
		s = "kernels"
	}
	return s, nil
}

// imageName is the embedded file's name. An input embedded as it is keeps
// its name; an image cugen builds is named after the input with its format's
// extension: a compiled source's PTX or fatbin, a host file's fatbins
// ("app.o" → "app.fatbin"), and a fatbin cut down by -arch, whose name lists
// the targets kept so that it cannot overwrite the input it was cut from
// ("k.fatbin" → "k_sm_90.fatbin").
func imageName(in Input, f fatbin.Format, arches []string) string {
	switch {
	case f == fatbin.FormatFatbin && len(arches) > 0:
		return stem(in.Name) + "_" + strings.Join(arches, "_") + ".fatbin"
	case f == fatbin.FormatHostELF:
		return stem(in.Name) + ".fatbin"
	case !in.Compiled:
		return filepath.Base(in.Name)
	case f == fatbin.FormatPTX:
		return stem(in.Name) + ".ptx"
	case f == fatbin.FormatCubin:
		return stem(in.Name) + ".cubin"
	}
	return stem(in.Name) + ".fatbin"
}

// stem is a file's base name without its extension.
func stem(name string) string {
	base := filepath.Base(name)
	return strings.TrimSuffix(base, filepath.Ext(base))
}
