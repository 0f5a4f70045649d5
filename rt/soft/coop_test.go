package soft

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// gridSyncPTX is the pattern of cooperative_groups' grid.sync(): the
// workspace address from %envreg1:%envreg2 (a trap when it is 0), an
// arrival counted there, and a spin until every CTA arrived.
const gridSyncPTX = `
.version 8.0
.target sm_90
.address_size 64

.visible .entry gsync(.param .u64 out)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %envreg1;
	mov.u32 %r2, %envreg2;
	cvt.u64.u32 %rd2, %r2;
	cvt.u64.u32 %rd3, %r1;
	bfi.b64 %rd4, %rd3, %rd2, 32, 32;
	setp.ne.s64 %p1, %rd4, 0;
	@%p1 bra OK;
	trap;
OK:
	mov.u32 %r3, %tid.x;
	setp.ne.u32 %p2, %r3, 0;
	@%p2 bra DONE;
	mov.u32 %r4, %nctaid.x;
	atom.add.release.gpu.u32 %r5, [%rd4+4], 1;
SPIN:
	ld.acquire.gpu.u32 %r6, [%rd4+4];
	setp.lt.u32 %p2, %r6, %r4;
	@%p2 bra SPIN;
	mov.u32 %r7, %ctaid.x;
	mul.wide.u32 %rd5, %r7, 4;
	add.s64 %rd6, %rd1, %rd5;
	st.global.u32 [%rd6], %r6;
DONE:
	ret;
}
`

// TestGridSyncWorkspace: a cooperative launch gets a zeroed grid-sync
// workspace through %envreg1/2, where all its CTAs meet; any other launch
// gets none, and grid.sync traps as on the GPU.
func TestGridSyncWorkspace(t *testing.T) {
	e := newEnv(t, Options{Workers: 2})
	k := e.kernel(e.loadSrc("gsync.ptx", gridSyncPTX), "gsync")
	out := e.buf(u32s(16))
	for run := 0; run < 2; run++ {
		p := params(out)
		if err := e.r.Launch(k, rt.LaunchArgs{Ctx: e.ctx, Grid: rt.D1(16), Block: rt.D1(64), Cooperative: true, Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}); err != nil {
			t.Fatal(err)
		}
		if err := e.r.CtxSynchronize(e.ctx); err != nil {
			t.Fatal(err)
		}
		got := u32s(16)
		e.get(out, got)
		for i, v := range got {
			if v != 16 {
				t.Fatalf("run %d: CTA %d saw %d arrivals, want 16 (a fresh workspace each launch)", run, i, v)
			}
		}
	}
	err := e.launchErr(k, rt.D1(2), rt.D1(32), 0, out)
	if err == nil || !strings.Contains(err.Error(), "trap") {
		t.Errorf("grid sync outside a cooperative launch: %v, want the trap", err)
	}
}
