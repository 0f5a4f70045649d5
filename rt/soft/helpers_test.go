package soft

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// env is a driver with a primary context current on the test's thread.
type env struct {
	t   testing.TB
	d   *Driver
	ctx rt.CtxHandle
	out *bytes.Buffer
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
	return &env{t: t, d: d, ctx: ctx, out: out}
}

func (e *env) load(file string) rt.LibHandle {
	e.t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		e.t.Fatal(err)
	}
	h, err := e.d.LoadNamed(src, file, rt.LoadOptions{})
	if err != nil {
		e.t.Fatalf("load %s: %v", file, err)
	}
	return h
}

func (e *env) loadSrc(name, src string) rt.LibHandle {
	e.t.Helper()
	h, err := e.d.LoadNamed([]byte(src), name, rt.LoadOptions{})
	if err != nil {
		e.t.Fatalf("load %s: %v", name, err)
	}
	return h
}

func (e *env) kernel(lib rt.LibHandle, name string) rt.KernelHandle {
	e.t.Helper()
	k, err := e.d.LibraryKernel(lib, name)
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
	p, err := e.d.MemAlloc(e.ctx, n)
	if err != nil {
		e.t.Fatal(err)
	}
	if len(b) > 0 {
		if err := e.d.MemcpyHtoD(e.ctx, p, unsafe.Pointer(&b[0]), uint64(len(b)), 0, false); err != nil {
			e.t.Fatal(err)
		}
	}
	return p
}

// get copies device memory back into a Go slice.
func (e *env) get(p rt.DevPtr, into any) {
	e.t.Helper()
	b := raw(into)
	if err := e.d.MemcpyDtoH(e.ctx, unsafe.Pointer(&b[0]), p, uint64(len(b)), 0, false); err != nil {
		e.t.Fatal(err)
	}
}

func raw(data any) []byte {
	switch v := data.(type) {
	case []byte:
		return v
	case []float32:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*4)
	case []float64:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*8)
	case []int32:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*4)
	case []uint32:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*4)
	case []int64:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*8)
	case []uint64:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*8)
	case []int16:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*2)
	case []uint16:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*2)
	}
	panic("raw: unsupported type")
}

// params packs kernel arguments at their natural alignment, as the PTX
// parameter layout places them.
func params(args ...any) []byte {
	var b []byte
	put := func(size int, v uint64) {
		for len(b)%size != 0 {
			b = append(b, 0)
		}
		var t [8]byte
		binary.LittleEndian.PutUint64(t[:], v)
		b = append(b, t[:size]...)
	}
	for _, a := range args {
		switch v := a.(type) {
		case rt.DevPtr:
			put(8, uint64(v))
		case uint64:
			put(8, v)
		case int64:
			put(8, uint64(v))
		case int:
			put(4, uint64(uint32(int32(v))))
		case int32:
			put(4, uint64(uint32(v)))
		case uint32:
			put(4, uint64(v))
		case float32:
			put(4, uint64(math.Float32bits(v)))
		case float64:
			put(8, math.Float64bits(v))
		default:
			panic("params: unsupported type")
		}
	}
	return b
}

func (e *env) launchErr(k rt.KernelHandle, grid, block rt.Dim3, smem uint32, args ...any) error {
	p := params(args...)
	la := rt.LaunchArgs{Ctx: e.ctx, Grid: grid, Block: block, SharedMem: smem, ParamSize: uintptr(len(p))}
	if len(p) > 0 {
		la.Params = unsafe.Pointer(&p[0])
	}
	if err := e.d.Launch(k, la); err != nil {
		return err
	}
	return e.d.CtxSynchronize(e.ctx)
}

func (e *env) launch(k rt.KernelHandle, grid, block rt.Dim3, smem uint32, args ...any) {
	e.t.Helper()
	if err := e.launchErr(k, grid, block, smem, args...); err != nil {
		e.t.Fatal(err)
	}
}

func readTestdata(name string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", name)) }
