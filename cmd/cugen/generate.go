package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cugen/cugen/gen/pipeline"
)

// request turns the command line into the generator's request: it reads the
// files named (compiling a .cu input first) and gives every flag its field.
func request(c *config) (*pipeline.Request, error) {
	req := &pipeline.Request{Output: c.out, Package: c.pkg, Types: c.types}
	if req.Package == "" {
		req.Package = os.Getenv("GOPACKAGE") // set by go generate
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
	for _, name := range c.srcs {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("-src: %v", err)
		}
		req.Sources = append(req.Sources, pipeline.File{Name: name, Data: data})
	}
	for _, name := range c.inputs {
		in := pipeline.Input{Name: name}
		var err error
		if strings.HasSuffix(name, ".cu") {
			if c.compiler == "" {
				return nil, fmt.Errorf("%s is CUDA source: name the compiler with -compiler clang or -compiler nvcc", name)
			}
			in.Data, err = compileCU(c, name)
			in.Compiled = true
		} else {
			in.Data, err = os.ReadFile(name)
		}
		if err != nil {
			return nil, err
		}
		req.Inputs = append(req.Inputs, in)
	}
	return req, nil
}

func generate(c *config, stderr io.Writer) error {
	if len(c.inputs) != 1 {
		return fmt.Errorf("generate takes one input, got %d (use -list for several)", len(c.inputs))
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
	// The images first: a run stopped between the writes leaves no Go file
	// embedding an image that is not there. An unchanged image is not
	// rewritten: it is often the input itself.
	for _, img := range res.Images {
		if old, err := os.ReadFile(img.Name); err == nil && bytes.Equal(old, img.Data) {
			continue
		}
		if err := writeAtomic(img.Name, img.Data); err != nil {
			return err
		}
	}
	return writeAtomic(res.Go.Name, res.Go.Data)
}

// writeAtomic writes via a temporary file in the same directory and a rename,
// so a failed run never leaves a half-written file.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return werr
	}
	return nil
}
