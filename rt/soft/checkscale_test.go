package soft

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt/soft/loadcheck"
)

// manyKernels is a module of n small kernels.
func manyKernels(n int) []byte {
	var b strings.Builder
	b.WriteString(".version 7.0\n.target sm_70\n.address_size 64\n")
	for i := range n {
		fmt.Fprintf(&b, `.visible .entry k%d(.param .u64 p)
{
	.reg .b64 %%rd<3>;
	.reg .b32 %%r<2>;
	ld.param.u64 %%rd1, [p];
	cvta.to.global.u64 %%rd2, %%rd1;
	mov.u32 %%r1, %d;
	st.global.u32 [%%rd2], %%r1;
	ret;
}
`, i, i)
	}
	return []byte(b.String())
}

// allocPerKernel is the bytes CheckBudget allocates per kernel of a
// module of n kernels.
func allocPerKernel(t testing.TB, n int) float64 {
	img := manyKernels(n)
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	if err := loadcheck.CheckBudget("many.ptx", img, nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&b)
	return float64(b.TotalAlloc-a.TotalAlloc) / float64(n)
}

// TestCheckLinearInKernels checks that the soft check's work per kernel
// does not grow with the number of kernels in the module: each kernel's
// decoder used to copy every name of the module (O(n²) for n kernels:
// 17 s for 10,000). Measured in bytes allocated, which the machine's load
// does not change; BenchmarkCheckKernels has the times.
func TestCheckLinearInKernels(t *testing.T) {
	small, large := allocPerKernel(t, 200), allocPerKernel(t, 4000)
	t.Logf("bytes allocated per kernel: %.0f with 200 kernels, %.0f with 4000", small, large)
	if large > 1.5*small {
		t.Errorf("checking a kernel of a 4000-kernel module allocates %.0f bytes, %.1f× what one of a 200-kernel module does (%.0f): the check grows with the module", large, large/small, small)
	}
}

func BenchmarkCheckKernels(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		img := manyKernels(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if err := loadcheck.CheckBudget("many.ptx", img, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCheckSkipsHugeKernel: a kernel over MaxCheckedBody is not checked
// (a *loadcheck.CheckSkipped names it) while the module's other kernels still are.
func TestCheckSkipsHugeKernel(t *testing.T) {
	var b strings.Builder
	b.WriteString(".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry huge() { .reg .b32 %r<4>; ")
	for b.Len() < loadcheck.MaxCheckedBody+1024 {
		b.WriteString("add.s32 %r1, %r2, %r3; ")
	}
	b.WriteString("ret; }\n.visible .entry small() { ret; }\n")
	err := loadcheck.Check("h.ptx", []byte(b.String()))
	var sk *loadcheck.CheckSkipped
	if !errors.As(err, &sk) || len(sk.Funcs) != 1 || sk.Funcs[0] != "huge" || !strings.Contains(err.Error(), "kernel huge") || !strings.Contains(err.Error(), "-gpu-only") {
		t.Fatalf("Check of a module with a %d-byte kernel: %v, want a CheckSkipped naming kernel huge and -gpu-only", b.Len(), err)
	}
	// A small kernel that rt/soft cannot run is still reported.
	bad := strings.Replace(b.String(), ".entry small() { ret; }", ".entry small() { frobnicate.u32 %r1; ret; }", 1)
	if err := loadcheck.Check("h.ptx", []byte(bad)); err == nil || errors.As(err, &sk) {
		t.Errorf("a bad small kernel beside a huge one: %v, want its error", err)
	}
}
