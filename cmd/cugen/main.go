// Command cugen turns CUDA device code into a typed Go package.
//
// Usage:
//
//	cugen [-o file] [-pkg name] [-kernels regexp] [-arch list] [-src file.cu] [-type C=pkg.T] [-gpu-only] input...
//	cugen -compiler clang|nvcc [-gpu arch] [flags] input.cu...
//	cugen -list [-json] input...
//	cugen -check [dir | dir/...]...
//
// An input is PTX text, a cubin, a fatbin, or a host object, shared library
// or executable holding fatbins; or CUDA source, which cugen compiles with
// the -compiler named (clang needs no CUDA toolkit: cugen supplies the
// declarations device code needs). cugen writes one Go file with a typed
// launch function per kernel and a typed accessor per __device__,
// __constant__ and __managed__ variable, and copies each input's device
// image beside it for //go:embed.
//
// Each input is one rt.Library: Library for a file of one input; for several,
// each is named after its input (attention.cu → AttentionLibrary). Several
// runs may write into one package: each reads the Go files already in the
// output's directory, takes their package name, and avoids the names they
// declare; where the package has several cugen runs, every library is named
// after its input, whatever order they run in. Inputs that are one kernel
// file compiled for several targets (k_50.ptx k_90.ptx, as their names and
// .target say; clang's several -gpu targets) are one library, whose image is
// a fatbin of them all: the driver loads the image for each device. -prefix
// and -unexported spell the generated names for a package whose API is
// hand-written.
//
// -src names the CUDA source of the kernels: extern "C" kernels, whose names
// carry no types, get their parameter types from their prototypes there
// (checked against the binary's sizes), every kernel found there gets its
// parameter names, and the variables and the classes pointers point to get
// the types the source declares; a struct it defines becomes a Go struct of
// its members, where Go can place them at the C++ offsets. cugen
// preprocesses the source itself (#include with -I, #define, #if with -D and
// -U), without a toolchain, and passes the same -I, -D and -U (its flags'
// and those in -cflags) to the compiler it runs, so that both read one
// program; a .cu input that cugen compiles is its own -src unless -src is
// given. -globals chooses
// the variables wrapped (by default not the compiler's own, nor those no code
// refers to and no -src declares; -globals none wraps none). -type passes a
// C++ struct as a Go type of the same layout (checked at generate time)
// instead of the type cugen declares.
//
// Every image is checked at generate time with rt/soft's decoder, so that an
// instruction rt/soft cannot run is an error with its file:line:col now, not
// at the first launch; -gpu-only skips the check for an image meant for the
// GPU only.
//
// The generated file records what it was made from (//cugen:input lines:
// the inputs, the sources and the headers they include, the images, each
// with its SHA-256) beside the command line in its first line; cugen -check
// (and gen/fresh, its library form, which a test can call) says, compiling
// nothing, which generated files no longer match them or the //go:generate
// lines of their package. Name collisions resolved are printed when they
// change since the file replaced, or always with -v.
//
// Without -o, the output is BASE_cugen.go in the current directory, BASE the
// input's name without its extension (for several inputs, PACKAGE_cugen.go).
// The package is -pkg, else the package of the Go files in the output's
// directory, else one named after the directory.
//
// The generator itself is gen/pipeline.Run. This command reads the files,
// compiles .cu inputs, prints -list, and writes what Run returns atomically
// (a failed run leaves nothing half-written; a Go file that cugen did not
// generate is never overwritten). It is meant to be run by //go:generate,
// as a tool of the module (go get -tool github.com/cugen/cugen/cmd/cugen):
//
//	//go:generate go tool cugen -o kernels_cugen.go kernels.ptx
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cugen/cugen/gen"
	"github.com/cugen/cugen/gen/pipeline"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cugen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.out, "o", "", "output Go `file`; the images are written beside it (default: BASE_cugen.go in the current directory, BASE the input's name without extension; for several inputs, PACKAGE_cugen.go)")
	fs.StringVar(&c.pkg, "pkg", "", "Go package name (default: the package of the Go files in the output's directory, else the directory's name)")
	fs.StringVar(&c.kernels, "kernels", "", "wrap only kernels whose mangled or demangled name matches this regexp")
	fs.StringVar(&c.arch, "arch", "", "keep only these fatbin entries, e.g. sm_80,sm_90,compute_90 (default: all)")
	fs.BoolVar(&c.list, "list", false, "list kernels, parameters and globals instead of generating")
	fs.BoolVar(&c.check, "check", false, "check, without compiling, that the generated files in the directories named (dir/... for a tree; default .) match the files they were made from and their //go:generate lines; one line per stale file")
	fs.BoolVar(&c.verbose, "v", false, "print every name collision resolved, not only those that changed since the last run")
	fs.BoolVar(&c.json, "json", false, "with -list: machine-readable JSON")
	fs.StringVar(&c.compiler, "compiler", "", "for a .cu input: the device compiler to run, clang or nvcc")
	fs.StringVar(&c.cc, "cc", "", "with -compiler: the compiler binary (default: clang, else the newest clang-N on PATH; nvcc)")
	fs.StringVar(&c.gpu, "gpu", "", "with -compiler: clang's --cuda-gpu-arch (default sm_70); nvcc's targets, e.g. compute_75 or sm_80,sm_90,compute_90 (default compute_75)")
	fs.StringVar(&c.cflags, "cflags", "", "with -compiler: extra compiler flags")
	fs.Var(&c.srcs, "src", "CUDA source `file` of the kernels (repeatable): extern \"C\" kernels get its parameter types, all kernels its parameter names")
	fs.BoolVar(&c.gpuOnly, "gpu-only", false, "the image is meant for the GPU only: skip the check that rt/soft can run it")
	fs.Var(&c.includes, "I", "an include `dir` for #include, for the compiler and cugen's reading of the source (repeatable)")
	fs.Var(&c.defines, "D", "define a preprocessor macro, `NAME` or NAME=VALUE, for the compiler and cugen's reading of the source (repeatable)")
	fs.Var(&c.undefines, "U", "undefine a preprocessor `NAME` after every -D, for the compiler and cugen's reading of the source (repeatable)")
	fs.StringVar(&c.globals, "globals", "", "wrap only the variables whose mangled or demangled name matches this `regexp`, or none with -globals none (default: all but the compiler's internals and those no code refers to and no -src declares)")
	fs.StringVar(&c.style.Prefix, "prefix", "", "start every generated identifier with `P` (Cu: CuMadd3, CuLibrary; a lower-case one makes them unexported), to live beside a package's hand-written names")
	fs.BoolVar(&c.style.Unexported, "unexported", false, "make every generated identifier unexported (madd3, madd3Kernel, library), for a package whose API is hand-written")
	fs.BoolVar(&c.separate, "separate", false, "make each input a library of its own, also per-target files of one kernel file (k_50.ptx k_90.ptx), which are otherwise one")
	fs.Var(&c.types, "type", "pass the C++ type as a Go type of the same layout (repeatable), `CNAME=IMPORT/PATH.Name`, e.g. 'Pair<float>=example.com/m/geom.PairF32'")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cugen [-o file] [-pkg name] [-kernels regexp] [-arch list] [-src file.cu] [-type C=pkg.T] [-gpu-only] input...\n")
		fmt.Fprintf(stderr, "       cugen -compiler clang|nvcc [-gpu arch] [flags] input.cu...\n")
		fmt.Fprintf(stderr, "       cugen -list [-json] input...\n")
		fmt.Fprintf(stderr, "       cugen -check [dir | dir/...]...\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	c.inputs = fs.Args()
	c.command = pipeline.CommandLine(args)
	if c.check {
		if err := check(c.inputs, stdout); err != nil {
			fmt.Fprintln(stderr, "cugen:", err)
			return 1
		}
		return 0
	}
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

// config is the command line, as parsed; request turns it into pipeline.Request.
type config struct {
	out, pkg, kernels, arch   string
	compiler, cc, gpu, cflags string
	list, json, gpuOnly       bool
	check, verbose            bool
	inputs                    []string
	command                   string // as the generated file's header records it
	srcs, includes, defines   listFlag
	undefines                 listFlag
	globals                   string
	types                     typeFlag
	style                     gen.Style // -prefix, -unexported
	separate                  bool
}
