package parse

import (
	"debug/elf"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/hostile"
)

// FuzzRead feeds any bytes to Read, as cugen does with its input, within a
// small budget: it must fail with an error naming the file or return a
// model whose image is bounded by the input and the budget. Seeds are small
// (see parse/fatbin's fuzz tests for why and how to run a fuzzer).
func FuzzRead(f *testing.F) {
	const limit = 4 << 20
	ptx := []byte(hostile.SmallPTX)
	fb := hostile.Fatbin(hostile.Entry(hostile.KindPTX, 70, 0, ptx, 0))
	f.Add(ptx)
	f.Add(hostile.ParamPTX([]int{8, 4}, []int{40000}))
	f.Add([]byte(".version 8.0\n.target sm_70\n.address_size 64\n.global .align 4 .u32 g[4] = {1, 2, 3};\n.const .b8 c[2] = {0xff00(g), 7};\n"))
	f.Add(fb)
	f.Add(hostile.ELF(hostile.Section{Name: ".nv_fatbin", Flags: elf.SHF_ALLOC, Data: fb}, hostile.Section{Name: ".nv_fatbin", Same: 0}))
	f.Add(hostile.ELF(hostile.Section{Name: ".nv_fatbin", Flags: elf.SHF_COMPRESSED,
		Data: hostile.Compressed(elf.COMPRESS_ZLIB, uint64(len(fb)), hostile.Zlib(fb))}))
	f.Fuzz(func(t *testing.T, data []byte) {
		mod, err := Read("f", data, Options{Budget: fatbin.NewBudget(limit)})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		if len(mod.Image) > len(data)+limit {
			t.Fatalf("%d-byte image from %d bytes", len(mod.Image), len(data))
		}
		for _, k := range mod.Kernels {
			if k.ParamSize < 0 || k.Name == "" {
				t.Fatalf("kernel %q with a %d-byte parameter block", k.Name, k.ParamSize)
			}
		}
	})
}
