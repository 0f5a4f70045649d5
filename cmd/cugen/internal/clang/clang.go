// Package clang is cugen's clang route: it compiles CUDA source to PTX with
// clang alone (--cuda-device-only -nocudainc -nocudalib), cugen's headers
// (include/, embedded) standing in for the CUDA toolkit's and cugen's math
// library (include/cugen/math_*.h, derived by mathgen/) for libdevice.
//
// Compile is the route's one entry point; Find picks the clang it runs. Every
// fact about the route lives here: the flags clang gets, the PTX ISA per
// target, the clang versions that work, what a failure's message adds (the
// hints in diag.go), and the tests that hold the headers to CUDA's
// semantics on rt/soft (*_test.go).
package clang

//go:generate go run ./mathgen/gen -o include/cugen/math_poly.h

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// headers is what device code compiled by clang sees instead of the CUDA
// toolkit's headers: cugen_clang.h (passed with -include) and the toolkit's
// header names (cuda_runtime.h, cuda_fp16.h, cuComplex.h,
// cooperative_groups.h, math_constants.h, ...), written to a temporary
// directory passed with -isystem.
//
//go:embed include
var headers embed.FS

// Options are what Compile needs besides the input.
type Options struct {
	// Compiler is the clang to run (Find's).
	Compiler Compiler
	// GPU is clang's --cuda-gpu-arch, "sm_80"; "" is DefaultGPU.
	GPU string
	// IncludeDirs, Defines and Undefines are -I, -D (NAME or NAME=VALUE)
	// and -U: the Defines first, then the Undefines, as cugen's reading of
	// the source (parse/csrc) applies them.
	IncludeDirs, Defines, Undefines []string
	// Flags are further flags, passed as given after cugen's (-cflags).
	Flags []string
}

// DefaultGPU is the target when Options.GPU is empty.
const DefaultGPU = "sm_70"

// route is the macro cugen defines on clang's command line; the prelude
// (include/cugen_clang.h) declares CUDA's device API only when it is set.
// It is cugen's own name, not one a compiler predefines: keying the prelude
// on the absence of nvcc's macros broke when clang 22 began to predefine
// __CUDA_ARCH_LIST__ as nvcc does.
const route = "__CUGEN_CLANG__"

// includeName is how paths into cugen's headers read in clang's messages and
// in the PTX's line information: the directory is a temporary one.
const includeName = "cugen/include"

// Compile compiles the CUDA source file input to PTX for o.GPU. The PTX
// names files as the input was given (make it relative to keep absolute
// paths out of a committed image: with -gline-tables-only, paths under the
// working directory are written relative to it, cugen's headers as
// cugen/include/..., clang's own as clang/include/...). A failure is an
// error holding clang's message, with cugen's hint where it has one.
func Compile(input string, o Options) ([]byte, error) {
	if o.Compiler.Path == "" {
		return nil, errors.New("clang: no compiler (Find)")
	}
	tmp, err := os.MkdirTemp("", "cugen-clang")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	inc, err := writeHeaders(tmp)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(tmp, "out.ptx")
	args := append(o.args(inc), "-o", out, Relative(input))
	msg, err := exec.Command(o.Compiler.Path, args...).CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, fmt.Errorf("running %s: %v", o.Compiler.Path, err)
		}
		text := tidy(strings.ReplaceAll(strings.TrimSpace(string(msg)), inc, includeName))
		return nil, fmt.Errorf("%s failed on %s:\n%s%s", filepath.Base(o.Compiler.Path), input, text, hint(text, o.Compiler))
	}
	return os.ReadFile(out)
}

// args are clang's arguments for a compile with the headers at inc, before
// -o and the input.
func (o Options) args(inc string) []string {
	gpu := o.GPU
	if gpu == "" {
		gpu = DefaultGPU
	}
	args := []string{"-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
		"--cuda-gpu-arch=" + gpu, "-Xclang", "-target-feature", "-Xclang", "+" + ptxFeature(gpu),
		// The headers are system headers (-isystem, and #pragma clang
		// system_header in each): that lets the standard library's
		// constexpr math functions coexist with their device overloads.
		"-O3", "-S", "-D" + route + "=1", "-isystem", inc, "-include", filepath.Join(inc, "cugen_clang.h")}
	// Line information (-g, -gline-tables-only) names files relative to the
	// working directory ("./k.cu"), and cugen's and clang's headers by
	// stable names, so that a committed PTX holds no absolute path. clang
	// applies the last map that matches.
	if wd, err := os.Getwd(); err == nil {
		args = append(args, "-fdebug-prefix-map="+filepath.Clean(wd)+"=.")
	}
	if o.Compiler.ResourceDir != "" {
		args = append(args, "-fdebug-prefix-map="+o.Compiler.ResourceDir+"=clang")
	}
	args = append(args, "-fdebug-prefix-map="+inc+"="+includeName)
	for _, d := range o.IncludeDirs {
		args = append(args, "-I", d)
	}
	for _, d := range o.Defines {
		args = append(args, "-D", d)
	}
	for _, u := range o.Undefines {
		args = append(args, "-U", u)
	}
	return append(args, o.Flags...)
}

// Relative is path relative to the working directory when it is an
// absolute path under it: compilers' line information names the input as
// it is given.
func Relative(path string) string {
	if !filepath.IsAbs(path) {
		return path
	}
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if r, err := filepath.Rel(wd, path); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return r
	}
	return path
}

// writeHeaders writes the embedded include directory under dir and returns
// its path.
func writeHeaders(dir string) (string, error) {
	root := filepath.Join(dir, "include")
	err := fs.WalkDir(headers, "include", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := headers.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	return root, err
}

var smArch = regexp.MustCompile(`^sm_(\d+)(a?)$`)

// ptxFeature is the PTX ISA clang is told to target for an arch: the
// lowest that has the arch's instructions (clang without a CUDA toolkit
// assumes an old one, and clang 22 refuses its default for sm_70). Through
// sm_75 it is 6.4, as cugen has always used.
func ptxFeature(gpu string) string {
	m := smArch.FindStringSubmatch(gpu)
	if m == nil {
		return "ptx64"
	}
	n, _ := strconv.Atoi(m[1])
	switch {
	case n >= 120:
		return "ptx87"
	case n >= 100:
		return "ptx86"
	case n >= 90 && m[2] == "a":
		return "ptx80"
	case n >= 89:
		return "ptx78"
	case n >= 87:
		return "ptx74"
	case n >= 86:
		return "ptx71"
	case n >= 80:
		return "ptx70"
	}
	return "ptx64"
}
