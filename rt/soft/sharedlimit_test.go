package soft

import (
	"strconv"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

// sharedKernel is a module whose kernel k declares n bytes of static
// shared memory (and touches it, so that it is used).
func sharedKernel(n int) string {
	return softtest.PTXHeader + ".visible .entry k()\n{\n.shared .align 4 .b8 s[" + strconv.Itoa(n) + "];\n.reg .b32 %r<2>;\nmov.u32 %r1, 1;\nst.shared.u32 [s], %r1;\nret;\n}\n"
}

// TestStaticSharedOver48KiBRuns: ptxas refuses a kernel with more than
// 48 KiB of static shared memory (cugen says so at generate time), but the
// H200's driver JIT loads and runs one (rt/cgo's
// TestStaticSharedOver48KiBGPU: "64 KiB static shared: synchronize:
// <nil>"), and so does soft. Its max-dynamic-shared attribute is 0, not
// the -16384 soft reported before.
func TestStaticSharedOver48KiBRuns(t *testing.T) {
	e := newEnv(t, Options{})
	k := e.kernel(e.loadSrc("big.ptx", sharedKernel(64<<10)), "k")
	if v, err := e.d.KernelAttribute(k, rt.FuncMaxDynamicSharedSizeBytes, 0); err != nil || v != 0 {
		t.Errorf("64 KiB static: max dynamic shared %d, %v; want 0", v, err)
	}
	if err := e.launchErr(k, rt.D1(1), rt.D1(32), 0); err != nil {
		t.Errorf("launch of a kernel with 64 KiB static shared memory: %v (the H200 runs it)", err)
	}
	// Exactly 48 KiB has no dynamic shared memory left.
	k = e.kernel(e.loadSrc("edge.ptx", sharedKernel(48<<10)), "k")
	if v, err := e.d.KernelAttribute(k, rt.FuncMaxDynamicSharedSizeBytes, 0); err != nil || v != 0 {
		t.Errorf("48 KiB static: max dynamic shared %d, %v; want 0", v, err)
	}
}

// TestMaxDynamicSharedLimit: the attribute is 48 KiB less the static
// memory until set, and may be set up to 227 KiB less it, not beyond.
func TestMaxDynamicSharedLimit(t *testing.T) {
	e := newEnv(t, Options{})
	k := e.kernel(e.loadSrc("s40.ptx", sharedKernel(40<<10)), "k")
	if v, err := e.d.KernelAttribute(k, rt.FuncMaxDynamicSharedSizeBytes, 0); err != nil || v != 8<<10 {
		t.Fatalf("max dynamic shared %d, %v; want 8192", v, err)
	}
	top := 227<<10 - 40<<10
	if err := e.d.SetKernelAttribute(k, rt.FuncMaxDynamicSharedSizeBytes, top+1, 0); err == nil {
		t.Fatalf("set to %d (above 227 KiB less 40 KiB static) accepted", top+1)
	} else {
		softtest.WantErr(t, err, rt.ErrInvalidValue, `max dynamic shared memory 191489: it must be 0 to 191488 bytes .*232448 per block opted in, less the kernel's 40960 static`)
	}
	if err := e.d.SetKernelAttribute(k, rt.FuncMaxDynamicSharedSizeBytes, top, 0); err != nil {
		t.Fatal(err)
	}
	if err := e.launchErr(k, rt.D1(1), rt.D1(32), uint32(top)); err != nil {
		t.Errorf("launch with %d dynamic bytes after the opt-in: %v", top, err)
	}
	err := e.launchErr(k, rt.D1(1), rt.D1(32), uint32(top+1))
	if err == nil {
		t.Errorf("launch with %d dynamic bytes (over the opt-in) accepted", top+1)
	}
}
