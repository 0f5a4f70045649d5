package soft

import "testing"

// TestInstrumentedOpsApart: no decoder op collides with racecheck's and
// the shuffler's (numbered just below opALU), over every corpus kernel.
func TestInstrumentedOpsApart(t *testing.T) {
	t.Setenv("CUGEN_SOFT_RACECHECK", "")
	t.Setenv("CUGEN_SOFT_SHUFFLE", "")
	e := newEnv(t, Options{})
	for _, f := range []string{"typical_sm75.ptx", "typical_sm90.ptx", "typical_sm90_fastmath.ptx", "more_sm90.ptx", "more_sm90_G.ptx"} {
		lib := e.load(f)
		names, err := e.d.LibraryKernelNames(lib)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			for pc, in := range e.d.kernels[e.kernel(lib, n)].code {
				if in.op >= opLdRC && in.op <= opBraYield {
					t.Errorf("%s %s pc %d: decoded op %d is racecheck's", f, n, pc, in.op)
				}
			}
		}
	}
	if opBraYield >= opALU {
		t.Errorf("the instrumented ops reach opALU")
	}
}
