// Package pipeline is cugen's generator as one call: device-code files and
// cugen's options in; the Go source, the device images and the warnings out.
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
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/cugen/cugen/gen"
	"github.com/cugen/cugen/parse"
	"github.com/cugen/cugen/parse/csrc"
	"github.com/cugen/cugen/parse/fatbin"
)

// A Request is one run of the generator: what cmd/cugen's arguments say,
// with the files already read. Run reads nothing from disk but the Go files
// of the output's directory, the -type packages and the files the -src files
// include, and writes nothing.
type Request struct {
	// Inputs are the device code: the generated file has one rt.Library per
	// input, Library for one input and named after each for several
	// (attention.cu → AttentionLibrary). Inputs that are one kernel file
	// compiled for several targets, as their names say (k_50.ptx and
	// k_90.ptx, whose code is for sm_50 and sm_90), are one library of one
	// fatbin, unless Separate says otherwise.
	Inputs []Input
	// Output is the Go file's path (-o); "" is BASE_cugen.go in the current
	// directory, BASE the input's name without its extension, or for several
	// inputs the package's name. The images go beside it, and its directory
	// is where -type packages are resolved.
	Output string
	// Package is the Go package name (-pkg); "" is the package of the Go
	// files already in Output's directory, else one derived from the
	// directory's name (lower-cased letters and digits, else "kernels").
	Package string
	// Kernels, when set, wraps only the kernels whose mangled or demangled
	// name it matches (-kernels).
	Kernels *regexp.Regexp
	// Arches keeps only these fatbin entries, "sm_90", "compute_90" (-arch).
	Arches []string
	// Sources are CUDA source files whose prototypes give extern "C" kernels
	// their parameter types and every kernel its parameter names, and whose
	// declarations type variables and pointers to classes (-src).
	Sources []File
	// IncludeDirs, Defines and Undefines preprocess the Sources as -I, -D
	// and -U do (every Define before every Undefine).
	IncludeDirs []string
	Defines     []string
	Undefines   []string
	// ReadFile reads the files the Sources #include; nil is os.ReadFile.
	ReadFile func(path string) ([]byte, error)
	// Globals, when set, chooses the variables wrapped, by mangled or
	// demangled name (-globals); by default the compiler's internals and
	// the variables no code refers to and no source declares are not.
	Globals *regexp.Regexp
	// NoGlobals wraps no variable (-globals none).
	NoGlobals bool
	// Types pass C++ types as Go types of the same layout (-type), as
	// gen.ParseTypeMapping returns them; Run loads them from Output's directory.
	Types []gen.TypeMapping
	// Command is the command line the generated file's header records, as
	// CommandLine renders cugen's arguments; "" names the inputs instead.
	Command string
	// Check, when set, is asked about every image before Run returns it,
	// with the image's file name and the run's Budget, which it decompresses
	// within; an error fails the run as a *CheckError. cmd/cugen passes
	// rt/soft's CheckBudget, so that code rt/soft cannot run (an unknown
	// instruction, say) fails at generate time, not at the first launch;
	// -gpu-only passes none. It is a function, not an import, so that the
	// generator does not depend on a runtime backend.
	Check func(name string, image []byte, budget *fatbin.Budget) error
	// Budget bounds the memory that decompression holds at once in the run:
	// every input's fatbin entries and compressed ELF sections, and the
	// check's, share it (nil: one of fatbin.DefaultBudget for the run).
	Budget *fatbin.Budget
	// Style spells the generated identifiers for a package of hand-written
	// code: with a prefix (-prefix), unexported (-unexported).
	Style gen.Style
	// Separate makes each input a library of its own, also inputs that
	// would be a target set (-separate).
	Separate bool
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
	// Origin is, for a Compiled input, the contents of Name, which the
	// generated file records the hash of (gen.Options.Made) so that an edit
	// of the source makes it stale; nil records none.
	Origin []byte
	// File, with Data nil, is the input's Size bytes, read from File in
	// pieces: Load reads a host ELF's fatbin entries one at a time as it
	// decodes them (parse.ReadFrom), so that listing a library of hundreds
	// of megabytes holds the entries being decoded, not the file. Run, and
	// an input of a target set, read it whole.
	File io.ReaderAt
	Size int64
}

