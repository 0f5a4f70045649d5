package rttest

import (
	"fmt"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestFakeKernelParamSpecs: the deprecated name answers as KernelParamInfo
// (and counts as a query).
func TestFakeKernelParamSpecs(t *testing.T) {
	f := &Fake{Kernels: []string{"k"}, ParamSpecs: map[string][]rt.ParamSpec{"k": {{Offset: 0, Size: 8}}}}
	got, err := f.KernelParamSpecs(1)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(f.ParamSpecs["k"]) || f.ParamInfos.Load() != 1 {
		t.Errorf("KernelParamSpecs = %v, %v (%d queries)", got, err, f.ParamInfos.Load())
	}
	if _, err := (&Fake{Kernels: []string{"k"}}).KernelParamSpecs(1); rt.CodeOf(err) != rt.ErrNotSupported {
		t.Errorf("without ParamSpecs: %v, want ErrNotSupported", err)
	}
}
