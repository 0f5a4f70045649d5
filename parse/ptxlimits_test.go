package parse

import (
	"errors"
	"strings"
	"testing"
)

const limitsPTX = `.version 8.0
.target sm_90
.address_size 64
.shared .align 4 .b8 big[65536];
.shared .align 4 .b8 half[32768];
.shared .align 4 .b8 unused[65536];
.extern .shared .align 16 .b8 dyn[];
.func helper()
{
	.reg .b64 %rd<2>;
	mov.u64 %rd1, half;
	ret;
}
.visible .entry overStatic()
{
	.reg .b64 %rd<2>;
	mov.u64 %rd1, big; // big, once, however often it is named
	mov.u64 %rd1, big;
	ret;
}
.visible .entry viaCallee()
{
	.shared .align 8 .b8 local_one[8192], local_two[8192];
	call.uni helper, ();
	ret;
}
.visible .entry dynamic()
{
	.reg .b64 %rd<2>;
	mov.u64 %rd1, dyn;
	call.uni helper, ();
	ret;
}
.visible .entry tooManyThreads() .maxntid 2048, 1, 1
{
	ret;
}
.visible .entry tooManyReq() .reqntid 32, 32, 2
{
	ret;
}
.visible .entry justRight() .maxntid 1024 .reqntid 32, 32
{
	.shared .align 4 .b8 exact[49152];
	ret;
}
.visible .entry bigFrame()
{
	.local .align 16 .b8 __local_depot0[600000];
	ret;
}
`

// TestPTXLimits: what ptxas refuses fails Read with an error per limit,
// each at the kernel's line; what it takes sets the kernels' static and
// dynamic shared memory.
func TestPTXLimits(t *testing.T) {
	_, err := Read("k.ptx", []byte(limitsPTX), Options{})
	if err == nil {
		t.Fatal("read")
	}
	var limits []*LimitError
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var le *LimitError
		if !errors.As(e, &le) {
			t.Fatalf("%v is not a LimitError", e)
		}
		limits = append(limits, le)
	}
	want := []string{
		"k.ptx:14: kernel overStatic: 65536 bytes of static shared memory (__shared__ arrays, its callees' included), over the 49152 (48 KiB) a kernel may declare: ptxas refuses it; declare the array extern __shared__",
		"k.ptx:34: kernel tooManyThreads: .maxntid 2048,1,1 is 2048 threads per block, over the 1024 of every device",
		"k.ptx:38: kernel tooManyReq: .reqntid 32,32,2 is 2048 threads per block",
		"k.ptx:47: kernel bigFrame: a local frame of 600000 bytes per thread",
	}
	if len(limits) != len(want) {
		t.Fatalf("%d errors, want %d:\n%v", len(limits), len(want), err)
	}
	for i, le := range limits {
		if !strings.HasPrefix(le.Error(), want[i]) {
			t.Errorf("error %d:\n%s\nwant prefix\n%s", i, le, want[i])
		}
	}
	// viaCallee's 16 KiB of its own and helper's 32 KiB make exactly 48 KiB:
	// that is no error. The model of what passes:
	ok := strings.NewReplacer(".shared .align 4 .b8 big[65536];", ".shared .align 4 .b8 big[4096];",
		"local_two[8192]", "local_two[4096]", ".maxntid 2048, 1, 1", ".maxntid 256",
		".reqntid 32, 32, 2", ".reqntid 32, 32, 1", "__local_depot0[600000]", "__local_depot0[64]").Replace(limitsPTX)
	m, err := Read("k.ptx", []byte(ok), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]struct {
		bytes int
		dyn   bool
	}{"overStatic": {4096, false}, "viaCallee": {8192 + 4096 + 32768, false}, "dynamic": {32768, true}, "justRight": {49152, false}, "bigFrame": {0, false}} {
		k := m.Kernel(name)
		if k.SharedBytes != w.bytes || k.DynamicShared != w.dyn {
			t.Errorf("%s: SharedBytes %d, DynamicShared %v; want %d, %v", name, k.SharedBytes, k.DynamicShared, w.bytes, w.dyn)
		}
	}
	le := &LimitError{Pos: limits[0].Pos, Name: "overStatic", Msg: "m", Source: "k.cu:3:17"}
	if le.Error() != "k.cu:3:17: m (line 14 of the PTX)" {
		t.Errorf("with a source: %s", le)
	}
}

// TestPTXConstBank: more than 64 KiB of __constant__ data in one module.
func TestPTXConstBank(t *testing.T) {
	src := ".version 8.0\n.target sm_90\n.address_size 64\n.const .align 4 .b8 a[40000];\n.const .align 4 .b8 b[40000];\n.extern .const .align 4 .b8 c[40000];\n"
	_, err := Read("c.ptx", []byte(src), Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "c.ptx:5: .const b: the module's constant data reach 80000 bytes, over the 65536 (64 KiB)") {
		t.Errorf("got %v", err)
	}
}