// A Result is what a run produced; nothing is written yet.
type Result struct {
	Go       File   // the generated Go source, named by the Output path
	Images   []File // the device images it embeds, beside it: one per input
	Warnings []Warning
	// Notes are the name collisions and how they were resolved, as the Go
	// file lists them.
	Notes []string
}

// A Warning is a finding that does not stop generation, such as a fatbin
// with no PTX for rt/soft, or an extern "C" kernel -src has no prototype for.
type Warning struct {
	Input   string // the input (or file) it concerns, as the Request named it
	Message string
}

func (w Warning) String() string { return w.Input + ": " + w.Message }

// Run is the generator, the one path from device code to a Go package that
// cmd/cugen and the golden tests take. It checks the options, reads the Go
// files already in the output's directory (their package is the one the
// file joins, their names are not reused), reads the inputs into their
// finished models (Load), names the images and checks them, loads the -type
// mappings, and generates the Go file (gen.GenerateFile). Its errors are
// *InputError, *CheckError, *gen.OptionError and *gen.KernelError.
func Run(req *Request) (*Result, error) {
	if len(req.Inputs) == 0 {
		return nil, fmt.Errorf("pipeline: no input")
	}
	// A generation reads every input whole (it embeds the images and
	// records their hashes).
	copied := false
	for i, in := range req.Inputs {
		if in.Data == nil && in.File != nil {
			data, err := readAll(in)
			if err != nil {
				return nil, &InputError{Input: in.Name, Err: err}
			}
			if !copied { // the caller's Request stays as it was
				c := *req
				c.Inputs, copied = slices.Clone(req.Inputs), true
				req = &c
			}
			req.Inputs[i].Data = data
		}
	}
	out := req.Output
	if out == "" && len(req.Inputs) == 1 {
		out = stem(req.Inputs[0].Name) + "_cugen.go"
	}
	dir := "."
	if out != "" {
		dir = filepath.Dir(out)
	}
	pd, err := readPkgDir(dir, out)
	if err != nil {
		return nil, err
	}
	pkg, err := packageName(req.Package, dir, pd)
	if err != nil {
		return nil, err
	}
	if out == "" {
		// Several inputs: the file is named after the package, and a file
		// of that name is the one this run replaces.
		out = pkg + "_cugen.go"
		if pd, err = readPkgDir(dir, out); err != nil {
			return nil, err
		}
	}
	budget := runBudget(req)
	units, sources, err := load(req, true, budget)
	if err != nil {
		return nil, err
	}
	r := &Result{}
	for _, w := range pd.warnings {
		r.Warnings = append(r.Warnings, Warning{Input: dir, Message: w})
	}
	var libs []gen.Library
	var mods []*parse.Module
	built := map[string]string{} // image name → input
	for _, u := range units {
		in, mod := u.in, u.mod
		mods = append(mods, mod)
		if mod.Image == nil {
			return nil, &InputError{Input: in.Name, Err: fmt.Errorf("%s: %s", in.Name, parse.NoDeviceCode)}
		}
		image := imageName(in, mod.Format, req.Arches)
		if other, ok := built[image]; ok {
			return nil, &InputError{Input: in.Name, Err: fmt.Errorf("%s: its image would be %s, as %s's is: give the inputs different names", in.Name, image, other)}
		}
		built[image] = in.Name
		path := filepath.Join(dir, image)
		if by, ok := pd.embeds[image]; ok && !sameFile(path, in.Name) {
			return nil, &InputError{Input: in.Name, Err: fmt.Errorf("%s: its image %s would overwrite the file %s embeds: generate both in one run (cugen a.cu b.cu), or give the inputs different names", in.Name, path, by)}
		}
		if req.Check != nil {
			// The check decodes the image again: collect what reading it
			// left first, or the heap may hold both (a fatbin entry that
			// inflates to 256 MiB peaked at 1.06 GB).
			runtime.GC()
			var skipped interface{ CheckSkippedOnly() }
			switch err := req.Check(image, mod.Image, budget); {
			case errors.As(err, &skipped):
				// Kernels too large to check in bounded memory: the rest
				// passed, and the run goes on, saying so.
				r.Warnings = append(r.Warnings, Warning{Input: in.Name, Message: err.Error()})
			case err != nil:
				return nil, &CheckError{Input: in.Name, Image: image, Err: err}
			}
		}
		lib := gen.Library{Module: mod, ImageFile: image, Source: filepath.Base(in.Name)}
		if u.inputs != nil {
			lib.Name, lib.Source = u.key, u.sources()
		}
		libs = append(libs, lib)
		r.Images = append(r.Images, File{Name: path, Data: mod.Image})
		for _, w := range mod.Warnings {
			r.Warnings = append(r.Warnings, Warning{Input: in.Name, Message: w})
		}
	}
	relSources(mods, req.Sources, dir)
	types, err := gen.LoadTypeMappings(dir, req.Types)
	if err != nil {
		return nil, err
	}
	if err := checkStyle(req.Style); err != nil {
		return nil, err
	}
	f, err := gen.GenerateFile(libs, gen.Options{Package: pkg, Kernels: req.Kernels, Globals: req.Globals, NoGlobals: req.NoGlobals, Types: types,
		Command: req.Command, Taken: pd.taken, NoPackageDoc: pd.doc, NamedLibraries: pd.otherRuns(), Style: req.Style,
		Made: madeFrom(req, sources, r.Images, dir)})
	if err != nil {
		return nil, err
	}
	r.Go, r.Notes = File{Name: out, Data: f.Source}, f.Notes
	return r, nil
}

