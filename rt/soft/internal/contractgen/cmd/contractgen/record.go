package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unsafe"

	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/cgo" // registers "cuda"
	"github.com/cugen/cugen/rt/soft"
	"github.com/cugen/cugen/rt/soft/internal/contractgen"
)

// cmdRecord launches every kernel's sm_90 builds on the named backends and
// writes one Record per launch. On "cuda" each build runs twice: from the
// cubin ptxas made and from the PTX through the driver's JIT; on "soft" the
// PTX runs in rt/soft. The table it prints compares soft with the cubin.
func cmdRecord(args []string) error {
	fs := flag.NewFlagSet("record", flag.ExitOnError)
	root := fs.String("root", ".", "corpus root (contractgen gen -o)")
	out := fs.String("o", "records.jsonl", "output file")
	backends := fs.String("backends", "cuda,soft", "comma-separated backends")
	fs.Parse(args)

	var recs []contractgen.Record
	for _, be := range strings.Split(*backends, ",") {
		var d rt.Driver
		var err error
		if be == "soft" {
			d = soft.New(soft.Options{Deterministic: true})
		} else {
			d, err = rt.Open(be)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "backend %s: %v\n", be, err)
			continue
		}
		paths := []string{be}
		if be == "cuda" {
			paths = []string{contractgen.PathCubin, contractgen.PathJIT}
		}
		r, err := newRunner(d, *root)
		if err != nil {
			fmt.Fprintf(os.Stderr, "backend %s: %v\n", be, err)
			continue
		}
		for _, e := range contractgen.Entries() {
			for _, b := range contractgen.Builds[e.Src] {
				for _, p := range paths {
					recs = append(recs, r.run(e, b, p))
				}
			}
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := contractgen.WriteRecords(f, recs); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	printTable(recs)
	return nil
}

type runner struct {
	d    rt.Driver
	root string
	ctx  rt.CtxHandle
	libs map[string]libOrErr
}

type libOrErr struct {
	h   rt.LibHandle
	err error
}

func newRunner(d rt.Driver, root string) (*runner, error) {
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		return nil, err
	}
	if err := d.CtxSetCurrent(ctx); err != nil {
		return nil, err
	}
	return &runner{d: d, root: root, ctx: ctx, libs: map[string]libOrErr{}}, nil
}

func (r *runner) lib(file string) (rt.LibHandle, error) {
	if l, ok := r.libs[file]; ok {
		return l.h, l.err
	}
	img, err := os.ReadFile(filepath.Join(r.root, file))
	var h rt.LibHandle
	if err == nil {
		h, err = r.d.LibraryLoad(img, rt.LoadOptions{Name: filepath.Base(file)})
	}
	r.libs[file] = libOrErr{h, err}
	return h, err
}

func (r *runner) run(e contractgen.Entry, build, path string) contractgen.Record {
	rec := contractgen.Record{Src: e.Src, Kernel: e.Kernel, Build: build, Path: path}
	file := e.PTXPath("sm_90", build)
	if path == contractgen.PathCubin {
		file = e.CubinPath("sm_90", build)
	}
	lib, err := r.lib(file)
	if err != nil {
		rec.Err = "load " + file + ": " + err.Error()
		return rec
	}
	out, err := launch(r.d, r.ctx, lib, e)
	if err != nil {
		rec.Err = err.Error()
		return rec
	}
	rec.Out = out
	return rec
}

