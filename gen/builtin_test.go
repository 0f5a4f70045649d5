package gen

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt/nccl"
)

// The built-in mappings' layouts are their Go types'.
func TestBuiltinMappingLayouts(t *testing.T) {
	for _, b := range builtinMappings {
		if b.Name != "DevComm" {
			t.Fatalf("a built-in mapping this test does not know: %s", b.goPath())
		}
		var d nccl.DevComm
		if b.Size != int64(unsafe.Sizeof(d)) || b.Align != int64(unsafe.Alignof(d)) || b.Size != nccl.DevCommSize {
			t.Errorf("%s: mapped as %d bytes, %d-aligned; nccl.DevComm is %d, %d-aligned", b.CName, b.Size, b.Align, unsafe.Sizeof(d), unsafe.Alignof(d))
		}
	}
}

// A kernel taking ncclDevComm by value gets nccl.DevComm, packed as its bytes.
func TestNcclDevCommParameter(t *testing.T) {
	m := ptxModule(t, "_Z1k11ncclDevCommPi", "\t.param .align 8 .b8 _Z1k11ncclDevCommPi_param_0[88],\n\t.param .u64 _Z1k11ncclDevCommPi_param_1")
	src, err := generate(t, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, src, `"github.com/cugen/cugen/rt/nccl"`, "func K(cfg rt.Config, p0 nccl.DevComm, p1 rt.Ptr[int32]) error",
		"var _ [88]byte = [unsafe.Sizeof(*new(nccl.DevComm))]byte{}")
}

// One compiled against a newer NCCL's header (200 bytes) is refused,
// saying why.
func TestNcclDevCommOtherLayout(t *testing.T) {
	m := ptxModule(t, "_Z1k11ncclDevComm", "\t.param .align 8 .b8 _Z1k11ncclDevComm_param_0[200]")
	_, err := generate(t, m, Options{})
	if err == nil || !strings.Contains(err.Error(), "ncclDevComm is 88 bytes, 8-byte aligned, but the binary passes 200 bytes") || !strings.Contains(err.Error(), "another NCCL's nccl_device.h") {
		t.Errorf("error %v", err)
	}
	// A -type mapping of the name wins over the built-in one.
	if _, err := generate(t, m, Options{Types: []TypeMapping{{CName: "ncclDevComm", PkgPath: "x/y", PkgName: "y", Name: "Big", Size: 200, Align: 8}}}); err != nil {
		t.Errorf("with -type: %v", err)
	}
}
