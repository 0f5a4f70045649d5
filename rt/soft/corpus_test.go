package soft

import (
	"testing"

	"github.com/cugen/cugen/rt"
)

func TestVadd(t *testing.T) {
	for _, f := range []string{"typical_sm75.ptx", "typical_sm90.ptx", "typical_sm90_fastmath.ptx"} {
		e := newEnv(t, Options{})
		lib := e.load(f)
		k := e.kernel(lib, "_Z4vaddPKfS0_Pfi")
		n := 1000
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(i), float32(2*i)+0.5
		}
		pa, pb, pc := e.buf(a), e.buf(b), e.buf(make([]float32, n))
		e.launch(k, rt.D1((n+255)/256), rt.D1(256), 0, pa, pb, pc, n)
		c := make([]float32, n)
		e.get(pc, c)
		for i := range c {
			if c[i] != a[i]+b[i] {
				t.Fatalf("%s: c[%d] = %v, want %v", f, i, c[i], a[i]+b[i])
			}
		}
	}
}
