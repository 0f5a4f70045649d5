// Command contractgen builds and records the corpus behind rt/soft's model
// of ptxas's FMA contraction (package contractgen).
//
//	contractgen gen -o DIR                 write the sources and gpu.sh
//	contractgen record -root DIR -o FILE   launch every sm_90 build, write the outputs
//	contractgen summarize -root DIR -o FILE  reduce the SASS dumps to expression trees
//	contractgen testdata -root DIR -o TESTDATA  fold a GPU run into rt/soft/testdata/contract
//
// On the GPU machine, gpu.sh compiles everything (nvcc, ptxas, cuobjdump) and
// runs "record" with the cuda backend; see rt/soft/testdata/contract/README.md.
package main

import (
	_ "embed"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cugen/cugen/rt/soft/internal/contractgen"
)

//go:embed gpu.sh
var gpuScript []byte

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = cmdGen(os.Args[2:])
	case "record":
		err = cmdRecord(os.Args[2:])
	case "summarize":
		err = cmdSummarize(os.Args[2:])
	case "testdata":
		err = cmdTestdata(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "contractgen:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: contractgen gen|record|summarize|testdata [flags]")
	os.Exit(2)
}

func cmdGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	dir := fs.String("o", "", "output directory")
	fs.Parse(args)
	if *dir == "" {
		return fmt.Errorf("gen: -o is required")
	}
	write := func(name string, data []byte, mode os.FileMode) error {
		p := filepath.Join(*dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, mode)
	}
	for _, k := range contractgen.Kernels() {
		for _, t := range contractgen.Targets {
			if k.Family == "rand" && t != "sm_90" {
				continue // the rules do not depend on the target; sm_90 runs
			}
			for _, b := range contractgen.Builds[contractgen.SrcHand] {
				src, err := k.PTX(t, b == "G")
				if err != nil {
					return err
				}
				e := contractgen.Entry{Src: contractgen.SrcHand, Kernel: k.Name()}
				if err := write(e.PTXPath(t, b), []byte(src), 0o644); err != nil {
					return err
				}
			}
		}
	}
	asm, err := contractgen.AsmCU()
	if err != nil {
		return err
	}
	if err := write("cu/asm.cu", []byte(asm), 0o644); err != nil {
		return err
	}
	if err := write("cu/c.cu", []byte(contractgen.CCU()), 0o644); err != nil {
		return err
	}
	n := map[string]int{}
	for _, e := range contractgen.Entries() {
		n[e.Src]++
	}
	if err := write("kernels.txt", []byte(fmt.Sprintf("hand %d asm %d c %d\n", n["hand"], n["asm"], n["c"])), 0o644); err != nil {
		return err
	}
	return write("gpu.sh", gpuScript, 0o755)
}
