package soft

import (
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestCDPH100 runs what nvcc -rdc made of testdata/async/cdp.cu: a tree
// of child grids four levels deep, and a parent that launches into a
// device stream, copies with cudaMemcpyAsync, tail-launches, mallocs and
// frees with the device runtime, and reads back a launch error and its
// string, against the H100's results.
func TestCDPH100(t *testing.T) {
	rec := readRecording(t, "cdp_h100.txt")
	e := newEnv(t, Options{})
	lib := e.load("async/cdp.ptx")

	out := e.buf(u32s(1024))
	e.launch(e.kernel(lib, "cdpTree"), rt.D1(2), rt.D1(32), 0, out, int32(0), int32(3))
	got := u32s(1024)
	e.get(out, got)
	compareWords(t, "tree", got, recorded(t, rec, "tree"))

	x := make([]int32, 32)
	for i := range x {
		x[i] = int32(i)
	}
	X, Y, S := e.buf(x), e.buf(u32s(32)), e.buf(u32s(32))
	e.launch(e.kernel(lib, "cdpStreams"), rt.D1(1), rt.D1(1), 0, X, Y, S)
	for _, c := range []struct {
		name string
		p    rt.DevPtr
	}{{"streams_x", X}, {"streams_y", Y}, {"streams_status", S}} {
		got := u32s(32)
		e.get(c.p, got)
		compareWords(t, c.name, got, recorded(t, rec, c.name))
	}
}
