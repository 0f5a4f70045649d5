package cubin_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/cugen/cugen/parse/cubin"
)

// The seed corpus in testdata/fuzz holds the 4 KB device-link stub cubin
// of k.so (no .nv.info); the synthetic cubins below, each about 2 KB, add
// kernels with REQNTID, cluster rank, EXTERNS, unknown records and a
// KPARAM_INFO_V2 block. The corpus cubins (12-64 KB) are not seeds: the
// fuzzer spent its time minimizing inputs grown from them (22 executions
// in 90 s). See parse/fatbin's fuzz tests for how to run a fuzzer.

func FuzzCubin(f *testing.F) {
	f.Add(buildCubin([]synthKernel{
		{name: "a", params: [][2]uint16{{0, 8}, {8, 4}}, code: 16, regCount: 9,
			records: slices.Concat(sval(0x10, 32, 1, 1), sval(0x3f, 2), rec(4, 0xee, 4, 1, 2, 3, 4)),
			externs: []string{"x"}},
		{name: "b", params: [][2]uint16{{0, 5000}}, v2: true, code: 16},
	}))
	f.Add(buildCubin([]synthKernel{{name: "_Z1kPfi", params: [][2]uint16{{0, 8}, {8, 4}}, code: 32, regCount: 12}}))
	f.Add(buildCubin(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := cubin.Parse(data)
		if err != nil {
			var fe *cubin.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is no FormatError: %v", err)
			}
			return
		}
		for _, k := range file.Kernels {
			if !slices.IsSortedFunc(k.Params, func(a, b cubin.Param) int { return a.Ordinal - b.Ordinal }) {
				t.Fatalf("%s: params not sorted", k.Name)
			}
			for _, a := range k.Attrs {
				if a.Off < 0 || a.Off+4+int64(len(a.Data)) > int64(len(data)) {
					t.Fatalf("%s: record at %#x outside the file", k.Name, a.Off)
				}
			}
		}
		for _, g := range file.Globals {
			if g.Init != nil && uint64(len(g.Init)) != g.Size {
				t.Fatalf("%s: %d initializer bytes for size %d", g.Name, len(g.Init), g.Size)
			}
		}
	})
}
