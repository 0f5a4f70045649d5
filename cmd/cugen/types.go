package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/cugen/cugen/gen"
	"github.com/cugen/cugen/parse"
	"github.com/cugen/cugen/parse/csrc"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, " ") }

func (l *listFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// typeFlag is the repeatable -type flag, checked as it is parsed.
type typeFlag []gen.TypeMapping

func (t *typeFlag) String() string {
	var s []string
	for _, m := range *t {
		s = append(s, m.CName+"="+m.PkgPath+"."+m.Name)
	}
	return strings.Join(s, " ")
}

func (t *typeFlag) Set(s string) error {
	m, err := gen.ParseTypeMapping(s)
	if err != nil {
		return err
	}
	*t = append(*t, m)
	return nil
}

// applySources reads the -src files and attaches their prototypes to mod;
// findings that do not stop generation become the module's warnings. A .cu
// input is not read as a source unless -src names it too: without -src,
// extern "C" kernels keep their PTX-width types.
func applySources(c *config, mod *parse.Module) error {
	var files []*csrc.File
	for _, name := range c.srcs {
		data, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("-src: %v", err)
		}
		f, err := csrc.Parse(name, data)
		if err != nil {
			return fmt.Errorf("-src: %v", err)
		}
		files = append(files, f)
	}
	warnings, err := csrc.Apply(mod, files)
	if err != nil {
		return err
	}
	mod.Warnings = append(mod.Warnings, warnings...)
	return nil
}
