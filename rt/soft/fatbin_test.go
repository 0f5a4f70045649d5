package soft

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// fatbinTestdata holds parse/fatbin's fatbins, of parse/cubin/testdata/b.cu
// among others, which these tests load too (one copy of each).
const fatbinTestdata = "../../parse/fatbin/testdata"

// b.cu built as a fatbin with sm_90 SASS plus compute_90 PTX (-O3, and
// -G): the soft backend picks the PTX entry. The kernels take a 5000-byte
// struct by value, which -G builds address through cvta.param.
func TestFatbinPTXEntry(t *testing.T) {
	for _, f := range []string{"b.speedall.fatbin", "b.g.fatbin"} {
		e := newEnv(t, Options{})
		src, err := os.ReadFile(filepath.Join(fatbinTestdata, f))
		if err != nil {
			t.Fatal(err)
		}
		lib, err := e.d.LibraryLoad(src, rt.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		// kbig(Big b, int *o): o[0] = b.d[4999] + dfn(o[1]), dfn(x) = x*ext, ext = 3.
		o := e.buf([]int32{0, 7})
		p := make([]byte, 5008)
		p[4999] = 5
		binary.LittleEndian.PutUint64(p[5000:], uint64(o))
		la := rt.LaunchArgs{Ctx: e.ctx, Grid: rt.D1(1), Block: rt.D1(1), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}
		if err := e.d.Launch(e.kernel(lib, "_Z4kbig3BigPi"), la); err != nil {
			t.Fatal(err)
		}
		got := make([]int32, 2)
		e.get(o, got)
		if got[0] != 26 {
			t.Fatalf("%s: kbig wrote %d, want 26", f, got[0])
		}
		// ksmall(float4 v, double *o, const __grid_constant__ Big g): o[0] = v.x + g.d[7].
		od := e.buf(make([]float64, 1))
		q := make([]byte, 24+5000)
		binary.LittleEndian.PutUint32(q[0:], math.Float32bits(1.5))
		binary.LittleEndian.PutUint64(q[16:], uint64(od))
		q[24+7] = 0xfe // -2 as a signed char
		la = rt.LaunchArgs{Ctx: e.ctx, Grid: rt.D1(1), Block: rt.D1(128), Params: unsafe.Pointer(&q[0]), ParamSize: uintptr(len(q))}
		k := e.kernel(lib, "_Z6ksmall6float4Pd3Big")
		if err := e.d.Launch(k, la); err != nil {
			t.Fatal(err)
		}
		gd := make([]float64, 1)
		e.get(od, gd)
		if gd[0] != -0.5 {
			t.Fatalf("%s: ksmall wrote %v, want -0.5", f, gd[0])
		}
		la.Block = rt.D1(256) // .maxntid 128
		wantErr(t, e.d.Launch(k, la), rt.ErrInvalidValue, "maxntid")
	}
}