// Load reads each input into the model Run generates from: parsed with only
// the -arch entries kept, then given the -src prototypes (their findings
// become the model's Warnings). It is for callers that inspect models, as
// cugen -list does: an image that would have to be built (a cut-down or
// extracted fatbin) is not, so Module.Image may be nil. Only Inputs, Arches,
// Sources and Budget of req are used.
//
// Inputs that are one set of kernels compiled for several targets (see
// Request.Inputs) are one model, as Run generates one library of them.
func Load(req *Request) ([]*parse.Module, error) {
	units, _, err := load(req, false, runBudget(req))
	if err != nil {
		return nil, err
	}
	mods := make([]*parse.Module, len(units))
	for i, u := range units {
		mods[i] = u.mod
	}
	return mods, nil
}

// runBudget is the run's one decompression budget, shared by every input
// (issue 17: one per-run memory budget, not one per input).
func runBudget(req *Request) *fatbin.Budget {
	if req.Budget != nil {
		return req.Budget
	}
	return fatbin.NewBudget(fatbin.DefaultBudget)
}

// target is a fatbin entry's name, as -arch takes it.
var target = regexp.MustCompile(`^(sm|compute|lto)_[0-9]+[af]?$`)

func load(req *Request, image bool, budget *fatbin.Budget) ([]*unit, []*csrc.File, error) {
	for _, a := range req.Arches {
		if !target.MatchString(a) {
			return nil, nil, &gen.OptionError{Option: "-arch", Value: a, Err: fmt.Errorf("not a target; want sm_NN, sm_NNa, sm_NNf, compute_NN or lto_NN")}
		}
	}
	var sources []*csrc.File
	read := req.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	for _, s := range req.Sources {
		f, err := csrc.ParseWith(s.Name, s.Data, csrc.Options{IncludeDirs: req.IncludeDirs, Defines: req.Defines, Undefines: req.Undefines, ReadFile: read})
		if err != nil {
			return nil, nil, &gen.OptionError{Option: "-src", Err: err}
		}
		sources = append(sources, f)
	}
	opts := parse.Options{Arches: req.Arches, NoImage: !image, Budget: budget}
	inputs := slices.Clone(req.Inputs)
	var mods []*parse.Module
	for i, in := range inputs {
		var mod *parse.Module
		var err error
		if in.Data == nil && in.File != nil && !image {
			mod, err = parse.ReadFrom(in.Name, in.File, in.Size, opts)
		} else {
			if in.Data == nil && in.File != nil {
				if inputs[i].Data, err = readAll(in); err != nil {
					return nil, nil, &InputError{Input: in.Name, Err: err}
				}
			}
			mod, err = parse.Read(in.Name, inputs[i].Data, opts)
		}
		if err != nil {
			locateLimits(err, sources)
			return nil, nil, &InputError{Input: in.Name, Err: err}
		}
		mods = append(mods, mod)
	}
	if err := readSets(inputs, mods, req.Separate); err != nil {
		return nil, nil, err
	}
	units, err := targetSets(inputs, mods, opts, req.Separate)
	if err != nil {
		return nil, nil, err
	}
	for _, u := range units {
		warnings, err := csrc.Apply(u.mod, sources)
		if err != nil {
			return nil, nil, &gen.OptionError{Option: "-src", Err: err}
		}
		u.mod.Warnings = append(u.mod.Warnings, warnings...)
		if len(sources) == 0 {
			if w := untypedWarning(u.mod); w != "" {
				u.mod.Warnings = append(u.mod.Warnings, w)
			}
		}
	}
	return units, sources, nil
}

