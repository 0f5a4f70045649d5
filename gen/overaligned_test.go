package gen

import (
	"strings"
	"testing"
)

// A CUtensorMap passed by value is an rt.TensorMap, and a parameter aligned
// above 16 bytes carries its alignment in its rt.ParamSpec, for rt to have
// it placed where the compiled kernel reads it; others carry none.
func TestOverAlignedParamSpec(t *testing.T) {
	m := ptxModule(t, "_Z3tma14CUtensorMap_stPf4int4",
		"\t.param .align 128 .b8 _Z3tma14CUtensorMap_stPf4int4_param_0[128],\n"+
			"\t.param .u64 _Z3tma14CUtensorMap_stPf4int4_param_1,\n"+
			"\t.param .align 16 .b8 _Z3tma14CUtensorMap_stPf4int4_param_2[16]")
	src, err := generate(t, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, src,
		"rt.ParamSpec{Offset: 0, Size: 128, Align: 128}",
		"rt.ParamSpec{Offset: 128, Size: 8},",
		"rt.ParamSpec{Offset: 144, Size: 16},",
		"p0 rt.TensorMap",
		"p0.Put(args[0:])",
	)
	if strings.Count(src, "Align:") != 1 {
		t.Errorf("Align on more than the over-aligned parameter:\n%s", src)
	}
}
