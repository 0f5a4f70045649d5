package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cugen/cugen/gen/pipeline"
	"github.com/cugen/cugen/rt/soft/loadcheck"
)

// request turns the command line into the generator's request: it reads the
// files named (compiling a .cu input first) and gives every flag its field.
func request(c *config) (*pipeline.Request, error) {
	req := &pipeline.Request{Output: c.out, Package: c.pkg, Types: c.types, Command: c.command, Style: c.style, Separate: c.separate}
	if !c.gpuOnly {
		req.Check = loadcheck.CheckBudget
	}
	if c.kernels != "" {
		re, err := regexp.Compile(c.kernels)
		if err != nil {
			return nil, fmt.Errorf("-kernels: %v", err)
		}
		req.Kernels = re
	}
	for _, a := range strings.Split(c.arch, ",") {
		if a = strings.TrimSpace(a); a != "" {
			req.Arches = append(req.Arches, a)
		}
	}
	switch c.globals {
	case "":
	case "none":
		req.NoGlobals = true
	default:
		re, err := regexp.Compile(c.globals)
		if err != nil {
			return nil, fmt.Errorf("-globals: %v", err)
		}
		req.Globals = re
	}
	pp := preprocessorFlags(c)
	req.IncludeDirs, req.Defines, req.Undefines = pp.includes, pp.defines, pp.undefines
	srcs := c.srcs
	if len(srcs) == 0 && c.compiler != "" {
		// A .cu that cugen compiles is what the kernels' source is.
		for _, name := range c.inputs {
			if strings.HasSuffix(name, ".cu") {
				srcs = append(srcs, name)
			}
		}
	}
	for _, name := range srcs {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("-src: %v", err)
		}
		req.Sources = append(req.Sources, pipeline.File{Name: name, Data: data})
	}
	var cus []string
	for _, name := range c.inputs {
		if strings.HasSuffix(name, ".cu") {
			if c.compiler == "" {
				return nil, fmt.Errorf("%s is CUDA source: name the compiler with -compiler clang or -compiler nvcc", name)
			}
			cus = append(cus, name)
		}
	}
	var compiled map[string][]byte
	if len(cus) > 0 {
		var err error
		if compiled, err = compileAll(c, cus); err != nil {
			return nil, err
		}
	}
	for _, name := range c.inputs {
		in := pipeline.Input{Name: name}
		var err error
		if data, ok := compiled[name]; ok {
			in.Data, in.Compiled = data, true
			if in.Origin, err = os.ReadFile(name); err != nil {
				return nil, err
			}
		} else if c.list {
			// A listing reads a library's fatbin entries one at a time.
			if in.File, in.Size, err = openInput(name); err != nil {
				return nil, err
			}
		} else {
			if in.Data, err = os.ReadFile(name); err != nil {
				return nil, err
			}
		}
		req.Inputs = append(req.Inputs, in)
	}
	return req, nil
}

// openInput opens name to be read in pieces (pipeline.Input.File); the
// file is closed at exit (closeInputs).
func openInput(name string) (*os.File, int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file", name)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// closeInputs closes the files openInput opened for req.
func closeInputs(req *pipeline.Request) {
	for _, in := range req.Inputs {
		if f, ok := in.File.(*os.File); ok {
			f.Close()
		}
	}
}

func generate(c *config, stderr io.Writer) error {
	if err := checkOutput(c.out); err != nil {
		return err
	}
	req, err := request(c)
	if err != nil {
		return err
	}
	res, err := pipeline.Run(req)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "cugen: warning: %s\n", w)
	}
	// Notes are news only when they change: a run that renames what the
	// last one renamed says nothing, unless -v.
	old := oldNotes(res.Go.Name)
	for _, n := range res.Notes {
		if c.verbose || !old[n] {
			fmt.Fprintf(stderr, "cugen: name collision in %s: %s\n", res.Go.Name, n)
		}
	}
	if err := checkOutput(res.Go.Name); err != nil {
		return err
	}
	return writeOutputs(res.Go, res.Images)
}

// oldNotes are the name collisions the Go file at path lists (gen writes
// them as "//\tnote" lines under "Name collisions"), nil without one.
func oldNotes(path string) map[string]bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	_, rest, ok := strings.Cut(string(data), "// Name collisions, resolved deterministically:\n//\n")
	if !ok {
		return nil
	}
	notes := map[string]bool{}
	for _, line := range strings.Split(rest, "\n") {
		n, ok := strings.CutPrefix(line, "//\t")
		if !ok {
			break
		}
		notes[n] = true
	}
	return notes
}

// checkOutput refuses an output path cugen cannot or must not write, in one
// line naming it: a directory, a file in a directory that does not exist,
// a Go file that cugen did not generate (a hand-written file is never
// overwritten).
func checkOutput(out string) error {
	if out == "" {
		return nil
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return fmt.Errorf("-o %s is a directory; name the Go file, e.g. -o %s", out, filepath.Join(out, "kernels_cugen.go"))
	}
	dir := filepath.Dir(out)
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-o %s: directory %s does not exist", out, dir)
	case err != nil:
		return fmt.Errorf("-o %s: %v", out, cause(err))
	case !fi.IsDir():
		return fmt.Errorf("-o %s: %s is not a directory", out, dir)
	}
	data, err := os.ReadFile(out)
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	f, err := parser.ParseFile(token.NewFileSet(), out, data, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil || !ast.IsGenerated(f) {
		return fmt.Errorf("-o %s: the file exists and is not generated code (it has no \"// Code generated ... DO NOT EDIT.\" line); cugen does not overwrite it", out)
	}
	return nil
}

// cause is a file operation's error without the paths it names.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
