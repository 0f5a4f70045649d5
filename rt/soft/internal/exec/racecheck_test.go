package exec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cugen/cugen/parse/ptx"
)

// TestInstrumentedOpsApart: no decoder op collides with racecheck's and
// the shuffler's (numbered just below opALU), over every corpus kernel.
func TestInstrumentedOpsApart(t *testing.T) {
	for _, f := range []string{"typical_sm75.ptx", "typical_sm90.ptx", "typical_sm90_fastmath.ptx", "more_sm90.ptx", "more_sm90_G.ptx"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "testdata", f)) // rt/soft's corpus
		if err != nil {
			t.Fatal(err)
		}
		mod, err := ptx.Parse(f, src)
		if err != nil {
			t.Fatal(err)
		}
		m, err := LoadModule(f, mod, &Config{ComputeCapability: 90})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Kernels {
			for pc, in := range p.code {
				if in.op >= opLdRC && in.op <= opBraYield {
					t.Errorf("%s %s pc %d: decoded op %d is racecheck's", f, p.Name, pc, in.op)
				}
			}
		}
	}
	if opBraYield >= opALU {
		t.Errorf("the instrumented ops reach opALU")
	}
}
