package gen

import (
	"strings"
	"testing"
)

// Variadic kernels from hand-written PTX whose names are mangled by hand,
// forms nvcc cannot emit for a kernel among them (two packs): each pack
// element is a parameter, and the names read as the template arguments.
func TestVariadicKernels(t *testing.T) {
	m := entries(t, "v.ptx", []string{
		"_Z2vkIJifEEvPyDpT_:u64 u32 f32",
		"_Z2vkIJEEvPyDpT_:u64",
		"_Z3twoIJifEJdEEvDpT_DpT0_:u32 f32 f64",
		"_Z4ptrsIJifEEvDpPKT_:u64 u64",
		"_Z4wrapIJifEEvDp4WrapIT_E:b8x4 b8x4",
		"_Z3tupIJifEEv5TupleIJDpT_EE:b8x1",
		"_Z3badIJifEEvDpT_:u32",
	})
	if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "kernel _Z3badIJifEEvDpT_ (v.ptx:") ||
		!strings.HasSuffix(m.Warnings[0], "parameters typed by their binary widths: its mangled name has 2 parameters, the code 1") {
		t.Errorf("warnings %q", m.Warnings)
	}
	src, err := generate(t, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, src,
		"func VkInt32Float32(cfg rt.Config, p0 rt.Ptr[uint64], p1 int32, p2 float32) error",
		"func Vk(cfg rt.Config, p0 rt.Ptr[uint64]) error",
		"func TwoInt32Float32Float64(cfg rt.Config, p0 int32, p1 float32, p2 float64) error",
		"func PtrsInt32Float32(cfg rt.Config, p0 rt.ConstPtr[int32], p1 rt.ConstPtr[float32]) error",
		"func WrapInt32Float32(cfg rt.Config, p0 WrapInt32, p1 WrapFloat32) error",
		"func TupInt32Float32(cfg rt.Config, p0 TupleInt32Float32) error",
		"func BadInt32Float32(cfg rt.Config, p0 uint32) error",
		"// cugen could not type its parameters (its mangled name has 2 parameters, the code 1),",
	)
}