// launch runs e over its inputs and returns the output bytes.
func launch(d rt.Driver, ctx rt.CtxHandle, lib rt.LibHandle, e contractgen.Entry) ([]byte, error) {
	k, err := d.LibraryKernel(lib, e.Kernel)
	if err != nil {
		return nil, err
	}
	in := contractgen.Inputs(e.Key, e.Type, e.NIn)
	outLen := contractgen.Threads * e.NOut * e.Type.Size()
	din, err := d.MemAlloc(ctx, uint64(len(in)))
	if err != nil {
		return nil, err
	}
	defer d.MemFree(ctx, din)
	dout, err := d.MemAlloc(ctx, uint64(outLen))
	if err != nil {
		return nil, err
	}
	defer d.MemFree(ctx, dout)
	if err := d.MemcpyHtoD(ctx, din, unsafe.Pointer(&in[0]), uint64(len(in)), 0, false); err != nil {
		return nil, err
	}
	if err := d.MemsetD8(ctx, dout, 0xA5, uint64(outLen), 0, false); err != nil {
		return nil, err
	}
	params := e.Params(uint64(din), uint64(dout))
	la := rt.LaunchArgs{Ctx: ctx, Grid: rt.Dim3{X: contractgen.Blocks, Y: 1, Z: 1}, Block: rt.Dim3{X: contractgen.BlockSize, Y: 1, Z: 1},
		Params: unsafe.Pointer(&params[0]), ParamSize: uintptr(len(params))}
	if err := d.Launch(k, la); err != nil {
		return nil, err
	}
	if err := d.CtxSynchronize(ctx); err != nil {
		return nil, err
	}
	out := make([]byte, outLen)
	if err := d.MemcpyDtoH(ctx, unsafe.Pointer(&out[0]), dout, uint64(outLen), 0, false); err != nil {
		return nil, err
	}
	return out, nil
}

// printTable summarises per (source, build): kernels run per path, and how
// many of soft's outputs differ from the cubin's (and the JIT's from the
// cubin's).
func printTable(recs []contractgen.Record) {
	type key struct{ src, build string }
	by := map[key]map[string]map[string]contractgen.Record{} // path → kernel → record
	for _, r := range recs {
		k := key{r.Src, r.Build}
		if by[k] == nil {
			by[k] = map[string]map[string]contractgen.Record{}
		}
		if by[k][r.Path] == nil {
			by[k][r.Path] = map[string]contractgen.Record{}
		}
		by[k][r.Path][r.Kernel] = r
	}
	var keys []key
	for k := range by {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].src != keys[j].src {
			return keys[i].src < keys[j].src
		}
		return keys[i].build < keys[j].build
	})
	fmt.Printf("%-5s %-6s %8s %8s %8s %10s %10s\n", "src", "build", "cubin", "jit", "soft", "jit!=cubin", "soft!=cubin")
	for _, k := range keys {
		m := by[k]
		ok := func(p string) string {
			n, bad := 0, 0
			for _, r := range m[p] {
				if r.Err == "" {
					n++
				} else {
					bad++
				}
			}
			if bad > 0 {
				return fmt.Sprintf("%d/-%d", n, bad)
			}
			return fmt.Sprint(n)
		}
		diff := func(p string) (int, []string) {
			n := 0
			var names []string
			for name, r := range m[p] {
				c, have := m[contractgen.PathCubin][name]
				if have && r.Err == "" && c.Err == "" && !bytes.Equal(r.Out, c.Out) {
					n++
					names = append(names, name)
				}
			}
			sort.Strings(names)
			return n, names
		}
		dj, _ := diff(contractgen.PathJIT)
		ds, names := diff("soft")
		fmt.Printf("%-5s %-6s %8s %8s %8s %10d %10d\n", k.src, k.build, ok(contractgen.PathCubin), ok(contractgen.PathJIT), ok("soft"), dj, ds)
		if len(names) > 0 {
			if len(names) > 12 {
				names = append(names[:12], "…")
			}
			fmt.Printf("      soft differs: %s\n", strings.Join(names, " "))
		}
	}
	var errs []string
	for _, r := range recs {
		if r.Err != "" {
			errs = append(errs, fmt.Sprintf("%s %s %s %s: %s", r.Src, r.Build, r.Path, r.Kernel, r.Err))
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		fmt.Printf("%d failed launches; first: %s\n", len(errs), errs[0])
	}
}
