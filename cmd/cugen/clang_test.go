package main

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
)

// minClang is the oldest clang the clang-route tests accept: clang 16
// crashes on __nv_bfloat16 arithmetic.
const minClang = 17

var (
	testClangOnce sync.Once
	testClangPath string
	testClangWhy  string
)

// testClang is a clang of at least minClang: $CUGEN_TEST_CC if set, else
// clang, else the newest clang-N on PATH. Without one the test is skipped,
// and says so; under CI (CI set), where .ci/run installs clang-19, it fails.
func testClang(t testing.TB) string {
	t.Helper()
	testClangOnce.Do(func() {
		var cands []string
		if cc := os.Getenv("CUGEN_TEST_CC"); cc != "" {
			cands = append(cands, cc)
		}
		if p, err := exec.LookPath("clang"); err == nil {
			cands = append(cands, p)
		}
		if p := findClang(); p != "" {
			cands = append(cands, p)
		}
		for _, p := range cands {
			out, err := exec.Command(p, "--version").Output()
			if err != nil {
				continue
			}
			m := regexp.MustCompile(`clang version (\d+)`).FindSubmatch(out)
			if m == nil {
				continue
			}
			if v, _ := strconv.Atoi(string(m[1])); v >= minClang {
				testClangPath = p
				return
			}
			testClangWhy = p + " is clang " + string(m[1])
		}
		if testClangWhy == "" {
			testClangWhy = "no clang on PATH"
		}
	})
	if testClangPath == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("the clang-route tests need clang >= %d (%s); .ci/run installs clang-19", minClang, testClangWhy)
		}
		t.Skipf("skipped: the clang-route tests need clang >= %d (%s)", minClang, testClangWhy)
	}
	return testClangPath
}

// compileClang compiles CUDA source with cugen's clang route for gpu and
// returns the PTX.
func compileClang(t testing.TB, name, src, gpu string) []byte {
	t.Helper()
	cc := testClang(t)
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ptx, err := compileCU(&config{compiler: "clang", cc: cc, gpu: gpu}, path)
	if err != nil {
		t.Fatal(err)
	}
	return ptx
}

// softCtx is a fresh rt/soft driver's primary context.
func softCtx(t testing.TB) *rt.Context {
	t.Helper()
	devs, err := rt.DevicesOf(soft.New(soft.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// kernelArgs packs kernel parameters at their natural alignment: pointers
// and 8-byte values at 8, 4-byte values at 4.
type kernelArgs struct {
	buf   []byte
	specs []rt.ParamSpec
}

func (a *kernelArgs) add(b []byte) *kernelArgs {
	off := len(a.buf)
	if r := off % len(b); r != 0 {
		off += len(b) - r
		a.buf = append(a.buf, make([]byte, len(b)-r)...)
	}
	a.buf = append(a.buf, b...)
	a.specs = append(a.specs, rt.ParamSpec{Offset: uint32(off), Size: uint32(len(b))})
	return a
}

func (a *kernelArgs) ptr(p rt.DevPtr) *kernelArgs {
	return a.add(binary.LittleEndian.AppendUint64(nil, uint64(p)))
}
func (a *kernelArgs) i32(v int32) *kernelArgs {
	return a.add(binary.LittleEndian.AppendUint32(nil, uint32(v)))
}
func (a *kernelArgs) u32(v uint32) *kernelArgs {
	return a.add(binary.LittleEndian.AppendUint32(nil, v))
}

// launch runs kernel name of lib on ctx with the grid and block given.
func launch(t testing.TB, ctx *rt.Context, lib *rt.Library, name string, grid, block int, a *kernelArgs) {
	t.Helper()
	k := lib.Kernel(name, a.specs...)
	if err := k.Launch(rt.Config{Grid: rt.D1(grid), Block: rt.D1(block), Stream: ctx.NullStream()}, a.buf); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := ctx.Synchronize(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// devBuf copies host values to a new device buffer.
func devBuf[T any](t testing.TB, ctx *rt.Context, v []T) rt.Buffer[T] {
	t.Helper()
	b, err := rt.AllocFrom(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Free() })
	return b
}

func devZero[T any](t testing.TB, ctx *rt.Context, n int) rt.Buffer[T] {
	t.Helper()
	return devBuf(t, ctx, make([]T, n))
}

func toHost[T any](t testing.TB, b rt.Buffer[T]) []T {
	t.Helper()
	v, err := b.ToHost()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func f32bits(x float32) uint32 { return *(*uint32)(unsafe.Pointer(&x)) }

func hexf(x float64) string { return strconv.FormatFloat(x, 'x', -1, 64) }

var _ = math.Inf
var _ = strings.Join
