package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// On the clang route, #include <nccl_device.h> is cugen's declaration of
// NCCL 2.28.3's ncclDevComm: a kernel taking one by value passes the 88
// bytes NCCL lays out, and cugen types the parameter as rt/nccl's DevComm
// (through the typedef too, for a C-linkage kernel).
func TestNcclDevCommClang(t *testing.T) {
	cc := cliClang(t)
	dir := t.TempDir()
	cu := filepath.Join(dir, "k.cu")
	src := `#include <nccl_device.h>
__global__ void rankOf(ncclDevComm comm, int *out) { *out = ncclTeamWorld(comm).rank + comm.lsaSize; }
extern "C" __global__ void sizeOf(ncclDevComm_t comm, int *out) { *out = comm.nRanks; }
`
	if err := os.WriteFile(cu, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "k_cugen.go")
	code, _, stderr := runCLI(t, "-compiler", "clang", "-cc", cc, "-src", cu, "-pkg", "k", "-o", out, cu)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	gen, _ := os.ReadFile(out)
	for _, want := range []string{
		`nccl "github.com/cugen/cugen/rt/nccl"`,
		"func RankOf(cfg rt.Config, comm nccl.DevComm, out rt.Ptr[int32]) error",
		"func SizeOf(cfg rt.Config, comm nccl.DevComm, out rt.Ptr[int32]) error",
	} {
		if !strings.Contains(string(gen), want) {
			t.Errorf("generated file lacks %q", want)
		}
	}
	ptx, _ := os.ReadFile(filepath.Join(dir, "k.ptx"))
	if n := len(regexp.MustCompile(`\.param \.align 8 \.b8 \w+_param_0\[88\]`).FindAll(ptx, -1)); n != 2 {
		t.Errorf("%d kernels take an 88-byte, 8-aligned first parameter, want 2:\n%s", n, ptx)
	}
}
