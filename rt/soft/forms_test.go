package soft

import (
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestFormsH100 runs what nvcc made of testdata/async/forms.cu: a
// cooperative_groups cluster kernel (__cluster_dims__, map_shared_rank,
// cluster.sync), device malloc/free/new[]/delete[] (with an allocation a
// later launch reads and frees), calls through a table of function
// pointers (divergent within warps, one target recursive through the
// table), and the SIMD and bit intrinsics, which nvcc turns into video
// instructions, packed 16-bit arithmetic, dp4a, dp2a, fns, prmt and sad.
func TestFormsH100(t *testing.T) {
	rec := readRecording(t, "forms_h100.txt")
	e := newEnv(t, Options{})
	lib := e.load("async/forms.ptx")

	out := e.buf(u32s(8 * 64))
	e.launch(e.kernel(lib, "cgCluster"), rt.D1(8), rt.D1(64), 0, out)
	got := u32s(8 * 64)
	e.get(out, got)
	compareWords(t, "cgCluster", got, recorded(t, rec, "cgCluster"))

	h := e.buf(u32s(256))
	e.launch(e.kernel(lib, "heap"), rt.D1(4), rt.D1(64), 0, h)
	got = u32s(256)
	e.get(h, got)
	compareWords(t, "heap", got, recorded(t, rec, "heap"))
	e.launch(e.kernel(lib, "heapRead"), rt.D1(1), rt.D1(1), 0, h)
	e.get(h, got[:1])
	compareWords(t, "heapRead", got[:1], recorded(t, rec, "heapRead"))

	const n = 256
	a := make([]int32, n)
	for i := range a {
		a[i] = int32((i*37 + 11) % 29)
	}
	f := e.buf(u32s(n))
	e.launch(e.kernel(lib, "funcPtr"), rt.D1(n/64), rt.D1(64), 0, e.buf(a), f, int32(n))
	got = u32s(n)
	e.get(f, got)
	compareWords(t, "funcPtr", got, recorded(t, rec, "funcPtr"))

	x, y := u32s(n), u32s(n)
	s := lcg(777)
	for i := range x {
		x[i], y[i] = s.next(), s.next()
	}
	const nsimd = 24
	so := e.buf(u32s(n * nsimd))
	e.launch(e.kernel(lib, "simd"), rt.D1(n/64), rt.D1(64), 0, e.buf(x), e.buf(y), so, int32(n))
	got = u32s(n * nsimd)
	e.get(so, got)
	compareWords(t, "simd", got, recorded(t, rec, "simd"))
}
