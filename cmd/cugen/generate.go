package main

import (
	"bytes"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/cugen/cugen/gen"
	"github.com/cugen/cugen/parse"
)

func readModule(c *config, input string) (*parse.Module, error) {
	var data []byte
	var err error
	if strings.HasSuffix(input, ".cu") {
		if c.compiler == "" {
			return nil, fmt.Errorf("%s is CUDA source: name the compiler with -compiler clang or -compiler nvcc", input)
		}
		var ext string
		if data, ext, err = compileCU(c, input); err != nil {
			return nil, err
		}
		c.compiledExt = ext
	} else if data, err = os.ReadFile(input); err != nil {
		return nil, err
	}
	opts := parse.Options{NoImage: c.noImage}
	if c.arch != "" {
		for _, a := range strings.Split(c.arch, ",") {
			if a = strings.TrimSpace(a); a != "" {
				opts.Arches = append(opts.Arches, a)
			}
		}
	}
	mod, err := parse.Read(input, data, opts)
	if err != nil {
		return nil, err
	}
	if err := applySources(c, mod); err != nil {
		return nil, err
	}
	return mod, nil
}

func generate(c *config, stderr io.Writer) error {
	if len(c.inputs) != 1 {
		return fmt.Errorf("generate takes one input, got %d (use -list for several)", len(c.inputs))
	}
	input := c.inputs[0]
	mod, err := readModule(c, input)
	if err != nil {
		return err
	}
	for _, w := range mod.Warnings {
		fmt.Fprintf(stderr, "cugen: warning: %s: %s\n", input, w)
	}
	out := c.out
	base := strings.TrimSuffix(filepath.Base(input), filepath.Ext(input))
	if out == "" {
		out = base + "_cugen.go"
	}
	outDir := filepath.Dir(out)
	pkg := c.pkg
	if pkg == "" {
		pkg = os.Getenv("GOPACKAGE")
	}
	if pkg == "" {
		abs, err := filepath.Abs(outDir)
		if err != nil {
			return err
		}
		pkg = packageName(filepath.Base(abs))
	}
	if !token.IsIdentifier(pkg) {
		return fmt.Errorf("package name %q is not a Go identifier", pkg)
	}
	var re *regexp.Regexp
	if c.kernels != "" {
		if re, err = regexp.Compile(c.kernels); err != nil {
			return fmt.Errorf("-kernels: %v", err)
		}
	}
	// The image beside the output: the input itself when it is PTX, a cubin or
	// a fatbin; an extracted (and possibly filtered) fatbin otherwise.
	imageName := filepath.Base(input)
	switch {
	case c.compiledExt != "":
		imageName = base + c.compiledExt
	case mod.Format == parse.FormatHostELF || (mod.Format == parse.FormatFatbin && c.arch != ""):
		imageName = base + ".fatbin"
	}
	types, err := gen.LoadTypeMappings(outDir, c.types)
	if err != nil {
		return err
	}
	src, err := gen.Generate(mod, gen.Options{Package: pkg, ImageFile: imageName, Source: filepath.Base(input), Kernels: re, Types: types})
	if err != nil {
		return err
	}
	imagePath := filepath.Join(outDir, imageName)
	if old, err := os.ReadFile(imagePath); err != nil || !bytes.Equal(old, mod.Image) {
		if err := writeAtomic(imagePath, mod.Image); err != nil {
			return err
		}
	}
	return writeAtomic(out, src)
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

// packageName derives a package name from a directory name.
func packageName(dir string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(dir) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || unicode.IsDigit(rune(s[0])) || token.IsKeyword(s) {
		s = "kernels"
	}
	return s
}
