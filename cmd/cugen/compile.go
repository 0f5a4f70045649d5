package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/cugen/cugen/cmd/cugen/internal/clang"
	"github.com/cugen/cugen/parse"
)

// The .cu inputs: each is compiled by the -compiler named, with the -I, -D
// and -U that cugen's own reading of the source (-src) applies, so that the
// compiler and the generated signatures see one program. The clang route
// (no CUDA toolkit) is internal/clang; nvcc is run here.

// preprocessor are the -I, -D and -U of a run: the flags' and those -cflags
// holds, which reach both the compiler and cugen's reading of the source,
// every -D before every -U; rest is the rest of -cflags.
type preprocessor struct {
	includes, defines, undefines []string
	rest                         []string
}

// preprocessorFlags collects c's -I, -D and -U, then those in -cflags (as
// -DX, -D X, -IX, -I X, -UX, -U X), in order.
func preprocessorFlags(c *config) preprocessor {
	p := preprocessor{includes: c.includes, defines: c.defines, undefines: c.undefines}
	f := strings.Fields(c.cflags)
next:
	for i := 0; i < len(f); i++ {
		for _, flag := range []string{"-I", "-D", "-U"} {
			if !strings.HasPrefix(f[i], flag) {
				continue
			}
			v := strings.TrimPrefix(f[i], flag)
			if v == "" && i+1 < len(f) {
				i++
				v = f[i]
			}
			switch flag {
			case "-I":
				p.includes = append(p.includes, v)
			case "-D":
				p.defines = append(p.defines, v)
			case "-U":
				p.undefines = append(p.undefines, v)
			}
			continue next
		}
		p.rest = append(p.rest, f[i])
	}
	return p
}

// args are the preprocessor's flags for a compiler's command line.
func (p preprocessor) args() []string {
	var args []string
	for _, d := range p.includes {
		args = append(args, "-I", d)
	}
	for _, d := range p.defines {
		args = append(args, "-D", d)
	}
	for _, u := range p.undefines {
		args = append(args, "-U", u)
	}
	return append(args, p.rest...)
}

// compileAll compiles the .cu inputs, several at once, and returns their
// outputs by input. Every failure is reported, not only the first: a code
// base of many files learns all that it must change in one run.
func compileAll(c *config, inputs []string) (map[string][]byte, error) {
	var cc clang.Compiler
	if c.compiler == "clang" {
		var err error
		if cc, err = clang.Find(c.cc); err != nil {
			return nil, fmt.Errorf("-compiler clang: %v", err)
		}
	}
	out := make(map[string][]byte, len(inputs))
	errs := make([]error, len(inputs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, in := range inputs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			data, err := compileCU(c, cc, in)
			if err != nil {
				errs[i] = err
				return
			}
			mu.Lock()
			out[in] = data
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		if n := len(slicesNonNil(errs)); n > 1 {
			return nil, fmt.Errorf("%d of %d files failed to compile:\n%v", n, len(inputs), err)
		}
		return nil, err
	}
	return out, nil
}

func slicesNonNil(errs []error) []error {
	var out []error
	for _, e := range errs {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// compileCU runs the device compiler on a .cu input and returns its output:
// PTX for clang (which cannot build cubins without the CUDA toolkit) and for
// nvcc with one virtual arch; a fatbin for nvcc with a list of targets, and
// for clang with several (compileClangTargets). cc is the clang Find chose,
// for the clang route.
func compileCU(c *config, cc clang.Compiler, input string) ([]byte, error) {
	pp := preprocessorFlags(c)
	switch c.compiler {
	case "clang":
		if gpus := strings.Split(c.gpu, ","); len(gpus) > 1 {
			return compileClangTargets(c, cc, input, gpus)
		}
		return clang.Compile(input, clang.Options{Compiler: cc, GPU: c.gpu,
			IncludeDirs: pp.includes, Defines: pp.defines, Undefines: pp.undefines, Flags: pp.rest})
	case "nvcc":
		return compileNVCC(c, pp, input)
	}
	return nil, fmt.Errorf("-compiler %q: want clang or nvcc", c.compiler)
}

// compileNVCC compiles input with nvcc.
func compileNVCC(c *config, pp preprocessor, input string) ([]byte, error) {
	tool := c.cc
	if tool == "" {
		tool, _ = exec.LookPath("nvcc")
	}
	if tool == "" {
		return nil, fmt.Errorf("-compiler nvcc: no nvcc on PATH (set -cc)")
	}
	tmp, err := os.MkdirTemp("", "cugen-nvcc")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "out")
	gpu := c.gpu
	if gpu == "" {
		gpu = "compute_75"
	}
	var args []string
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
	args = append(args, pp.args()...)
	// nvcc's line information (-lineinfo) names the input as it is given:
	// keep a path under the working directory relative.
	args = append(args, "-o", out, clang.Relative(input))
	msg, err := exec.Command(tool, args...).CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%s failed on %s:\n%s", filepath.Base(tool), input, strings.TrimSpace(string(msg)))
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
func compileClangTargets(c *config, cc clang.Compiler, input string, gpus []string) ([]byte, error) {
	var parts []parse.Part
	for _, g := range gpus {
		one := *c
		one.gpu = strings.TrimSpace(g)
		if one.gpu == "" {
			continue
		}
		data, err := compileCU(&one, cc, input)
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
