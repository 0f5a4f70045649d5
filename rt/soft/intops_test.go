package soft

import (
	"fmt"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestIntopsH100 runs nvcc's intops kernel (bmsk, szext, dp4a, dp2a, fns
// and the SIMD video instructions, testdata/async/intops.cu) on record.cu's
// inputs: a grid of small operands (bit positions and widths 0..35 and
// beyond 32) and random ones, and compares every result with the H100's.
func TestIntopsH100(t *testing.T) {
	const n, nops = 2048, 34
	rec := readRecording(t, "intops_h100.txt.gz")
	a, b, c := u32s(n), u32s(n), u32s(n)
	s := lcg(12345)
	for i := range a {
		if i < 1296 {
			a[i], b[i], c[i] = uint32(i%36), uint32(i/36), s.next()
		} else {
			a[i], b[i], c[i] = s.next(), s.next(), s.next()
		}
	}
	e := newEnv(t, Options{})
	k := e.kernel(e.load("async/intops.ptx"), "intops")
	out := e.buf(u32s(n * nops))
	e.launch(k, rt.D1(n/128), rt.D1(128), 0, e.buf(a), e.buf(b), e.buf(c), out, int32(n))
	got := u32s(n * nops)
	e.get(out, got)
	names := []string{"bmsk.clamp", "bmsk.wrap", "szext.clamp.s32", "szext.wrap.s32", "szext.clamp.u32", "szext.wrap.u32",
		"dp4a.u32.u32", "dp4a.u32.s32", "dp4a.s32.u32", "dp4a.s32.s32", "dp2a.lo.u32.u32", "dp2a.hi.s32.s32", "dp2a.lo.s32.u32",
		"dp2a.hi.u32.s32", "fns", "vadd4.u.sat", "vsub4.s.sat", "vavrg4.u", "vavrg4.s", "vabsdiff4.u.add", "vmin4.s", "vmax4.u",
		"vset4.u.lt", "vset4.s.ge.add", "vadd2.s.sat", "vsub2.u", "vabsdiff2.s.add", "vmin2.u", "vmax2.s.sat", "vset2.su.ne",
		"vavrg2.s", "vadd4.s.u.s.sat", "vsub4.u", "vabsdiff4.s.sat"}
	for op := 0; op < nops; op++ {
		want := recorded(t, rec, fmt.Sprintf("op%d", op))
		compareWords(t, names[op], got[op*n:(op+1)*n], want)
	}
}
