package soft

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// ptxas refuses special registers as operands of anything but mov and cvt
// (seen on the H100 for setp); soft refuses the same PTX at load.
func TestSpecialRegisterOperandRefused(t *testing.T) {
	e := newEnv(t, Options{})
	src := `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .pred %p<2>;
	setp.lt.u32 %p1, %laneid, 10;
	ret;
}`
	_, err := e.d.LibraryLoad([]byte(src), rt.LoadOptions{Name: "sreg.ptx"})
	if err == nil || !strings.Contains(err.Error(), "sreg.ptx:7:2") || !strings.Contains(err.Error(), "special register %laneid is not allowed as an operand of setp") {
		t.Fatalf("err = %v", err)
	}
}

// TestReservedSharedH100 replays the H100 probe rsmem.cu (2026-11-23): a
// kernel with a 4-byte static __shared__ array and dynamic shared memory
// reads the reserved-shared-memory special registers, %total_smem_size and
// %dynamic_smem_size, and the shared addresses of both arrays. The H100
// gave begin 0, end 288, cap 1024, offsets 0 and 0, static at 1024,
// dynamic at 1040, total 128, and the dynamic size as launched.
func TestReservedSharedH100(t *testing.T) {
	e := newEnv(t, Options{Deterministic: true})
	src := kernelSrc(".param .u64 out", `
	.reg .b32 %v<12>;
	.reg .b64 %a<4>;
	.shared .align 4 .b8 s[4];
	.extern .shared .align 16 .b8 dyn[];
	mov.u32 %v0, %reserved_smem_offset_begin;
	mov.u32 %v1, %reserved_smem_offset_end;
	mov.u32 %v2, %reserved_smem_offset_cap;
	mov.u32 %v3, %reserved_smem_offset_0;
	mov.u32 %v4, %reserved_smem_offset_1;
	mov.u32 %v5, s;
	mov.u32 %v6, dyn;
	mov.u32 %v7, %total_smem_size;
	mov.u32 %v8, %dynamic_smem_size;
	mov.u32 %v9, 7;
	st.shared.u32 [s], %v9;
	st.shared.u32 [%v3+1020], %v9;
	ld.shared.u32 %v10, [s];
	ld.param.u64 %a1, [out];
	st.global.v4.u32 [%a1], {%v0, %v1, %v2, %v3};
	st.global.v4.u32 [%a1+16], {%v4, %v5, %v6, %v7};
	st.global.v2.u32 [%a1+32], {%v8, %v10};
	ret;`)
	if v, err := e.d.DeviceAttribute(0, 111); err != nil || v != 1024 {
		t.Errorf("RESERVED_SHARED_MEMORY_PER_BLOCK %d %v, the H100 gave 1024", v, err)
	}
	k := e.kernel(e.loadSrc("rsmem.ptx", src), "k")
	for _, dyn := range []uint32{0, 100} {
		out := e.buf(make([]uint32, 10))
		e.launch(k, rt.D1(1), rt.D1(32), dyn, out)
		got := make([]uint32, 10)
		e.get(out, got)
		want := []uint32{0, 288, 1024, 0, 0, 1024, 1040, 128, dyn, 7}
		if !slices.Equal(got, want) {
			t.Errorf("dynamic %d: begin end cap off0 off1 static@ dyn@ total dynsize s[0] = %v, the H100 gave %v", dyn, got, want)
		}
	}
}

// TestSmemSizesH100 replays the H100's %total_smem_size and
// %aggr_smem_size for static and dynamic shared sizes (.gpu probe rsmem.cu,
// second run; its kernels declare extern shared memory): total = the
// kernel's 16-aligned static bytes plus the dynamic ones rounded up to 128;
// aggr = 1024 + the same, unrounded.
func TestSmemSizesH100(t *testing.T) {
	for _, c := range []struct{ static, dyn, total, aggr uint32 }{
		{128, 0, 128, 1152}, {132, 0, 256, 1168}, {256, 1, 384, 1281}, {4000, 100, 4224, 5124},
		{16384, 0, 16384, 17408}, {16384, 16000, 32384, 33408}, {32768, 100000, 132864, 133792},
		{0, 0, 0, 1024},
	} {
		e := newEnv(t, Options{Deterministic: true})
		decl := ""
		if c.static > 0 {
			decl = fmt.Sprintf(".shared .align 4 .b8 s[%d];", c.static)
		}
		src := kernelSrc(".param .u64 out", `
	.reg .b32 %v<4>;
	.reg .b64 %a<2>;
	.extern .shared .align 4 .b8 dyn[];
	`+decl+`
	mov.u32 %v0, %total_smem_size;
	mov.u32 %v1, %aggr_smem_size;
	ld.param.u64 %a1, [out];
	st.global.v2.u32 [%a1], {%v0, %v1};
	ret;`)
		k := e.kernel(e.loadSrc("smemsizes.ptx", src), "k")
		if c.dyn > 48<<10 {
			if err := e.d.SetKernelAttribute(k, rt.FuncMaxDynamicSharedSizeBytes, int(c.dyn), 0); err != nil {
				t.Fatal(err)
			}
		}
		out := e.buf(make([]uint32, 2))
		e.launch(k, rt.D1(1), rt.D1(32), c.dyn, out)
		got := make([]uint32, 2)
		e.get(out, got)
		if got[0] != c.total || got[1] != c.aggr {
			t.Errorf("static %d dynamic %d: total %d aggr %d, the H100 gave %d %d", c.static, c.dyn, got[0], got[1], c.total, c.aggr)
		}
	}
}

// TestReservedSharedLimits: the reserved KB does not count against a
// kernel's shared memory: its attributes report the static bytes alone, and
// a launch may still take the device's whole opt-in limit of 227 KB after
// them; one byte more is refused.
func TestReservedSharedLimits(t *testing.T) {
	e := newEnv(t, Options{Deterministic: true})
	src := kernelSrc(".param .u64 out", `
	.reg .b32 %v<4>;
	.reg .b64 %a<2>;
	.shared .align 16 .b8 s[16];
	.extern .shared .align 16 .b8 dyn[];
	mov.u32 %v0, dyn;
	mov.u32 %v1, %dynamic_smem_size;
	add.u32 %v2, %v0, %v1;
	st.shared.u8 [%v2+-1], %v1;
	ld.param.u64 %a1, [out];
	st.global.v2.u32 [%a1], {%v0, %v2};
	ret;`)
	k := e.kernel(e.loadSrc("rsmem2.ptx", src), "k")
	if v, err := e.d.KernelAttribute(k, rt.FuncSharedSizeBytes, 0); err != nil || v != 16 {
		t.Errorf("FuncSharedSizeBytes %d %v, want 16", v, err)
	}
	max := 227<<10 - 16
	if err := e.d.SetKernelAttribute(k, rt.FuncMaxDynamicSharedSizeBytes, max, 0); err != nil {
		t.Fatal(err)
	}
	out := e.buf(make([]uint32, 2))
	e.launch(k, rt.D1(1), rt.D1(1), uint32(max), out)
	got := make([]uint32, 2)
	e.get(out, got)
	if want := []uint32{1040, 1040 + uint32(max)}; !slices.Equal(got, want) {
		t.Errorf("dynamic shared memory at [%d, %d), want [%d, %d)", got[0], got[1], want[0], want[1])
	}
	wantErr(t, e.launchErr(k, rt.D1(1), rt.D1(1), uint32(max+1), out), rt.ErrInvalidValue, "exceed")
}
