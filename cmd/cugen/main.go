// Command cugen turns CUDA device code into a typed Go package.
//
// Usage:
//
//	cugen [-o file] [-pkg name] [-kernels regexp] [-arch list] input
//	cugen -compiler clang|nvcc [-gpu arch] [flags] input.cu
//	cugen -list [-json] input...
//
// The input is PTX text, a cubin, a fatbin, or a host object, shared library
// or executable holding fatbins; or CUDA source, which cugen compiles with
// the -compiler named (clang needs no CUDA toolkit: cugen supplies the few
// declarations device code needs). cugen writes one Go file with a typed launch
// function per kernel and a typed accessor per __device__, __constant__ and
// __managed__ variable, and copies the device image beside it for //go:embed.
// It is meant to be run by //go:generate:
//
//	//go:generate cugen -o kernels.go kernels.ptx
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cugen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.out, "o", "", "output Go file (default: INPUT_BASE.go beside the input, or in the current directory)")
	fs.StringVar(&c.pkg, "pkg", "", "Go package name (default: $GOPACKAGE, else the output directory's name)")
	fs.StringVar(&c.kernels, "kernels", "", "wrap only kernels whose mangled or demangled name matches this regexp")
	fs.StringVar(&c.arch, "arch", "", "keep only these fatbin entries, e.g. sm_80,sm_90,compute_90 (default: all)")
	fs.BoolVar(&c.list, "list", false, "list kernels, parameters and globals instead of generating")
	fs.BoolVar(&c.json, "json", false, "with -list: machine-readable JSON")
	fs.StringVar(&c.compiler, "compiler", "", "for a .cu input: the device compiler to run, clang or nvcc")
	fs.StringVar(&c.cc, "cc", "", "with -compiler: the compiler binary (default: clang-16 or clang; nvcc)")
	fs.StringVar(&c.gpu, "gpu", "", "with -compiler: clang's --cuda-gpu-arch (default sm_70); nvcc's targets, e.g. compute_75 or sm_80,sm_90,compute_90 (default compute_75)")
	fs.StringVar(&c.cflags, "cflags", "", "with -compiler: extra compiler flags")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cugen [-o file] [-pkg name] [-kernels regexp] [-arch list] input\n")
		fmt.Fprintf(stderr, "       cugen -list [-json] input...\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	c.inputs = fs.Args()
	if len(c.inputs) == 0 {
		fs.Usage()
		return 2
	}
	var err error
	if c.list {
		err = list(&c, stdout)
	} else {
		err = generate(&c, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "cugen:", err)
		return 1
	}
	return 0
}

type config struct {
	out, pkg, kernels, arch   string
	compiler, cc, gpu, cflags string
	list, json                bool
	inputs                    []string
	compiledExt               string // set by readModule for a .cu input: the image's extension
	noImage                   bool   // the model only (-list)
}
