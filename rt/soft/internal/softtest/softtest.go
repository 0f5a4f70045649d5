// Package softtest holds what the tests of rt/soft and of its executor
// both need to build and run kernels: packing buffers and parameters,
// one-kernel PTX modules, and matching a launch's *rt.Error.
package softtest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/devmem"
)

// PTXHeader starts a module for sm_90.
const PTXHeader = ".version 8.0\n.target sm_90\n.address_size 64\n"

// KernelSrc wraps a body into a one-kernel module named k.
func KernelSrc(params, body string) string {
	return PTXHeader + ".visible .entry k(" + params + ")\n{\n" + body + "\n}\n"
}

// Raw is the bytes of a Go slice of numbers.
func Raw(data any) []byte {
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

// Params packs kernel arguments at their natural alignment, as the PTX
// parameter layout places them.
func Params(args ...any) []byte {
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

// WantErr fails t unless err is an *rt.Error of code whose detail matches
// every pattern, and returns it.
func WantErr(t *testing.T, err error, code rt.Result, patterns ...string) *rt.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code.Name())
	}
	var e *rt.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error %v, want %s", err, code.Name())
	}
	for _, p := range patterns {
		if !regexp.MustCompile(p).MatchString(e.Detail) {
			t.Errorf("detail %q does not match %q", e.Detail, p)
		}
	}
	return e
}

// CPUTime is the CPU time the process has used, for benchmarks' per
// CPU-second figures (robust against other load on a shared machine).
func CPUTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Race is whether the tests run under the race detector (devmem's), where
// the bit-exactness replays run a deterministic sample of their cases: the
// full replays run in the ordinary go test.
const Race = devmem.Race

// Sample is the stride at which a replay of many recorded cases runs them
// under the race detector: every case normally, every nth with -race.
func Sample(n int) int {
	if Race {
		return n
	}
	return 1
}

// Strided is every nth element of s, from the first (all of s when n is
// 1): the deterministic sample Sample asks for.
func Strided[T any](s []T, n int) []T {
	if n <= 1 {
		return s
	}
	out := make([]T, 0, (len(s)+n-1)/n)
	for i := 0; i < len(s); i += n {
		out = append(out, s[i])
	}
	return out
}

// TexSampleKernel is a kernel name(tex, in, out, n) whose thread i < n
// runs body with the texture object in %rd1, its inBytes-long input at
// %rd5 and its outBytes-long output at %rd6 (registers %r<32>, %f<16>,
// %rd<8>, %p<3>; %r10-%r14 hold n and the index). The texture forms'
// replays share it.
func TexSampleKernel(name string, inBytes, outBytes int, body string) string {
	return fmt.Sprintf(`
.visible .entry %s(.param .u64 tex, .param .u64 in, .param .u64 out, .param .u32 n)
{
	.reg .pred %%p<3>;
	.reg .b32 %%r<32>;
	.reg .f32 %%f<16>;
	.reg .b64 %%rd<8>;
	ld.param.u64 %%rd1, [tex];
	ld.param.u64 %%rd2, [in];
	ld.param.u64 %%rd3, [out];
	ld.param.u32 %%r10, [n];
	mov.u32 %%r11, %%tid.x;
	mov.u32 %%r12, %%ctaid.x;
	mov.u32 %%r13, %%ntid.x;
	mad.lo.u32 %%r14, %%r12, %%r13, %%r11;
	setp.ge.u32 %%p1, %%r14, %%r10;
	@%%p1 bra END;
	mul.wide.u32 %%rd4, %%r14, %d;
	add.u64 %%rd5, %%rd2, %%rd4;
	mul.wide.u32 %%rd4, %%r14, %d;
	add.u64 %%rd6, %%rd3, %%rd4;
	%s
END:
	ret;
}
`, name, inBytes, outBytes, body)
}
