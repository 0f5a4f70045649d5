//go:build cgo

package cgo

import (
	"fmt"
	"testing"

	"github.com/cugen/cugen/rt"
)

// bigSharedProbePTX is a kernel with 64 KiB of static shared memory, which
// ptxas refuses ("uses too much shared data (0x10000 bytes, 0xc000 max)").
const bigSharedProbePTX = `.version 8.0
.target sm_90
.address_size 64
.visible .entry bigShared()
{
	.shared .align 4 .b8 s[65536];
	.reg .b32 %r<2>;
	mov.u32 %r1, 1;
	st.shared.u32 [s+65532], %r1;
	ret;
}
` + "\x00"

// TestStaticSharedOver48KiBGPU asks the driver where it refuses a kernel
// with more static shared memory than ptxas allows: at the load, the
// kernel lookup, the launch or not at all. It logs one RESULT line (rt/soft
// refuses such a kernel at load; rttest's misuse case follows the GPU).
func TestStaticSharedOver48KiBGPU(t *testing.T) {
	d := gpu(t)
	devs, err := rt.DevicesOf(d)
	must(t, err)
	ctx, err := devs[0].Primary()
	must(t, err)
	step := "load"
	h, err := rt.NewLibrary("bigshared", []byte(bigSharedProbePTX)).Load(d)
	if err == nil {
		step = "kernel lookup"
		_, err = d.LibraryKernel(h, "bigShared")
		_ = d.LibraryUnload(h)
	}
	if err == nil {
		step = "launch"
		k := rt.NewLibrary("bigshared", []byte(bigSharedProbePTX)).Kernel("bigShared")
		if err = k.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: ctx.NullStream()}, nil); err == nil {
			step = "synchronize"
			err = ctx.Synchronize()
		}
	}
	fmt.Printf("RESULT: 64 KiB static shared: %s: %v\n", step, err)
}
