package pipeline

import (
	"debug/elf"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/hostile"
	"github.com/cugen/cugen/rt/soft"
)

// compressedObject is a host object whose .nv_fatbin section is zlib-compressed
// (SHF_COMPRESSED) and inflates to a fatbin of about size bytes: one PTX
// entry, SmallPTX padded.
func compressedObject(size int) []byte {
	fb := hostile.Fatbin(hostile.Entry(hostile.KindPTX, 70, 0, hostile.PaddedPTX(size), 0))
	sec := hostile.Compressed(elf.COMPRESS_ZLIB, uint64(len(fb)), hostile.Zlib(fb))
	return hostile.ELF(hostile.Section{Name: ".nv_fatbin", Flags: elf.SHF_COMPRESSED, Data: sec})
}

// TestBudgetPerRun: the inputs of a run decompress within one budget (issue
// 17: one per-run memory budget), not one each: two host objects whose
// sections inflate to 1 MiB each fit a budget of 1.5 MiB one at a time,
// not together, and the error names the input and section that did not fit.
func TestBudgetPerRun(t *testing.T) {
	const mib = 1 << 20
	a, b := compressedObject(mib), compressedObject(mib)
	out := filepath.Join(t.TempDir(), "k.go")
	for _, in := range []Input{{Name: "a.o", Data: a}, {Name: "b.o", Data: b}} {
		budget := fatbin.NewBudget(3 * mib / 2)
		if _, err := Run(&Request{Inputs: []Input{in}, Output: out, Package: "k", Budget: budget}); err != nil {
			t.Fatalf("%s alone: %v", in.Name, err)
		}
		if budget.Peak() < mib {
			t.Errorf("%s: the budget's peak is %d bytes: the section was not decompressed within it", in.Name, budget.Peak())
		}
	}
	inputs := []Input{{Name: "a.o", Data: a}, {Name: "b.o", Data: b}}
	_, err := Run(&Request{Inputs: inputs, Output: out, Package: "k", Budget: fatbin.NewBudget(3 * mib / 2)})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Input != "b.o" || !errors.Is(err, fatbin.ErrBudget) ||
		!strings.Contains(err.Error(), "b.o: fatbin: section .nv_fatbin: decompressed size") ||
		!strings.Contains(err.Error(), "held by sections decompressed before") {
		t.Errorf("two inputs in a budget that holds one: %v", err)
	}
	// -list (Load) shares one budget too.
	if _, err := Load(&Request{Inputs: inputs, Budget: fatbin.NewBudget(3 * mib / 2)}); !errors.Is(err, fatbin.ErrBudget) {
		t.Errorf("Load of two inputs in a budget that holds one: %v", err)
	}
	// Without a Budget, the run's default one holds both.
	if _, err := Run(&Request{Inputs: inputs, Output: out, Package: "k"}); err != nil {
		t.Errorf("the default budget: %v", err)
	}
}

// TestCheckGetsBudget: the generate-time check decompresses within the
// run's budget (rt/soft's CheckBudget is tested in rt/soft).
func TestCheckGetsBudget(t *testing.T) {
	budget := fatbin.NewBudget(fatbin.DefaultBudget)
	var got []*fatbin.Budget
	check := func(name string, image []byte, b *fatbin.Budget) error {
		got = append(got, b)
		return soft.CheckBudget(name, image, b)
	}
	inputs := []Input{{Name: "a.o", Data: compressedObject(1 << 10)}, {Name: "b.ptx", Data: hostile.PaddedPTX(1 << 10)}}
	if _, err := Run(&Request{Inputs: inputs, Output: filepath.Join(t.TempDir(), "k.go"), Package: "k", Budget: budget, Check: check}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != budget || got[1] != budget {
		t.Errorf("the check was given %v, want the run's budget %p twice", got, budget)
	}
}
