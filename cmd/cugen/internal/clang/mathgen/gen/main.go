// Command gen writes the minimax polynomials of cugen's device math library
// (cmd/cugen/internal/clang/include/cugen/math_poly.h); `go generate ./cmd/cugen/internal/clang` runs it.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cugen/cugen/cmd/cugen/internal/clang/mathgen"
)

func main() {
	out := flag.String("o", "include/cugen/math_poly.h", "output header")
	flag.Parse()
	ds, err := mathgen.DeriveAll()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mathgen:", err)
		os.Exit(1)
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".math_poly*.h")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mathgen:", err)
		os.Exit(1)
	}
	_, werr := tmp.Write(mathgen.Header(ds))
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), *out)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		fmt.Fprintln(os.Stderr, "mathgen:", werr)
		os.Exit(1)
	}
}
