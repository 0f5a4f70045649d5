package main

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

//go:embed cugen_clang.h
var clangPrelude []byte

// compileCU runs the device compiler on a .cu input and returns its output:
// PTX for clang (which cannot build cubins without the CUDA toolkit) and for
// nvcc with one virtual arch; a fatbin for nvcc with a list that names real
// targets.
func compileCU(c *config, input string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "cugen-cc")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var args []string
	var tool string
	out := filepath.Join(tmp, "out")
	switch c.compiler {
	case "clang":
		tool = c.cc
		if tool == "" {
			tool = findClang()
		}
		prelude := filepath.Join(tmp, "cugen_clang.h")
		if err := os.WriteFile(prelude, clangPrelude, 0o644); err != nil {
			return nil, err
		}
		gpu := c.gpu
		if gpu == "" {
			gpu = "sm_70"
		}
		args = []string{"-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
			"--cuda-gpu-arch=" + gpu, "-Xclang", "-target-feature", "-Xclang", "+ptx64",
			"-O3", "-S", "-include", prelude}
	case "nvcc":
		tool = c.cc
		if tool == "" {
			tool, _ = exec.LookPath("nvcc")
		}
		gpu := c.gpu
		if gpu == "" {
			gpu = "compute_75"
		}
		if strings.Contains(gpu, "sm_") {
			// Real targets: a fatbin with their cubins plus the PTX of the lowest
			// virtual arch named, so rt/soft and newer GPUs can run it.
			args = []string{"-fatbin", "-O3"}
			for _, a := range strings.Split(gpu, ",") {
				a = strings.TrimSpace(a)
				switch {
				case strings.HasPrefix(a, "sm_"):
					args = append(args, "-gencode", "arch=compute_"+strings.TrimPrefix(a, "sm_")+",code="+a)
				case strings.HasPrefix(a, "compute_"):
					args = append(args, "-gencode", "arch="+a+",code="+a)
				}
			}
		} else {
			args = []string{"-ptx", "-arch=" + gpu, "-O3"}
		}
	default:
		return nil, fmt.Errorf("-compiler %q: want clang or nvcc", c.compiler)
	}
	if tool == "" {
		return nil, fmt.Errorf("-compiler %s: no %s on PATH (set -cc)", c.compiler, c.compiler)
	}
	if c.cflags != "" {
		args = append(args, strings.Fields(c.cflags)...)
	}
	args = append(args, "-o", out, input)
	cmd := exec.Command(tool, args...)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%s failed on %s:\n%s", filepath.Base(tool), input, strings.TrimSpace(string(msg)))
		}
		return nil, err
	}
	return os.ReadFile(out)
}

// findClang is the clang to run: clang on PATH, else the newest clang-N
// (Debian and Ubuntu install clang-16, clang-19, ... without a plain clang).
// Device code needs no particular version: the examples' PTX is the same
// from clang 16 and 19 but for comments.
func findClang() string {
	if p, err := exec.LookPath("clang"); err == nil {
		return p
	}
	best, bestVersion := "", 0
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		matches, _ := filepath.Glob(filepath.Join(dir, "clang-[0-9]*"))
		for _, m := range matches {
			v, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(m), "clang-"))
			if err != nil || v <= bestVersion {
				continue
			}
			if p, err := exec.LookPath(m); err == nil {
				best, bestVersion = p, v
			}
		}
	}
	return best
}
