package main

//go:generate go run ./internal/mathgen/gen -o include/cugen/math_poly.h

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

	"github.com/cugen/cugen/parse"
)

// clangInclude is what device code compiled by clang sees instead of the
// CUDA toolkit's headers: cugen_clang.h (passed with -include) and the
// toolkit's header names (cuda_runtime.h, cuda_fp16.h, cooperative_groups.h,
// math_constants.h, ...), written to a temporary directory passed with
// -isystem.
//
//go:embed include
var clangInclude embed.FS

// compileCU runs the device compiler on a .cu input and returns its output:
// PTX for clang (which cannot build cubins without the CUDA toolkit) and for
// nvcc with one virtual arch; a fatbin for nvcc with a list of targets, and
// for clang with several (compileClangTargets).
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
		if gpus := strings.Split(c.gpu, ","); len(gpus) > 1 {
			return compileClangTargets(c, input, gpus)
		}
		tool = c.cc
		if tool == "" {
			tool = findClang()
		}
		inc, err := writeClangInclude(tmp)
		if err != nil {
			return nil, err
		}
		gpu := c.gpu
		if gpu == "" {
			gpu = "sm_70"
		}
		args = []string{"-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
			"--cuda-gpu-arch=" + gpu, "-Xclang", "-target-feature", "-Xclang", "+" + ptxFeature(gpu),
			// The headers are system headers (-isystem, and #pragma clang
			// system_header in each): that lets the standard library's
			// constexpr math functions coexist with their device overloads.
			"-O3", "-S", "-isystem", inc, "-include", filepath.Join(inc, "cugen_clang.h")}
	case "nvcc":
		tool = c.cc
		if tool == "" {
			tool, _ = exec.LookPath("nvcc")
		}
		gpu := c.gpu
		if gpu == "" {
			gpu = "compute_75"
		}
		if strings.Contains(gpu, "sm_") || strings.Contains(gpu, ",") {
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
			text := strings.TrimSpace(string(msg))
			if c.compiler == "clang" {
				text += clangHint(text)
			}
			return nil, fmt.Errorf("%s failed on %s:\n%s", filepath.Base(tool), input, text)
		}
		return nil, err
	}
	return os.ReadFile(out)
}

// compileClangTargets compiles input with clang once per target (clang
// writes one PTX file per --cuda-gpu-arch and cannot name several with -o)
// and returns the fatbin of them all, as nvcc's -gencode list makes one:
// the driver loads the newest PTX each device can take. Code that differs
// between the targets' compilations (by __CUDA_ARCH__) in its kernels'
// names or parameters is an error naming the kernel.
func compileClangTargets(c *config, input string, gpus []string) ([]byte, error) {
	var parts []parse.Part
	for _, g := range gpus {
		one := *c
		one.gpu = strings.TrimSpace(g)
		if one.gpu == "" {
			continue
		}
		data, err := compileCU(&one, input)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("%s (--cuda-gpu-arch=%s)", input, one.gpu)
		m, err := parse.Read(name, data, parse.Options{})
		if err != nil {
			return nil, err
		}
		parts = append(parts, parse.Part{Name: name, Data: data, Module: m})
	}
	if len(parts) < 2 {
		return nil, fmt.Errorf("-gpu %s: name the targets, e.g. -gpu sm_70,sm_80,sm_90", c.gpu)
	}
	m, err := parse.Combine(input, parts, parse.Options{})
	if err != nil {
		return nil, err
	}
	return m.Image, nil
}

// writeClangInclude writes the embedded include directory under dir and
// returns its path.
func writeClangInclude(dir string) (string, error) {
	root := filepath.Join(dir, "include")
	err := fs.WalkDir(clangInclude, "include", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := clangInclude.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	return root, err
}

// ptxFeature is the PTX ISA clang is told to target for an arch: the
// lowest that has the arch's instructions (clang without a CUDA toolkit
// assumes an old one). Through sm_75 it is 6.4, as cugen has always used.
func ptxFeature(gpu string) string {
	m := regexp.MustCompile(`^sm_(\d+)(a?)$`).FindStringSubmatch(gpu)
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

// cudaToolkitHeader matches the headers of the CUDA toolkit's libraries,
// which cugen does not replace.
var cudaToolkitHeader = regexp.MustCompile(`^(cublas|cublasLt|cufft|curand|cusparse|cusolver|cudnn|nvrtc|nvToolsExt|nvtx3|npp|nvjpeg|cutensor|cuda/|cub/|thrust/|cute/|cutlass/|cooperative_groups/memcpy_async|mma\.h|cuda_fp8|cuda_fp6|cuda_fp4|cuda_pipeline|cuda_awbarrier|crt/|sm_\d+|texture_|surface_|nv/|cuda_gl|cuda_egl|cuda_d3d|cudaProfiler|cupti)`)

var missingHeader = regexp.MustCompile(`fatal error: '([^']+)' file not found`)

// clangHint explains a clang failure whose cause is the missing toolkit or
// an old clang; "" when it has nothing to add.
func clangHint(msg string) string {
	if m := missingHeader.FindStringSubmatch(msg); m != nil {
		h := m[1]
		if cudaToolkitHeader.MatchString(h) || strings.HasPrefix(h, "cuda") {
			return fmt.Sprintf("\ncugen: hint: %s is part of the CUDA toolkit, which cugen's clang route does not replace "+
				"(it provides cuda_runtime.h, cuda_fp16.h, cuda_bf16.h, cooperative_groups.h, math_constants.h and the device API); "+
				"compile this file with -compiler nvcc, or build it with nvcc and give cugen the .ptx or .fatbin", h)
		}
		return ""
	}
	if strings.Contains(msg, "Cannot select") || strings.Contains(msg, "PLEASE submit a bug report") {
		return "\ncugen: hint: clang crashed; cugen's clang route needs clang 17 or newer for __nv_bfloat16 and sm_90 " +
			"(Debian and Ubuntu: apt install clang-19; then -cc clang-19)"
	}
	return ""
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
