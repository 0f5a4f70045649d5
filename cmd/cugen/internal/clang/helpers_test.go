package clang

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
)

// testMinClang is the oldest clang the tests run with (CUGEN_TEST_CC may
// name an older one, to see what fails).
var testMinClang = MinVersion

var (
	testClangOnce sync.Once
	testClangC    Compiler
	testClangErr  error
)

// testClang is the clang the tests run: $CUGEN_TEST_CC if set, else Find's,
// of at least MinVersion (tests of what needs a newer one check its
// Version). Without one the test is
// skipped, and says so; under CI (CI set), where .ci/run installs clang, it
// fails.
func testClang(t testing.TB) Compiler {
	t.Helper()
	testClangOnce.Do(func() {
		testClangC, testClangErr = Find(os.Getenv("CUGEN_TEST_CC"))
		if testClangErr == nil && testClangC.Version < testMinClang {
			testClangErr = fmt.Errorf("%v is older than %d", testClangC, testMinClang)
		}
	})
	if testClangErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the clang-route tests need clang >= %d: %v; .ci/run installs it", testMinClang, testClangErr)
		}
		t.Skipf("skipped: the clang-route tests need clang >= %d: %v", testMinClang, testClangErr)
	}
	return testClangC
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
	ptx, err := Compile(path, Options{Compiler: cc, GPU: gpu})
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

// archMinClang is the oldest clang that compiles for a target, as measured
// (README.md's table): what is not listed, every supported clang compiles.
var archMinClang = map[string]int{"sm_89": 16, "sm_90": 16, "sm_90a": 17, "sm_100": 22, "sm_100a": 22, "sm_120": 22}

// gpusFor returns the targets of gpus that the test's clang compiles for.
// For each other one it checks that a compile fails with clang's message
// and cugen's hint to use a newer clang.
func gpusFor(t *testing.T, gpus ...string) []string {
	t.Helper()
	cc := testClang(t)
	var out []string
	for _, gpu := range gpus {
		if cc.Version >= archMinClang[gpu] {
			out = append(out, gpu)
			continue
		}
		path := filepath.Join(t.TempDir(), "k.cu")
		if err := os.WriteFile(path, []byte("__global__ void k(int *p) { *p = 1; }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Compile(path, Options{Compiler: cc, GPU: gpu})
		if err == nil || !strings.Contains(err.Error(), "hint: clang "+strconv.Itoa(cc.Version)+" does not compile for "+gpu+"; a newer clang does") {
			t.Errorf("%v for %s: got %v, want a failure with the hint to use a newer clang", cc, gpu, err)
		}
	}
	return out
}
