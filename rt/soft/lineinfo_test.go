package soft

import (
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

// TestFaultsNameSourceLines: with line information in the PTX (.file and
// .loc), a memcheck fault and a racecheck report name the .cu line and
// column, then the PTX line; without it, the PTX line as before.
func TestFaultsNameSourceLines(t *testing.T) {
	t.Run("memcheck", func(t *testing.T) {
		e := newEnv(t, Options{})
		k := e.kernel(e.load("lineinfo/oob.ptx"), "oob")
		out := e.buf(make([]float32, 32))
		err := e.launchErr(k, rt.D1(1), rt.D1(64), 0, out, int32(32))
		softtest.WantErr(t, err, rt.ErrIllegalAddress, `kernel oob, block \(0,0,0\), thread \(32,0,0\), at oob\.cu:9:12 \(lineinfo/oob\.ptx:42:2, st\.global\.f32\): Invalid __global__ write`)
	})
	t.Run("racecheck", func(t *testing.T) {
		e := newEnv(t, Options{RaceCheck: RaceOn})
		k := e.kernel(e.load("lineinfo/oob.ptx"), "race")
		out := e.buf(make([]int32, 64))
		err := e.launchErr(k, rt.D1(1), rt.D1(64), 0, out)
		softtest.WantErr(t, err, rt.ErrLaunchFailed, `thread \(32,0,0\), at oob\.cu:16:8 \(lineinfo/oob\.ptx:72:2, st\.shared\.u32\): racecheck: `, `thread \(0,0,0\) read it at oob\.cu:17:12 \(lineinfo/oob\.ptx:84:2, ld\.shared\.u32\)`)
	})
	t.Run("hazards", func(t *testing.T) {
		for _, mode := range []RaceMode{RaceOff, RaceOn} {
			e := newEnv(t, Options{RaceCheck: mode})
			k := e.kernel(e.load("lineinfo/oob.ptx"), "oob")
			out := e.buf(make([]float32, 32))
			s, err := e.d.StreamCreate(e.ctx, 1, 0)
			mustT(t, err)
			p := params(out, int32(31))
			mustT(t, e.d.Launch(k, rt.LaunchArgs{Ctx: e.ctx, Stream: s, Grid: rt.D1(1), Block: rt.D1(32), ParamSize: uintptr(len(p)), Params: unsafe.Pointer(&p[0])}))
			got := make([]float32, 32)
			// The host/device hazard check, and under racecheck also the
			// stream check (an async copy on the NULL stream).
			err = e.d.MemcpyDtoH(e.ctx, unsafe.Pointer(&got[0]), out, 128, 0, mode == RaceOn)
			softtest.WantErr(t, err, rt.ErrIllegalState, `kernel oob \(oob\.cu:6\)`)
			mustT(t, e.d.CtxSynchronize(e.ctx))
		}
	})
	t.Run("no line information", func(t *testing.T) {
		e := newEnv(t, Options{})
		src := ptxHeader + `
.visible .entry k(.param .u64 p)
{
	.reg .b64 %a;
	.reg .b32 %r;
	ld.param.u64 %a, [p];
	st.global.u32 [%a+64], %r;
	ret;
}
`
		k := e.kernel(e.loadSrc("plain.ptx", src), "k")
		err := e.launchErr(k, rt.D1(1), rt.D1(1), 0, e.buf(make([]int32, 4)))
		softtest.WantErr(t, err, rt.ErrIllegalAddress, `thread \(0,0,0\), at plain\.ptx:10:2 \(st\.global\.u32\): Invalid`)
	})
}
