package soft

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

// env is a driver with a primary context current on the test's thread.
type env struct {
	t   testing.TB
	d   *Driver   // the soft driver; nil when r is another backend
	r   rt.Driver // what the generic helpers use: d, or the -corpus.backend
	ctx rt.CtxHandle
	out *bytes.Buffer
}

// corpusBackend runs the corpus tests on another registered backend: the
// same kernels, inputs, references and tolerances, so that a run on the GPU
// (built with -tags cudarecord, which registers rt/cgo as "cuda") shows soft
// and the hardware agree:
//
//	go test -tags cudarecord -c -o x.test ./rt/soft
//	./x.test -test.run TestCorpus -corpus.backend=cuda   (on the GPU machine, in rt/soft)
var corpusBackend = flag.String("corpus.backend", "", "run the corpus tests on this rt backend instead of soft")

// newCorpusEnv is newEnv on the -corpus.backend when one is named.
func newCorpusEnv(t testing.TB, opt Options) *env {
	t.Helper()
	if *corpusBackend == "" {
		return newEnv(t, opt)
	}
	d, err := rt.Open(*corpusBackend)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, r: d, ctx: ctx, out: &bytes.Buffer{}}
}

func newEnv(t testing.TB, opt Options) *env {
	t.Helper()
	out := &bytes.Buffer{}
	if opt.Stdout == nil {
		opt.Stdout = out
	}
	d := New(opt)
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, d: d, r: d, ctx: ctx, out: out}
}

func (e *env) load(file string) rt.LibHandle {
	e.t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		e.t.Fatal(err)
	}
	h, err := e.loadNamed(src, file)
	if err != nil {
		e.t.Fatalf("load %s: %v", file, err)
	}
	return h
}

func (e *env) loadSrc(name, src string) rt.LibHandle {
	e.t.Helper()
	h, err := e.loadNamed([]byte(src), name)
	if err != nil {
		e.t.Fatalf("load %s: %v", name, err)
	}
	return h
}

func (e *env) loadNamed(src []byte, name string) (rt.LibHandle, error) {
	return e.r.LibraryLoad(src, rt.LoadOptions{Name: name})
}

func (e *env) kernel(lib rt.LibHandle, name string) rt.KernelHandle {
	e.t.Helper()
	k, err := e.r.LibraryKernel(lib, name)
	if err != nil {
		e.t.Fatal(err)
	}
	return k
}

// buf allocates device memory holding the bytes of a Go slice.
func (e *env) buf(data any) rt.DevPtr {
	e.t.Helper()
	b := raw(data)
	n := uint64(len(b))
	if n == 0 {
		n = 8
	}
	p, err := e.r.MemAlloc(e.ctx, n)
	if err != nil {
		e.t.Fatal(err)
	}
	if len(b) > 0 {
		if err := e.r.MemcpyHtoD(e.ctx, p, unsafe.Pointer(&b[0]), uint64(len(b)), 0, false); err != nil {
			e.t.Fatal(err)
		}
	}
	return p
}

// get copies device memory back into a Go slice.
func (e *env) get(p rt.DevPtr, into any) {
	e.t.Helper()
	b := raw(into)
	if err := e.r.MemcpyDtoH(e.ctx, unsafe.Pointer(&b[0]), p, uint64(len(b)), 0, false); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) launchErr(k rt.KernelHandle, grid, block rt.Dim3, smem uint32, args ...any) error {
	p := params(args...)
	la := rt.LaunchArgs{Ctx: e.ctx, Grid: grid, Block: block, SharedMem: smem, ParamSize: uintptr(len(p))}
	if len(p) > 0 {
		la.Params = unsafe.Pointer(&p[0])
	}
	if err := e.r.Launch(k, la); err != nil {
		return err
	}
	return e.r.CtxSynchronize(e.ctx)
}

func (e *env) launch(k rt.KernelHandle, grid, block rt.Dim3, smem uint32, args ...any) {
	e.t.Helper()
	if err := e.launchErr(k, grid, block, smem, args...); err != nil {
		e.t.Fatal(err)
	}
}

func readTestdata(name string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", name)) }

// The buffers and parameter blocks of the tests here and in exec.
var (
	raw    = softtest.Raw
	params = softtest.Params
)
