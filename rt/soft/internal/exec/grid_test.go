package exec

import (
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestPanicBecomesError corrupts a decoded instruction so the executor
// panics: the launch must fail with an *rt.Error naming the PTX line. (%r1
// is written twice so that its adds run in the loop, not hoisted into the
// launch's set-up.)
func TestPanicBecomesError(t *testing.T) {
	e := newEnv(t, Config{})
	lib := e.loadSrc("boom.ptx", kernelSrc("", `
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	add.u32 %r1, %r1, 1;
	add.u32 %r2, %r1, %r1;
	ret;`))
	k := e.kernel(lib, "k")
	p := e.kernels[k]
	for i := range p.code {
		if op := p.code[i].op; op == opAdd32 || op == aluUniformB[opAdd32] {
			p.code[i].a = 1 << 30
		}
	}
	wantErr(t, e.launchErr(k, rt.D1(1), rt.D1(32), 0), rt.ErrLaunchFailed, `internal error`, `boom\.ptx:9:\d+ \(add\.u32\)`)
}
