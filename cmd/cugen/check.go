package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"path/filepath"
	"strings"

	"github.com/cugen/cugen/gen/fresh"
)

// check is cugen -check: it tells, without compiling anything, whether the
// generated files in each directory named (dir/... for a tree; default .)
// are up to date with what they record being made from (gen/fresh). It
// prints one line per stale file and fails if there is one.
func check(dirs []string, stdout io.Writer) error {
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	var list []string
	for _, d := range dirs {
		root, tree := strings.CutSuffix(d, "/...")
		if !tree {
			list = append(list, d)
			continue
		}
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !e.IsDir() {
				return nil
			}
			name := e.Name()
			if p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			list = append(list, p)
			return nil
		})
		if err != nil {
			return err
		}
	}
	stale := 0
	for _, d := range list {
		err := fresh.Dir(d)
		if err == nil {
			continue
		}
		var errs []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		} else {
			errs = []error{err}
		}
		for _, e := range errs {
			var se *fresh.StaleError
			if !errors.As(e, &se) {
				return e
			}
			stale++
			fmt.Fprintln(stdout, se)
		}
	}
	if stale > 0 {
		return fmt.Errorf("-check: %d generated %s stale", stale, map[bool]string{true: "file is", false: "files are"}[stale == 1])
	}
	return nil
}
