package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cugen/cugen/rt/soft/internal/contractgen"
)

// cmdSummarize reduces every SASS dump under root/sass to one line per
// kernel: source, target, build, kernel, then the Summary.
func cmdSummarize(args []string) error {
	fs := flag.NewFlagSet("summarize", flag.ExitOnError)
	root := fs.String("root", ".", "a GPU run's output (gpu.sh's tarball, unpacked)")
	out := fs.String("o", "-", "output file")
	fs.Parse(args)
	lines, err := summaries(*root)
	if err != nil {
		return err
	}
	text := strings.Join(lines, "\n") + "\n"
	if *out == "-" {
		_, err = os.Stdout.WriteString(text)
		return err
	}
	return os.WriteFile(*out, []byte(text), 0o644)
}

func summaries(root string) ([]string, error) {
	types := map[string]contractgen.Type{}
	for _, e := range contractgen.Entries() {
		types[e.Kernel] = e.Type
	}
	var lines []string
	add := func(src, target, build, file string) error {
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		for fn, code := range contractgen.ParseSASS(string(b)) {
			t, ok := types[fn]
			if !ok {
				continue // a subroutine (division, square root slow paths)
			}
			lines = append(lines, fmt.Sprintf("%s %s %s %s\t%s", src, target, build, fn, contractgen.SummarizeSASS(code, t)))
		}
		return nil
	}
	for _, t := range contractgen.Targets {
		for _, b := range contractgen.Builds[contractgen.SrcHand] {
			files, _ := filepath.Glob(filepath.Join(root, "sass", "hand", t, b, "*.sass")) // one per kernel (first run)
			files = append(files, filepath.Join(root, "sass", "hand_"+t+"_"+b+".sass"))
			for _, f := range files {
				if _, err := os.Stat(f); err != nil {
					continue
				}
				if err := add(contractgen.SrcHand, t, b, f); err != nil {
					return nil, err
				}
			}
		}
		for _, src := range []string{contractgen.SrcAsm, contractgen.SrcC} {
			for _, b := range contractgen.Builds[src] {
				f := filepath.Join(root, "sass", src+"_"+t+"_"+b+".sass")
				if _, err := os.Stat(f); err != nil {
					continue
				}
				if err := add(src, t, b, f); err != nil {
					return nil, err
				}
			}
		}
	}
	sort.Strings(lines)
	return lines, nil
}

// cmdTestdata folds a GPU run into rt/soft/testdata/contract: the SASS
// summaries, the recorded outputs of the GPU (deduplicated), the sm_90 PTX
// that nvcc made (gzipped: the other targets' differ only in .target), and
// the tool versions.
func cmdTestdata(args []string) error {
	fs := flag.NewFlagSet("testdata", flag.ExitOnError)
	root := fs.String("root", ".", "a GPU run's output (gpu.sh's tarball, unpacked)")
	out := fs.String("o", "", "rt/soft/testdata/contract")
	fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("testdata: -o is required")
	}
	if err := os.MkdirAll(filepath.Join(*out, "ptx"), 0o755); err != nil {
		return err
	}
	lines, err := summaries(*root)
	if err != nil {
		return err
	}
	head := "# contractgen summarize: per source, target, build and kernel, the FMAs ptxas emitted and\n# the canonical trees of the kernel's arithmetic results (see contractgen.Summary).\n"
	if err := os.WriteFile(filepath.Join(*out, "sass.txt"), []byte(head+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(*root, "log", "records.jsonl"))
	if err != nil {
		return err
	}
	recs, err := contractgen.ReadRecords(f)
	f.Close()
	if err != nil {
		return err
	}
	var gpu []contractgen.Record
	for _, r := range recs {
		if r.Path == contractgen.PathCubin || r.Path == contractgen.PathJIT {
			gpu = append(gpu, r)
		}
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	for _, r := range contractgen.Dedupe(gpu) {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "results.jsonl.gz"), buf.Bytes(), 0o644); err != nil {
		return err
	}
	for _, src := range []string{contractgen.SrcAsm, contractgen.SrcC} {
		for _, b := range contractgen.Builds[src] {
			name := src + "_sm_90_" + b + ".ptx"
			data, err := os.ReadFile(filepath.Join(*root, "ptx", name))
			if err != nil {
				return err
			}
			var z bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
			zw.Write(data)
			zw.Close()
			if err := os.WriteFile(filepath.Join(*out, "ptx", name+".gz"), z.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
	v, err := os.ReadFile(filepath.Join(*root, "log", "versions.txt"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(*out, "versions.txt"), v, 0o644)
}
