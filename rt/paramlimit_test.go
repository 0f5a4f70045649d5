package rt_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse"
	"github.com/cugen/cugen/rt"
)

// A kernel declared with a parameter block no device takes fails the
// library's load with one error per such kernel, and its launches too;
// offsets near 4 GiB do not wrap into a small block.
func TestParamBlockLimit(t *testing.T) {
	if rt.MaxParamBlock != parse.MaxParamBlock {
		t.Fatalf("rt.MaxParamBlock %d, parse.MaxParamBlock %d", rt.MaxParamBlock, parse.MaxParamBlock)
	}
	l := rt.NewLibrary("big.ptx", []byte(".version 9.0\n"))
	ok := l.Kernel("_Z5saxpyifPKfPf", rt.ParamSpec{Offset: 0, Size: 4}, rt.ParamSpec{Offset: 4, Size: 4},
		rt.ParamSpec{Offset: 8, Size: 8}, rt.ParamSpec{Offset: 16, Size: 8})
	l.Kernel("big", rt.ParamSpec{Offset: 0, Size: 40000})
	wrap := l.Kernel("wrap", rt.ParamSpec{Offset: 0xfffffff0, Size: 0x20})
	l.Kernel("edge", rt.ParamSpec{Offset: 0, Size: rt.MaxParamBlock})
	_, err := l.Load(newFake())
	if !errors.Is(err, rt.ErrInvalidValue) {
		t.Fatalf("Load: %v, want ErrInvalidValue", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"library big.ptx: kernel big: parameter block of 40000 bytes exceeds CUDA's limit of 32764 bytes",
		"library big.ptx: kernel wrap: parameter block of 4294967312 bytes",
	} {
		if strings.Count(msg, want) != 1 {
			t.Errorf("Load error %q lacks %q once", msg, want)
		}
	}
	if strings.Contains(msg, "edge") || strings.Contains(msg, "saxpy") || strings.Count(msg, "\n") != 1 {
		t.Errorf("Load error names more than the two kernels: %q", msg)
	}
	var p [24]byte
	ctx := primary(t, newFake())
	if err := ok.Launch(rt.Config{Stream: ctx.NullStream()}, p[:]); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("launch in the library: %v", err)
	}
	if wrap.ParamSize() != 0 {
		t.Errorf("wrap's buffer is %d bytes", wrap.ParamSize())
	}
}