// readAll reads an input given as a File whole.
func readAll(in Input) ([]byte, error) {
	data := make([]byte, in.Size)
	if _, err := in.File.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	return data, nil
}

// readSets reads whole the File inputs that targetSets may combine with
// others (parse.Combine takes the images' bytes).
func readSets(inputs []Input, mods []*parse.Module, separate bool) error {
	if separate {
		return nil
	}
	count := map[string]int{}
	for i, in := range inputs {
		count[setKey(in.Name, mods[i])]++
	}
	for i, in := range inputs {
		if in.Data == nil && in.File != nil && count[setKey(in.Name, mods[i])] > 1 {
			data, err := readAll(in)
			if err != nil {
				return &InputError{Input: in.Name, Err: err}
			}
			inputs[i].Data = data
		}
	}
	return nil
}

// untypedWarning is the warning for kernels whose binary carries no C++
// types (extern "C" ones: their symbols are bare names) generated without
// -src: their parameters become integers and addresses of their PTX widths
// (p0 uint64), which -src would type and name.
func untypedWarning(m *parse.Module) string {
	var names []string
	for _, k := range m.Kernels {
		if k.Signature == nil && k.Untyped == "" && len(k.Params) > 0 && k.Launchable() {
			names = append(names, parse.ShortName(k.Name))
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("extern \"C\" kernel %s has no parameter types in the binary (its symbol is its bare name): "+
			"its parameters are typed by their PTX widths (p0 uint64 for a pointer); give its CUDA source with -src FILE.cu to type and name them", names[0])
	}
	list := names
	if len(list) > 4 {
		list = append(list[:4:4], "…")
	}
	return fmt.Sprintf("%d extern \"C\" kernels (%s) have no parameter types in the binary (their symbols are bare names): "+
		"their parameters are typed by their PTX widths (p0 uint64 for a pointer); give their CUDA source with -src FILE.cu to type and name them",
		len(names), strings.Join(list, ", "))
}

// checkStyle refuses a -prefix that cannot start a Go identifier.
func checkStyle(s gen.Style) error {
	if s.Prefix != "" && !token.IsIdentifier(s.Prefix+"X") {
		return &gen.OptionError{Option: "-prefix", Value: s.Prefix, Err: fmt.Errorf("not the start of a Go identifier")}
	}
	return nil
}

// locateLimits gives each *parse.LimitError of err about a kernel the
// place where the sources define it, so that the message names the .cu
// line rather than only the PTX's.
func locateLimits(err error, sources []*csrc.File) {
	if len(sources) == 0 {
		return
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		le, ok := e.(*parse.LimitError)
		if !ok {
			continue
		}
		name := le.Name
		if sig, err := parse.Demangle(le.Name); err == nil {
			name = strings.Join(append(append([]string(nil), sig.Scope...), sig.Base), "::")
		}
	search:
		for _, f := range sources {
			for _, k := range f.Kernels {
				if k.QualifiedName() == name {
					le.Source = k.Pos.String()
					break search
				}
			}
		}
	}
}

// madeFrom lists what the generated file is made from, each file once:
// the inputs (a compiled one's source), the sources and the files they
// include, the images; paths relative to the output's directory dir.
func madeFrom(req *Request, sources []*csrc.File, images []File, dir string) []gen.MadeFrom {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	var out []gen.MadeFrom
	seen := map[string]bool{}
	add := func(name string, data []byte) {
		abs, err := filepath.Abs(name)
		if err != nil {
			return
		}
		rel, err := filepath.Rel(absDir, abs)
		if err != nil {
			rel = abs
		}
		rel = filepath.ToSlash(rel)
		if seen[rel] {
			return
		}
		seen[rel] = true
		sum := sha256.Sum256(data)
		out = append(out, gen.MadeFrom{Path: rel, SHA256: hex.EncodeToString(sum[:])})
	}
	for _, in := range req.Inputs {
		switch {
		case !in.Compiled:
			add(in.Name, in.Data)
		case in.Origin != nil:
			add(in.Name, in.Origin)
		}
	}
	for i, s := range req.Sources {
		add(s.Name, s.Data)
		if i < len(sources) {
			for _, inc := range sources[i].Included {
				add(inc.Path, inc.Data)
			}
		}
	}
	for _, im := range images {
		add(im.Name, im.Data)
	}
	return out
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

// A CheckError is an image the Request's Check rejects: with rt/soft's
// Check, code rt/soft cannot run. Err names the image's file and the
// position, line:column in its PTX.
type CheckError struct {
	Input string // the input's name, as the Request gave it
	Image string // the image's file name
	Err   error
}

func (e *CheckError) Error() string {
	return fmt.Sprintf("%v (rt/soft cannot run %s; generate with -gpu-only if it is meant for the GPU only)", e.Err, e.Image)
}

func (e *CheckError) Unwrap() error { return e.Err }

// packageName is the package clause's name: the one asked for, which must be
// the package already in dir; else that package; else one derived from dir's
// name.
func packageName(asked, dir string, pd *pkgDir) (string, error) {
	if asked != "" {
		if !token.IsIdentifier(asked) {
			return "", &gen.OptionError{Option: "-pkg", Value: asked, Err: fmt.Errorf("not a Go identifier")}
		}
		if pd.name != "" && pd.name != asked {
			return "", &gen.OptionError{Option: "-pkg", Value: asked, Err: fmt.Errorf("%s holds package %s (%s)", dir, pd.name, pd.nameFile)}
		}
		return asked, nil
	}
	if pd.name != "" {
		return pd.name, nil
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

// sameFile says a and b name one file.
func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// relSources rewrites the -src positions in the models ("k.cu:3:5", the
// file as the user named it, which errors show; a header it includes, named
// as the preprocessor found it) relative to the output's directory, where
// the doc comments that carry them are read: "../src/k.cu:3:5", never an
// absolute path.
func relSources(mods []*parse.Module, sources []File, dir string) {
	if len(sources) == 0 {
		return
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	rel := map[string]string{} // file → its path from dir
	fix := func(pos *string) {
		// file:line:col, the file possibly holding ':'.
		i := strings.LastIndexByte(*pos, ':')
		if i < 0 {
			return
		}
		j := strings.LastIndexByte((*pos)[:i], ':')
		if j <= 0 {
			return
		}
		file := (*pos)[:j]
		r, ok := rel[file]
		if !ok {
			r = file
			if abs, err := filepath.Abs(file); err == nil {
				if x, err := filepath.Rel(absDir, abs); err == nil {
					r = filepath.ToSlash(x)
				}
			}
			rel[file] = r
		}
		*pos = r + (*pos)[j:]
	}
	seen := map[*parse.CType]bool{}
	defs := map[*parse.ClassDef]bool{}
	var fixType func(c *parse.CType)
	fixType = func(c *parse.CType) {
		if c == nil || seen[c] {
			return
		}
		seen[c] = true
		fix(&c.Decl)
		fixType(c.Elem)
		fixType(c.Underlying)
		for _, a := range parse.Flatten(c.Args) {
			fixType(a.Type)
		}
		if d := c.Def; d != nil && !defs[d] {
			defs[d] = true
			fix(&d.Pos)
			for _, f := range d.Fields {
				fixType(f.Type)
			}
		}
	}
	for _, m := range mods {
		for _, k := range m.Kernels {
			if k.Signature == nil {
				continue
			}
			fix(&k.Signature.Source)
			for _, c := range k.Signature.Params {
				fixType(c)
			}
		}
		for _, k := range m.Kernels {
			for _, p := range k.Params {
				fixType(p.CType)
			}
		}
		for _, g := range m.Globals {
			fix(&g.Decl)
			fixType(g.CType)
		}
	}
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

// CommandLine is cugen's arguments as a generated file's header records
// them: "cugen -src k.cu -o k_cugen.go k.ptx", each argument as given,
// quoted where a shell would need it, on one line.
func CommandLine(args []string) string {
	var b strings.Builder
	b.WriteString("cugen")
	for _, a := range args {
		b.WriteByte(' ')
		switch {
		case a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "":
			b.WriteString(a)
		case strings.ContainsFunc(a, unicode.IsControl):
			b.WriteString(strconv.Quote(a))
		default:
			b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
		}
	}
	return b.String()
}
