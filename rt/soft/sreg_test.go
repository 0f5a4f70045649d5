package soft

import (
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
